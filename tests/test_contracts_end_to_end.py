"""User contracts end to end: ``handoff-lint`` (JSON and SARIF output, ``--profile contracts``,
usage errors) and ``pytest --handoffs`` on a project that declares contracts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_handoff.cli import main

PROJECT = Path(__file__).parent / "fixtures" / "contracts" / "project"
PLAN = "reviews/sprint-1/01-plan.yaml"
NOTE = "notes/release.json"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(PROJECT, tmp_path, dirs_exist_ok=True)
    (tmp_path / ".git").mkdir()  # the project's root
    monkeypatch.chdir(tmp_path)
    return tmp_path


def break_plan(root: Path) -> None:
    text = (root / PLAN).read_text(encoding="utf-8")
    (root / PLAN).write_text(
        text.replace("Sessions expire after 30 minutes of inactivity", "TBD"), encoding="utf-8"
    )


def test_a_project_keeping_its_contracts_exits_0(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["findings"] == []
    assert report["summary"] == {"files": 3, "chains": 2, "errors": 0, "warnings": 0}


def test_json_output_names_the_code_the_users_rule_id_and_the_place(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    break_plan(project)
    assert main([PLAN, "--format", "json"]) == 1
    (finding,) = json.loads(capsys.readouterr().out)["findings"]
    assert {key: finding[key] for key in ("path", "line", "column", "code", "rule", "pointer", "chain")} == {
        "path": PLAN,
        "line": 2,
        "column": 10,
        "code": "UC202",
        "rule": "no-tbd",
        "pointer": "/summary",
        "chain": "sprint-1",
    }


def test_sarif_output_describes_the_check_and_names_the_users_rule_in_the_message(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    break_plan(project)
    assert main(["--format", "sarif"]) == 1
    run = json.loads(capsys.readouterr().out)["runs"][0]
    (rule,) = run["tool"]["driver"]["rules"]
    assert (rule["id"], rule["name"]) == ("UC202", "no-placeholders")
    (result,) = run["results"]
    assert result["ruleId"] == "UC202"
    assert result["message"]["text"].startswith("[no-tbd] placeholder")
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 2


def test_text_output_prints_the_finding_as_documented(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    break_plan(project)
    assert main([PLAN]) == 1
    out = capsys.readouterr().out
    assert f"{PLAN}:2:10: UC202 no-tbd [error] at /summary" in out
    assert '[no-tbd] placeholder "TBD" in /summary: write the actual content' in out


def test_profile_contracts_checks_a_named_file_outside_every_contracts_globs(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "elsewhere").mkdir()
    (project / "elsewhere" / "draft.json").write_text(
        '{"title": "t", "body": "TODO", "tags": ["a", "b"]}\n', encoding="utf-8"
    )
    # Without --profile, a JSON file no contract's globs match is no contract document.
    pyproject = project / "pyproject.toml"
    note_only = pyproject.read_text(encoding="utf-8").split("[tool.handoff.contracts.note]")[1]
    pyproject.write_text("[tool.handoff.contracts.note]" + note_only, encoding="utf-8")
    assert main(["elsewhere/draft.json", "--profile", "contracts", "--format", "json"]) == 1
    (finding,) = json.loads(capsys.readouterr().out)["findings"]
    assert (finding["code"], finding["rule"], finding["line"], finding["column"]) == (
        "UC202",
        "real-body",
        1,
        24,
    )


def test_a_yaml_syntax_error_is_a_finding_not_a_traceback(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / PLAN).write_text("kind: plan\ncriteria: [a, b\n", encoding="utf-8")
    assert main([PLAN, "--format", "json"]) == 1
    (finding,) = json.loads(capsys.readouterr().out)["findings"]
    assert (finding["code"], finding["line"]) == ("UC001", 3)


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        ('{"type": "strin"}', "not a valid JSON Schema: 'type' at the root must be one of"),
        ('{"$ref": "https://example.com/s.json"}', "is remote: schemas are never fetched from the network"),
    ],
)
def test_an_unusable_schema_is_a_usage_error_naming_the_file(
    project: Path, capsys: pytest.CaptureFixture[str], schema: str, words: str
) -> None:
    (project / "schemas" / "note.schema.json").write_text(schema, encoding="utf-8")
    assert main([]) == 2
    err = capsys.readouterr().err
    # The configuration file and the key first, then the schema file and what is wrong with it.
    assert err.startswith(
        f"handoff-lint: error: {project / 'pyproject.toml'}: [tool.handoff.contracts] contract "
    )
    assert f"schema {project / 'schemas' / 'note.schema.json'}: " in err
    assert words in err


def test_explain_prints_a_checks_documentation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "UC205"]) == 0
    out = capsys.readouterr().out
    assert "UC205 timestamps-forward" in out
    assert "**Use instead**" in out


def test_pytest_handoffs_collects_a_contracts_groups_and_fails_the_broken_one(
    pytester: pytest.Pytester,
) -> None:
    shutil.copytree(PROJECT, pytester.path, dirs_exist_ok=True)
    break_plan(pytester.path)
    result = pytester.runpytest("--handoffs", "-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "notes/release.json::release.json PASSED*",
            "reviews/sprint-1::sprint-1 FAILED*",
            f"*{PLAN}:2:10: UC202 no-tbd*",
        ]
    )


def test_checking_one_clean_yaml_file_imports_nothing_heavy(project: Path) -> None:
    import subprocess
    import sys

    from tests.probes import HEAVY_MODULES

    heavy = (*HEAVY_MODULES, "referencing")
    # Schemas of fastcheck's keywords (a $ref needs jsonschema, to resolve it).
    (project / "pyproject.toml").write_text(
        '[tool.handoff.contracts.plan]\nglobs = ["reviews/**/*.yaml"]\nschema = "schemas/plan.schema.json"\n'
        '[tool.handoff.contracts.note]\nglobs = ["notes/*.json"]\nschema = "schemas/note.schema.json"\n',
        encoding="utf-8",
    )
    probe = (
        "import io, sys\n"
        "from pytest_handoff.cli import main\n"
        "out, sys.stdout = sys.stdout, io.StringIO()\n"
        "code = main(sys.argv[1:])\n"
        "sys.stdout = out\n"
        f"print(code, sorted(m for m in {heavy!r} if m in sys.modules), 'yaml' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, PLAN], capture_output=True, text=True, check=True, cwd=project
    )
    assert done.stdout.split() == ["0", "[]", "True"]
    # ... and a JSON contract document does not import yaml at all.
    done = subprocess.run(
        [sys.executable, "-c", probe, NOTE], capture_output=True, text=True, check=True, cwd=project
    )
    assert done.stdout.split() == ["0", "[]", "False"]
