"""Contracts of GSD's project files: ROADMAP's ticks, STATE's position, UAT counts, pause files.

ROADMAP.md and STATE.md are the project group's; they are judged against the phase folders'
file names (listed, never parsed here: a phase's own rules judge its files), wherever GSD keeps
them: ``phases/``, an archived ``milestones/vX-phases/``, ``quick/``.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_handoff.profiles.gsd.format import CONTINUE_HERE, HANDOFF, ROADMAP, STATE, UAT
from pytest_handoff.profiles.gsd.layout import phase_kind, phase_number, same_number
from pytest_handoff.profiles.gsd.reader import front_value
from pytest_handoff.values.rules import Hit

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.settings import Settings

#: Phase folders looked at under one planning folder (a bound for a tree that is no GSD project).
MAX_PHASE_FOLDERS = 5000
_PHASE_HEADING = re.compile(r"\bPhase\s+(\d+(?:\.\d+)*[a-z]?)\b", re.IGNORECASE)


def phase_folders(planning: Path) -> list[Path]:
    """The phase folders of a ``.planning`` folder: ``phases/*``, ``*-phases/*``, ``quick/*``."""
    found: list[Path] = []
    try:
        holders = sorted(
            Path(entry.path)
            for entry in os.scandir(planning)
            if entry.name in ("phases", "quick") and entry.is_dir(follow_symlinks=False)
        )
    except OSError:
        return found
    milestones = planning / "milestones"
    with contextlib.suppress(OSError):  # no milestone archived yet (or a link out: not followed)
        if milestones.is_symlink():
            raise OSError("a symbolic link is not followed")
        holders += sorted(
            Path(entry.path)
            for entry in os.scandir(milestones)
            if entry.name.endswith("-phases") and entry.is_dir(follow_symlinks=False)
        )
    for holder in holders:
        try:
            found += sorted(Path(e.path) for e in os.scandir(holder) if e.is_dir(follow_symlinks=False))
        except OSError:
            continue
        if len(found) >= MAX_PHASE_FOLDERS:
            return found[:MAX_PHASE_FOLDERS]
    return found


def phase_files(planning: Path) -> list[Path]:
    """The files of every phase folder (names only are read)."""
    files: list[Path] = []
    for folder in phase_folders(planning):
        try:
            files += sorted(Path(e.path) for e in os.scandir(folder) if e.is_file(follow_symlinks=False))
        except OSError:
            continue
    return files


_PLAN_ID = re.compile(r"\d+(?:\.\d+)*[a-z]?-\d+[a-z]?(?:-FIX\d*)?", re.IGNORECASE)


def plan_id(key: str) -> str:
    """The id a plan's key starts with (``02-01`` of ``02-01-traceability-and-test-scaffolds``)."""
    found = _PLAN_ID.match(key)
    return (found.group(0) if found else key).upper()


def _summary_keys(planning: Path) -> set[str]:
    keys = set()
    for path in phase_files(planning):
        kind = phase_kind(path.name)
        if kind is not None and kind.type == "summary" and kind.key:
            keys.add(plan_id(kind.key))
    return keys


def check_roadmap_ticks(chain: Group, settings: Settings) -> Iterator[Hit]:
    """ROADMAP ticks a plan exactly when its summary exists.

    **What it does**: for each plan checkbox of ROADMAP.md (`- [x] 01-02-PLAN.md`, `- [x] 01-02:`),
    reports a ticked plan with no `01-02-SUMMARY.md` in any phase folder (`phases/`, archived
    `milestones/*-phases/`); and, as a warning of its own (GS302), an unticked plan whose summary
    exists.

    **Why is this bad?** GSD ticks the plan after its summary is written (`execute-plan.md`); the
    next session resumes from the ticks. A tick without a summary is a plan claimed executed whose
    record does not exist; a summary without a tick is work the roadmap will plan again.

    **Example**: `- [x] 02-03-PLAN.md - export endpoint` and no `02-03-SUMMARY.md`.

    **Use instead**: tick a plan when its summary is written, and untick one whose summary is gone.
    """
    yield from _ticks(chain, ticked=True)


def check_summaries_ticked(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A plan whose summary exists is ticked in ROADMAP.

    **What it does**: reports a plan checkbox of ROADMAP.md left open (`- [ ] 01-02-PLAN.md`)
    while `01-02-SUMMARY.md` exists in a phase folder.

    **Why is this bad?** The roadmap is what the next session reads to know what is done: an open
    box over finished work sends the planner back to it.

    **Example**: `- [ ] 01-02-PLAN.md` beside `phases/01-setup/01-02-SUMMARY.md`.

    **Use instead**: `- [x] 01-02-PLAN.md`.
    """
    yield from _ticks(chain, ticked=False)


def _ticks(chain: Group, *, ticked: bool) -> Iterator[Hit]:
    for roadmap in chain.valid(ROADMAP):
        plans = roadmap.data.get("plans")
        if not isinstance(plans, list) or not plans:
            continue
        summaries = _summary_keys(roadmap.path.parent)
        for index, plan in enumerate(plans):
            key, done = plan["plan"], plan["done"]
            if done != ticked:
                continue
            if ticked and plan_id(key) not in summaries:
                yield Hit(
                    roadmap,
                    f"/plans/{index}/plan",
                    f"plan {key} is ticked done, but no {key}-SUMMARY.md exists in any phase folder",
                )
            elif not ticked and plan_id(key) in summaries:
                yield Hit(
                    roadmap, f"/plans/{index}/plan", f"plan {key} has a summary, but its box is not ticked"
                )


def check_state_position(chain: Group, settings: Settings) -> Iterator[Hit]:
    """STATE.md's current position names a phase the project has, within its counts.

    **What it does**: reads `Phase: X of Y` and `Plan: A of B` under STATE.md's Current Position,
    and reports a phase that neither a phase folder nor ROADMAP.md names (`Phase X`), a phase
    past its own count (`Phase: 7 of 5`), or a plan past its count (`Plan: 4 of 3`).

    **Why is this bad?** `/gsd:resume-work` and `/gsd:progress` start from this position: a
    position that names no phase sends the next session to work that does not exist.

    **Example**: `Phase: 6 of 5 (Deploy)` in a project of five phases.

    **Use instead**: the position gsd-tools writes after each plan (`state advance-plan`).
    """
    for state in chain.valid(STATE):
        position = state.data.get("position")
        if not isinstance(position, dict):
            continue
        phase, phases = position.get("phase"), position.get("phases")
        plan, plans = position.get("plan"), position.get("plans")
        if isinstance(plan, int) and isinstance(plans, int) and plan > plans:
            yield Hit(state, "/position/plan", f"plan {plan} of {plans}: past the phase's plan count")
        if not isinstance(phase, str):
            continue
        whole = phase.split(".")[0]
        if isinstance(phases, int) and whole.isdigit() and int(whole) > phases:
            yield Hit(state, "/position/phase", f"phase {phase} of {phases}: past the project's phase count")
            continue
        if not _phase_known(state.path.parent, phase, chain.first(ROADMAP)):
            yield Hit(
                state,
                "/position/phase",
                f"phase {phase} is named here, but no phase folder and no ROADMAP.md phase has that number",
            )


def _phase_known(planning: Path, phase: str, roadmap: Document | None) -> bool:
    """Whether a phase folder or the project's ROADMAP (as read, never opened again) names ``phase``."""
    if any(same_number(phase_number(folder.name), phase) for folder in phase_folders(planning)):
        return True
    if roadmap is None:
        return True  # no roadmap to ask: not judged
    return any(same_number(found, phase) for found in _PHASE_HEADING.findall(roadmap.source_text))


_UAT_PARTS = ("passed", "issues", "pending", "skipped", "blocked")
_RESULT_COUNTS = {"pass": "passed", "passed": "passed", "issue": "issues", "skipped": "skipped", "skip": "skipped",
                  "blocked": "blocked", "pending": "pending"}  # fmt: skip


def check_uat_counts(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A UAT's summary counts add up, and agree with its tests' results.

    **What it does**: reports a UAT (`NN-UAT.md`) whose `## Summary` `total` is not the sum of
    `passed`, `issues`, `pending`, `skipped` (and `blocked`), or whose `passed` or `issues`
    differs from the number of tests whose `result:` says so.

    **Why is this bad?** `/gsd:verify-work` and the gap planner read the summary, not each test: a
    count that hides an issue closes a phase with a failing test.

    **Example**: `total: 5`, `passed: 5`, `issues: 1`.

    **Use instead**: the counts of the tests' `result:` lines.
    """
    for uat in chain.valid(UAT):
        counts = uat.data.get("counts")
        if not isinstance(counts, dict) or "total" not in counts:
            continue
        parts = {name: counts[name] for name in _UAT_PARTS if name in counts}
        if parts and len(parts) >= 2 and sum(parts.values()) != counts["total"]:
            shown = " + ".join(f"{name} {value}" for name, value in parts.items())
            yield Hit(
                uat, "/counts/total", f"total is {counts['total']}, but {shown} = {sum(parts.values())}"
            )
            continue
        results = uat.data.get("results")
        if (
            not isinstance(results, list)
            or len(results) != counts["total"]
            or any(result not in _RESULT_COUNTS for result in results)
        ):
            continue  # results not read for every test, or in words of the project's own: not compared
        tally: dict[str, int] = {}
        for result in results:
            name = _RESULT_COUNTS.get(result)
            if name:
                tally[name] = tally.get(name, 0) + 1
        for name in ("passed", "issues"):
            if name in counts and counts[name] != tally.get(name, 0):
                yield Hit(
                    uat,
                    f"/counts/{name}",
                    f"{name} is {counts[name]}, but {tally.get(name, 0)} test(s) have that result",
                )


def check_pause_tasks(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A pause file names a task the plan has.

    **What it does**: reports a `.continue-here.md` whose front matter `task` is past its
    `total_tasks`, and a `HANDOFF.json` whose `task` or a `completed_tasks[].id` is past its
    `total_tasks`.

    **Why is this bad?** `/gsd:resume-work` restarts at that task: one past the plan's end
    resumes nothing, and the work after the pause is lost.

    **Example**: `task: 5` with `total_tasks: 3`.

    **Use instead**: the task the work stopped in, counted from 1.
    """
    for document in chain.valid(CONTINUE_HERE):
        yield from _past_total(document, front_value(document.data.get("front_matter"), "task"),
                               front_value(document.data.get("front_matter"), "total_tasks"), "/front_matter/task")  # fmt: skip
    for document in chain.valid(HANDOFF):
        data = document.data
        yield from _past_total(document, data.get("task"), data.get("total_tasks"), "/task")
        completed = data.get("completed_tasks")
        for index, task in enumerate(completed if isinstance(completed, list) else ()):
            if isinstance(task, dict):
                yield from _past_total(
                    document, task.get("id"), data.get("total_tasks"), f"/completed_tasks/{index}/id"
                )


def _past_total(document: Document, task: object, total: object, pointer: str) -> Iterator[Hit]:
    if isinstance(task, int) and isinstance(total, int) and not isinstance(task, bool) and 0 < total < task:
        yield Hit(document, pointer, f"task {task} of {total}: past the plan's last task")
