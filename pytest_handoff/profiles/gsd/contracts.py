"""Contracts between GSD's agents inside one phase folder: plan -> executor -> verifier.

The executor reads the plan and writes its summary; the verifier reads both and writes the
verification; the next planner reads the summaries' front matter and the verification's status.
Each rule judges only what both sides of a contract say (a key absent is a template generation
that did not have it, never a finding).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from pytest_handoff.profiles.gsd.format import PLAN, SUMMARY, VERIFICATION, since
from pytest_handoff.profiles.gsd.layout import kind_of
from pytest_handoff.profiles.gsd.reader import front_value
from pytest_handoff.values.rules import Hit

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.settings import Settings

_REQUIREMENTS_COMPLETED = ("requirements-completed", "requirements_completed")
_REQUIREMENT_ID = re.compile(r"\s*([A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)+)\b")
_SCORE = re.compile(r"^\s*(\d{1,9})\s*/\s*(\d{1,9})\b")  # a longer number is no count
_CLOSED = frozenset({"resolved", "closed", "fixed", "done", "verified", "passed"})


def _plans(chain: Group) -> dict[str, Document]:
    plans = {}
    for document in chain.valid(PLAN):
        kind = kind_of(document.path)
        if kind is not None:
            plans[kind.key] = document
    return plans


def _pairs(chain: Group) -> Iterator[tuple[Document, Document]]:
    """Each summary with the plan of the same key (``01-02-SUMMARY.md``, ``01-02-PLAN.md``)."""
    plans = _plans(chain)
    for summary in chain.valid(SUMMARY):
        kind = kind_of(summary.path)
        plan = plans.get(kind.key) if kind is not None else None
        if plan is not None:
            yield summary, plan


def _ids(value: object) -> list[tuple[int, str]]:
    """(index, id) of a requirements list (``[AUTH-01, AUTH-02]``; a text ``AUTH-01, AUTH-02``);
    an entry with words after its id (``ACL-01 (partial)``) is its id."""
    if isinstance(value, list):
        found = (
            (index, _REQUIREMENT_ID.match(item)) for index, item in enumerate(value) if isinstance(item, str)
        )
    elif isinstance(value, str):
        found = ((-1, _REQUIREMENT_ID.match(part)) for part in re.split(r"[,\s]+", value))
    else:
        return []
    return [(index, match.group(1).upper()) for index, match in found if match is not None]


def check_requirements_within_plan(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A summary completes only requirements its plan was given.

    **What it does**: for each `NN-MM-SUMMARY.md` whose front matter lists
    `requirements-completed` (GSD's template since 2026-02-16), reports an id that the plan of the
    same number (`NN-MM-PLAN.md`) does not list in its `requirements`. Plans without a
    requirements list are not judged.

    **Why is this bad?** GSD marks a requirement done in REQUIREMENTS.md from the summaries: an id
    the plan never had is work claimed for a requirement nobody planned, or a copy from another
    plan, and the traceability the milestone audit reads is wrong.

    **Example**: a plan with `requirements: [AUTH-01, AUTH-02]` and its summary with
    `requirements-completed: [AUTH-01, AUTH-03]`.

    **Use instead**: copy the ids from the plan's `requirements`, only those the work completed.
    """
    for summary, plan in _pairs(chain):
        completed = _ids(front_value(summary.data.get("front_matter"), *_REQUIREMENTS_COMPLETED))
        planned = {name for _, name in _ids(front_value(plan.data.get("front_matter"), "requirements"))}
        if not completed or not planned:
            continue
        key = next(k for k in _REQUIREMENTS_COMPLETED if k in summary.data["front_matter"])
        for index, name in completed:
            if name not in planned:
                pointer = f"/front_matter/{key}" + (f"/{index}" if index >= 0 else "")
                yield Hit(
                    summary,
                    pointer,
                    f"requirement {name} is completed here, but {plan.name} does not list it in its "
                    f"requirements ({', '.join(sorted(planned))}) {since('requirements-completed')}",
                    related=((plan, "/front_matter/requirements", "the plan's requirements"),),
                )


