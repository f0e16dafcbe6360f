"""A contract schema's ``$ref`` s inlined for fastcheck: the same yes/no as jsonschema on mutated
documents of both drafts, a fallback to jsonschema whenever inlining is not certain, and a one-file
run on a ``$ref``-using contract that never imports jsonschema."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.profiles.contracts.bundle import inline_refs
from pytest_handoff.profiles.contracts.files import read_data_file
from pytest_handoff.profiles.contracts.schemas import UserSchema, _schema_problem

PROJECT = Path(__file__).parent / "fixtures" / "contracts" / "project"
REPORT = PROJECT / "reviews" / "sprint-1" / "02-report.yaml"

# A draft-07 twin of the fixture's report schema: a $ref to another file, a local #/definitions
# one, and keywords beside a $ref (ignored in draft-07: "type": "integer" must not apply).
REPORT_07 = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "required": ["kind", "summary", "results", "totals", "written_at"],
    "definitions": {
        "count": {"type": "integer", "minimum": 0},
        "result": {
            "type": "object",
            "required": ["criterion", "outcome"],
            "properties": {
                "criterion": {"type": "string"},
                "outcome": {"$ref": "common07.schema.json#/definitions/outcome", "type": "integer"},
            },
        },
    },
    "properties": {
        "kind": {"const": "report"},
        "summary": {"type": "string"},
        "results": {"type": "array", "items": {"$ref": "#/definitions/result"}},
        "totals": {
            "type": "object",
            "required": ["run", "passed", "failed"],
            "properties": {
                "run": {"$ref": "#/definitions/count"},
                "passed": {"$ref": "#/definitions/count"},
                "failed": {"$ref": "#/definitions/count"},
            },
        },
        "written_at": {"type": "string", "format": "date-time"},
    },
}
COMMON_07 = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "definitions": {"outcome": {"enum": ["passed", "failed", "skipped"]}},
}
REPLACEMENTS: tuple[Any, ...] = (
    None,
    True,
    0,
    -1,
    2.0,
    1.5,
    "",
    "passed",
    "report",
    "x",
    [],
    ["x"],
    {},
    {"a": 1},
)


def mutations(document: Any) -> Iterator[Any]:
    """``document`` itself, then with each value replaced, each key dropped and a key added."""
    yield document
    places: list[tuple[Any, ...]] = [()]
    while places:
        place = places.pop()
        node = document
        for step in place:
            node = node[step]
        steps = list(node) if isinstance(node, dict) else range(len(node)) if isinstance(node, list) else []
        for step in steps:
            places.append((*place, step))
            for value in REPLACEMENTS:
                changed = copy.deepcopy(document)
                parent = changed
                for part in place:
                    parent = parent[part]
                parent[step] = value
                yield changed
            if isinstance(node, dict):
                changed = copy.deepcopy(document)
                parent = changed
                for part in place:
                    parent = parent[part]
                del parent[step]
                yield changed
        if isinstance(node, dict):
            changed = copy.deepcopy(document)
            parent = changed
            for part in place:
                parent = parent[part]
            parent["extra"] = 1
            yield changed


def schema_of(folder: Path, name: str) -> UserSchema:
    path = folder / name
    return UserSchema(str(path), read_data_file(path), {})


@pytest.fixture
def schemas(tmp_path: Path) -> Path:
    shutil.copytree(PROJECT / "schemas", tmp_path, dirs_exist_ok=True)
    (tmp_path / "report07.schema.json").write_text(json.dumps(REPORT_07), encoding="utf-8")
    (tmp_path / "common07.schema.json").write_text(json.dumps(COMMON_07), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("name", ["report.schema.yaml", "report07.schema.json"])
def test_hs001_inlined_fast_check_agrees_with_jsonschema_on_mutated_reports(schemas: Path, name: str) -> None:
    schema = schema_of(schemas, name)
    assert schema.is_valid is not None, "the $refs were not inlined"
    answers = set()
    for document in mutations(read_data_file(REPORT)):
        fast, full = schema.is_valid(document), schema.full.is_valid(document)
        assert fast == full, (name, document)
        answers.add(fast)
    assert answers == {True, False}


def test_hs001_keywords_beside_a_ref_are_ignored_in_draft_07_only(schemas: Path) -> None:
    report = read_data_file(REPORT)
    assert schema_of(schemas, "report07.schema.json").is_valid(report)  # "type": "integer" ignored
    # In 2020-12 they apply: not expressible without allOf, so jsonschema answers alone.
    both = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "properties": {"outcome": {"$ref": "common.schema.json#/$defs/outcome", "type": "integer"}},
    }
    assert inline_refs(both, str(schemas / "x.schema.json"), {}) is None
    annotated = {
        **both,
        "properties": {"outcome": {"$ref": "common.schema.json#/$defs/outcome", "title": "t"}},
    }
    assert inline_refs(annotated, str(schemas / "x.schema.json"), {}) == {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "properties": {"outcome": {"enum": ["passed", "failed", "skipped"]}},
    }


@pytest.mark.parametrize(
    "schema",
    [
        {"definitions": {"node": {"properties": {"next": {"$ref": "#/definitions/node"}}}}, "$ref": "#/definitions/node"},
        {"properties": {"a": {"$ref": "https://example.com/s.json"}}},
        {"properties": {"a": {"$ref": "missing.schema.json"}}},
        {"properties": {"a": {"$ref": "#/definitions/nowhere"}}},
        {"properties": {"a": {"$ref": "#anchor"}}},
        {"$id": "https://example.com/root.json", "properties": {"a": {"$ref": "#/definitions/x"}}, "definitions": {"x": {}}},
        {"properties": {"a": {"$ref": "#/definitions/x"}}, "definitions": {"x": {"oneOf": [{"type": "string"}]}}},
    ],
    ids=["recursive", "remote", "missing-file", "missing-place", "anchor", "id", "outside-subset"],
)  # fmt: skip
def test_hs001_a_ref_that_cannot_be_inlined_with_certainty_falls_back_to_jsonschema(
    schemas: Path, schema: Any
) -> None:
    assert inline_refs(schema, str(schemas / "x.schema.json"), {}) is None
    assert UserSchema(str(schemas / "x.schema.json"), schema, {}).is_valid is None


def test_hs001_a_referenced_file_of_another_draft_is_not_inlined(schemas: Path) -> None:
    schema = {"properties": {"outcome": {"$ref": "common.schema.json#/$defs/outcome"}}}  # draft-07
    assert inline_refs(schema, str(schemas / "x.schema.json"), {}) is None
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    assert inline_refs(schema, str(schemas / "x.schema.json"), {}) is not None


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#/definitions/x", "definitions": {"x": {"type": "string"}}},
        {"$ref": "#/definitions/x", "definitions": {"x": {"type": "strin"}}},
        {"$ref": "#/$defs/x", "$defs": {"x": {"type": "strin"}}},
        {"$ref": "#/$defs/x", "$defs": 3},
        {"properties": {"a": {"$ref": 5}}},
        {"properties": {"a": {"$ref": "#/definitions/x", "minLength": -1}}, "definitions": {"x": {}}},
        {"anyOf": [{"$ref": "#/definitions/x"}], "definitions": {"x": {"required": "a"}}},
        {"properties": {"a": {"$schema": 5, "$ref": "#/definitions/x"}}, "definitions": {"x": {}}},
    ],
)
def test_the_meta_schema_check_of_refs_and_definitions_agrees_with_jsonschema(schema: Any) -> None:
    from jsonschema import Draft7Validator, Draft202012Validator
    from jsonschema.exceptions import SchemaError

    for validator, uri in (
        (Draft7Validator, "http://json-schema.org/draft-07/schema#"),
        (Draft202012Validator, "https://json-schema.org/draft/2020-12/schema"),
    ):
        dialect = {"$schema": uri, **schema}
        try:
            validator.check_schema(dialect)
            valid = True
        except SchemaError:
            valid = False
        assert (_schema_problem(dialect) is None) == valid, (validator.__name__, _schema_problem(dialect))


def test_hs001_checking_one_file_of_a_ref_using_contract_does_not_import_jsonschema(tmp_path: Path) -> None:
    shutil.copytree(PROJECT, tmp_path, dirs_exist_ok=True)
    (tmp_path / ".git").mkdir()
    # The plan's folder holds the report, whose schema refers to common.schema.json.
    probe = (
        "import io, sys\n"
        "from pytest_handoff.cli import main\n"
        "out, sys.stdout = sys.stdout, io.StringIO()\n"
        "code = main(sys.argv[1:])\n"
        "sys.stdout = out\n"
        "print(code, sorted(m for m in ('jsonschema', 'referencing') if m in sys.modules))\n"
    )
    plan = "reviews/sprint-1/01-plan.yaml"
    done = subprocess.run(
        [sys.executable, "-c", probe, plan], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert done.stdout.split() == ["0", "[]"]
    # A report that breaks the $ref'd enum is still caught, with jsonschema's message.
    report = tmp_path / "reviews" / "sprint-1" / "02-report.yaml"
    report.write_text(
        report.read_text(encoding="utf-8").replace("outcome: passed", "outcome: maybe", 1), encoding="utf-8"
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest_handoff.cli", "reviews/sprint-1/02-report.yaml"],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "02-report.yaml:5:14: HS001" in done.stdout
    assert '"maybe" is not one of "passed", "failed", "skipped"' in done.stdout


def test_a_schema_whose_schema_keyword_is_not_a_string_is_a_problem_not_a_crash() -> None:
    assert _schema_problem({"$schema": 5}) == "'$schema' must be a string"
    assert _schema_problem({"$schema": 5, "$ref": "#/definitions/x", "definitions": {"x": {}}}) is not None
