"""YOLO's planning artifacts with abbreviated keys: a plan (header + task lines), its summary, and
the phase's verdicts, critique, test plan and gaps (typed by file name and line).

What each line is, from its file's name and place (no ``type`` key: these are files, not
messages), and what a summary must agree with in its plan: the task count, its status, the
files it says it modified. Learnt from YOLO's artifact-formats reference, every version
(2026-02-13 to 2026-02-19); see the schemas ``yolo/plan_header``, ``plan_task``, ``plan_summary``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from pytest_handoff.profiles.yolo.layout import plan_file
from pytest_handoff.profiles.yolo.markdown import TYPES as MARKDOWN_TYPES
from pytest_handoff.profiles.yolo.markdown import markdown_kind
from pytest_handoff.values.documents import line_index
from pytest_handoff.values.rules import Hit

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.settings import Settings

PLAN_HEADER = "plan_header"
PLAN_TASK = "plan_task"
PLAN_SUMMARY = "plan_summary"
#: A phase folder's other artifacts: file name -> (type of its first line, type of the others).
#: Where a file has a verdict line, it is the first; the lines after it are its checks or findings.
LINE_TYPES: dict[str, tuple[str, str]] = {
    "verification.jsonl": ("verification_summary", "verification_check"),
    "qa-code.jsonl": ("qa_code_summary", "qa_code_finding"),
    "code-review.jsonl": ("code_review_verdict", "code_review_comment"),
    "critique.jsonl": ("critique_finding", "critique_finding"),
    "test-plan.jsonl": ("test_plan_entry", "test_plan_entry"),
    "gaps.jsonl": ("gap", "gap"),
}
TYPES = (
    PLAN_HEADER,
    PLAN_TASK,
    PLAN_SUMMARY,
    *sorted({kind for kinds in LINE_TYPES.values() for kind in kinds}),
    *MARKDOWN_TYPES,
)


def artifact_type(document: Document) -> str | None:
    """The artifact line ``document`` is (a plan's header or task, a summary), or None."""
    if document.name.endswith(".md"):
        named_markdown = markdown_kind(document.name)
        return named_markdown[0] if named_markdown else None
    kinds = LINE_TYPES.get(document.name)
    if kinds is not None:
        return kinds[0] if document.origin[0] == _first_line(document.source_text) else kinds[1]
    named = plan_file(document.name)
    if named is None:
        return None
    first = document.origin[0] == _first_line(document.source_text)
    if named[2] == "summary.jsonl":
        # One line by the format; the lines real summaries add after it (a record per task) are
        # only a warning for YOLO's own validator, and not a summary: left unchecked.
        return PLAN_SUMMARY if first else None
    if named[2] == "plan.jsonl":
        return PLAN_HEADER if first else PLAN_TASK
    return None


_LEADING_SPACE = re.compile(r"[ \t\r\n]*")


def _first_line(text: str) -> int:
    """The line (as editors count lines) of the first character that is not white space (no copy
    of the text: this is asked for every line of a file)."""
    start = _LEADING_SPACE.match(text).end()  # type: ignore[union-attr]  # always matches
    return line_index(text).position(start)[0] if start else 1


def _plans(chain: Group) -> dict[str, tuple[Document | None, list[Document]]]:
    """Each plan id of the folder (``NN-MM``) with its header and task lines (valid ones)."""
    plans: dict[str, tuple[Document | None, list[Document]]] = {}
    for document in chain.valid():
        if document.handoff_type not in (PLAN_HEADER, PLAN_TASK):
            continue
        key = _plan_id(document)
        header, tasks = plans.get(key, (None, []))
        if document.handoff_type == PLAN_HEADER:
            header = document
        else:
            tasks.append(document)
        plans[key] = (header, tasks)
    return plans


def _uncounted(chain: Group) -> set[str]:
    """Plans with a task line that is invalid (its own HS001 says why): their tasks cannot be told."""
    return {
        _plan_id(doc) for doc in chain.documents if doc.handoff_type == PLAN_TASK and not doc.schema_valid
    }


def _plan_id(document: Document) -> str:
    named = plan_file(document.name)
    assert named is not None  # typed from its name
    return f"{named[0]}-{named[1]}"


def _summaries(chain: Group) -> Iterator[tuple[str, Document]]:
    for document in chain.valid(PLAN_SUMMARY):
        yield _plan_id(document), document


def check_summary_counts(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A plan's summary counts the plan's tasks, and a complete one completed them all.

    **What it does**: compares a summary's `tt` (tasks total) with the number of task lines of
    the plan of the same id in the same folder (`05-01.summary.jsonl` with `05-01.plan.jsonl`),
    and reports `s: "complete"` with `tc` (tasks completed) other than `tt`, and `tc` above `tt`.

    **Why is this bad?** YOLO's lead counts completions against the plan, and its post-plan gate
    passes a plan whose summary says `complete`: a summary that miscounts hands off work that
    was never done, or hides tasks the next wave depends on.

    **Example**: a plan with tasks T1-T3 and `{"s": "complete", "tc": 2, "tt": 2, ...}`.

    **Use instead**: `{"s": "partial", "tc": 2, "tt": 3, "dv": ["T3 moved to 05-02"], ...}`.
    """
    plans = _plans(chain)
    uncounted = _uncounted(chain)
    for plan_id, summary in _summaries(chain):
        data = summary.data
        done, total = data["tc"], data["tt"]
        header, tasks = plans.get(plan_id, (None, []))
        if header is not None and plan_id not in uncounted and total != len(tasks):
            yield Hit(
                summary,
                "/tt",
                f"tt is {total}, but plan {plan_id} has {len(tasks)} task line{'s' * (len(tasks) != 1)}",
                related=((header, "", "plan"),),
            )
        if done > total:
            yield Hit(summary, "/tc", f"tc is {done}, more than the {total} tasks in all (tt)")
        elif data["s"] == "complete" and done != total:
            yield Hit(
                summary, "/s", f"status is complete, but only {done} of {total} tasks were completed (tc)"
            )


def check_summary_files(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A summary's modified files are the plan's, or its deviations say why not.

    **What it does**: reports each entry of a summary's `fm` (files modified) that is neither
    among its plan's files (the header's `fm`, each task's `f`) nor named in one of the
    summary's deviations (`dv`). Paths compare after a leading `./` is dropped.

    **Why is this bad?** YOLO's dev agent creates or modifies the files a task lists and notes a
    minor deviation in `dv`; a file changed outside the plan with no word about it is work the
    reviewer and QA were never asked to look at.

    **Example**: plan files `src/tokens.py`; summary `"fm": ["src/tokens.py", "src/admin.py"], "dv": []`.

    **Use instead**: `"dv": ["src/admin.py: exposed the token TTL setting the plan forgot"]`.
    """
    plans = _plans(chain)
    uncounted = _uncounted(chain)
    for plan_id, summary in _summaries(chain):
        header, tasks = plans.get(plan_id, (None, []))
        if header is None or plan_id in uncounted:
            continue
        planned = {_path(f) for f in header.data.get("fm", [])} | {
            _path(f) for t in tasks for f in t.data["f"]
        }
        # The words of the deviations, as paths: one set, so that a long list costs a look each.
        named = {
            _path(word.lstrip(_OPENING).rstrip(_AROUND))
            for entry in summary.data["dv"]
            for word in entry.split()
        }
        for index, modified in enumerate(summary.data["fm"]):
            if _path(modified) not in planned and _path(modified) not in named:
                yield Hit(
                    summary,
                    f"/fm/{index}",
                    f"{modified!r} is not among plan {plan_id}'s files and no deviation (dv) names it",
                    related=((header, "", "plan"),),
                )


#: What may stand around a path in prose: "src/a.py:", "(src/a.py)", "`src/a.py`,".
_OPENING = "`'\"([{"
_AROUND = "`'\"()[]{},;:."


def _path(text: str) -> str:
    return text.removeprefix("./")
