"""A GSD phase as the reading views show it: its plans and summaries in order, the verifier's word."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_handoff.profiles.gsd.format import NAME, VERIFICATION
from pytest_handoff.profiles.gsd.layout import kind_of
from pytest_handoff.profiles.gsd.reader import front_value
from pytest_handoff.values.view_model import ChainView, Stage

if TYPE_CHECKING:
    from pytest_handoff.values.groups import Group

#: Who writes each file of a phase (GSD's agents and commands).
AUTHORS = {
    "plan": "gsd-planner",
    "summary": "gsd-executor",
    "verification": "gsd-verifier",
    "uat": "verify-work",
    "continue_here": "pause-work",
    "state": "gsd-tools",
    "roadmap": "gsd-roadmapper",
    "requirements": "new-project",
    "config": "settings",
    "handoff": "pause-work",
}


def summarise(chain: Group) -> ChainView:
    """The phase's files as stages (author by file type, time from ``completed`` or ``verified``),
    its name as the task, and the verification's status as the verdict."""
    stages = []
    for path in chain.ref.paths:
        document = chain.document_at(path)
        kind = kind_of(path)
        fm = (
            document.data.get("front_matter")
            if document is not None and isinstance(document.data, dict)
            else None
        )
        when = front_value(fm, "completed", "verified", "last_updated", "updated")
        stages.append(
            Stage(
                file=document.display_path if document is not None else path.name,
                agent=AUTHORS.get(kind.type, "") if kind else "",
                handoff_type=document.handoff_type if document is not None else None,
                timestamp=str(when) if isinstance(when, str) else None,
                tokens=None,
                valid=bool(document is not None and document.schema_valid),
            )
        )
    verification = chain.first(VERIFICATION)
    status = front_value(verification.data.get("front_matter"), "status") if verification else None
    started = next((stage.timestamp for stage in stages if stage.timestamp), None)
    return ChainView(
        NAME,
        chain.ref.group_id,
        "",
        started,
        chain.ref.group_id.rsplit("/", 1)[-1],
        tuple(stages),
        verdict=status if isinstance(status, str) else None,
    )
