"""Rules on the messages that route work: the PO's verdict, patches, and escalations."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pytest_handoff.values.rules import Hit

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.settings import Settings

#: YOLO caps a patch at this many tasks; more goes the major (re-scope) path.
PATCH_TASK_CAP = 2
#: Escalations go up this ladder.
LEVELS = ("dev", "senior", "lead", "architect")


def check_po_verdict_fields(document: Document, settings: Settings) -> Iterator[Hit]:
    """A `po_qa_verdict`'s fields do not fit its verdict.

    **What it does**: `target_dept` must name a department for a `patch` and be empty otherwise;
    `re_scope_items` must list items for a `major` and be empty otherwise; an `approve` must not
    carry a finding whose `result` is `fail`. (`scope_confidence` outside 0..1 is a schema error,
    HS001.)

    **Why is this bad?** The orchestrator routes on `verdict` and reads the field that goes with
    it: a patch with no department goes nowhere, a major with nothing to re-scope starts an empty
    loop, and a field left over from another verdict suggests the verdict itself is a mistake.

    **Example**: `{"verdict": "approve", "target_dept": "backend", "re_scope_items": [], ...}`.

    **Use instead**: `"verdict": "patch"` with `"target_dept": "backend"`, or `"target_dept": ""`
    for an approval.
    """
    data = document.data
    verdict, target, items = data["verdict"], data["target_dept"], data["re_scope_items"]
    if verdict == "patch" and not target.strip():
        yield Hit(
            document, "/target_dept", "a patch verdict needs the department that fixes it in target_dept"
        )
    elif verdict != "patch" and target.strip():
        yield Hit(
            document,
            "/target_dept",
            f"target_dept is {target!r} but the verdict is {verdict}: only a patch names a department",
            related=((document, "/verdict", "verdict"),),
        )
    if verdict == "major" and not items:
        yield Hit(
            document, "/re_scope_items", "a major verdict needs the items to re-scope in re_scope_items"
        )
    elif verdict != "major" and items:
        yield Hit(
            document,
            "/re_scope_items",
            f"re_scope_items lists {len(items)} item(s) but the verdict is {verdict}: only a major re-scopes",
            related=((document, "/verdict", "verdict"),),
        )
    if verdict == "approve":
        for index, finding in enumerate(data.get("findings", [])):
            if str(finding.get("result", "")).lower() == "fail":
                yield Hit(
                    document,
                    f"/findings/{index}/result",
                    f"check {finding['check']!r} failed, yet the verdict is approve",
                    related=((document, "/verdict", "verdict"),),
                )


def check_patch_cap(document: Document, settings: Settings) -> Iterator[Hit]:
    """A `patch_request` allows more than 2 tasks.

    **What it does**: reports `max_tasks` above 2, YOLO's hard cap for a patch.

    **Why is this bad?** A patch is a targeted fix at a fraction of a re-plan's cost; a fix that
    needs more tasks is a scope problem, which YOLO sends down the major path (re-scoping)
    instead.

    **Example**: `{"type": "patch_request", "max_tasks": 4, ...}`.

    **Use instead**: `"max_tasks": 2`, or a `po_qa_verdict` of `major`.
    """
    allowed = document.data["max_tasks"]
    if allowed > PATCH_TASK_CAP:
        yield Hit(
            document,
            "/max_tasks",
            f"max_tasks is {allowed}; a patch is capped at {PATCH_TASK_CAP} tasks (more is a major re-scope)",
        )


def check_escalation_goes_up(document: Document, settings: Settings) -> Iterator[Hit]:
    """An `escalation` does not go up: its `to` is not above its `from` (dev < senior < lead < architect).

    **What it does**: compares the two levels of an escalation and marks `to` when it is the
    sender's own level or one below it.

    **Why is this bad?** An escalation asks for authority the sender lacks; sent sideways or down
    it reaches someone with no more authority than the sender, and the blocked agent keeps
    waiting. Decisions flow down as `escalation_resolution`.

    **Example**: `{"type": "escalation", "from": "lead", "to": "senior", ...}`.

    **Use instead**: `"to": "architect"` (or an `escalation_resolution` to send a decision down).
    """
    data = document.data
    sender, receiver = data["from"], data["to"]
    if LEVELS.index(receiver) <= LEVELS.index(sender):
        yield Hit(
            document,
            "/to",
            f"an escalation from {sender} must go up (to {', '.join(LEVELS[LEVELS.index(sender) + 1 :])}), not to {receiver}",
            related=((document, "/from", "from"),),
        )
