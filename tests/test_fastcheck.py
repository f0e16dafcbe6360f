"""The fast yes/no schema check agrees with jsonschema, so it can never hide an error."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_handoff.validation import fastcheck
from pytest_handoff.validation.fastcheck import compile_schema, factory_source
from pytest_handoff.validation.prebuilt import prebuilt_check
from pytest_handoff.validation.schemas import available_schemas, build_validator, compiled_schema, load_schema
from tests.conftest import EXAMPLES, REPO, module_at

CLEAN = sorted((EXAMPLES / "neuralrelay" / "clean").rglob("*.json"))
TYPE_TO_SCHEMA = {
    "requirements": "neuralrelay/requirements",
    "dev_to_test": "neuralrelay/dev_to_test",
    "test_to_review": "neuralrelay/test_to_review",
    "review_final": "neuralrelay/review_final",
}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 12)
    | st.floats(-2, 12, allow_nan=False)
    | st.text(max_size=12)
    | st.sampled_from(["2026-03-22T14:30:52Z", "approved", "high", "dev_to_test", "", "x" * 11]),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


def paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            found += paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += paths(value, (*prefix, index))
    return found


def replaced(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    result = copy.deepcopy(document)
    node = result
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return result


@pytest.mark.parametrize("name", available_schemas())
def test_every_shipped_schema_compiles_to_a_fast_check(name: str) -> None:
    assert compile_schema(load_schema(name)) is not None


@pytest.mark.parametrize("path", CLEAN, ids=lambda p: p.name)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_fast_check_agrees_with_jsonschema_on_mutated_handoffs(path: Path, data: st.DataObject) -> None:
    document = json.loads(path.read_text())
    schema = load_schema(TYPE_TO_SCHEMA[document["handoff_type"]])
    where = data.draw(st.sampled_from(paths(document)))
    mutated = replaced(document, where, data.draw(json_values))
    if data.draw(st.booleans()) and isinstance(mutated, dict) and mutated:
        mutated.pop(data.draw(st.sampled_from(sorted(mutated))))
    fast = compile_schema(schema)
    prebuilt = prebuilt_check(TYPE_TO_SCHEMA[document["handoff_type"]], schema)
    assert fast is not None
    assert prebuilt is not None
    assert fast(mutated) == prebuilt(mutated) == build_validator(schema).is_valid(mutated)


@pytest.mark.parametrize("name", available_schemas())
def test_every_shipped_schema_is_checked_by_the_check_written_ahead_of_time(name: str) -> None:
    prebuilt = prebuilt_check(name, load_schema(name))
    assert prebuilt is not None
    assert compiled_schema(name).is_valid.__code__ is prebuilt.__code__  # type: ignore[union-attr]


def test_the_checks_written_ahead_of_time_are_up_to_date_with_the_schemas() -> None:
    script = module_at(REPO / "scripts" / "prebuild_checks.py", "prebuild_checks")
    written = script.modules()
    assert (script.stale(written), script.extra(written)) == ([], []), (
        "run: python scripts/prebuild_checks.py"
    )


@pytest.mark.parametrize("name", available_schemas())
@settings(max_examples=10, deadline=None)  # 67 schemas; the mutation test above digs deeper
@given(value=json_values)
def test_the_check_written_ahead_of_time_answers_as_the_compiled_one(name: str, value: Any) -> None:
    schema = load_schema(name)
    prebuilt, compiled = prebuilt_check(name, schema), compile_schema(schema)
    assert prebuilt is not None
    assert compiled is not None
    assert prebuilt(value) == compiled(value)


@pytest.mark.parametrize("name", available_schemas())
def test_every_constant_of_a_check_written_ahead_of_time_reads_back_as_it_was(name: str) -> None:
    # A prebuilt check is the run-time one but for its constants, which are written as source.
    generator = fastcheck._Generator(re.compile)
    generator.node(load_schema(name))
    for value in (v for k, v in generator.namespace.items() if k not in fastcheck._HELPERS):
        back = eval(fastcheck._literal(value), {"re": re})  # our own generated source
        if isinstance(value, re.Pattern):
            back, value = back.pattern, value.pattern
        assert (type(back), back) == (type(value), value)


def test_a_constant_with_no_python_literal_is_left_to_the_run_time_compiler() -> None:
    assert factory_source({"type": "number", "maximum": float("inf")}, "check") is None
    assert factory_source({"type": "number", "maximum": 3}, "check") is not None


def test_a_schema_changed_since_its_check_was_written_is_compiled_at_run_time() -> None:
    schema = load_schema("neuralrelay/dev_to_test")
    assert (
        prebuilt_check("neuralrelay/dev_to_test", {**schema, "required": [*schema["required"], "x"]}) is None
    )
    assert prebuilt_check("no-such-folder/dev_to_test", schema) is None


def test_unsupported_keywords_fall_back_to_jsonschema() -> None:
    assert compile_schema({"type": "object", "dependencies": {"a": ["b"]}}) is None
    assert compile_schema({"format": "email"}) is None


@pytest.mark.parametrize(
    ("schema", "value", "valid"),
    [
        ({"type": "integer"}, 3.0, True),
        ({"type": "integer"}, True, False),
        ({"type": "number", "minimum": 0}, -0.5, False),
        ({"enum": [1]}, True, False),
        ({"const": "a"}, "a", True),
        ({"minLength": 2}, "é", False),
        ({"format": "date-time"}, "2026-02-30T00:00:00Z", False),
        ({"format": "date-time"}, "2026-03-22T14:30:52Z\n", False),
        ({"anyOf": [{"type": "string"}, {"type": "object", "required": ["d"]}]}, {}, False),
        ({"propertyNames": {"minLength": 1}}, {"": 1}, False),
    ],
)
def test_edge_cases_match_json_schema_semantics(schema: dict[str, Any], value: Any, valid: bool) -> None:
    fast = compile_schema(schema)
    assert fast is not None
    assert fast(value) is valid
    assert build_validator(schema).is_valid(value) is valid
