"""Rules on one handoff phrase's context: its reason, its route, and who sends it.

They run on contexts that passed the schema (``from``, ``reason``, ``timestamp``, ``task.id``
are there and are strings), so they read fields without further checks.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pytest_handoff.profiles.ralph.logs import Phrase
from pytest_handoff.profiles.ralph.protocol import ALL_COMPLETE, PROMISE, ROUTES, route_text
from pytest_handoff.values.rules import Hit
from pytest_handoff.values.wording import did_you_mean

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.settings import Settings


def unknown_reason(document: Document, settings: Settings) -> Iterator[Hit]:
    """A handoff's reason is not one of the protocol's.

    **What it does**: reports a context whose `reason` is none of `task_assignment`, `ready_for_qa`,
    `validation_passed`, `validation_failed`, `need_clarification`, `error` (`all_complete` has a
    rule of its own, RL102).

    **Why is this bad?** The next agent decides what to do from the reason; one it does not know
    leaves it guessing, and the route of the handoff cannot be checked.

    **Example**: `HANDOFF:qa:<base64 of {"from": "developer", "reason": "please_test", ...}>`.

    **Use instead**: `"reason": "ready_for_qa"`.
    """
    reason = document.data["reason"]
    if reason not in ROUTES and reason != ALL_COMPLETE:
        known = ", ".join(ROUTES)
        hint = did_you_mean(reason, ROUTES)
        yield Hit(document, "/reason", f"unknown handoff reason {reason!r}; expected one of {known}{hint}")


def all_complete_handoff(document: Document, settings: Settings) -> Iterator[Hit]:
    """A handoff gives `all_complete` as its reason instead of ending the session.

    **What it does**: reports a context whose `reason` is `all_complete`.

    **Why is this bad?** The watchdog ends a session only on the completion promise; a handoff
    with this reason starts another agent, and the session runs on.

    **Example**: `HANDOFF:pm:<base64 of {"from": "qa", "reason": "all_complete", ...}>`.

    **Use instead**: the PM prints `<promise>RALPH_COMPLETE</promise>` once every item of
    prd.json passes.
    """
    if document.data["reason"] == ALL_COMPLETE:
        yield Hit(document, "/reason", f"'all_complete' is no handoff: print {PROMISE} to end the session")


def route_fits_reason(document: Document, settings: Settings) -> Iterator[Hit]:
    """A handoff goes between agents its reason does not connect.

    **What it does**: compares the phrase's target agent and the context's `from` with the
    protocol's table: `task_assignment` pm -> developer, `ready_for_qa` developer -> qa,
    `validation_passed` qa -> pm, `validation_failed` qa -> developer, `need_clarification`
    developer -> pm, `error` any agent -> pm.

    **Why is this bad?** The agent started gets work meant for another: QA asked to implement,
    the developer told a validation passed.

    **Example**: `HANDOFF:qa:<base64 of {"from": "pm", "reason": "task_assignment", ...}>`.

    **Use instead**: `HANDOFF:developer:<base64 of {"from": "pm", "reason": "task_assignment", ...}>`.
    """
    if not isinstance(document, Phrase):
        return
    reason = document.data["reason"]
    route = ROUTES.get(reason)
    if route is None:
        return  # RL101/RL102
    source, target = route
    sender = document.data["from"]
    if document.target != target or (source is not None and sender != source):
        yield Hit(
            document,
            "/reason",
            f"{reason} routes {route_text(reason)}, but this handoff goes {sender} -> {document.target}",
        )


def sender_is_log_agent(document: Document, settings: Settings) -> Iterator[Hit]:
    """A handoff's `from` is not the agent whose log holds it.

    **What it does**: for a phrase in `<agent>.log` (pm, developer, qa), reports a `from` naming
    another agent.

    **Why is this bad?** The next agent reads `from` to know who it takes over from and whom to
    answer; a wrong sender sends questions and bug reports to the wrong agent.

    **Example**: in `developer.log`, `HANDOFF:qa:<base64 of {"from": "pm", ...}>`.

    **Use instead**: `"from": "developer"`.
    """
    if not isinstance(document, Phrase) or document.log_agent is None:
        return
    sender = document.data["from"]
    if sender != document.log_agent:
        yield Hit(
            document,
            "/from",
            f"from {sender!r}, but the phrase is in {document.log_agent}'s log ({document.name})",
        )
