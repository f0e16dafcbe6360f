"""Where YOLO's files live: ``.yolo-planning/``, its phase folders and the plan files in them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

PLANNING = ".yolo-planning"
#: A phase folder: ``phases/NN-slug`` (the number may have more digits).
PHASE_FOLDER = re.compile(r"(?P<phase>[0-9]+)-[^/\\]+")
#: A plan's files: ``NN-MM.plan.jsonl``, ``NN-MM.summary.jsonl`` (and any ``NN-MM.*``).
PLAN_FILE = re.compile(r"(?P<phase>[0-9]+)-(?P<plan>[0-9]+)\.(?P<kind>[A-Za-z0-9_.-]+)")
#: A plan id inside a message: ``NN-MM``.
PLAN_ID = re.compile(r"(?P<phase>[0-9]+)-(?P<plan>[0-9]+)")
#: A task reference: ``NN-MM/Tn``.
TASK_REF = re.compile(r"(?P<plan>[0-9]+-[0-9]+)/(?P<task>T[0-9]+)")
SUFFIXES = (".json", ".jsonl")
EXECUTION_STATE = ".execution-state.json"
ESCALATION_LOG = "escalation.jsonl"
INTEGRATION_GATE = "integration-gate-result.jsonl"


class Phase(NamedTuple):
    """A phase folder: its path and number (as written, ``"05"``)."""

    folder: Path
    number: str


def planning_root(path: Path) -> Path | None:
    """The ``.yolo-planning`` folder ``path`` sits in (at any depth), or None."""
    for parent in path.parents:
        if parent.name == PLANNING:
            return parent
    return None


def phase_of(path: Path) -> Phase | None:
    """The phase folder a file sits directly in (``.../phases/NN-slug/file``), or None."""
    folder = path.parent
    named = PHASE_FOLDER.fullmatch(folder.name)
    if named is None or folder.parent.name != "phases" or planning_root(path) is None:
        return None
    return Phase(folder, named.group("phase"))


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
