"""Where GSD's files are in a ``.planning/`` tree, and what each one is.

A phase folder (``phases/02-auth/``, an archived ``milestones/v1.0-phases/02-auth/``, a quick
task's ``quick/260402-ogl-fix/``) is a group of its plans, summaries, verification, UAT and
``.continue-here.md``; the files at the top of ``.planning/`` (``STATE.md``, ``ROADMAP.md``,
``REQUIREMENTS.md``, ``config.json``, ``HANDOFF.json``, ``.continue-here.md``) are the project's
group. Project research (``research/SUMMARY.md``), debug notes and todos are not handoffs.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from pytest_handoff.profiles.gsd.format import (
    CONFIG,
    CONTINUE_HERE,
    HANDOFF,
    PLAN,
    PLANNING,
    REQUIREMENTS,
    ROADMAP,
    STATE,
    SUMMARY,
    UAT,
    VERIFICATION,
)

#: The project group's id (its folder is ``.planning/`` itself).
PROJECT = "project"

_TOP = {
    "STATE.md": STATE,
    "ROADMAP.md": ROADMAP,
    "REQUIREMENTS.md": REQUIREMENTS,
    "config.json": CONFIG,
    "HANDOFF.json": HANDOFF,
    ".continue-here.md": CONTINUE_HERE,
}
# 01-02-PLAN.md, 02.1-01-SUMMARY.md, 01-02-FIX1-PLAN.md, 260402-ogl-SUMMARY.md, PLAN.md
_PLANNED = re.compile(r"(?:(?P<key>.+)-)?(?P<kind>PLAN|SUMMARY)\.md")
# 01-VERIFICATION.md, VERIFICATION.md, VERIFICATION-V2.md, PHASE-3-VERIFICATION.md
_VERIFIED = re.compile(r"(?:.+-)?VERIFICATION(?:-V\d+)?\.md")
_UAT = re.compile(r"(?:.+-)?UAT\.md")
# A phase folder's number: 01-foundation, 02.1-hotfix, 3-api, 260402-ogl-fix
_PHASE_NUMBER = re.compile(r"(?P<number>\d+(?:\.\d+)*[a-z]?)(?:-|$)")


class Kind(NamedTuple):
    """What a file of the tree is: its type and, for a plan or summary, the key pairing them."""

    type: str
    key: str = ""  # "01-02": a plan and its summary share it


def planning_root(path: Path) -> Path | None:
    """The ``.planning`` folder ``path`` is in (the nearest), or None."""
    for parent in path.parents:
        if parent.name == PLANNING:
            return parent
    return None


def is_phase_folder(folder: Path) -> bool:
    """A folder of one phase (or one quick task): under ``phases/``, ``*-phases/`` or ``quick/``."""
    parent = folder.parent.name
    return parent in ("phases", "quick") or parent.endswith("-phases")


def kind_of(path: Path) -> Kind | None:
    """What the file at ``path`` is in its ``.planning`` tree, or None when it is not a handoff."""
    planning = planning_root(path)
    if planning is None:
        return None
    folder = path.parent
    if folder == planning:
        top = _TOP.get(path.name)
        return Kind(top) if top else None
    if not is_phase_folder(folder) or planning not in folder.parents:
        return None
    return phase_kind(path.name)


def phase_kind(name: str) -> Kind | None:
    """The kind of a file of a phase folder by its name."""
    planned = _PLANNED.fullmatch(name)
    if planned:
        return Kind(PLAN if planned.group("kind") == "PLAN" else SUMMARY, planned.group("key") or "")
    if _VERIFIED.fullmatch(name):
        return Kind(VERIFICATION)
    if _UAT.fullmatch(name):
        return Kind(UAT)
    if name == ".continue-here.md":
        return Kind(CONTINUE_HERE)
    return None


def group_of(path: Path) -> tuple[Path, str] | None:
    """The folder and id of the group of a GSD file: its phase folder, or the project."""
    planning = planning_root(path)
    if planning is None or kind_of(path) is None:
        return None
    if path.parent == planning:
        return planning, PROJECT
    return path.parent, path.parent.relative_to(planning).as_posix()


def phase_number(folder_name: str) -> str:
    """The phase number a folder's name starts with (``02.1`` of ``02.1-hotfix``), "" when none."""
    found = _PHASE_NUMBER.match(folder_name)
    return found.group("number") if found else ""


def same_number(one: str, other: str) -> bool:
    """Whether two phase numbers are the same phase (``2`` and ``02``; ``2.1`` and ``02.1``)."""
    return _normal(one) == _normal(other)


def _normal(number: str) -> str:
    return ".".join(part.lstrip("0") or "0" for part in number.lower().split("."))
