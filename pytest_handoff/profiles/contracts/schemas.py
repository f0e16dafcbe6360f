"""A contract's schemas: read from the project (JSON or YAML), checked, and never fetched from the network.

A schema is checked when its profile is first used in a run: it must itself be a valid schema (jsonschema's
``check_schema``; a schema that keeps to the keywords :mod:`~pytest_handoff.fastcheck` compiles is
checked here against the same meta-schema rules, without importing jsonschema), and every
``$ref`` must lead to a local file: a remote one (http, https) only through ``schema-map``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_handoff.profiles.contracts.files import file_uri, local_path, read_data_file
from pytest_handoff.profiles.contracts.patterns import (
    check_schema_patterns,
    linear_additional_properties,
    linear_pattern,
    linear_pattern_properties,
    schema_pattern,
)
from pytest_handoff.profiles.contracts.refcycles import cycle_message, ref_cycle, refuse_ref_cycle
from pytest_handoff.values.errors import ConfigError

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

    from pytest_handoff.profiles.contracts.config import Contract
    from pytest_handoff.validation.fastcheck import Check
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.findings import Finding

_DRAFTS = (
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft/2020-12/schema",
)
_TYPES = frozenset({"object", "array", "string", "boolean", "null", "number", "integer"})
_SUBSCHEMA = ("additionalProperties", "items", "propertyNames")
_LENGTHS = ("minItems", "maxItems", "minLength", "maxLength")
_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
_STRINGS = ("format", "pattern", "$schema", "$id", "$comment", "title", "description")


def _walk(node: Any) -> Iterator[Any]:
    """Every dict and list inside ``node`` (itself included), without recursion."""
    pending = [node]
    while pending:
        current = pending.pop()
        yield current
        if isinstance(current, dict):
            pending.extend(v for v in current.values() if isinstance(v, (dict, list)))
        elif isinstance(current, list):
            pending.extend(v for v in current if isinstance(v, (dict, list)))


def _is_subset(schema: Any) -> bool:
    """True when every schema keyword used is one fastcheck compiles (and no ``$ref`` anywhere)."""
    from pytest_handoff.validation.fastcheck import _SUPPORTED

    declared = schema.get("$schema", _DRAFTS[0]) if isinstance(schema, dict) else _DRAFTS[0]
    if not isinstance(declared, str) or declared.rstrip("#") not in _DRAFTS:
        return False  # not a string: jsonschema's check says so
    pending = [schema]
    while pending:
        node = pending.pop()
        if not isinstance(node, dict):
            continue  # a boolean schema, or no schema at all (which the meta-schema check refuses)
        if not set(node) <= _SUPPORTED:
            return False
        for key in _SUBSCHEMA:
            if key in node:
                pending.append(node[key])
        for key in ("properties",):
            if isinstance(node.get(key), dict):
                pending.extend(node[key].values())
        if isinstance(node.get("anyOf"), list):
            pending.extend(node["anyOf"])
    return True


def _subset_problem(schema: Any, start: str = "") -> str | None:
    """What makes a schema of fastcheck's keywords invalid under its meta-schema (None: valid).

    Mirrors the draft-07 and 2020-12 meta-schemas for those keywords (tests compare it with
    jsonschema's ``check_schema``).
    """
    pending: list[tuple[Any, str]] = [(schema, start)]
    while pending:
        node, where = pending.pop()
        at = where or "the root"
        if isinstance(node, bool):
            continue
        if not isinstance(node, dict):
            return f"the schema at {at} must be an object or a boolean"
        kind = node.get("type")
        if "type" in node and not (
            (isinstance(kind, str) and kind in _TYPES)
            or (
                isinstance(kind, list)
                and kind
                and all(isinstance(k, str) and k in _TYPES for k in kind)
                and len(set(kind)) == len(kind)
            )
        ):
            return f"'type' at {at} must be one of {', '.join(sorted(_TYPES))} (or a list of them)"
        for key in _LENGTHS:
            value = node.get(key)
            if key in node and not (
                not isinstance(value, bool)
                and (isinstance(value, int) or (isinstance(value, float) and value.is_integer()))
                and value >= 0
            ):
                return f"'{key}' at {at} must be a whole number of at least 0"
        for key in _BOUNDS:
            if key in node and (isinstance(node[key], bool) or not isinstance(node[key], (int, float))):
                return f"'{key}' at {at} must be a number"
        for key in _STRINGS:
            if key in node and not isinstance(node[key], str):
                return f"'{key}' at {at} must be a string"
        if "pattern" in node:
            try:
                re.compile(node["pattern"])
            except re.error as error:
                return f"'pattern' at {at} is not a regular expression: {error}"
        required = node.get("required")
        if "required" in node and not (
            isinstance(required, list)
            and all(isinstance(name, str) for name in required)
            and len(set(required)) == len(required)
        ):
            return f"'required' at {at} must be a list of distinct property names"
        for key in ("enum", "examples"):
            if key in node and not isinstance(node[key], list):
                return f"'{key}' at {at} must be a list"
        if "properties" in node:
            if not isinstance(node["properties"], dict):
                return f"'properties' at {at} must be an object of schemas"
            pending.extend(
                (value, f"{where}/properties/{name}") for name, value in node["properties"].items()
            )
        if "anyOf" in node:
            if not isinstance(node["anyOf"], list) or not node["anyOf"]:
                return f"'anyOf' at {at} must be a non-empty list of schemas"
            pending.extend((value, f"{where}/anyOf/{index}") for index, value in enumerate(node["anyOf"]))
        for key in _SUBSCHEMA:
            if key in node:
                pending.append((node[key], f"{where}/{key}"))
    return None


def _refs(schema: Any, base: str) -> Iterator[str]:
    """Every ``$ref`` of ``schema`` as an absolute URI (against ``$id`` where one is set), fragment cut."""
    if not any(isinstance(node, dict) and "$ref" in node for node in _walk(schema)):
        return  # the common case, without importing urllib
    from urllib.parse import urldefrag, urljoin

    pending: list[tuple[Any, str]] = [(schema, base)]
    while pending:
        node, here = pending.pop()
        if isinstance(node, dict):
            if isinstance(node.get("$id"), str):
                here = urljoin(here, node["$id"])
            ref = node.get("$ref")
            if isinstance(ref, str):
                target = urldefrag(urljoin(here, ref)).url
                if target and target != urldefrag(here).url:
                    yield target
            pending.extend((value, here) for value in node.values() if isinstance(value, (dict, list)))
        elif isinstance(node, list):
            pending.extend((value, here) for value in node if isinstance(value, (dict, list)))


def remote_ref_message(uri: str, path: str) -> str:
    return (
        f"{path}: $ref {uri!r} is remote: schemas are never fetched from the network; map it to a local "
        f'file with schema-map = {{"{uri}" = "schemas/<file>.json"}} in [tool.handoff.contracts]'
    )


def schema_files_digest(contract: Contract) -> str:
    """The names, sizes and modification times of a contract's schema files and their neighbours.

    Only ``stat``: the files next to a schema are where its relative ``$ref`` s lead, and a
    changed one must change the result cache's key. Missing files count as such (the check at
    first use reports them).
    """
    import zlib  # not hashlib: its OpenSSL module costs every run milliseconds to import

    digest = 0
    named = {p for p in (contract.schema, *contract.schemas.values(), *contract.schema_map.values()) if p}
    folders = {os.path.dirname(path) for path in named}
    files = set(named)
    for folder in folders:
        try:
            with os.scandir(folder) as entries:
                files.update(e.path for e in entries if e.name.endswith((".json", ".yaml", ".yml")))
        except OSError:
            continue
    for path in sorted(files):
        try:
            info = os.stat(path)
            seen = f"{path}\0{info.st_size}\0{info.st_mtime_ns}\0"
        except OSError:
            seen = f"{path}\0missing\0"
        digest = zlib.crc32(seen.encode(), digest)
    return f"{len(files)}:{digest:08x}"


def check_schema_file(path: str, schema_map: Mapping[str, str]) -> None:
    """Check a contract's schema and every schema it refers to.

    Raises ConfigError naming the file: missing, unreadable, not itself a valid schema, with a
    ``$ref`` that leads to the network (unless mapped) or to a missing file, or with ``$ref`` s
    that form a cycle checking no part of the value (:mod:`.refcycles`).
    """
    pending = [Path(path)]
    seen: set[str] = set()
    root: Any = None
    while pending:
        current = pending.pop()
        key = os.path.normcase(os.path.abspath(current))
        if key in seen:
            continue
        schema = read_data_file(current)
        root = root if seen else schema
        seen.add(key)
        problem = _schema_problem(schema)
        if problem is not None:
            raise ConfigError(f"{current}: not a valid JSON Schema: {problem}")
        check_schema_patterns(schema, str(current))
        for uri in _refs(schema, file_uri(current)):
            local = local_path(uri, schema_map)
            if local is None:
                raise ConfigError(remote_ref_message(uri, str(current)))
            if not local.is_file():
                raise ConfigError(f"{current}: $ref {uri!r}: no such file {local}")
            pending.append(local)
    refuse_ref_cycle(root, path, schema_map)


def _schema_problem(schema: Any) -> str | None:
    if _is_subset(schema):
        return _subset_problem(schema)
    parts = _parts_without_refs(schema)
    if parts is not None:
        return next(filter(None, (_subset_problem(part, where) for part, where in parts)), None)
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for

    if not isinstance(schema, (dict, bool)):
        return "the schema at the root must be an object or a boolean"
    if isinstance(schema, dict) and "$schema" in schema and not isinstance(schema["$schema"], str):
        return "'$schema' must be a string"
    cls = validator_for(schema, default=_default_validator())
    try:
        # A boolean schema is checked too (the stubs say dict).
        cls.check_schema(schema)  # type: ignore[arg-type]
    except SchemaError as error:
        where = "/".join(str(part) for part in error.absolute_path) or "the root"
        return f"{error.message} (at {where})"
    except RecursionError:
        return "it nests more deeply than can be checked"
    return None


# A URI reference's characters (RFC 3986): anything else goes to jsonschema, whose "uri-reference"
# format check applies when rfc3986-validator is installed.
_URI_REFERENCE = re.compile(r"[A-Za-z0-9._~:/?#\[\]@!$&'()*+,;=%-]*")


def _parts_without_refs(schema: Any) -> list[tuple[Any, str]] | None:
    """A schema of fastcheck's keywords plus ``$ref`` and definitions, as parts to check alike.

    The schema without its ``$ref`` s (a string: all the meta-schemas ask) and each definition
    (``definitions``, and ``$defs`` in 2020-12; draft-07 does not look into ``$defs``) on its own,
    with its place; None when anything else is used, and jsonschema checks it.
    """
    from pytest_handoff.profiles.contracts.bundle import DRAFT_2020_12, draft_of

    draft = draft_of(schema)
    if draft is None or not isinstance(schema, dict):
        return None
    checked = ("$defs", "definitions") if draft == DRAFT_2020_12 else ("definitions",)
    parts: list[tuple[Any, str]] = []
    pending: list[tuple[Any, str]] = [(schema, "")]
    while pending:
        node, where = pending.pop()
        if not isinstance(node, dict):
            parts.append((node, where))
            continue
        ref = node.get("$ref")
        if "$ref" in node and not (isinstance(ref, str) and _URI_REFERENCE.fullmatch(ref)):
            return None
        rest = {key: value for key, value in node.items() if key not in ("$ref", "$defs", "definitions")}
        for key in checked:
            if key in node:
                if not isinstance(node[key], dict):
                    return None
                pending.extend((sub, f"{where}/{key}/{name}") for name, sub in node[key].items())
        # Nested $refs and definitions: their subschemas become parts of their own.
        for key, value in list(rest.items()):
            if key == "properties" and isinstance(value, dict):
                rest[key] = dict.fromkeys(value, True)
                pending.extend((sub, f"{where}/properties/{name}") for name, sub in value.items())
            elif key == "anyOf" and isinstance(value, list) and value:
                rest[key] = [True] * len(value)
                pending.extend((sub, f"{where}/anyOf/{index}") for index, sub in enumerate(value))
            elif key in _SUBSCHEMA:
                if isinstance(value, list):
                    return None  # "items" as a list: valid in draft-07 only
                rest[key] = True
                pending.append((value, f"{where}/{key}"))
        if not _is_subset(rest):
            return None
        parts.append((rest, where))
    return parts


def _default_validator() -> Any:
    from jsonschema import Draft7Validator

    return Draft7Validator


class UserSchema:
    """A contract's schema, prepared once: a fast yes/no check when it allows one, jsonschema for errors."""

    def __init__(self, path: str, schema: Any, schema_map: Mapping[str, str]) -> None:
        self.path = path
        self.schema = schema
        self.schema_map = schema_map
        self.is_valid: Check | None = None
        self.cycle: str | None = None  # a $ref cycle checking no part of the value: never validated
        if _is_subset(schema):
            from pytest_handoff.validation.fastcheck import compile_schema

            self.is_valid = compile_schema(schema, schema_pattern)
        elif any(isinstance(node, dict) and "$ref" in node for node in _walk(schema)):
            # $refs inlined for the yes/no check; the errors still come from the original.
            from pytest_handoff.profiles.contracts.bundle import inline_refs

            inlined = inline_refs(schema, path, schema_map)
            if inlined is not None and _is_subset(inlined) and _subset_problem(inlined) is None:
                from pytest_handoff.validation.fastcheck import compile_schema

                self.is_valid = compile_schema(inlined, schema_pattern)
            elif inlined is None:  # recursive, maybe without end
                self.cycle = ref_cycle(schema, path, schema_map)
        self._full: Validator | None = None

    @property
    def full(self) -> Validator:
        """jsonschema's validator, with a registry that reads local files and refuses the network."""
        if self.cycle is not None:
            raise ConfigError(cycle_message(path_name(self.path), self.cycle))
        if self._full is None:
            self._full = self._build()
        return self._full

    def _build(self) -> Validator:
        import jsonschema
        from jsonschema.validators import validator_for
        from referencing import Registry, Resource
        from referencing.exceptions import NoSuchResource

        from pytest_handoff.validation.formats import is_rfc3339_date_time

        schema_map, path = self.schema_map, self.path
        cls = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
            validator_for(self.schema, default=jsonschema.Draft7Validator),
            {
                "pattern": linear_pattern,
                "patternProperties": linear_pattern_properties,
                "additionalProperties": linear_additional_properties,
            },
        )
        specification = cls.META_SCHEMA.get("$schema", _DRAFTS[0])

        def retrieve(uri: str) -> Resource[Any]:
            local = local_path(uri, schema_map)
            if local is None:
                raise NoSuchResource(ref=remote_ref_message(uri, path))  # type: ignore[call-arg]
            from referencing.jsonschema import specification_with

            contents = read_data_file(local)
            return Resource.from_contents(contents, default_specification=specification_with(specification))

        schema = self.schema
        if isinstance(schema, dict) and "$id" not in schema:
            # Relative $refs resolve from the schema's own folder.
            schema = {"$id": file_uri(Path(path)), **schema}
        format_checker = jsonschema.FormatChecker()
        format_checker.checks("date-time")(is_rfc3339_date_time)
        registry: Registry[Any] = Registry(retrieve=retrieve)  # type: ignore[call-arg]
        validator: Validator = cls(schema, registry=registry, format_checker=format_checker)
        return validator

    def accepts(self, document: Document) -> bool:
        """Whether ``document`` is valid (its errors neither listed nor placed)."""
        if self.is_valid is not None:
            return self.is_valid(document.data)
        from referencing.exceptions import Unresolvable

        try:
            return bool(self.full.is_valid(document.data))
        except (Unresolvable, ConfigError, RecursionError):
            return False

    def findings(self, document: Document) -> list[Finding]:
        """Schema errors of ``document`` (HS001) at their places; none for a valid document."""
        if self.is_valid is not None and self.is_valid(document.data):
            return []
        from referencing.exceptions import Unresolvable

        from pytest_handoff.validation.schemas import validate_document

        try:
            return list(validate_document(document, self.full, compile_pattern=schema_pattern))
        except (Unresolvable, ConfigError, RecursionError) as error:
            from pytest_handoff.values.findings import Finding, Severity

            ref = str(getattr(error, "ref", ""))
            remote = ref and local_path(ref, self.schema_map) is None
            reason = remote_ref_message(ref, path_name(self.path)) if remote else str(error)
            if isinstance(error, RecursionError):
                reason = f"{path_name(self.path)}: checking this document against it nests too deeply"

            return [
                Finding(
                    path=document.display_path, line=1, column=1, end_line=1, end_column=1, code="HS001",
                    severity=Severity.ERROR, message=f"schema cannot be used: {reason}",
                    logical=document.logical,
                )
            ]  # fmt: skip


def path_name(path: str) -> str:
    return Path(path).name


# Schemas by file, as last read: (path, size, mtime, schema map) -> UserSchema.
_loaded: dict[tuple[str, int, int, tuple[tuple[str, str], ...]], UserSchema] = {}


def user_schema(path: str, schema_map: Mapping[str, str]) -> UserSchema:
    """The schema in file ``path``, read and prepared once per process (again when the file changes)."""
    try:
        info = os.stat(path)
    except OSError:
        raise ConfigError(f"{path}: schema file not found") from None
    key = (path, info.st_size, info.st_mtime_ns, tuple(sorted(schema_map.items())))
    found = _loaded.get(key)
    if found is None:
        found = _loaded[key] = UserSchema(path, read_data_file(Path(path)), schema_map)
    return found
