"""Each failing group names its first broken handoff (in the group's order, with its agent and
time): in the text headline, JSON, the Markdown summary and the chain view, cached or not."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_handoff.cli import main
from pytest_handoff.model import Finding, GroupRef, GroupResult, Severity, Stamp
from tests.conftest import EXAMPLES

CHAIN = ".neuralrelay/handoffs/20261103-091500"


def finding(path: str, line: int, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(path=path, line=line, column=1, code="HS001", severity=severity, message="m")


def result(findings: list[Finding], stamps: list[Stamp]) -> GroupResult:
    return GroupResult(GroupRef("yolo", "g", None, ()), tuple(findings), (), stamps=tuple(stamps))


def test_the_first_handoff_in_order_with_an_error_is_named_not_the_first_file_with_a_warning() -> None:
    stamps = [Stamp("a.json", 1, "pm", "t1"), Stamp("b.json", 1, "dev", "t2"), Stamp("c.json", 1, "qa", "t3")]
    found = result([finding("a.json", 3, Severity.WARNING), finding("c.json", 2), finding("b.json", 9)], stamps)
    assert found.first_broken == stamps[1]


def test_in_a_file_of_many_handoffs_the_line_tells_which_broke() -> None:
    stamps = [Stamp("m.jsonl", 1, "lead", ""), Stamp("m.jsonl", 2, "dev", ""), Stamp("m.jsonl", 3, "qa", "")]
    assert result([finding("m.jsonl", 3)], stamps).first_broken == stamps[2]
    assert result([finding("m.jsonl", 2)], stamps).first_broken == stamps[1]


def test_a_group_without_errors_names_none() -> None:
    assert result([finding("a.json", 1, Severity.WARNING)], [Stamp("a.json", 1, "", "")]).first_broken is None


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(EXAMPLES / "neuralrelay" / "clean" / ".neuralrelay", tmp_path / ".neuralrelay")
    (tmp_path / ".git").mkdir()
    test = tmp_path / CHAIN / "03-test-agent.json"
    data = json.loads(test.read_text())
    data["test_summary"]["total"] = 99  # breaks the test agent's handoff only
    test.write_text(json.dumps(data, indent=2))
    monkeypatch.chdir(tmp_path)
    for variable in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "FORCE_COLOR"):
        monkeypatch.delenv(variable, raising=False)
    return tmp_path


EXPECTED = {"path": f"{CHAIN}/03-test-agent.json", "line": 1, "agent": "test-agent", "time": "2026-11-03T10:31:07Z"}


@pytest.mark.parametrize("args", [[], ["--jobs", "2"]], ids=["here", "in workers"])
def test_json_names_the_first_broken_handoff_also_from_the_cache(
    project: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    for _ in range(2):  # cold, then warm from the cache
        assert main(["--format", "json", "--cache-dir", str(project / ".cache"), *args]) == 1
        assert json.loads(capsys.readouterr().out)["first_broken"] == {"20261103-091500": EXPECTED}


def test_the_text_headline_and_the_markdown_summary_name_it(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main([])
    assert "20261103-091500: first broken handoff" in capsys.readouterr().out
    main(["--format", "markdown"])
    assert "First broken handoff: " in capsys.readouterr().out


def test_the_chain_view_names_it(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["chain", "--format", "json"])
    broken = json.loads(capsys.readouterr().out)["first_broken"]
    assert (broken["file"].rsplit("/", 1)[-1], broken["agent"], broken["timestamp"]) == (
        "03-test-agent.json",
        "test-agent",
        "2026-11-03T10:31:07Z",
    )


def test_a_file_that_did_not_parse_can_be_the_first_broken(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / CHAIN / "02-dev-agent.json").write_text("{not json")
    main(["--format", "json"])
    broken = json.loads(capsys.readouterr().out)["first_broken"]["20261103-091500"]
    assert (broken["path"], broken["line"]) == (f"{CHAIN}/02-dev-agent.json", 1)


def test_an_agent_name_shaped_like_a_secret_is_not_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    folder = tmp_path / ".yolo-planning" / "phases" / "01-x"
    folder.mkdir(parents=True)
    (folder / "messages.jsonl").write_text(json.dumps({"type": "dev_progress", "from": token}) + "\n")
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    main(["--format", "json"])
    out = capsys.readouterr().out
    assert token not in out
    assert json.loads(out)["first_broken"]["phases/01-x"]["agent"] == ""


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_named_like_a_log_does_not_hang(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import os

    os.mkfifo(tmp_path / "agent.log")
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    from pytest_handoff import api

    # Asked of the API (as MCP asks), the pipe is looked at without waiting for a writer.
    assert [f.code for f in api.check("agent.log", root=tmp_path)] in (["HF005"], ["HF007"])
