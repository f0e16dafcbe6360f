"""Files an attacker controls: every file the tool reads goes through one reader.

A handoff that is a link out of the project, a FIFO or a link to ``/dev/zero``; a transcript,
configuration or JUnit report that is one; a payload too large to hold: each gets a clear
message (or, for the hook, exit 0 at once), never a hang, a read outside the project or a
MemoryError. And what a JUnit report names is masked, and blamed on the report, not on git.
"""

from __future__ import annotations

import io
import json
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.agents import claude_hook
from pytest_handoff.cli import main
from pytest_handoff.read.files import Unreadable, read_bounded, read_head
from tests.agent_loop import Project, stop_payload
from tests.test_evidence import REVIEW, TEST, edit, junit_report, repo

__all__ = ["repo"]  # the fixture, used by name

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero")

SECRET = "OUTSIDE-SECRET-CONTENT"
#: A GitHub token (its format: ghp_ and 36 letters and digits), as a parametrised test id may hold.
TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


def finishes(call: Callable[[], Any], seconds: float = 20) -> Any:
    """``call()``'s value; fails the test (instead of hanging it) when it has not returned in time."""
    answer: list[Any] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            answer.append(call())
        except BaseException as error:  # re-raised in the test's own thread
            failed.append(error)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if failed:
        raise failed[0]
    assert answer, f"still running after {seconds} s"
    return answer[0]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    made = Project(tmp_path / "repo")
    (made.root / ".git").mkdir()
    return made


def edit_payload(project: Project, target: Path) -> dict[str, Any]:
    return {
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(target), "old_string": "a", "new_string": "b"},
        "cwd": str(project.root),
    }


def run_hook(sent: dict[str, Any] | bytes) -> tuple[int, str, str]:
    raw = sent if isinstance(sent, bytes) else json.dumps(sent).encode("utf-8")
    stdout, stderr = io.StringIO(), io.StringIO()
    code = finishes(lambda: claude_hook.main([], io.BytesIO(raw), stdout, stderr))
    return code, stdout.getvalue(), stderr.getvalue()


def test_an_edit_of_a_handoff_linked_out_of_the_project_never_shows_what_it_links_to(
    project: Project, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps({"handoff_type": SECRET, "a": 1}), encoding="utf-8")
    link = project.chain / "05-extra-agent.json"
    link.symlink_to(outside)
    code, out, err = run_hook(edit_payload(project, link))
    assert code == 0
    assert SECRET not in out + err


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_an_edit_of_a_handoff_that_is_a_fifo_or_a_device_lets_the_tool_go_at_once(
    project: Project, kind: str
) -> None:
    target = project.chain / "05-extra-agent.json"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    assert run_hook(edit_payload(project, target)) == (0, "", "")


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_stop_hook_whose_transcript_is_a_fifo_or_a_device_warns_and_goes_on(
    project: Project, tmp_path: Path, kind: str
) -> None:
    transcript = tmp_path / "transcript.jsonl"
    if kind == "fifo":
        os.mkfifo(transcript)
    else:
        transcript.symlink_to("/dev/zero")
    code, out, err = run_hook(stop_payload(project, transcript))
    assert code == 0
    assert "decision" not in out  # a note for the user at most: the agent is not blocked
    assert "cannot read the transcript_path (not a regular file)" in err


def test_a_payload_over_the_limit_is_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(claude_hook, "MAX_PAYLOAD", 1000)
    code, out, err = run_hook(json.dumps({"hook_event_name": "Stop", "pad": "x" * 2000}).encode())
    assert (code, out) == (0, "")
    assert "payload is over" in err


