"""Where YOLO's files live: ``.yolo-planning/``, its phase folders and the plan files in them."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import NamedTuple

PLANNING = ".yolo-planning"
SUFFIXES = (".json", ".jsonl")
EXECUTION_STATE = ".execution-state.json"
PROJECT_STATE = "state.json"
ESCALATION_LOG = "escalation.jsonl"
INTEGRATION_GATE = "integration-gate-result.jsonl"
# Names are taken apart with string methods rather than regular expressions: compiling these on
# import would cost every one-file run of the linter.


def _number(text: str) -> bool:
    return text.isascii() and text.isdigit()


def plan_id(text: str) -> tuple[str, str] | None:
    """(phase, plan) of a plan id ``NN-MM``, or None."""
    phase, dash, plan = text.partition("-")
    return (phase, plan) if dash and _number(phase) and _number(plan) else None


def plan_file(name: str) -> tuple[str, str, str] | None:
    """(phase, plan, kind) of a plan's file ``NN-MM.kind`` (``05-01.plan.jsonl``: kind ``plan.jsonl``)."""
    stem, dot, kind = name.partition(".")
    ids = plan_id(stem) if dot and kind else None
    return None if ids is None else (ids[0], ids[1], kind)


def is_plan_or_summary(name: str) -> bool:
    """``NN-MM.plan.*`` or ``NN-MM.summary.*``: a plan's own files, whose first line is its header."""
    found = plan_file(name)
    return found is not None and found[2].split(".")[0] in ("plan", "summary")


def task_plan(text: str) -> str | None:
    """The plan of a task reference ``NN-MM/Tn`` (``NN-MM``), or None."""
    plan, slash, task = text.partition("/")
    if slash and plan_id(plan) is not None and task[:1] == "T" and _number(task[1:]):
        return plan
    return None


class Phase(NamedTuple):
    """A phase folder: its path and number (as written, ``"05"``)."""

    folder: Path
    number: str


def planning_root(path: Path) -> Path | None:
    """The planning folder ``path`` sits in (at any depth), or None.

    ``.yolo-planning``; for a planning folder of another name (configured globs such as
    ``planning/**/*.jsonl``), the folder holding the file's ``phases/NN-slug/``.
    """
    for parent in path.parents:
        if parent.name == PLANNING:
            return parent
    phase = phase_of(path)
    return phase.folder.parent.parent if phase is not None else None


@cache
def is_runtime_file(path: Path) -> bool:
    """A file YOLO's own tooling keeps under ``.yolo-planning``: a dot file or one in a dot folder.

    ``.execution-state.json``, ``.notification-log.jsonl`` (whose lines have a ``type`` of their
    own: ``warning``, ``error``), ``.events/``, ``.metrics/``, ``.contracts/``: state and logs, not
    messages agents write to each other.
    """
    planning = planning_root(path)
    if planning is None:
        return False
    inside = path.parts[len(planning.parts) :]
    return any(part.startswith(".") for part in inside)


def phase_of(path: Path) -> Phase | None:
    """The phase folder a file sits directly in (``.../phases/NN-slug/file``, or a milestone's
    ``milestones/<m>/NN-slug/file``), or None."""
    folder = path.parent
    number, dash, slug = folder.name.partition("-")
    in_milestone = folder.parent.parent.name == "milestones"
    if not (dash and slug and _number(number)) or not (folder.parent.name == "phases" or in_milestone):
        return None
    return Phase(folder, number)


def same_number(left: object, right: str) -> bool:
    """True when ``left`` (a phase or plan number as a message writes it) is ``right``'s number.

    ``"05"``, ``"5"`` and ``5`` are all phase 5; anything not a number is left alone (True).
    """
    if isinstance(left, bool):
        return True
    if isinstance(left, int):
        return left == int(right)
    if isinstance(left, str) and left.isdigit():
        return int(left) == int(right)
    return True
