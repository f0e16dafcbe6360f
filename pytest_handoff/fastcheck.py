"""A compiled yes/no check for the subset of JSON Schema our schemas use.

Most handoffs are valid, and for them the only question is "valid?". This
module compiles a schema into nested closures that answer it in pure Python,
without importing jsonschema (about 90 ms at start-up) and several times
faster than its ``iter_errors``. Only a document that fails here is validated
again by jsonschema, which gives the errors with their paths and messages; so
this check must never call an invalid document valid. A schema that uses a
keyword outside the subset compiles to ``None`` and jsonschema does all the work.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from functools import partial
from typing import Any

from pytest_handoff.schemas import is_rfc3339_date_time

Check = Callable[[Any], bool]

# Keywords that do not affect validity.
_ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "examples", "default"})
_SUPPORTED = _ANNOTATIONS | {
    "type", "properties", "required", "additionalProperties", "items", "enum", "const", "minItems",
    "maxItems", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "format", "anyOf", "propertyNames", "pattern",
}  # fmt: skip


class Unsupported(Exception):
    """The schema uses something this checker does not implement."""


def _is_type(value: Any, name: str) -> bool:
    # JSON Schema semantics as jsonschema implements them: booleans are not numbers,
    # and a float with an integral value is an integer.
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if isinstance(value, bool):
        return False
    if name == "number":
        return isinstance(value, (int, float))
    if name == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    raise Unsupported(f"type {name!r}")


def _is_any_type(types: tuple[str, ...], value: Any) -> bool:
    return any(_is_type(value, name) for name in types)


def _json_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


Compare = Callable[[Any, Any], bool]


def _string_length(op: Compare, bound: int, value: Any) -> bool:
    return not isinstance(value, str) or op(len(value), bound)


def _array_length(op: Compare, bound: int, value: Any) -> bool:
    return not isinstance(value, list) or op(len(value), bound)


def _number_bound(op: Compare, bound: float, value: Any) -> bool:
    return isinstance(value, bool) or not isinstance(value, (int, float)) or op(value, bound)


def compile_schema(schema: Any) -> Check | None:
    """A validity check for ``schema``, or None when it uses anything unsupported."""
    try:
        return _compile(schema)
    except Unsupported:
        return None


def _compile(schema: Any) -> Check:
    if schema is True or schema == {}:
        return lambda value: True
    if schema is False:
        return lambda value: False
    if not isinstance(schema, dict):
        raise Unsupported("schema is not an object")
    unknown = set(schema) - _SUPPORTED
    if unknown:
        raise Unsupported(", ".join(sorted(unknown)))
    checks: list[Check] = []

    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        for name in types:
            _is_type(None, name)  # raises Unsupported early for unknown names
        checks.append(partial(_is_any_type, tuple(types)))
    if "enum" in schema:
        options = list(schema["enum"])
        checks.append(lambda v: any(_json_equal(v, option) for option in options))
    if "const" in schema:
        constant = schema["const"]
        checks.append(lambda v: _json_equal(v, constant))
    if "format" in schema:
        if schema["format"] != "date-time":
            raise Unsupported(f"format {schema['format']!r}")
        checks.append(is_rfc3339_date_time)
    if "pattern" in schema:
        regex = re.compile(schema["pattern"])
        checks.append(lambda v: not isinstance(v, str) or regex.search(v) is not None)
    for keyword, op in (("minLength", operator.ge), ("maxLength", operator.le)):
        if keyword in schema:
            checks.append(partial(_string_length, op, schema[keyword]))
    for keyword, op in (("minItems", operator.ge), ("maxItems", operator.le)):
        if keyword in schema:
            checks.append(partial(_array_length, op, schema[keyword]))
    for keyword, op in (
        ("minimum", operator.ge),
        ("maximum", operator.le),
        ("exclusiveMinimum", operator.gt),
        ("exclusiveMaximum", operator.lt),
    ):
        if keyword in schema:
            bound = schema[keyword]
            if isinstance(bound, bool) or not isinstance(bound, (int, float)):
                raise Unsupported(f"{keyword} that is not a number")
            checks.append(partial(_number_bound, op, bound))
    if "items" in schema:
        if not isinstance(schema["items"], (dict, bool)):
            raise Unsupported("items as a list")
        item = _compile(schema["items"])
        checks.append(lambda v: not isinstance(v, list) or all(item(x) for x in v))
    if "anyOf" in schema:
        branches = [_compile(branch) for branch in schema["anyOf"]]
        checks.append(lambda v: any(branch(v) for branch in branches))
    if "propertyNames" in schema:
        names = _compile(schema["propertyNames"])
        checks.append(lambda v: not isinstance(v, dict) or all(names(k) for k in v))
    if "required" in schema:
        required = tuple(schema["required"])
        checks.append(lambda v: not isinstance(v, dict) or all(k in v for k in required))
    if "properties" in schema or "additionalProperties" in schema:
        properties = {name: _compile(sub) for name, sub in schema.get("properties", {}).items()}
        extra = schema.get("additionalProperties", True)
        extra_check = _compile(extra)

        def check_members(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            for key, value in v.items():
                sub = properties.get(key)
                if sub is not None:
                    if not sub(value):
                        return False
                elif not extra_check(value):
                    return False
            return True

        checks.append(check_members)

    if len(checks) == 1:
        return checks[0]
    return lambda value: all(check(value) for check in checks)