def test_a_configuration_that_is_a_fifo_is_a_usage_error(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = project.root / "settings.toml"
    os.mkfifo(fifo)
    assert finishes(lambda: main(["--config", str(fifo), str(project.root)])) == 2
    assert "not a regular file" in capsys.readouterr().err


def test_the_one_reader_refuses_fifos_devices_links_out_and_files_over_budget(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    (tmp_path / "inside").mkdir()
    out = tmp_path / "inside" / "out"
    out.symlink_to(big)
    for path, root in ((fifo, None), (Path("/dev/zero"), None), (big, None), (out, tmp_path / "inside")):
        with pytest.raises(Unreadable):
            finishes(lambda path=path, root=root: read_bounded(path, 100, root=root))
    with pytest.raises(FileNotFoundError):
        read_bounded(tmp_path / "none", 100)
    assert read_bounded(big, 101) == b"x" * 101
    assert finishes(lambda: read_head(fifo, 10)) is None
    assert read_head(big, 3) == b"xxx"


def evidence_findings(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    main(["--format", "json", "--evidence", *args])
    return [f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"].startswith("EV")]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["fifo", "too-large"])
def test_a_cited_file_that_is_a_fifo_or_too_large_is_not_said_not_to_exist(
    repo: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    cited = repo / "billing" / "odd.py"
    if kind == "fifo":
        os.mkfifo(cited)
    else:
        cited.write_bytes(b"#\n" * 3_000_000)
    edit(repo, REVIEW, lambda d: d["issues"][0].update(location="billing/odd.py:3"))
    found = finishes(lambda: evidence_findings(capsys))
    assert [f["code"] for f in found] == ["EV001"]
    assert "billing/odd.py is not read" in found[0]["message"]


@pytest.mark.slow
def test_a_broken_junit_report_is_blamed_on_the_report_not_on_git(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = repo / "junit.xml"
    report.write_text("<testsuites><testsuite", encoding="utf-8")
    found = evidence_findings(capsys, "--evidence-junit", str(report))
    assert [f["code"] for f in found] == ["EV001"]
    assert found[0]["message"].startswith("claims not checked against the JUnit report: JUnit report")
    assert "git" not in found[0]["message"]


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "markdown"])
def test_ev501_masks_a_secret_in_a_failing_test_name(
    repo: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    edit(repo, TEST, lambda d: d["test_summary"].update(total=41, passing=40, failing=0, skipped=1))
    report = junit_report(repo, failing=(f"test_login[{TOKEN}]",), passing=39)
    main(["--format", fmt, "--evidence", "--evidence-junit", str(report)])
    out = capsys.readouterr().out
    assert "EV501" in out
    assert "ghp" in out  # named, its secret masked
    assert TOKEN not in out


@pytest.mark.slow
def test_ev501_under_pytest_masks_a_secret_in_a_failing_test_name(
    repo: Path, pytester: pytest.Pytester
) -> None:
    edit(repo, TEST, lambda d: d["test_summary"].update(total=41, passing=40, failing=0, skipped=1))
    report = junit_report(repo, failing=(f"test_login[{TOKEN}]",), passing=39)
    result = pytester.runpytest_inprocess(
        "--handoffs",
        "--handoff-evidence-junit",
        str(report),
        "-p",
        "no:cacheprovider",
        "--rootdir",
        str(repo),
        str(repo),
    )
    output = result.stdout.str() + result.stderr.str()
    assert "EV501" in output
    assert TOKEN not in output


def test_a_fifo_in_the_result_cache_does_not_hang_the_run(project: Project) -> None:
    cache = project.root.parent / "cache"
    cache.mkdir()
    os.mkfifo(cache / "planted.pack.json")
    assert finishes(lambda: main(["--cache-dir", str(cache), "--format", "json", str(project.root)])) in (
        0,
        1,
    )


def test_a_setting_named_with_a_line_break_cannot_open_a_line_of_the_error(
    project: Project, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.root)
    (project.root / "pyproject.toml").write_text(
        '[tool.handoff.craik]\n"x\\n::add-mask::injected" = 1\n', encoding="utf-8"
    )
    assert main([str(project.root)]) == 2
    err = capsys.readouterr().err
    assert "injected" in err
    assert [line for line in err.splitlines() if line.lstrip().startswith("::")] == []
