"""``handoff-lint claude-hook`` on Stop and SubagentStop: the handoffs an agent's work wrote, checked
before it finishes.

Payloads are Claude Code's Stop and SubagentStop payloads (:func:`tests.agent_loop.stop_payload`):
the hook reads ``hook_event_name``, ``cwd``, ``stop_hook_active`` and ``transcript_path`` (Stop)
or ``agent_transcript_path`` (SubagentStop). Transcripts are JSONL in the shape Claude Code writes
(:class:`tests.agent_loop.Transcript`); the project is a git repository the fixture commits.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.agents import claude_hook
from pytest_handoff.agents.stop import MAX_BLOCKS, read_transcript
from pytest_handoff.cli import main as cli_main
from tests.agent_loop import (
    DEV,
    REVIEW,
    TEST,
    Project,
    Transcript,
    git,
    in_git,
    stop_payload,
    subagent_stop_payload,
)

MARK = re.compile(r"\(handoff-lint stop check (\d) of 3, findings ([0-9a-f]{12})\)$")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    for variable in ("CLAUDE_PROJECT_DIR", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(variable, raising=False)
    return in_git(Project(tmp_path / "repo"))


@pytest.fixture
def transcript(project: Project) -> Transcript:
    """The main session's transcript, beside the project (as under ~/.claude/projects/)."""
    return Transcript(project.root.parent / "abc123.jsonl", project.root).prompt("Write the dev handoff.")


