"""A contract schema whose ``$ref`` s form a cycle that checks no part of the value: a usage error
naming the schema and the cycle in ``handoff-lint``, ``pytest --handoffs`` and the API, never a
traceback; a recursive schema whose recursion goes through ``properties`` or ``items`` still
validates; a schema too deep for Python's stack is a clean error too."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.cli import main
from tests.test_contracts_end_to_end import NOTE, PROJECT, project

__all__ = ["project"]  # the fixture, used by name

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"


def write_schema(root: Path, name: str, schema: Any) -> Path:
    path = root / "schemas" / name
    path.write_text(schema if isinstance(schema, str) else json.dumps(schema), encoding="utf-8")
    return path


A_TO_B_TO_A = {
    "$schema": DRAFT_2020_12,
    "$ref": "#/$defs/a",
    "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
}
TREE = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string"},
        "children": {"type": "array", "items": {"$ref": "#"}},
    },
}


@pytest.mark.parametrize(
    ("schema", "cycle"),
    [
        (A_TO_B_TO_A, "#/$defs/a -> #/$defs/b -> #/$defs/a"),
        (
            {
                "$ref": "#/definitions/a",
                "definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}},
            },
            "#/definitions/a -> #/definitions/b -> #/definitions/a",
        ),
        ({"$ref": "#"}, "# -> #"),
        # 2020-12 applies the keywords beside a $ref too: they do not stop it.
        ({"$schema": DRAFT_2020_12, "type": "object", "$ref": "#"}, "# -> #"),
        # anyOf, not, allOf... apply to the same value as the schema they are in.
        ({"anyOf": [{"type": "string"}, {"$ref": "#"}]}, "# -> #/anyOf/1 -> #"),
        (
            {
                "properties": {"x": {"$ref": "#/definitions/n"}},
                "definitions": {"n": {"not": {"$ref": "#/definitions/n"}}},
            },
            "#/definitions/n -> #/definitions/n/not -> #/definitions/n",
        ),
        (
            {
                "$schema": DRAFT_2020_12,
                "$ref": "#node",
                "$defs": {"n": {"$anchor": "node", "allOf": [{"$ref": "#node"}]}},
            },
            "#/$defs/n -> #/$defs/n/allOf/0 -> #/$defs/n",
        ),
    ],
    ids=[
        "defs-a-b-a",
        "definitions-a-b-a",
        "root-self",
        "root-self-2020-12",
        "through-anyOf",
        "through-not",
        "anchor",
    ],
)
def test_a_ref_cycle_that_checks_no_part_of_the_value_is_a_usage_error_naming_the_schema_and_the_cycle(
    project: Path, capsys: pytest.CaptureFixture[str], schema: Any, cycle: str
) -> None:
    path = write_schema(project, "note.schema.json", schema)
    assert main([NOTE]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        f"handoff-lint: error: {project / 'pyproject.toml'}: [tool.handoff.contracts] contract 'note': "
    )
    assert f"schema {path}: $ref cycle {cycle} checks the same value at every step" in err
    assert "so validation would never end" in err
    assert "internal error" not in err


def test_a_ref_cycle_across_two_schema_files_names_each_place_with_its_file(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_schema(project, "note.schema.json", {"$ref": "parts/other.schema.json#/definitions/x"})
    (project / "schemas" / "parts").mkdir()
    write_schema(project, "parts/other.schema.json", {"definitions": {"x": {"$ref": "../note.schema.json"}}})
    assert main([NOTE]) == 2
    err = capsys.readouterr().err
    assert (
        "$ref cycle note.schema.json# -> parts/other.schema.json#/definitions/x -> note.schema.json# "
        "checks the same value" in err
    )


def test_a_recursive_schema_whose_ref_goes_through_properties_and_items_still_validates(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_schema(project, "note.schema.json", TREE)
    tree = {"name": "root", "children": [{"name": "a", "children": [{"name": "a1"}]}, {"name": "b"}]}
    (project / NOTE).write_text(json.dumps(tree), encoding="utf-8")
    assert main([NOTE, "--format", "json", "--ignore", "UC201"]) == 0
    capsys.readouterr()
    tree["children"][0]["children"][0] = {"name": 1}  # type: ignore[index]
    (project / NOTE).write_text(json.dumps(tree), encoding="utf-8")
    assert main([NOTE, "--format", "json", "--ignore", "UC201"]) == 1
    (finding,) = json.loads(capsys.readouterr().out)["findings"]
    assert (finding["code"], finding["pointer"]) == ("HS001", "/children/0/children/0/name")


def test_the_api_raises_the_same_config_error_as_the_cli(project: Path) -> None:
    from pytest_handoff import check
    from pytest_handoff.values.errors import ConfigError

    write_schema(project, "note.schema.json", A_TO_B_TO_A)
    with pytest.raises(
        ConfigError, match=r"note\.schema\.json: \$ref cycle #/\$defs/a -> #/\$defs/b -> #/\$defs/a "
    ):
        check(project / NOTE, root=project)


def test_a_cyclic_schema_set_up_in_code_is_a_finding_never_a_recursion_error(tmp_path: Path) -> None:
    from pytest_handoff.profiles.contracts.schemas import UserSchema
    from pytest_handoff.read.strict_json import parse_json_bytes

    document = parse_json_bytes(b'{"a": 1}', tmp_path / "x.json", "x.json").document
    assert document is not None
    schema = UserSchema(str(tmp_path / "s.json"), A_TO_B_TO_A, {})  # never checked when loaded
    assert not schema.accepts(document)
    (finding,) = schema.findings(document)
    assert finding.code == "HS001"
    assert finding.message.startswith("schema cannot be used: s.json: $ref cycle #/$defs/a -> #/$defs/b")


def test_a_chain_of_refs_too_long_for_pythons_stack_is_a_finding_not_a_traceback(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    length = 2 * sys.getrecursionlimit()  # acyclic, but jsonschema follows it a frame or more per step
    definitions = {f"d{i}": {"$ref": f"#/definitions/d{i + 1}"} for i in range(length)}
    definitions[f"d{length}"] = {"type": "object"}
    write_schema(project, "note.schema.json", {"$ref": "#/definitions/d0", "definitions": definitions})
    assert main([NOTE, "--format", "json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [(f["code"], f["message"]) for f in findings if f["code"] == "HS001"] == [
        (
            "HS001",
            "schema cannot be used: note.schema.json: checking this document against it nests too deeply",
        )
    ]


@pytest.mark.parametrize(
    ("depth", "words"),
    [
        (5, "nests too deeply to be read"),  # deeper than the JSON reader goes
        (1 / 3, "nests"),  # read, then too deep for jsonschema's check (or, under a deep caller, to read)
    ],
    ids=["too-deep-to-read", "too-deep-to-check"],
)
def test_a_schema_nested_too_deeply_for_pythons_stack_is_a_usage_error_not_a_traceback(
    project: Path, capsys: pytest.CaptureFixture[str], depth: float, words: str
) -> None:
    levels = int(depth * sys.getrecursionlimit())
    write_schema(project, "note.schema.json", '{"allOf": [' * levels + "{}" + "]}" * levels)
    assert main([NOTE]) == 2
    err = capsys.readouterr().err
    assert err.startswith("handoff-lint: error: ")
    assert f"schema {project / 'schemas' / 'note.schema.json'}: " in err
    assert words in err
    assert "internal error" not in err


@pytest.mark.slow
def test_pytest_handoffs_reports_a_ref_cycle_as_a_usage_error_without_a_traceback(
    pytester: pytest.Pytester,
) -> None:
    shutil.copytree(PROJECT, pytester.path, dirs_exist_ok=True)
    write_schema(pytester.path, "note.schema.json", A_TO_B_TO_A)
    result = pytester.runpytest("--handoffs", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: pytest-handoff: *note.schema.json: $ref cycle #/$defs/a -> #/$defs/b -> #/$defs/a *"]
    )
    assert "RecursionError" not in result.stdout.str() + result.stderr.str()
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
