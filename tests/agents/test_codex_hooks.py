"""The hook as Codex calls it: its hook inputs exactly as Codex's schemas give them
(``codex-rs/hooks/schema/generated/*.command.input.schema.json``), and ``apply_patch``, whose
envelope names the files it wrote."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.agents import claude_hook
from tests.agent_loop import Project, in_git

pytestmark = pytest.mark.slow  # a git repository per test

VERIFICATION = ".planning/phases/01-setup/01-VERIFICATION.md"
BROKEN = """---
phase: 01-setup
status: passed
score: 1/1 must-haves verified
---

### Observable Truths

| # | Truth | Status | Evidence |
|---|-------|--------|----------|
| 1 | Users can sign up | FAILED | the form posts nowhere |
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    for variable in ("CLAUDE_PROJECT_DIR", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(variable, raising=False)
    return in_git(Project(tmp_path / "repo"))


def codex(project: Project, event: str, **fields: Any) -> dict[str, Any]:
    """A Codex hook input: the fields every event has, then the event's own."""
    return {
        "session_id": "019a7c1e-0000-7000-8000-000000000000",
        "turn_id": "turn-1",
        "transcript_path": None,
        "cwd": str(project.root),
        "hook_event_name": event,
        "model": "gpt-5-codex",
        "permission_mode": "default",
        **fields,
    }


def answer(sent: dict[str, Any]) -> dict[str, Any] | None:
    stdout, stderr = io.StringIO(), io.StringIO()
    assert claude_hook.main([], io.BytesIO(json.dumps(sent).encode()), stdout, stderr) == 0
    return json.loads(stdout.getvalue()) if stdout.getvalue() else None


def patched(project: Project, text: str) -> dict[str, Any]:
    """PostToolUse after an ``apply_patch`` that added the verification with ``text``."""
    path = project.root / VERIFICATION
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")  # Codex applied the patch before the hook runs
    envelope = f"*** Begin Patch\n*** Add File: {VERIFICATION}\n" + "".join(
        f"+{line}\n" for line in text.splitlines()
    )
    return codex(
        project,
        "PostToolUse",
        tool_name="apply_patch",
        tool_input={"command": envelope + "*** End Patch\n"},
        tool_response="Success. Updated the following files:\nA " + VERIFICATION,
        tool_use_id="call_1",
    )


def test_gs101_apply_patch_adding_a_broken_handoff_is_blocked_after_the_call(project: Project) -> None:
    got = answer(patched(project, BROKEN))
    assert got is not None
    assert got["decision"] == "block"
    assert f"after this patch, {VERIFICATION} breaks" in got["reason"]
    assert "[GS101 verification-status-contradicts-findings]" in got["reason"]


def test_apply_patch_adding_a_sound_handoff_passes(project: Project) -> None:
    assert answer(patched(project, BROKEN.replace("status: passed", "status: gaps_found"))) is None


def test_a_codex_stop_input_has_its_last_message_judged(project: Project) -> None:
    said = "Done. I created `tests/export/test_csv_dialects.py`."
    got = answer(codex(project, "Stop", stop_hook_active=False, last_assistant_message=said))
    assert got is not None
    assert got["decision"] == "block"
    assert "[EV101 claimed-path-missing] tests/export/test_csv_dialects.py" in got["reason"]
    assert answer(codex(project, "Stop", stop_hook_active=False, last_assistant_message=None)) is None


def shell(project: Project, command: str) -> dict[str, Any]:
    """PostToolUse after a Bash command, as Codex reports one."""
    return codex(
        project,
        "PostToolUse",
        tool_name="Bash",
        tool_input={"command": command},
        tool_response="",
        tool_use_id="c2",
    )


def heredoc(path: str, text: str) -> str:
    body = "".join(f"+{line}\n" for line in text.splitlines())
    return f"apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: {path}\n{body}*** End Patch\nEOF\n"


def test_gs101_apply_patch_through_the_shell_is_checked_where_it_ran(project: Project) -> None:
    sub = project.root / "sub"
    (sub / VERIFICATION).parent.mkdir(parents=True)
    (sub / VERIFICATION).write_text(BROKEN, encoding="utf-8")
    got = answer(shell(project, "cd sub && " + heredoc(VERIFICATION, BROKEN)))
    assert got is not None
    assert f"sub/{VERIFICATION}" in got["reason"]


def test_gs101_a_move_to_a_handoff_is_checked_and_paths_out_of_the_project_are_not(project: Project) -> None:
    path = project.root / VERIFICATION
    path.parent.mkdir(parents=True)
    path.write_text(BROKEN, encoding="utf-8")
    moved = f"*** Begin Patch\n*** Update File: draft.md\n*** Move to: {VERIFICATION}\n@@\n-x\n+y\n*** End Patch\n"
    got = answer(codex(project, "PostToolUse", tool_name="apply_patch", tool_input={"command": moved}))
    assert got is not None
    assert "[GS101" in got["reason"]
    outside = project.root.parent / "outside" / VERIFICATION
    outside.parent.mkdir(parents=True)
    outside.write_text(BROKEN, encoding="utf-8")
    for named in (f"../outside/{VERIFICATION}", str(outside)):
        envelope = f"*** Begin Patch\n*** Add File: {named}\n+x\n*** End Patch\n"
        assert (
            answer(codex(project, "PostToolUse", tool_name="apply_patch", tool_input={"command": envelope}))
            is None
        )
