"""The Ralph single-agent handoff protocol as data: agents, reasons and routes, file names."""

from __future__ import annotations

NAME = "ralph"

#: The agents the watchdog starts (its phrase regex admits only these).
AGENTS = ("pm", "developer", "qa")

#: reason -> (agent handing off, or None for any agent; agent taking over).
ROUTES: dict[str, tuple[str | None, str]] = {
    "task_assignment": ("pm", "developer"),
    "ready_for_qa": ("developer", "qa"),
    "validation_passed": ("qa", "pm"),
    "validation_failed": ("qa", "developer"),
    "need_clarification": ("developer", "pm"),
    "error": (None, "pm"),
}
#: In the protocol's table, but ends the session instead of handing off.
ALL_COMPLETE = "all_complete"
PROMISE = "<promise>RALPH_COMPLETE</promise>"

#: Every (from, to) pair some reason allows.
ALLOWED_PAIRS = frozenset(
    (source, target)
    for source_or_any, target in ROUTES.values()
    for source in ((source_or_any,) if source_or_any else AGENTS)
)

#: Files of ``<root>/.claude/session/`` this profile reads, by handoff type.
SESSION_FILES = {
    "handoff-signal.json": "handoff_signal",
    "pending-handoff.json": "pending_handoff",
    "handoff-log.json": "handoff_log",
    "coordinator-state.json": "coordinator_state",
}
PRD_FILE = "prd.json"
#: Handoff types of documents decoded from logs and of the project's PRD.
PHRASE_TYPE = "handoff_context"
PRD_TYPE = "prd"

#: The group id when the session files name no session.
DEFAULT_GROUP = "ralph-session"


def route_text(reason: str) -> str:
    """How the table routes ``reason``, e.g. ``developer -> qa``."""
    source, target = ROUTES[reason]
    return f"{source or 'any agent'} -> {target}"
