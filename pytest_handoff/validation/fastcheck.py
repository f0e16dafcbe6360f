"""A compiled yes/no check for the subset of JSON Schema our schemas use.

Most handoffs are valid, and for them the only question is "valid?". This
module turns a schema into Python source, one small function per schema node
with straight-line tests, and compiles it once. It answers without importing
jsonschema (about 90 ms at start-up) and many times faster than its
``iter_errors``. Only a document that fails here is validated again by
jsonschema, which gives the errors with their paths and messages; so this check
must never call an invalid document valid (tests compare the two on mutated
handoffs). A schema that uses a keyword outside the subset compiles to ``None``
and jsonschema does all the work.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from pytest_handoff.validation.formats import is_rfc3339_date_time

Check = Callable[[Any], bool]

# Keywords that do not affect validity.
_ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "examples", "default"})
_SUPPORTED = _ANNOTATIONS | {
    "type", "properties", "required", "additionalProperties", "items", "enum", "const", "minItems",
    "maxItems", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "format", "anyOf", "propertyNames", "pattern",
}  # fmt: skip

# JSON Schema's types as jsonschema implements them: booleans are not numbers, and a
# float with an integral value is an integer.
_TYPE_TESTS = {
    "object": "isinstance(v, dict)",
    "array": "isinstance(v, list)",
    "string": "isinstance(v, str)",
    "boolean": "isinstance(v, bool)",
    "null": "v is None",
    "number": "(isinstance(v, (int, float)) and not isinstance(v, bool))",
    "integer": "((isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()))",
}
_IS_NUMBER = "isinstance(v, (int, float)) and not isinstance(v, bool)"
_BOUNDS = {"minimum": "<", "maximum": ">", "exclusiveMinimum": "<=", "exclusiveMaximum": ">="}
_LENGTHS = {
    "minLength": ("str", "<"),
    "maxLength": ("str", ">"),
    "minItems": ("list", "<"),
    "maxItems": ("list", ">"),
}


class Unsupported(Exception):
    """The schema uses something this checker does not implement."""


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON Schema means it: ``true`` is not ``1``, ``1`` is ``1.0``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


#: What every generated check may call; a module written ahead of time imports them by these names
#: (see :func:`factory_source`).
_HELPERS: dict[str, Any] = {"_date_time": is_rfc3339_date_time, "_json_equal": json_equal}


class _Generator:
    """Writes one function per schema node; constants go into the module's namespace."""

    def __init__(self, compile_pattern: Callable[[str], Any]) -> None:
        self.functions: list[str] = []
        self.namespace: dict[str, Any] = dict(_HELPERS)
        self.tables: list[tuple[str, dict[str, str]]] = []
        self.by_shape: dict[str, str] = {}
        self.compile_pattern = compile_pattern

    def constant(self, value: Any) -> str:
        name = f"_c{len(self.namespace)}"
        self.namespace[name] = value
        return name

    def node(self, schema: Any) -> str:
        """The name of a function checking ``schema`` (one function per distinct shape)."""
        shape = _shape(schema)
        if shape in self.by_shape:
            return self.by_shape[shape]
        name = f"_f{len(self.functions)}"
        self.by_shape[shape] = name
        self.functions.append("")  # reserve the slot: children get later numbers
        self.functions[int(name[2:])] = self._function(name, schema)
        return name

    def _function(self, name: str, schema: Any) -> str:
        if schema is True or schema == {}:
            return f"def {name}(v):\n    return True\n"
        if schema is False:
            return f"def {name}(v):\n    return False\n"
        if not isinstance(schema, dict):
            raise Unsupported("schema is not an object")
        unknown = set(schema) - _SUPPORTED
        if unknown:
            raise Unsupported(", ".join(sorted(unknown)))
        body: list[str] = []
        add = body.append

        if "type" in schema:
            types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if any(t not in _TYPE_TESTS for t in types):
                raise Unsupported(f"type {types!r}")
            add(f"if not ({' or '.join(_TYPE_TESTS[t] for t in types)}): return False")
        if "enum" in schema:
            options = list(schema["enum"])
            if options and all(isinstance(o, str) for o in options):
                add(f"if not (isinstance(v, str) and v in {self.constant(frozenset(options))}): return False")
            else:
                add(f"if not any(_json_equal(v, o) for o in {self.constant(options)}): return False")
        if "const" in schema:
            add(f"if not _json_equal(v, {self.constant(schema['const'])}): return False")
        if "format" in schema:
            if schema["format"] != "date-time":
                raise Unsupported(f"format {schema['format']!r}")
            add("if isinstance(v, str) and not _date_time(v): return False")
        if "pattern" in schema:
            regex = self.constant(self.compile_pattern(schema["pattern"]))
            add(f"if isinstance(v, str) and {regex}.search(v) is None: return False")
        for keyword, (kind, failing) in _LENGTHS.items():
            if keyword in schema:
                bound = schema[keyword]
                if isinstance(bound, bool) or not isinstance(bound, int):
                    raise Unsupported(f"{keyword} that is not an integer")
                add(f"if isinstance(v, {kind}) and len(v) {failing} {bound}: return False")
        for keyword, failing in _BOUNDS.items():
            if keyword in schema:
                bound = schema[keyword]
                if isinstance(bound, bool) or not isinstance(bound, (int, float)):
                    raise Unsupported(f"{keyword} that is not a number")
                add(f"if {_IS_NUMBER} and v {failing} {self.constant(bound)}: return False")
        if schema.get("required"):
            names = self.constant(tuple(schema["required"]))
            add(
                f"if isinstance(v, dict):\n        for k in {names}:\n            if k not in v: return False"
            )
        if "properties" in schema or "additionalProperties" in schema:
            table, entries = f"_t{len(self.tables)}", dict[str, str]()
            self.tables.append((table, entries))
            for key, sub in schema.get("properties", {}).items():
                entries[key] = self.node(sub)
            extra = schema.get("additionalProperties", True)
            if extra is True or extra == {}:
                on_extra = "pass"
            elif extra is False:
                on_extra = "return False"
            else:
                on_extra = f"if not {self.node(extra)}(x): return False"
            add(
                f"if isinstance(v, dict):\n        for k, x in v.items():\n            f = {table}.get(k)\n"
                f"            if f is None:\n                {on_extra}\n            elif not f(x): return False"
            )
        if "items" in schema:
            if not isinstance(schema["items"], (dict, bool)):
                raise Unsupported("items as a list")
            item = self.node(schema["items"])
            add(f"if isinstance(v, list):\n        for x in v:\n            if not {item}(x): return False")
        if "anyOf" in schema:
            branches = [self.node(branch) for branch in schema["anyOf"]]
            add(f"if not ({' or '.join(f'{b}(v)' for b in branches)}): return False")
        if "propertyNames" in schema:
            names_check = self.node(schema["propertyNames"])
            add(
                f"if isinstance(v, dict):\n        for k in v:\n            if not {names_check}(k): return False"
            )
        lines = "".join(f"    {line}\n" for line in body)
        return f"def {name}(v):\n{lines}    return True\n"

    def build(self, root: str) -> Check:
        source = "\n".join(self.functions)
        namespace = dict(self.namespace)
        exec(compile(source, "<handoff schema check>", "exec"), namespace)  # our own generated code
        for table, entries in self.tables:
            namespace[table] = {key: namespace[function] for key, function in entries.items()}
        check: Check = namespace[root]
        return check


