"""Ralph sessions through the real entry points: ``handoff-lint`` and ``pytest --handoffs``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_handoff.cli import main
from tests.ralph_helpers import CLEAN_LOGS, PROMISE, READY, column_of, make_session, phrase

Run = Callable[..., pytest.RunResult]
LOG = ".claude/session/logs/developer.log"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The clean session as the working directory, outside CI."""
    root = make_session(tmp_path / "lantern")
    monkeypatch.chdir(root)
    for variable in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "FORCE_COLOR"):
        monkeypatch.delenv(variable, raising=False)
    return root


def _json_findings(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, object]]]:
    code = main([*args, "--format", "json"])
    findings: list[dict[str, object]] = json.loads(capsys.readouterr().out)["findings"]
    return code, findings


def test_handoff_lint_passes_the_clean_session_log(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _json_findings(capsys, LOG) == (0, [])


def test_handoff_lint_gives_the_line_and_column_of_a_phrase_in_a_log(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = phrase("qa", sender="developer", reason="validation_passed")  # a pass goes qa -> pm
    (project / LOG).write_text("\n".join(["Committed 3f2a1c0", READY, wrong]) + "\n")

    code, findings = _json_findings(capsys, LOG)
    assert code == 1
    assert [(f["code"], f["path"], f["line"], f["column"], f["end_column"]) for f in findings] == [
        ("RL103", LOG, 3, column_of(wrong, "eyJ"), len(wrong))
    ]


def test_handoff_lint_reports_only_the_named_log_of_a_session(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".claude/session/logs/qa.log").write_text("HANDOFF:tester:x\n")
    assert _json_findings(capsys, LOG) == (0, [])
    code, findings = _json_findings(capsys, ".claude/session/logs/qa.log")
    assert (code, [(f["code"], f["line"], f["column"]) for f in findings]) == (1, [("RL001", 1, 9)])


def test_profile_ralph_reads_a_log_outside_the_usual_places(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "transcript.txt").write_text(f"{READY}\nHANDOFF:qa:not base64 at all\n")
    code, findings = _json_findings(capsys, "transcript.txt", "--profile", "ralph")
    assert (code, [(f["code"], f["line"], f["column"]) for f in findings]) == (0, [("RL003", 2, 12)])


def test_pytest_collects_one_item_per_session_and_selects_it_by_agent(
    pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    make_session(pytester.path / "lantern")
    make_session(pytester.path / "other", logs={"pm": CLEAN_LOGS["pm"]})

    everything = run_handoffs("--collect-only", "-q")
    everything.stdout.fnmatch_lines(
        [
            "lantern/.claude/session/coordinator-state.json::ralph-single-20260302-090000",
            "other/.claude/session/coordinator-state.json::ralph-single-20260302-090000",
            "2 tests collected*",
        ]
    )
    run_handoffs("--collect-only", "-q", "-k", "qa").stdout.fnmatch_lines(
        ["lantern/.claude/session/coordinator-state.json::*", "1/2 tests collected*"]
    )
    run_handoffs("--collect-only", "-q", "-k", "ralph and pm").stdout.fnmatch_lines(["2 tests collected*"])


def test_pytest_fails_the_session_item_with_the_findings_of_its_files(
    pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    root = make_session(pytester.path / "lantern")
    prd = json.loads((root / "prd.json").read_text())
    prd["items"][1]["passes"] = False
    (root / "prd.json").write_text(json.dumps(prd, indent=2))
    (root / ".claude/session/handoff-signal.json").unlink()

    result = run_handoffs()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*lantern/.claude/session/logs/pm.log:5:1: RL201 complete-with-open-items*", f"*{PROMISE}*"]
    )


def test_a_secret_in_a_log_line_shown_in_a_report_is_reported_and_masked(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    good = phrase("qa", sender="developer", reason="ready_for_qa")
    (project / LOG).write_text("\n".join([READY, good, READY, f"HANDOFF:qa:token {token} works"]) + "\n")

    code = main([LOG])
    out = capsys.readouterr().out
    assert code == 1
    assert token not in out
    assert f"{LOG}:4:1: HX001 unredacted-secret" in out
    assert f"{LOG}:4:12: RL003 plain-text-handoff-context" in out
