"""A file named explicitly that no format claims gets one finding (HF005), never a guess at its format."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_handoff import api
from pytest_handoff.cli import main
from pytest_handoff.pipeline.registry import default_registry
from tests.ralph_helpers import FIXTURES as RALPH_FIXTURES


@pytest.fixture
def project(git_project: Path) -> Path:
    (git_project / "notes").mkdir()
    return git_project


def lint(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict[str, object]]]:
    code = main(["--format", "json", *args])
    return code, json.loads(capsys.readouterr().out)["findings"]


def test_an_unclaimed_json_file_gets_one_HF005_naming_every_format_tried(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "notes" / "x.json").write_text("{}", encoding="utf-8")
    code, findings = lint(["notes/x.json"], capsys)
    assert code == 1
    assert [(f["code"], f["path"]) for f in findings] == [("HF005", "notes/x.json")]
    message = str(findings[0]["message"])
    assert all(name in message for name in default_registry().names())


def test_an_unclaimed_jsonl_file_is_never_parsed_as_one_document(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "notes" / "y.jsonl").write_text('{"a": 1}\n{"b": 2}\n', encoding="utf-8")
    _, findings = lint(["notes/y.jsonl"], capsys)
    assert [f["code"] for f in findings] == ["HF005"]


def test_the_api_answers_an_unclaimed_file_as_the_cli_does(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "notes" / "x.json").write_text("{}", encoding="utf-8")
    _, from_cli = lint(["notes/x.json"], capsys)
    from_api = api.check("notes/x.json", content="{}", root=project)
    assert [(f.code, f.path, f.line, f.message) for f in from_api] == [
        (f["code"], f["path"], f["line"], f["message"]) for f in from_cli
    ]


def test_a_file_a_format_claims_gets_no_HF005(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = project / ".neuralrelay" / "handoffs" / "c1"
    folder.mkdir(parents=True)
    (folder / "01-ba-agent.json").write_text("{}", encoding="utf-8")
    _, findings = lint([".neuralrelay/handoffs/c1/01-ba-agent.json"], capsys)
    assert "HF005" not in {f["code"] for f in findings}


def test_a_log_outside_a_ralph_session_is_ralphs_when_it_holds_a_handoff_phrase(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Corrupted base64 context: a Ralph finding at the phrase, not HF002 for a log read as JSON.
    (project / "notes" / "run.log").write_text(
        "build started\nHANDOFF:developer:eyJmcm9tIjoi!!!notbase64\n", encoding="utf-8"
    )
    _, findings = lint(["notes/run.log"], capsys)
    codes = {f["code"] for f in findings}
    assert "RL002" in codes
    assert not codes & {"HF002", "HF005"}
    assert {f["line"] for f in findings if f["code"] == "RL002"} == {2}


def test_a_log_without_ralph_phrases_is_unclaimed(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "notes" / "run.log").write_text("INFO nightly rotation done\n", encoding="utf-8")
    _, findings = lint(["notes/run.log"], capsys)
    assert [f["code"] for f in findings] == ["HF005"]


def test_prd_json_beside_an_empty_session_folder_is_checked_in_a_whole_project_run(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".claude" / "session").mkdir(parents=True)
    shutil.copyfile(RALPH_FIXTURES / "clean" / "prd.json", project / "prd.json")
    (project / "prd.json").write_text(
        (project / "prd.json").read_text(encoding="utf-8").replace('"items"', '"stories"', 1),
        encoding="utf-8",
    )
    code, findings = lint([], capsys)
    assert code == 1
    assert {f["path"] for f in findings} == {"prd.json"}


def test_prd_json_without_a_session_is_not_taken_for_ralphs(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "prd.json").write_text('{"userStories": []}', encoding="utf-8")
    code, findings = lint([], capsys)
    assert (code, findings) == (0, [])


def test_a_log_a_projects_own_glob_finds_outside_any_logs_folder_is_read_for_its_phrases(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.handoff.ralph]\nglobs = ["agent-output/*.log"]\n', encoding="utf-8"
    )
    (project / "agent-output").mkdir()
    (project / "agent-output" / "pm.log").write_text(
        "HANDOFF:developer:eyJmcm9tIjoi!!!notbase64\n", encoding="utf-8"
    )
    _, findings = lint([], capsys)
    assert "RL002" in {f["code"] for f in findings}
