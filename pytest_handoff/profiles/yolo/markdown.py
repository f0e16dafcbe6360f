"""YOLO's Markdown plans and summaries (its releases since 2026-02-20): their YAML front matter.

``NN-PLAN.md`` / ``NN-MM-PLAN.md`` and ``NN-SUMMARY.md`` / ``NN-MM-SUMMARY.md`` open with a
front matter block (``---`` lines) that YOLO's own validators read: a plan's ``phase``, ``plan``,
``title``, ``wave``, ``depends_on``, ``must_haves``; a summary's ``phase``, ``plan``, ``status``,
``tasks_completed``, ``tasks_total``, ``commit_hashes``. The block is read as YAML, with every
value's place (the file's own lines); the Markdown after it is kept as the document's source text
(a plan's tasks are counted there: ``## Task N``, ``### Task N`` or ``<task>`` elements).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_handoff.read.markdown import read_front_matter
from pytest_handoff.values.documents import Document, Loaded
from pytest_handoff.values.rules import Hit

if TYPE_CHECKING:
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.settings import Settings

PLAN_MARKDOWN = "plan_front_matter"
SUMMARY_MARKDOWN = "summary_front_matter"
TYPES = (PLAN_MARKDOWN, SUMMARY_MARKDOWN)

# 01-PLAN.md, 02-01-PLAN.md, 03b-01-SUMMARY.md
_NAMED = re.compile(r"(?P<phase>\d{2}[a-z]?)(?:-(?P<plan>\d{2}))?-(?P<kind>PLAN|SUMMARY)\.md")
_TASK = re.compile(r"^(?:#{2,3}[ \t]+Task[ \t]+\d+\b|[ \t]*<task\b)", re.MULTILINE)


def markdown_kind(name: str) -> tuple[str, str, str] | None:
    """(type, phase, plan or "") of a Markdown plan or summary's file name, else None."""
    named = _NAMED.fullmatch(name)
    if named is None:
        return None
    kind = PLAN_MARKDOWN if named.group("kind") == "PLAN" else SUMMARY_MARKDOWN
    return kind, named.group("phase"), named.group("plan") or ""


def read_markdown(raw: bytes, path: Path, display_path: str) -> Loaded:
    """The front matter of a plan or summary as one document (none when the file has none)."""
    return read_front_matter(raw, path, display_path)


def plan_tasks(plan: Document) -> int:
    """How many tasks a Markdown plan's body lists (0 when it lists them otherwise)."""
    return len(_TASK.findall(plan.source_text))


def check_markdown_summary_counts(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A Markdown summary's task counts agree with its plan and its status.

    **What it does**: for each `NN-MM-SUMMARY.md` (or `NN-SUMMARY.md`) front matter, reports
    `status: complete` with `tasks_completed` short of `tasks_total`, and a `tasks_total` other
    than the number of tasks its plan (`NN-MM-PLAN.md` in the same folder) lists: `## Task N`,
    `### Task N` or `<task>` elements (a plan that lists them otherwise is not counted).

    **Why is this bad?** The lead and the QA agent read the summary's counts to decide whether the
    plan is done; a complete summary of a plan with tasks left over sends unfinished work to QA.

    **Example**: `status: complete`, `tasks_completed: 1`, `tasks_total: 2`, or `tasks_total: 2`
    for a plan of three `## Task` sections.

    **Use instead**: the counts of the plan, and `status: partial` until every task is done.
    """
    plans: dict[tuple[str, str], Document] = {}
    for document in chain.valid(PLAN_MARKDOWN):
        named = markdown_kind(document.name)
        if named is not None:
            plans[named[1:]] = document
    for summary in chain.valid(SUMMARY_MARKDOWN):
        data = summary.data
        done, total = data.get("tasks_completed"), data.get("tasks_total")
        if (
            data.get("status") == "complete"
            and isinstance(done, int)
            and isinstance(total, int)
            and done < total
        ):
            yield Hit(
                summary, "/tasks_completed", f"status is complete, but {done} of {total} tasks are done"
            )
        named = markdown_kind(summary.name)
        plan = plans.get(named[1:]) if named else None
        if plan is None or not isinstance(total, int):
            continue
        listed = plan_tasks(plan)
        if listed and total != listed:
            yield Hit(
                summary,
                "/tasks_total",
                f"tasks_total is {total}, but {plan.name} lists {listed} task(s)",
                related=((plan, "", "the plan"),),
            )
