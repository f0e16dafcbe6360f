"""What GSD's plans, verifications, UATs, STATE and ROADMAP say in their bodies, as placed values.

Each reader returns the facts of one file type (see :mod:`pytest_handoff.profiles.gsd.reader`).
"""

from __future__ import annotations

import re

from pytest_handoff.profiles.gsd.body import body_sections
from pytest_handoff.read.placed import leaf, mapping, sequence
from pytest_handoff.read.yamldoc import Node

_TASK = re.compile(r"^\s*<task(?:\s[^>]*)?>")
_CHECKPOINT = re.compile(r"""type\s*=\s*["']checkpoint""")
# A row's status by its first word or mark. MISSING or STUB without a mark is no failure: a
# verifier writes them of files a plan deleted on purpose ("MISSING (verified)").
_STATUS_WORDS = {
    "verified": "verified", "✓": "verified", "✅": "verified", "pass": "verified", "passed": "verified",
    "failed": "failed", "✗": "failed", "❌": "failed", "fail": "failed",
    "uncertain": "uncertain", "?": "uncertain", "needs human": "uncertain", "human": "uncertain",
}  # fmt: skip
_UAT_COUNT = re.compile(
    r"^\W*(total|passed|issues|pending|skipped|blocked)\W*:\s*(\d{1,9})\s*$", re.IGNORECASE
)
_UAT_RESULT = re.compile(r"^\W*result\W*:\s*\[?(\w+)\]?", re.IGNORECASE)
# Counts of at most nine digits: a longer number is no phase or plan count (and int() refuses thousands).
_PHASE = re.compile(
    r"^\W*Phase\W*:?\**\s*(\d{1,9}(?:\.\d{1,9})*[a-z]?)\b\s*(?:of\s+(\d{1,9})\b)?", re.IGNORECASE
)
_PLAN = re.compile(r"^\W*Plan\W*:?\**\s*(\d{1,9})\s+of\s+(\d{1,9})\b", re.IGNORECASE)
_TICK = re.compile(
    r"^\s*[-*]\s*\[(?P<mark>[ xX])\]\s*(?:~~)?(?:\*\*)?(?:Plan\s+)?"
    r"(?P<key>\d+(?:\.\d+)*[a-z]?-\d+[a-z]?(?:-FIX\d*)?)(?:-PLAN\.md)?(?:\*\*)?(?=[\s:.,)*\u2014\u2013-]|$)"
)


def plan_tasks(lines: list[str], body_line: int) -> dict[str, Node]:
    """A plan's ``/tasks``: how many ``<task>`` elements it has, placed at the first; and
    ``/checkpoints``: how many of them are checkpoints (``type="checkpoint:human-verify"``)."""
    tasks = [index for index in range(body_line - 1, len(lines)) if _TASK.match(lines[index])]
    if not tasks:
        return {}
    checkpoints = [index for index in tasks if _CHECKPOINT.search(lines[index])]
    facts = {"tasks": leaf(len(tasks), tasks[0] + 1, 1, len(lines[tasks[0]]))}
    if checkpoints:
        facts["checkpoints"] = leaf(len(checkpoints), checkpoints[0] + 1, 1, len(lines[checkpoints[0]]))
    return facts


def _status(cell: str) -> str:
    text = cell.strip().strip("*_` ").lower()
    for word, status in _STATUS_WORDS.items():
        if text.startswith(word) or (len(word) == 1 and word in text[:3]):
            return status
    return ""


def _table_statuses(lines: list[str], first: int, end: int) -> list[Node]:
    """The status cell of each row of the tables between ``first`` and ``end`` (0-based)."""
    found: list[Node] = []
    column: int | None = None
    for index in range(first, end):
        text = lines[index].strip()
        if not text.startswith("|"):
            column = None
            continue
        cells = [cell.strip() for cell in text.strip("|").split("|")]
        if column is None:
            column = next((i for i, cell in enumerate(cells) if cell.strip("* ").lower() == "status"), -1)
            continue
        if column < 0 or set(text) <= set("|:- ") or column >= len(cells):
            continue
        status = _status(cells[column])
        if status:
            at = lines[index].find(cells[column]) + 1 if cells[column] else 1
            found.append(leaf(status, index + 1, max(at, 1), max(at, 1) + len(cells[column]) - 1))
    return found


def truths(lines: list[str], body_line: int) -> dict[str, Node]:
    """A verification's ``/truths`` and ``/artifacts``: the status of each row of its tables."""
    facts: dict[str, Node] = {}
    for section in body_sections(lines, body_line):
        heading = section.heading.lower()
        name = "truths" if "truth" in heading else "artifacts" if "artifact" in heading else ""
        if name and name not in facts:
            rows = _table_statuses(lines, section.line, section.end)
            if rows:
                facts[name] = sequence(rows)
    return facts


def uat(lines: list[str], body_line: int) -> dict[str, Node]:
    """A UAT's ``/counts`` (its Summary's total, passed, issues, pending, skipped) and ``/results``."""
    facts: dict[str, Node] = {}
    results: list[Node] = []
    for section in body_sections(lines, body_line):
        if section.heading.strip().lower() == "summary" and "counts" not in facts:
            found: dict[str, Node] = {}
            for index in range(section.line, section.end):
                count = _UAT_COUNT.match(lines[index])
                if count and count.group(1).lower() not in found:
                    found[count.group(1).lower()] = leaf(
                        int(count.group(2)), index + 1, count.start(2) + 1, count.end(2)
                    )
            if found:
                facts["counts"] = mapping(found)
    for index in range(body_line - 1, len(lines)):
        result = _UAT_RESULT.match(lines[index])
        if result:
            results.append(leaf(result.group(1).lower(), index + 1, result.start(1) + 1, result.end(1)))
    if results:
        facts["results"] = sequence(results)
    return facts


def position(lines: list[str], body_line: int) -> dict[str, Node]:
    """STATE.md's ``/position``: the phase (and plan) its Current Position names."""
    for section in body_sections(lines, body_line):
        if "position" not in section.heading.lower():
            continue
        found: dict[str, Node] = {}
        for index in range(section.line, section.end):
            text = lines[index]
            phase = _PHASE.match(text)
            if phase and "phase" not in found:
                found["phase"] = leaf(phase.group(1), index + 1, phase.start(1) + 1, phase.end(1))
                if phase.group(2):
                    found["phases"] = leaf(int(phase.group(2)), index + 1, phase.start(2) + 1, phase.end(2))
            plan = _PLAN.match(text)
            if plan and "plan" not in found:
                found["plan"] = leaf(int(plan.group(1)), index + 1, plan.start(1) + 1, plan.end(1))
                found["plans"] = leaf(int(plan.group(2)), index + 1, plan.start(2) + 1, plan.end(2))
        return {"position": mapping(found)} if found else {}
    return {}


def roadmap_plans(lines: list[str], body_line: int) -> dict[str, Node]:
    """ROADMAP's ``/plans``: each plan checkbox (``- [x] 01-02-PLAN.md``), its key and whether ticked."""
    plans: list[Node] = []
    fence = False
    for index in range(body_line - 1, len(lines)):
        text = lines[index]
        if text.lstrip().startswith(("```", "~~~")):
            fence = not fence
        if fence:
            continue
        tick = _TICK.match(text)
        if tick:
            line = index + 1
            key = leaf(tick.group("key"), line, tick.start("key") + 1, tick.end("key"))
            done = leaf(tick.group("mark") != " ", line, tick.start("mark") + 1, tick.end("mark"))
            plans.append(mapping({"plan": key, "done": done}, at=key))
    return {"plans": sequence(plans)} if plans else {}
