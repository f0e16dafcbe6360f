"""Building Ralph sessions for tests: our fixtures as a project, and logs with encoded phrases."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path
from typing import Any

from pytest_handoff.pipeline.check import check_group
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.profiles.ralph.logs import LogLine, read_log
from pytest_handoff.profiles.ralph.profile import PROFILE
from pytest_handoff.values.documents import Document
from pytest_handoff.values.findings import Finding
from pytest_handoff.values.groups import GroupRef, GroupResult
from pytest_handoff.values.settings import Settings

# Loaded as the engine loads it: its rules join the table.
assert default_registry().profile("ralph") is PROFILE
FIXTURES = Path(__file__).parent / "fixtures" / "ralph"
READY = "AGENT_READY_FOR_HANDOFF"
PROMISE = "<promise>RALPH_COMPLETE</promise>"


def encode(context: dict[str, Any]) -> str:
    """A context as an agent writes it: compact JSON, UTF-8, base64."""
    return base64.b64encode(json.dumps(context, separators=(",", ":")).encode("utf-8")).decode("ascii")


def context(
    sender: str = "pm", reason: str = "task_assignment", task_id: str = "feat-101", **more: Any
) -> dict[str, Any]:
    """A complete handoff context (override or add fields with keywords)."""
    made: dict[str, Any] = {
        "from": sender,
        "reason": reason,
        "timestamp": "2026-03-02T09:10:00Z",
        "task": {"id": task_id, "title": "Save a note", "action": "implement"},
    }
    made.update(more)
    return made


def phrase(target: str, **fields: Any) -> str:
    """``HANDOFF:<target>:<base64 context>``."""
    return f"HANDOFF:{target}:{encode(context(**fields))}"


#: Logs of the clean session: each agent saves, signals, hands over; the PM completes.
CLEAN_LOGS: dict[str, list[str]] = {
    "pm": [
        "Reading prd.json: 2 items, 0 passing",
        READY,
        phrase("developer", sender="pm", reason="task_assignment", timestamp="2026-03-02T09:10:00Z"),
        "Received handoff from qa for task feat-101; every item passes",
        PROMISE,
    ],
    "developer": [
        "Received handoff from PM for task feat-101",
        "Committed 3f2a1c0 feat-101: save notes",
        READY,
        phrase("qa", sender="developer", reason="ready_for_qa", timestamp="2026-03-02T09:55:00Z"),
    ],
    "qa": [
        "Received handoff from developer for task feat-101",
        "12 tests passed",
        READY,
        phrase("pm", sender="qa", reason="validation_passed", timestamp="2026-03-02T10:30:00Z"),
    ],
}


def make_session(root: Path, fixture: str = "clean", logs: dict[str, list[str]] | None = None) -> Path:
    """A project at ``root`` with the fixture's prd.json and session files, and agents' logs."""
    source = FIXTURES / fixture
    root.mkdir(parents=True, exist_ok=True)
    session = root / ".claude" / "session"
    session.mkdir(parents=True, exist_ok=True)
    if (source / "prd.json").is_file():
        shutil.copyfile(source / "prd.json", root / "prd.json")
    for path in sorted((source / "session").glob("*.json")):
        shutil.copyfile(path, session / path.name)
    write_logs(root, CLEAN_LOGS if logs is None else logs)
    return root


def write_logs(root: Path, logs: dict[str, list[str]]) -> None:
    folder = root / ".claude" / "session" / "logs"
    folder.mkdir(parents=True, exist_ok=True)
    for agent, lines in logs.items():
        (folder / f"{agent}.log").write_text("\n".join(lines) + "\n", encoding="utf-8")


def check_session(root: Path, settings: Settings | None = None) -> GroupResult:
    """Every file of the session at ``root`` checked as one group, as the engine does."""
    located = PROFILE.group_of(root / ".claude" / "session" / "handoff-log.json")
    assert located is not None
    directory, group = located
    paths = tuple(sorted(PROFILE.members(directory, group, None), key=PROFILE.sort_key))
    return check_group(
        GroupRef(PROFILE.name, group, directory, paths),
        settings or Settings(),
        root,
        registry=default_registry(),
    )


def codes(findings: tuple[Finding, ...] | list[Finding]) -> list[str]:
    return [finding.code for finding in findings]


def where(finding: Finding) -> tuple[str, int, int]:
    return (finding.path, finding.line, finding.column)


def log_documents(
    lines: list[str], name: str = "developer.log"
) -> tuple[tuple[Document, ...], tuple[Finding, ...]]:
    """A log of ``lines`` read in memory: its phrases and promises (not its lines as text), and findings."""
    raw = ("\n".join(lines) + "\n").encode("utf-8")
    loaded = read_log(raw, Path(".claude/session/logs") / name, f".claude/session/logs/{name}")
    return tuple(doc for doc in loaded.documents if not isinstance(doc, LogLine)), loaded.findings


def column_of(line: str, needle: str) -> int:
    """1-based column of ``needle`` in ``line``."""
    index = line.index(needle)
    return index + 1