def _shape(schema: Any) -> str:
    """The schema without its annotations, as canonical text: equal shapes check alike."""
    if isinstance(schema, dict):
        schema = {k: v for k, v in schema.items() if k not in _ANNOTATIONS}
    return json.dumps(schema, sort_keys=True, default=repr)


def compile_schema(schema: Any, compile_pattern: Callable[[str], Any] = re.compile) -> Check | None:
    """A validity check for ``schema``, or None when it uses anything unsupported (or nests too
    deeply to be compiled: jsonschema then answers, or says why it cannot).

    ``compile_pattern`` compiles a ``pattern`` (anything with ``search``): a user's schema gets
    RE2, which runs in linear time; our own schemas, Python's engine.
    """
    generator = _Generator(compile_pattern)
    try:
        root = generator.node(schema)
    except (Unsupported, RecursionError):
        return None
    return generator.build(root)


def schema_fingerprint(schema: Any) -> str:
    """``schema``'s canonical text: a prebuilt check is used only for the schema it was written
    from (a checksum would load a library module at every start; comparing text costs less)."""
    return json.dumps(schema, sort_keys=True, separators=(",", ":"))


def factory_source(schema: Any, factory: str) -> str | None:
    """Python source of a function named ``factory`` that returns :func:`compile_schema`'s check
    of ``schema``, for a module written ahead of time (which Python compiles once and caches as
    bytecode, where compiling at every start costs milliseconds); None when the schema uses
    anything unsupported. The module must define ``re``, ``_date_time`` and ``_json_equal``."""
    generator = _Generator(re.compile)
    try:
        root = generator.node(schema)
        constants = [
            f"    {name} = {_literal(value)}"
            for name, value in generator.namespace.items()
            if name not in _HELPERS
        ]
    except Unsupported:
        return None
    lines = [f"def {factory}():", *constants]
    for function in generator.functions:
        lines.extend(f"    {line}" for line in function.rstrip("\n").split("\n"))
    for table, entries in generator.tables:
        lines.append(f"    {table} = {{{', '.join(f'{key!r}: {name}' for key, name in entries.items())}}}")
    lines.append(f"    return {root}")
    return "\n".join(lines) + "\n"


def _literal(value: Any) -> str:
    """``value`` as Python source that makes an equal value (a pattern: its compile)."""
    if isinstance(value, re.Pattern):
        return f"re.compile({value.pattern!r})"
    if isinstance(value, frozenset) and all(isinstance(item, str) for item in value):
        # A set's order is the process's string hashing: sorted, the module is the same every time.
        return f"frozenset({sorted(value)!r})"
    if not _is_literal(value):
        raise Unsupported(f"a constant with no literal: {value!r}")
    return repr(value)


def _is_literal(value: Any) -> bool:
    """True for a JSON value (finite numbers) or a tuple of them: its repr is its source."""
    if value is None or isinstance(value, (bool, int, str)):
        return True
    if isinstance(value, float):
        return value == value and abs(value) != float("inf")
    if isinstance(value, (list, tuple)):
        return all(_is_literal(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(key, str) and _is_literal(item) for key, item in value.items())
    return False
