"""A contract schema's ``$ref`` s inlined, so :mod:`~pytest_handoff.fastcheck` can compile it.

A ``$ref`` to another local file or to a ``#/...`` fragment (``definitions``, ``$defs``) is
replaced by the schema it points to, with the draft's meaning: in draft-07 the keywords beside a
``$ref`` are ignored, in 2020-12 they apply too, which fastcheck cannot express (no ``allOf``), so
such a schema is not inlined unless they are mere annotations. Whatever cannot be inlined with
certainty gives None and jsonschema does the work as before: a recursive or remote ``$ref``, an
``$id`` or anchor (they move the base URI), a referenced file of another draft, a keyword outside
fastcheck's subset. jsonschema still writes the errors of an invalid document, from the original.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_handoff.values.errors import ConfigError

DRAFT_07 = "http://json-schema.org/draft-07/schema"
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
# Where the keywords fastcheck compiles hold schemas.
_ONE_SCHEMA = ("additionalProperties", "items", "propertyNames")
_DEFINITIONS = ("$defs", "definitions")
_LIMIT = 10_000  # schema nodes: a non-recursive $ref can still blow up exponentially


class _Cannot(Exception):
    """The schema cannot be inlined with certainty."""


def draft_of(schema: Any) -> str | None:
    """The schema's draft (draft-07 when it names none); None for one we do not know."""
    declared = schema.get("$schema", DRAFT_07) if isinstance(schema, dict) else DRAFT_07
    if not isinstance(declared, str) or declared.rstrip("#") not in (DRAFT_07, DRAFT_2020_12):
        return None
    return declared.rstrip("#")


def inline_refs(schema: Any, path: str, schema_map: Mapping[str, str]) -> Any | None:
    """``schema`` (read from ``path``) with every ``$ref`` inlined; None when that is not certain."""
    from pytest_handoff.validation.fastcheck import _ANNOTATIONS, _SUPPORTED

    draft = draft_of(schema)
    if draft is None or not isinstance(schema, (dict, bool)):
        return None
    from urllib.parse import unquote, urldefrag, urljoin

    from pytest_handoff.profiles.contracts.files import file_uri, local_path, read_data_file

    allowed = _SUPPORTED | {"$ref", *_DEFINITIONS}
    root_uri = file_uri(Path(path))
    documents: dict[str, Any] = {root_uri: schema}
    count = 0

    def document(uri: str) -> Any:
        if uri not in documents:
            local = local_path(uri, schema_map)
            if local is None:
                raise _Cannot("remote")
            try:
                data = read_data_file(local)
            except ConfigError:
                raise _Cannot("unreadable") from None
            # Another dialect is validated by its own rules (none named: the referring one's);
            # an $id moves the base URI.
            if isinstance(data, dict) and (("$schema" in data and draft_of(data) != draft) or "$id" in data):
                raise _Cannot("other draft or $id")
            documents[uri] = data
        return documents[uri]

    def target(uri: str, fragment: str) -> Any:
        node = document(uri)
        if not fragment:
            return node
        if not fragment.startswith("/"):
            raise _Cannot("anchor")
        for part in fragment[1:].split("/"):
            part = unquote(part).replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise _Cannot("no such place")
            if isinstance(node, dict) and "$id" in node:
                raise _Cannot("$id")
        return node

    def expand(node: Any, base: str, stack: tuple[str, ...]) -> Any:
        nonlocal count
        count += 1
        if count > _LIMIT:
            raise _Cannot("too large")
        if isinstance(node, bool):
            return node
        if not isinstance(node, dict) or not set(node) <= allowed or (node is not schema and "$id" in node):
            raise _Cannot("outside the subset")
        if "$ref" in node:
            ref = node["$ref"]
            if not isinstance(ref, str):
                raise _Cannot("not a string")
            uri, fragment = urldefrag(urljoin(base, ref))
            key = f"{uri}#{unquote(fragment)}"
            if key in stack:
                raise _Cannot("recursive")
            inlined = expand(target(uri, fragment), uri, (*stack, key))
            siblings = set(node) - {"$ref", *_DEFINITIONS}
            if draft == DRAFT_2020_12 and not siblings <= _ANNOTATIONS:
                raise _Cannot("keywords beside $ref apply")  # would need allOf
            return inlined  # draft-07: the keywords beside $ref are ignored
        copy: dict[str, Any] = {}
        for key, value in node.items():
            if key in _DEFINITIONS:
                continue  # only reached through a $ref
            if key == "properties" and isinstance(value, dict):
                copy[key] = {name: expand(sub, base, stack) for name, sub in value.items()}
            elif key == "anyOf" and isinstance(value, list):
                copy[key] = [expand(sub, base, stack) for sub in value]
            elif key in _ONE_SCHEMA:
                copy[key] = expand(value, base, stack)
            else:
                copy[key] = value
        return copy

    if isinstance(schema, dict) and "$id" in schema:
        return None
    try:
        return expand(schema, root_uri, ())
    except (_Cannot, RecursionError, ValueError):
        return None
