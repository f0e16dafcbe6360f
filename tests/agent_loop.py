"""A project with the clean example chain on disk, for the tests of the agent-loop entry points.

Those entry points (the Python API, ``--stdin-filename``, the Claude Code hook, the MCP server)
check content that is not on disk yet against a chain that is: :class:`Project` builds the chain
and tells whether anything on disk changed. The Claude Code hook's payloads and transcripts are
built here in the shapes of Claude Code's hooks reference (``/tmp/hooks-research/SPEC.md``, A1-A3).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import EXAMPLES

CHAIN_ID = "20261103-091500"
CLEAN_CHAIN = EXAMPLES / "neuralrelay" / "clean" / ".neuralrelay" / "handoffs" / CHAIN_ID
DEV, TEST, REVIEW, BA = "02-dev-agent.json", "03-test-agent.json", "04-review-agent.json", "01-ba-agent.json"


#: When the dev agent worked: between the requirements (09:15) and the dev handoff (09:52).
DEV_WORK = "2026-11-03T09:40:00Z"
#: After the last handoff of the chain (the review, 11:30).
CHAIN_DONE = "2026-11-03T12:00:00Z"


def claimed_files(chain: Path) -> dict[str, str]:
    """Every file the example chain names, with contents that hold what it claims of them (a
    module named as its folder maps to "")."""
    files: dict[str, str] = {}
    requirements = json.loads((chain / BA).read_text())
    dev = json.loads((chain / DEV).read_text())
    test = json.loads((chain / TEST).read_text())
    lines = "".join(f"# line {n}\n" for n in range(1, 200))
    for path in [*requirements["affected_modules"], *(f["path"] for f in dev["files_changed"])]:
        files[path] = lines
    tests = "".join(f"def test_case_{n}():\n    pass\n" for n in range(10))
    for path in [*dev["unit_tests_written"]["files"], *test["test_files_created"]]:
        files[path] = tests
    return files


def write_claimed_files(root: Path, chain: Path) -> None:
    """Put every file the chain claims under ``root`` (its claims hold on disk)."""
    for relative, text in sorted(claimed_files(chain).items(), key=lambda item: "." in item[0]):
        if "." not in Path(relative).name:  # a module named as its folder
            (root / relative).mkdir(parents=True, exist_ok=True)
            continue
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")


class Project:
    """A project folder holding a copy of the clean example chain and the files it claims."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.chain = root / ".neuralrelay" / "handoffs" / CHAIN_ID
        shutil.copytree(CLEAN_CHAIN, self.chain)
        (root / "README.md").write_text("# a project\n", encoding="utf-8")
        write_claimed_files(root, self.chain)
        self._before = self.snapshot()

    def path(self, name: str) -> Path:
        return self.chain / name

    def relative(self, name: str) -> str:
        return f".neuralrelay/handoffs/{CHAIN_ID}/{name}"

    def text(self, name: str) -> str:
        return self.path(name).read_text(encoding="utf-8")

    def changed(self, name: str, change: Callable[[Any], object]) -> str:
        """The text of ``name`` with ``change`` applied to its data (the file is not touched)."""
        data = json.loads(self.text(name))
        change(data)
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"

    def replace(self, name: str, text: str) -> None:
        """Put ``text`` on disk as ``name`` (a test's setup; counted as the new starting point)."""
        self.path(name).write_text(text, encoding="utf-8")
        self._before = self.snapshot()

    def settle(self) -> None:
        """Take what is on disk now as the starting point (after a test's setup)."""
        self._before = self.snapshot()

    def remove(self, name: str) -> None:
        self.path(name).unlink()
        self._before = self.snapshot()

    def snapshot(self) -> dict[str, tuple[bytes, int]]:
        return {
            str(path.relative_to(self.root)): (path.read_bytes(), path.stat().st_mtime_ns)
            for path in sorted(self.root.rglob("*"))
            if path.is_file()
        }

    def unchanged(self) -> bool:
        """True when no file below the project was added, removed or changed since it was set up."""
        return self.snapshot() == self._before