def run_hook(sent: dict[str, Any], *argv: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = claude_hook.main(list(argv), io.BytesIO(json.dumps(sent).encode("utf-8")), stdout, stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def blocked(stdout: str) -> tuple[str, int]:
    """The reason of a block and the number its mark gives it (fails the test if it is not one)."""
    answer = json.loads(stdout)
    assert set(answer) == {"decision", "reason"}
    assert answer["decision"] == "block"
    reason: str = answer["reason"]
    mark = MARK.search(reason.splitlines()[-1])
    assert mark is not None, reason
    return reason, int(mark.group(1))


def let_stop_with_a_message(stdout: str) -> str:
    """The user's message when the agent is let stop over errors (no decision)."""
    answer = json.loads(stdout)
    assert list(answer) == ["systemMessage"]
    message: str = answer["systemMessage"]
    return message


def bad_tokens(data: Any) -> None:
    data["tokens_used"] = "lots"


def new_chain_with_a_broken_handoff(project: Project) -> str:
    """An untracked chain whose dev handoff has an HS001: its display path."""
    folder = project.root / ".neuralrelay" / "handoffs" / "20261104-080000"
    folder.mkdir()
    (folder / DEV).write_text(project.changed(DEV, bad_tokens), encoding="utf-8")
    project.settle()
    return f".neuralrelay/handoffs/20261104-080000/{DEV}"


# --- which handoffs are checked -----------------------------------------------------------------


def test_hs001_an_untracked_broken_handoff_keeps_the_agent_working(
    project: Project, transcript: Transcript
) -> None:
    shown = new_chain_with_a_broken_handoff(project)
    code, out, err = run_hook(stop_payload(project, transcript.path))
    assert (code, err) == (0, "")
    reason, number = blocked(out)
    assert number == 1
    assert reason.startswith(
        f"handoff-lint: do not finish yet: {shown}, written or changed in this work, breaks 2 "
    )
    assert f"{shown}:1:1 [NR103 sequence-numbers] sequence jumps to 02: 01 missing" in reason
    assert f"{shown}:127:18 /tokens_used [HS001 schema-violation]" in reason
    assert project.unchanged()  # nothing written, git's index included


def test_the_agent_stops_silently_when_what_changed_is_clean(
    project: Project, transcript: Transcript
) -> None:
    project.replace(TEST, project.text(TEST).replace('"total": 41', '"total":41'))
    assert run_hook(stop_payload(project, transcript.path)) == (0, "", "")


def test_a_committed_handoff_the_transcript_shows_written_is_checked(
    project: Project, transcript: Transcript
) -> None:
    project.replace(DEV, project.changed(DEV, bad_tokens))
    git(project.root, "commit", "-qam", "the agent committed it")  # git sees nothing changed now
    assert run_hook(stop_payload(project, transcript.path)) == (0, "", "")
    transcript.tool("Write", file_path=str(project.path(DEV)), content="...")
    reason, _ = blocked(run_hook(stop_payload(project, transcript.path))[1])
    assert "[HS001 schema-violation]" in reason


def test_the_transcript_gives_the_files_of_write_edit_multiedit_and_bash_calls(
    project: Project, transcript: Transcript
) -> None:
    chain = project.path(DEV).parent
    transcript.tool("Write", file_path=str(chain / "a.json"), content="{}")
    transcript.tool("Edit", file_path=str(chain / "b.json"), old_string="x", new_string="y")
    transcript.tool("MultiEdit", file_path=str(chain / "c.json"), edits=[])
    transcript.tool("Bash", command="cd .neuralrelay && jq . x > d.json; tee /tmp/e.json < x")
    transcript.tool("Read", file_path=str(chain / "not-written.json"))
    transcript.tool("Write", file_path=str(chain / "a.json"), content="{}")  # named once
    found = read_transcript(transcript.path, project.root)
    assert found.written == (
        chain / "a.json",
        chain / "b.json",
        chain / "c.json",
        project.root / ".neuralrelay" / "d.json",
        Path("/tmp/e.json"),
    )
    assert found.started == 1793697300.0  # 2026-11-03T09:15:00Z, its first entry


def test_lines_of_another_shape_are_skipped(project: Project, transcript: Transcript) -> None:
    transcript.path.write_text(
        "\n".join(
            [
                "not json",
                '["tool_use"]',
                '{"type": "assistant", "message": "tool_use"}',
                '{"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Write", "input": 3}]}}',
                '{"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Write",'
                ' "input": {"file_path": 7}}]}}',
                '{"type": "summary", "summary": "tool_use", "leafUuid": "u1"}',
                "\udcff" + "{" * 10_000 + '"tool_use"',
            ]
        ),
        encoding="utf-8",
        errors="surrogateescape",
    )
    assert read_transcript(transcript.path, project.root) == ((), (), None)


# --- it never loops -------------------------------------------------------------------------------


def test_with_stop_hook_active_it_blocks_again_only_when_the_findings_changed(
    project: Project, transcript: Transcript
) -> None:
    project.replace(DEV, project.changed(DEV, bad_tokens))
    first, _ = blocked(run_hook(stop_payload(project, transcript.path))[1])
    transcript.feedback(first).reply("Fixing it.")
    # The agent changed nothing: told again, it would not do better.
    message = let_stop_with_a_message(run_hook(stop_payload(project, transcript.path, active=True))[1])
    assert message.startswith(f"handoff-lint: {project.relative(DEV)} still breaks 1 handoff contract, but ")
    assert "told exactly these findings before" in message
    # The agent changed the findings: told once more, as the second block in a row.
    project.replace(DEV, project.changed(DEV, lambda d: d.update(tokens_used="many")))
    assert blocked(run_hook(stop_payload(project, transcript.path, active=True))[1])[1] == 2


def test_an_agent_that_keeps_changing_the_findings_is_let_stop_after_three_blocks_in_a_row(
    project: Project, transcript: Transcript
) -> None:
    numbers = []
    for attempt in range(10):  # as Claude Code would go on, each reason fed back to the agent
        project.replace(DEV, project.changed(DEV, lambda d, n=attempt: d.update(tokens_used=f"v{n}")))
        out = run_hook(stop_payload(project, transcript.path, active=attempt > 0))[1]
        if "systemMessage" in out:
            assert f"told {MAX_BLOCKS} times in a row" in let_stop_with_a_message(out)
            break
        reason, number = blocked(out)
        numbers.append(number)
        transcript.feedback(reason).reply("Fixed, I think.")
    assert numbers == [1, 2, 3]


def test_a_transcript_that_never_shows_the_reason_allows_one_block_only(
    project: Project, transcript: Transcript
) -> None:
    project.replace(DEV, project.changed(DEV, bad_tokens))
    assert blocked(run_hook(stop_payload(project, transcript.path))[1])[1] == 1
    project.replace(DEV, project.changed(DEV, lambda d: d.update(tokens_used="many")))
    message = let_stop_with_a_message(run_hook(stop_payload(project, transcript.path, active=True))[1])
    assert "does not show as this hook's" in message


def test_a_prompt_typed_after_the_blocks_starts_the_count_again(
    project: Project, transcript: Transcript
) -> None:
    project.replace(DEV, project.changed(DEV, bad_tokens))
    for _ in range(MAX_BLOCKS):
        transcript.feedback(blocked(run_hook(stop_payload(project, transcript.path))[1])[0])
    transcript.prompt("Now write the review handoff as well.")
    project.replace(DEV, project.changed(DEV, lambda d: d.update(tokens_used="many")))
    # Going on after another hook's block: none of this hook's since the prompt, so it lets go.
    assert "systemMessage" in run_hook(stop_payload(project, transcript.path, active=True))[1]
    assert blocked(run_hook(stop_payload(project, transcript.path))[1])[1] == 1


# --- SubagentStop ---------------------------------------------------------------------------------


def test_a_subagent_is_kept_working_on_the_handoff_its_own_transcript_shows_written(
    project: Project, transcript: Transcript
) -> None:
    project.replace(REVIEW, project.text(REVIEW).replace('"total_tokens": 75200', '"total_tokens": 10'))
    git(project.root, "commit", "-qam", "committed")
    own = Transcript(project.root.parent / "agent-def456.jsonl", project.root).prompt("Review the chain.")
    own.tool("Edit", file_path=str(project.path(REVIEW)), old_string="75200", new_string="10")
    reason, number = blocked(run_hook(subagent_stop_payload(project, transcript.path, own.path))[1])
    assert (number, "[NR307 token-total]" in reason) == (1, True)
    # The main agent's transcript is not the subagent's work.
    transcript.tool("Write", file_path=str(project.path(DEV)), content="...")
    project.replace(DEV, project.changed(DEV, bad_tokens))
    git(project.root, "commit", "-qam", "the main agent's")
    assert "[HS001" not in blocked(run_hook(subagent_stop_payload(project, transcript.path, own.path))[1])[0]


@pytest.mark.parametrize(
    ("started", "checked"), [("2020-01-01T00:00:00Z", True), ("2999-01-01T00:00:00Z", False)]
)
def test_a_subagent_is_given_only_what_git_sees_changed_since_it_started(
    project: Project, transcript: Transcript, started: str, checked: bool
) -> None:
    new_chain_with_a_broken_handoff(project)
    own = Transcript(project.root.parent / "agent-def456.jsonl", project.root, timestamp=started)
    own.prompt("Write the handoff.")
    code, out, _ = run_hook(subagent_stop_payload(project, transcript.path, own.path))
    assert code == 0
    assert ("[HS001" in out) is checked


# --- what the hook lacks, it says ----------------------------------------------------------------


def test_without_a_cwd_it_says_so_and_lets_the_agent_stop(project: Project, transcript: Transcript) -> None:
    new_chain_with_a_broken_handoff(project)
    sent = stop_payload(project, transcript.path)
    del sent["cwd"]
    code, out, err = run_hook(sent)
    assert (code, out) == (0, "")
    assert err == (
        "handoff-lint claude-hook: the payload names no cwd (and $CLAUDE_PROJECT_DIR is not set): "
        "no handoff was checked\n"
    )


def test_an_unreadable_transcript_is_said_and_git_is_still_asked(project: Project) -> None:
    new_chain_with_a_broken_handoff(project)
    code, out, err = run_hook(stop_payload(project, project.root.parent / "missing.jsonl"))
    assert code == 0
    assert "cannot read the transcript_path (No such file or directory)" in err
    assert blocked(out)[1] == 1


def test_outside_git_it_says_so_and_checks_what_the_transcript_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    plain = Project(tmp_path / "plain")
    plain.replace(DEV, plain.changed(DEV, bad_tokens))
    transcript = Transcript(tmp_path / "t.jsonl", plain.root).prompt("Go.")
    code, out, err = run_hook(stop_payload(plain, transcript.path))
    assert (code, out) == (0, "")
    assert "is not in a git work tree: only the handoffs the transcript shows written are checked" in err
    transcript.tool("Bash", command=f"cat > {plain.relative(DEV)} <<'EOF'\n{{}}\nEOF")
    assert "[HS001" in blocked(run_hook(stop_payload(plain, transcript.path))[1])[0]
    # Neither git nor a transcript: the user is told too.
    message = let_stop_with_a_message(run_hook(stop_payload(plain, tmp_path / "missing.jsonl"))[1])
    assert "neither the transcript nor git could be read" in message


# --- the same findings as handoff-lint --------------------------------------------------------------


def test_the_stop_hook_reports_what_handoff_lint_reports_for_the_same_files(
    project: Project,
    transcript: Transcript,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    shown = new_chain_with_a_broken_handoff(project)
    project.replace(TEST, project.changed(TEST, lambda d: d["test_summary"].update(total=50)))
    project.replace(REVIEW, project.text(REVIEW).replace('"total_tokens": 75200', '"total_tokens": 10'))
    reason, _ = blocked(run_hook(stop_payload(project, transcript.path))[1])
    listed = [
        (m.group(1), m.group(2), m.group(3))
        for m in re.finditer(r"^\d+\. (\S+ /\S*|\S+) \[(\w+) [\w-]+\] (.*)$", reason, re.MULTILINE)
    ]
    monkeypatch.chdir(project.root)
    assert cli_main(["--format", "json", shown, project.relative(TEST), project.relative(REVIEW)]) == 1
    report = json.loads(capsys.readouterr().out)
    expected = [
        (f["location"] + (f" {f['pointer']}" if f["pointer"] else ""), f["code"], f["message"])
        for f in report["findings"]
        if f["severity"] == "error"
    ]
    assert len(expected) >= 3
    assert sorted(listed) == sorted(expected)


def test_the_command_blocks_a_stop_under_claude_codes_protocol(
    project: Project, transcript: Transcript
) -> None:
    new_chain_with_a_broken_handoff(project)
    done = subprocess.run(
        [sys.executable, "-m", "pytest_handoff.cli", "claude-hook"],
        input=json.dumps(stop_payload(project, transcript.path)),
        capture_output=True,
        text=True,
        cwd=project.root,
        check=False,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert "[HS001 schema-violation]" in blocked(done.stdout)[0]


def test_the_claude_code_page_shows_the_reason_the_stop_hook_really_gives(
    project: Project, transcript: Transcript
) -> None:
    from tests.conftest import REPO

    project.replace(REVIEW, project.text(REVIEW).replace('"total_tokens": 75200', '"total_tokens": 10'))
    reason, _ = blocked(run_hook(stop_payload(project, transcript.path))[1])
    assert f"```\n{reason}\n```\n" in (REPO / "docs" / "claude-code.md").read_text(encoding="utf-8")
