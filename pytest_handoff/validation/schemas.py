"""Shipped JSON Schemas: found, compiled once per run, and turned into positioned findings."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_handoff.places.pointers import pointer_join
from pytest_handoff.validation.formats import is_rfc3339_date_time
from pytest_handoff.values.findings import Finding
from pytest_handoff.values.wording import did_you_mean

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

    from pytest_handoff.validation.fastcheck import Check
    from pytest_handoff.values.documents import Anchor, Document


def schema_root() -> Path:
    """The folder of shipped schemas: package data in a wheel, ``schemas/`` in a source checkout.

    Plain paths, not ``importlib.resources``: that module and what it pulls in cost the
    pre-commit hook several milliseconds of start-up, and the package is never zipped.
    """
    packaged = Path(__file__).resolve().parents[1] / "schemas"
    return packaged if packaged.is_dir() else source_checkout_schemas()


@cache
def load_schema(name: str) -> dict[str, Any]:
    """Read a shipped schema by its path below ``schemas/``, e.g. ``neuralrelay/dev_to_test``."""
    schema: dict[str, Any] = json.loads((schema_root() / f"{name}.schema.json").read_text(encoding="utf-8"))
    return schema


class CompiledSchema:
    """A schema prepared once per process: a fast yes/no check, and jsonschema for the errors."""

    def __init__(self, schema: dict[str, Any], prebuilt: Check | None = None) -> None:
        from pytest_handoff.validation.fastcheck import compile_schema

        self.schema = schema
        self.is_valid = prebuilt or compile_schema(schema)
        self._full: Validator | None = None

    @property
    def full(self) -> Validator:
        """jsonschema's validator, imported and built on first need (a document with errors)."""
        if self._full is None:
            self._full = build_validator(self.schema)
        return self._full

    def findings(self, document: Document, code: str = "HS001") -> list[Finding]:
        """Schema errors of ``document`` as positioned findings (none for a valid document)."""
        if self.is_valid is not None and self.is_valid(document.data):
            return []
        return list(validate_document(document, self.full, code))

    def accepts(self, document: Document) -> bool:
        """Whether ``document`` is valid (its errors neither listed nor placed)."""
        return (
            self.is_valid(document.data) if self.is_valid is not None else self.full.is_valid(document.data)
        )


@cache
def compiled_schema(name: str) -> CompiledSchema:
    """A shipped schema, compiled once per process (its check written ahead of time, mostly)."""
    from pytest_handoff.validation.prebuilt import prebuilt_check

    schema = load_schema(name)
    return CompiledSchema(schema, prebuilt_check(name, schema))


def compiled_validator(name: str) -> Validator:
    """jsonschema's draft-07 validator for a shipped schema, built once per process."""
    return compiled_schema(name).full


def build_validator(schema: dict[str, Any]) -> Validator:
    """A validator for ``schema`` (its draft from ``$schema``) that enforces ``date-time``."""
    import jsonschema
    from jsonschema.validators import validator_for

    format_checker = jsonschema.FormatChecker()
    format_checker.checks("date-time")(is_rfc3339_date_time)
    cls = validator_for(schema, default=jsonschema.Draft7Validator)
    validator: Validator = cls(schema, format_checker=format_checker)
    return validator


#: More schema errors than this in one document are summarised, not listed (a million wrong
#: items would otherwise mean minutes and megabytes of output).
MAX_SCHEMA_ERRORS = 100


def validate_document(
    document: Document,
    validator: Validator,
    code: str = "HS001",
    *,
    compile_pattern: Callable[[str], Any] = re.compile,
) -> Iterator[Finding]:
    """Schema errors of ``document`` as findings at their exact source position.

    At most :data:`MAX_SCHEMA_ERRORS` are placed (one error can explain itself many times over:
    an object with 300,000 unexpected keys); a finding at the document says when there were more.
    ``compile_pattern`` compiles the schema's ``patternProperties`` (a user's schema: RE2).
    """
    from itertools import islice

    from pytest_handoff.values.findings import Severity

    errors = list(islice(validator.iter_errors(document.data), MAX_SCHEMA_ERRORS + 1))
    errors.sort(key=lambda e: (list(map(str, e.absolute_path)), str(e.validator)))
    explained = list(
        islice(_distinct_explanations(errors[:MAX_SCHEMA_ERRORS], compile_pattern), MAX_SCHEMA_ERRORS + 1)
    )

    def finding(
        line: int, column: int, end_line: int, end_column: int, message: str, pointer: str = ""
    ) -> Finding:
        return Finding(
            path=document.display_path, line=line, column=column, end_line=end_line, end_column=end_column,
            code=code, severity=Severity.ERROR, message=message, pointer=pointer, logical=document.logical,
        )  # fmt: skip

    if len(errors) > MAX_SCHEMA_ERRORS or len(explained) > MAX_SCHEMA_ERRORS:
        explained = explained[:MAX_SCHEMA_ERRORS]
        first = document.region("")
        summary = (
            f"more than {MAX_SCHEMA_ERRORS} schema errors: only the first {MAX_SCHEMA_ERRORS} are listed"
        )
        yield finding(first.line, first.column, first.line, first.column, summary)
    for pointer, anchor, message in explained:
        region = document.region(pointer, anchor)
        yield finding(region.line, region.column, region.end_line, region.end_column, message, pointer)


def _distinct_explanations(
    errors: list[ValidationError], compile_pattern: Callable[[str], Any]
) -> Iterator[tuple[str, Anchor, str]]:
    """Each error's explanations, each (place, message) once: jsonschema reports each missing
    property of an object as an error of its own, and each is explained by listing all of them."""
    seen: set[tuple[str, str]] = set()
    for error in errors:
        for pointer, anchor, message in _explain(error, compile_pattern):
            if (pointer, message) not in seen:
                seen.add((pointer, message))
                yield pointer, anchor, message