def git(root: Path, *args: str, when: str = "") -> str:
    """``git ARGS`` in ``root``, with no user or system configuration and a fixed identity (and
    the author and commit dates ``when``, when given)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    if when:
        env.update(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
    identity = ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"]
    done = subprocess.run(
        ["git", "-C", str(root), *identity, *args], capture_output=True, text=True, check=True, env=env
    )
    return done.stdout


def in_git(project: Project) -> Project:
    """``project`` made a git repository: the work the chain claims committed while the dev agent
    worked, then the chain (so that its claims hold when judged against git)."""
    git(project.root, "init", "-q")
    git(project.root, "add", "-A", "--", ":!.neuralrelay")
    git(project.root, "commit", "-q", "-m", "the work of the chain", when=DEV_WORK)
    git(project.root, "add", "-A")
    git(project.root, "commit", "-q", "-m", "the clean chain", when=CHAIN_DONE)
    project.settle()
    return project


SESSION = "abc123"


def bash_payload(
    project: Project, command: str, *, failed: bool = False, duration_ms: int = 412
) -> dict[str, Any]:
    """Claude Code's payload after a Bash call: PostToolUse, or PostToolUseFailure when it exited non-zero."""
    sent: dict[str, Any] = {
        "session_id": SESSION,
        "transcript_path": str(project.root.parent / f"{SESSION}.jsonl"),
        "cwd": str(project.root),
        "permission_mode": "default",
        "hook_event_name": "PostToolUseFailure" if failed else "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "Write the handoff", "timeout": 120000,
                       "run_in_background": False},
        "tool_use_id": "toolu_01ABC",
        "duration_ms": duration_ms,
    }  # fmt: skip
    if failed:
        sent.update(error="Exit code 1\nmake: *** [handoff] Error 1", is_interrupt=False)
    else:
        sent["tool_response"] = {"stdout": "", "stderr": "", "interrupted": False, "isImage": False}
    return sent


def stop_payload(project: Project, transcript: Path, *, active: bool = False) -> dict[str, Any]:
    """Claude Code's Stop payload."""
    return {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": str(project.root),
        "permission_mode": "default",
        "hook_event_name": "Stop",
        "stop_hook_active": active,
        "last_assistant_message": "I've written the handoff.",
        "background_tasks": [],
        "session_crons": [],
    }


def subagent_stop_payload(
    project: Project, transcript: Path, own: Path, *, active: bool = False
) -> dict[str, Any]:
    """Claude Code's SubagentStop payload: ``own`` is the subagent's transcript."""
    return {
        **stop_payload(project, transcript, active=active),
        "hook_event_name": "SubagentStop",
        "agent_id": "def456",
        "agent_type": "general-purpose",
        "agent_transcript_path": str(own),
        "last_assistant_message": "Handoff written.",
    }


class Transcript:
    """A transcript in Claude Code's JSONL shape: one entry a line (its format is not a contract)."""

    def __init__(self, path: Path, cwd: Path, timestamp: str = "2026-11-03T09:15:00.000Z") -> None:
        self.path, self.cwd, self.timestamp = path, cwd, timestamp
        self.lines: list[str] = []
        self.calls = 0

    def _add(self, entry: dict[str, Any]) -> Transcript:
        entry = {"uuid": f"u{len(self.lines)}", "sessionId": SESSION, "timestamp": self.timestamp,
                 "cwd": str(self.cwd), "isSidechain": False, **entry}  # fmt: skip
        self.lines.append(json.dumps(entry))
        self.path.write_text("\n".join(self.lines) + "\n", encoding="utf-8")
        return self

    def prompt(self, text: str) -> Transcript:
        return self._add({"type": "user", "message": {"role": "user", "content": text}})

    def tool(self, name: str, **tool_input: Any) -> Transcript:
        """An assistant's tool call and its successful result."""
        self.calls += 1
        use = f"toolu_{self.calls:02d}"
        self._add({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Writing it now."},
            {"type": "tool_use", "id": use, "name": name, "input": tool_input},
        ]}})  # fmt: skip
        return self._add({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": use, "content": "Done", "is_error": False},
        ]}, "toolUseResult": {}})  # fmt: skip

    def feedback(self, reason: str) -> Transcript:
        """A Stop hook's reason, as Claude Code hands it to the agent."""
        return self._add({"type": "user", "isMeta": True, "message": {
            "role": "user", "content": f"Stop hook feedback:\n[handoff-lint claude-hook]: {reason}"}})  # fmt: skip

    def reply(self, text: str) -> Transcript:
        return self._add({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": text}]}})  # fmt: skip
