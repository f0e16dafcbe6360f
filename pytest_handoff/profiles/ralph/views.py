"""A Ralph session as people read it (``handoff-lint chain`` and ``report``).

The stages are the handoffs the agents printed, in the order of their timestamps; the PRD's
items stand where a chain shows its acceptance criteria (traced: the item passes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_handoff.profiles.ralph.logs import Phrase, Promise
from pytest_handoff.profiles.ralph.protocol import NAME, PHRASE_TYPE, PRD_TYPE
from pytest_handoff.values.view_model import ChainView, Criterion, Stage, generic_view

if TYPE_CHECKING:
    from pytest_handoff.values.groups import Group


def session_view(chain: Group) -> ChainView:
    base = generic_view(NAME, chain)
    phrases = [doc for doc in chain.valid(PHRASE_TYPE) if isinstance(doc, Phrase)]
    stages = [
        Stage(
            file=f"{doc.display_path}:{doc.fixed.line if doc.fixed else 0}",
            agent=f"{doc.data['from']} -> {doc.target}",
            handoff_type=str(doc.data["reason"]),
            timestamp=str(doc.data["timestamp"]),
            tokens=None,
            valid=True,
        )
        for doc in sorted(phrases, key=lambda doc: str(doc.data["timestamp"]))
    ]
    prd = chain.first(PRD_TYPE)
    criteria: tuple[Criterion, ...] = ()
    task = ""
    if prd is not None:
        items = prd.data["items"]
        criteria = tuple(
            Criterion(
                label=str(item["id"]),
                text=str(item["title"]),
                traced=item["passes"] is True,
                where=f"{prd.display_path} /items/{index}/passes",
                evidence=f"passes: {'true' if item['passes'] else 'false'}",
            )
            for index, item in enumerate(items)
        )
        passing = sum(1 for criterion in criteria if criterion.traced)
        project = prd.data.get("project")
        task = f"{project}: " if isinstance(project, str) and project else ""
        task += f"{passing} of {len(items)} PRD items pass"
    completed = any(isinstance(doc, Promise) for doc in chain.documents) or any(
        doc.data.get("type") == "complete" for doc in chain.valid("handoff_signal")
    )
    return base._replace(
        task=task,
        stages=tuple(stages) or base.stages,
        started=stages[0].timestamp if stages else base.started,
        criteria=criteria,
        verdict="complete" if completed else None,
    )