def check_task_count_matches_plan(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A summary's task count is its plan's.

    **What it does**: reports a summary whose `**Tasks:** N` (its Performance section; in `1/3`,
    the 3) differs from the number of `<task>` elements of the plan of the same number, counted
    with its checkpoint tasks and without them (executors write both).

    **Why is this bad?** The executor writes one commit and one line per task; a count that is not
    the plan's means a task was skipped, merged or invented, and the verifier counts from the
    summary.

    **Example**: `**Tasks:** 2` for a plan with three `<task>` elements.

    A summary whose front matter says `status: halted` (a plan stopped where it was designed to,
    its remaining tasks left on purpose: GSD since August 2026) is not held to the plan's count.

    **Use instead**: the plan's count, and a deviation that says which task was not done.
    """
    for summary, plan in _pairs(chain):
        if front_value(summary.data.get("front_matter"), "status") == "halted":
            continue
        written, planned = summary.data.get("tasks"), plan.data.get("tasks")
        checkpoints = plan.data.get("checkpoints", 0)
        # Executors count the plan's tasks either with its checkpoints or without them.
        if (
            isinstance(written, int)
            and isinstance(planned, int)
            and written not in (planned, planned - checkpoints)
        ):
            yield Hit(
                summary,
                "/tasks",
                f"Tasks: {written}, but {plan.name} has {planned} <task> element(s)",
                related=((plan, "/tasks", "the plan's first task"),),
            )


def _failed(document: Document, name: str) -> int:
    rows = document.data.get(name)
    return sum(1 for row in rows if row == "failed") if isinstance(rows, list) else 0


def _open_gaps(value: object) -> bool:
    """Whether a ``gaps`` list holds a gap not marked closed (``status: resolved`` after a re-run)."""
    if not isinstance(value, list):
        return False
    for gap in value:
        if isinstance(gap, dict):
            if str(gap.get("status", "")).strip().lower() not in _CLOSED:
                return True
        elif gap not in (None, ""):
            return True
    return False


def check_verification_status(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A verification's status follows its own findings.

    **What it does**: applies GSD's decision (`verify-phase.md`, `determine_status`) to what the
    verification itself records: any open gap (an entry of `gaps` not marked `resolved`, a truth
    `FAILED`, an artifact `MISSING` or `STUB`) makes the status `gaps_found`. Reports `passed` or
    `human_needed` over such a gap. (A `passed` status with `human_verification` items is not
    reported: GSD sets it once a person has approved them.)

    **Why is this bad?** The orchestrator routes by the status alone: `passed` or `human_needed`
    closes the phase, and the gaps it lists are never planned; a verifier that accepts the
    executor's word is the failure GSD's users report.

    **Example**: `status: passed` with an open `gaps:` entry, or with a truth marked `✗ FAILED`.

    **Use instead**: `status: gaps_found` and the gaps, for the planner's `--gaps` run.
    """
    for verification in chain.valid(VERIFICATION):
        fm = verification.data.get("front_matter")
        status = front_value(fm, "status")
        if status not in ("passed", "human_needed"):
            continue
        gaps = _open_gaps(front_value(fm, "gaps"))
        failed = _failed(verification, "truths") + _failed(verification, "artifacts")
        if gaps or failed:
            what = (
                "an open gap in its gaps list"
                if gaps
                else f"{failed} failed truth(s) or artifact(s) in its tables"
            )
            yield Hit(
                verification,
                "/front_matter/status",
                f"status is {status}, but the verification records {what}: the status is gaps_found "
                f"{since('verification report')}",
            )


def check_verification_score(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A verification's score agrees with its status.

    **What it does**: reads `score: N/M` and reports a score above its total (`6/5`), or a
    `passed` status with fewer than all must-haves verified (`4/5`).

    **Why is this bad?** The score is what people and the milestone audit read first; `passed`
    at 4/5 hides the must-have that was not verified.

    **Example**: `status: passed` and `score: 4/5 must-haves verified`.

    **Use instead**: the status the score leads to (`gaps_found` or `human_needed`), or the score
    the verification found.
    """
    for verification in chain.valid(VERIFICATION):
        fm = verification.data.get("front_matter")
        score = front_value(fm, "score")
        found = _SCORE.match(score) if isinstance(score, str) else None
        if found is None:
            continue
        verified, total = int(found.group(1)), int(found.group(2))
        if verified > total:
            yield Hit(
                verification,
                "/front_matter/score",
                f"score {verified}/{total} counts more verified than there are",
            )
        elif verified < total and front_value(fm, "status") == "passed":
            yield Hit(
                verification,
                "/front_matter/score",
                f"status is passed, but the score is {verified}/{total}: {total - verified} must-have(s) "
                "not verified",
            )
