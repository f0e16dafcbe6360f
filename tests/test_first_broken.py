"""Each failing group names its first broken handoff (in the group's order, with its agent and
time): in the text headline, JSON, the Markdown summary and the chain view, cached or not."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_handoff.cli import main
from pytest_handoff.values.findings import Finding, Severity
from pytest_handoff.values.groups import GroupRef, GroupResult, Stamp
from tests.conftest import EXAMPLES

CHAIN = ".neuralrelay/handoffs/20261103-091500"


def finding(path: str, line: int, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(path=path, line=line, column=1, code="HS001", severity=severity, message="m")


def result(findings: list[Finding], stamps: list[Stamp]) -> GroupResult:
    return GroupResult(GroupRef("yolo", "g", None, ()), tuple(findings), (), stamps=tuple(stamps))


def test_the_first_handoff_in_order_with_an_error_is_named_not_the_first_file_with_a_warning() -> None:
    stamps = [Stamp("a.json", 1, "pm", "t1"), Stamp("b.json", 1, "dev", "t2"), Stamp("c.json", 1, "qa", "t3")]
    found = result(
        [finding("a.json", 3, Severity.WARNING), finding("c.json", 2), finding("b.json", 9)], stamps
    )
    assert found.first_broken == stamps[1]


def test_in_a_file_of_many_handoffs_the_line_tells_which_broke() -> None:
    stamps = [Stamp("m.jsonl", 1, "lead", ""), Stamp("m.jsonl", 2, "dev", ""), Stamp("m.jsonl", 3, "qa", "")]
    assert result([finding("m.jsonl", 3)], stamps).first_broken == stamps[2]
    assert result([finding("m.jsonl", 2)], stamps).first_broken == stamps[1]


def test_a_group_without_errors_names_none() -> None:
    assert result([finding("a.json", 1, Severity.WARNING)], [Stamp("a.json", 1, "", "")]).first_broken is None


def reference_first_broken(found: GroupResult) -> Stamp | None:
    """The first algorithm, kept as the reference: for each stamp, the following stamps and every error."""
    errors = [f for f in found.findings if f.severity >= Severity.ERROR]
    for index, stamp in enumerate(found.stamps):
        following = next((s.line for s in found.stamps[index + 1 :] if s.path == stamp.path), None)
        if any(
            f.path == stamp.path
            and (f.line == 0 or f.line >= stamp.line)
            and (following is None or f.line < following)
            for f in errors
        ):
            return stamp
    return None


def test_an_error_about_a_whole_file_breaks_the_first_handoff_that_can_hold_it() -> None:
    stamps = [Stamp("b.json", 1, "", ""), Stamp("m.jsonl", 4, "a", ""), Stamp("m.jsonl", 2, "b", "")]
    assert result([finding("m.jsonl", 0)], stamps).first_broken == stamps[1]
    # A following handoff of the file at line 0 leaves no line before it.
    odd = [Stamp("m.jsonl", 3, "a", ""), Stamp("m.jsonl", 0, "b", "")]
    assert result([finding("m.jsonl", 0)], odd).first_broken == odd[1]


@pytest.mark.parametrize(
    ("lines", "stamps", "expected"),
    [
        ([5], [("m", 3), ("x", 1), ("m", 7), ("m", 4)], 0),  # interleaved: the next of m is line 7
        ([5], [("m", 7), ("m", 3), ("m", 4)], 2),  # unsorted: 3 ends at 4; 4 is the last
        ([2], [("m", 2), ("m", 2), ("m", 2)], 2),  # repeated lines: only the last holds line 2
        ([1], [("m", 2), ("m", 5)], None),  # before every handoff: none holds it
        ([9, 0], [("x", 1), ("m", 4), ("m", 1)], 1),
    ],
)
def test_stamps_out_of_order_repeated_or_interleaved_name_the_same_handoff_as_before(
    lines: list[int], stamps: list[tuple[str, int]], expected: int | None
) -> None:
    made = [Stamp(path, line, str(index), "") for index, (path, line) in enumerate(stamps)]
    found = result([finding("m", line) for line in lines], made)
    assert found.first_broken == reference_first_broken(found)
    assert found.first_broken == (None if expected is None else made[expected])


paths = st.sampled_from(["a", "b", "c"])
lines = st.integers(-1, 7)  # 0: about the file as a whole; -1: no place a reader makes, still answered alike
severities = st.sampled_from([Severity.INFO, Severity.WARNING, Severity.ERROR, Severity.ERROR])


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(paths, lines, severities), max_size=12),
    st.lists(st.tuples(paths, lines), max_size=12),
)
def test_the_first_broken_handoff_is_the_one_the_first_algorithm_named(
    findings: list[tuple[str, int, Severity]], stamps: list[tuple[str, int]]
) -> None:
    # Agents tell stamps apart: equal stamps at different places would hide a wrong pick.
    made = [Stamp(path, line, f"agent{index}", "") for index, (path, line) in enumerate(stamps)]
    found = result([finding(path, line, severity) for path, line, severity in findings], made)
    assert found.first_broken == reference_first_broken(found)


def test_a_group_of_a_hundred_thousand_handoffs_is_answered_in_one_pass() -> None:
    # All on one line of one file, the error on the last: the first algorithm took minutes.
    stamps = [Stamp("agent.log", 1, "developer", "")] * 99_999 + [Stamp("agent.log", 1, "qa", "")]
    found = result([finding("agent.log", 1 + n) for n in range(100)], stamps)
    started = time.perf_counter()
    assert found.first_broken == stamps[-1]
    assert time.perf_counter() - started < 1.0


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


EXPECTED = {
    "path": f"{CHAIN}/03-test-agent.json",
    "line": 1,
    "agent": "test-agent",
    "time": "2026-11-03T10:31:07Z",
}


@pytest.mark.parametrize("args", [[], ["--jobs", "2"]], ids=["here", "in workers"])
def test_json_names_the_first_broken_handoff_also_from_the_cache(
    project: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    for _ in range(2):  # cold, then warm from the cache
        assert main(["--format", "json", "--cache-dir", str(project / ".cache"), *args]) == 1
        assert json.loads(capsys.readouterr().out)["first_broken"] == {"20261103-091500": EXPECTED}


def test_the_text_headline_and_the_markdown_summary_name_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
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


def test_a_file_that_did_not_parse_can_be_the_first_broken(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / CHAIN / "02-dev-agent.json").write_text("{not json")
    main(["--format", "json"])
    broken = json.loads(capsys.readouterr().out)["first_broken"]["20261103-091500"]
    assert (broken["path"], broken["line"]) == (f"{CHAIN}/02-dev-agent.json", 1)


def test_an_agent_name_shaped_like_a_secret_is_not_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
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
def test_a_named_pipe_named_like_a_log_does_not_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    os.mkfifo(tmp_path / "agent.log")
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    from pytest_handoff import api

    # Asked of the API (as MCP asks), the pipe is looked at without waiting for a writer.
    assert [f.code for f in api.check("agent.log", root=tmp_path)] in (["HF005"], ["HF007"])