def pointer_of(parts: Any) -> str:
    """The JSON pointer of a path of keys and indexes (as jsonschema gives them)."""
    pointer = ""
    for part in parts:
        pointer = pointer_join(pointer, part)
    return pointer


def _explain(
    error: ValidationError, compile_pattern: Callable[[str], Any]
) -> Iterator[tuple[str, Anchor, str]]:
    """Pointer, anchor and message for one schema error.

    A missing property points at the object that lacks it, an unexpected
    property at its own key, anything else at the offending value.
    """
    from jsonschema.exceptions import best_match

    if error.validator in ("anyOf", "oneOf") and error.context:
        versions = _versions_tried(error)
        if versions:
            # Every branch is a titled version of the shape: the errors of the nearest version
            # (the fewest) are explained, and the finding names every version tried.
            by_branch: dict[int, list[ValidationError]] = {}
            for inner in error.context:
                by_branch.setdefault(int(inner.relative_schema_path[0]), []).append(inner)
            nearest = min(by_branch, key=lambda index: (len(by_branch[index]), index))
            tried = (
                f" (no documented version fits; tried: {'; '.join(versions)}; nearest: {versions[nearest]})"
            )
            for inner in by_branch[nearest]:
                for pointer, anchor, message in _explain(inner, compile_pattern):
                    yield pointer, anchor, message + tried
            return
        error = best_match(error.context)
    pointer = pointer_of(error.absolute_path)
    keyword = str(error.validator)
    expected: Any = error.validator_value
    instance = error.instance
    where = pointer or "the document"
    if keyword == "required":
        missing = [name for name in expected if isinstance(instance, dict) and name not in instance]
        for name in missing or ["?"]:
            yield pointer, "value", f"missing required property {name!r} in {where}"
        return
    if keyword == "additionalProperties" and isinstance(instance, dict):
        schema = error.schema if isinstance(error.schema, dict) else {}
        known = ", ".join(sorted(schema.get("properties", {}))) or "none"
        for name in additional_properties(instance, schema, compile_pattern):
            token = pointer_join(pointer, name)
            yield token, "key", f"unexpected property {name!r} (allowed here: {known})"
        return
    yield pointer, "value", _message(keyword, expected, instance, error.message)


def _versions_tried(error: ValidationError) -> list[str]:
    """The titles of an ``anyOf``'s branches when every branch has one (versions of a shape)."""
    branches = error.validator_value if isinstance(error.validator_value, list) else []
    titles = [branch.get("title") for branch in branches if isinstance(branch, dict)]
    return [str(t) for t in titles] if titles and all(titles) and len(titles) == len(branches) else []


def additional_properties(
    instance: dict[str, Any], schema: dict[str, Any], compile_pattern: Callable[[str], Any]
) -> list[str]:
    """The keys of ``instance`` that neither ``properties`` nor ``patternProperties`` of ``schema`` name."""
    named = schema.get("properties", {})
    patterns = [compile_pattern(pattern) for pattern in schema.get("patternProperties", {})]
    return [key for key in instance if key not in named and not any(p.search(key) for p in patterns)]


_JSON_TYPES = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    type(None): "null",
}


def json_type(value: object) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def short(value: object, limit: int = 60) -> str:
    """A JSON rendering of ``value`` cut to ``limit`` characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _message(keyword: str, expected: Any, instance: Any, fallback: str) -> str:
    if keyword == "type":
        wanted = " or ".join(expected) if isinstance(expected, list) else str(expected)
        return f"expected {wanted}, got {json_type(instance)} {short(instance)}"
    if keyword == "enum":
        named = [value for value in expected if isinstance(value, str)] if isinstance(expected, list) else []
        hint = did_you_mean(instance, named)
        return f"{short(instance)} is not one of {', '.join(short(v) for v in expected)}{hint}"
    if keyword == "const":
        return f"expected {short(expected)}, got {short(instance)}"
    if keyword == "minItems":
        return f"has {len(instance)} item(s); at least {expected} required"
    if keyword == "maxItems":
        return f"has {len(instance)} item(s); at most {expected} allowed"
    if keyword == "minLength":
        return f"string of {len(instance)} character(s) is shorter than the minimum of {expected}"
    if keyword == "maxLength":
        return f"string of {len(instance)} character(s) is longer than the maximum of {expected}"
    if keyword == "format":
        hint = " (RFC 3339, e.g. 2026-03-22T14:30:52Z)" if expected == "date-time" else ""
        return f"{short(instance)} is not a valid {expected}{hint}"
    if keyword in ("minimum", "exclusiveMinimum"):
        return f"{short(instance)} is below the minimum of {expected}"
    if keyword in ("maximum", "exclusiveMaximum"):
        return f"{short(instance)} is above the maximum of {expected}"
    if keyword == "pattern":
        return f"{short(instance)} does not match the pattern {expected!r}"
    return fallback if len(fallback) <= 200 else fallback[:199] + "…"


def available_schemas() -> list[str]:
    """Names of every shipped schema, e.g. ``neuralrelay/review_final``."""
    root = schema_root()
    names: list[str] = []
    for folder in root.iterdir():
        if folder.is_dir():
            names.extend(
                f"{folder.name}/{item.name.removesuffix('.schema.json')}"
                for item in folder.iterdir()
                if item.name.endswith(".schema.json")
            )
    return sorted(names)


def source_checkout_schemas() -> Path:
    """``schemas/`` of a source checkout (for tests that compare it with the packaged copy)."""
    return Path(__file__).resolve().parents[2] / "schemas"
