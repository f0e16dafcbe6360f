"""Rules on one flat message: its counts add up, and its verdict agrees with them.

Each runs on schema-valid messages only, so fields have the types the schema gives them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pytest_handoff.profiles.yolo.layout import task_plan
from pytest_handoff.values.rules import Hit

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.settings import Settings


def check_counts_add_up(document: Document, settings: Settings) -> Iterator[Hit]:
    """A message's counts disagree: a total is not the sum of its parts, or a part exceeds its total.

    **What it does**: checks that a `critique_result`'s `findings` equals `critical + major + minor`,
    and that no message counts more critical findings than findings (`security_audit`:
    `critical <= findings`; `code_review_result`, `qa_code_result`: `critical <= findings_count`).
    The total is marked, and the counts it is made of are named.

    **Why is this bad?** The Lead decides from these numbers (how many findings to route, whether
    a critical one blocks). Counts that do not add up mean one of them is wrong, and nobody can tell
    which.

    **Example**: `{"type": "critique_result", "findings": 7, "critical": 1, "major": 3, "minor": 2, ...}`.

    **Use instead**: recount: `"findings": 6` (or the severity that was missed).
    """
    data = document.data
    if document.handoff_type == "critique_result":
        parts = data["critical"] + data["major"] + data["minor"]
        if data["findings"] != parts:
            yield Hit(
                document,
                "/findings",
                f"findings is {data['findings']} but critical + major + minor is "
                f"{data['critical']} + {data['major']} + {data['minor']} = {parts}",
                related=tuple((document, f"/{key}", key) for key in ("critical", "major", "minor")),
            )
        return
    total_key = "findings" if document.handoff_type == "security_audit" else "findings_count"
    if "critical" in data and total_key in data and data["critical"] > data[total_key]:
        yield Hit(
            document,
            "/critical",
            f"critical is {data['critical']}, more than the {data[total_key]} finding(s) of {total_key}",
            related=((document, f"/{total_key}", total_key),),
        )


def check_qa_checks_add_up(document: Document, settings: Settings) -> Iterator[Hit]:
    """A `qa_result`'s checks do not add up: `passed + failed` is not `total`.

    **What it does**: compares `checks.total` with `checks.passed + checks.failed` and marks the
    total.

    **Why is this bad?** A check counted in neither column was not run or not reported; a total
    smaller than its parts is simply wrong. Either way the verdict rests on numbers nobody can
    trust.

    **Example**: `"checks": {"passed": 18, "failed": 2, "total": 21}`.

    **Use instead**: `"checks": {"passed": 18, "failed": 2, "total": 20}` (or report the missing check).
    """
    checks = document.data["checks"]
    parts = checks["passed"] + checks["failed"]
    if checks["total"] != parts:
        yield Hit(
            document,
            "/checks/total",
            f"total is {checks['total']} but passed + failed is {checks['passed']} + {checks['failed']} = {parts}",
            related=((document, "/checks/passed", "passed"), (document, "/checks/failed", "failed")),
        )


#: Message type -> (done key, total key) of the counts where done can never exceed total.
_DONE_AND_TOTAL = {
    "summary_aggregation": ("tasks_completed", "tasks_total"),
    "phase_progress": ("plans_complete", "plans_total"),
    "department_result": ("plans_completed", "plans_total"),
}


def check_done_within_total(document: Document, settings: Settings) -> Iterator[Hit]:
    """More tasks or plans done than there are: `tasks_completed > tasks_total`.

    **What it does**: checks `tasks_completed <= tasks_total` (`summary_aggregation`),
    `plans_complete <= plans_total` (`phase_progress`) and `plans_completed <= plans_total`
    (`department_result`), marking the count done.

    **Why is this bad?** The summary or progress the orchestrator shows is built from these
    counts: a plan can be declared complete with work outstanding, or progress shown above 100%.

    **Example**: `{"type": "summary_aggregation", "tasks_completed": 8, "tasks_total": 7, ...}`.

    **Use instead**: the real counts: `"tasks_completed": 7` (or `"tasks_total": 8` when a task was added).
    """
    keys = _DONE_AND_TOTAL.get(document.handoff_type or "")
    if keys is None:
        return
    done_key, total_key = keys
    data = document.data
    if done_key in data and total_key in data and data[done_key] > data[total_key]:
        yield Hit(
            document,
            f"/{done_key}",
            f"{done_key} is {data[done_key]}, more than {total_key} ({data[total_key]})",
            related=((document, f"/{total_key}", total_key),),
        )


def check_percent_agrees(document: Document, settings: Settings) -> Iterator[Hit]:
    """A `phase_progress`'s `percent_complete` disagrees with `plans_complete / plans_total`.

    **What it does**: computes `100 * plans_complete / plans_total` and reports a
    `percent_complete` more than one point away from it (rounding up, down or to nearest all
    pass). Nothing is checked when `plans_total` is 0, or when the plans counts already exceed
    their total (YL103 reports that).

    **Why is this bad?** The orchestrator shows the percentage and uses it for timeouts; a number
    that contradicts the plan counts misleads whoever watches the run.

    **Example**: `"plans_complete": 2, "plans_total": 4, "percent_complete": 75`.

    **Use instead**: `"percent_complete": 50`.
    """
    data = document.data
    done, total, percent = data["plans_complete"], data["plans_total"], data["percent_complete"]
    if total <= 0 or done > total:
        return
    expected = 100 * done / total
    if abs(percent - expected) >= 1:
        yield Hit(
            document,
            "/percent_complete",
            f"percent_complete is {percent} but {done} of {total} plans is {expected:.4g}%",
            related=(
                (document, "/plans_complete", "plans_complete"),
                (document, "/plans_total", "plans_total"),
            ),
        )


def _verdict_problem(handoff_type: str, data: dict[str, Any]) -> tuple[str, str, str] | None:
    """(pointer of the verdict, message, pointer of the count it contradicts), or None."""
    if handoff_type == "qa_result":
        failed, failures = data["checks"]["failed"], data.get("failures", [])
        if data["result"] == "PASS" and failed > 0:
            return "/result", f"result is PASS but {failed} check(s) failed", "/checks/failed"
        if data["result"] == "PASS" and failures:
            return "/result", f"result is PASS but {len(failures)} failure(s) are listed", "/failures"
        # A FAIL with no check run at all (QA could not run) says nothing the counts deny.
        if data["result"] == "FAIL" and failed == 0 and not failures and data["checks"]["total"] > 0:
            return "/result", "result is FAIL but no check failed and no failure is listed", "/checks/failed"
    elif handoff_type == "qa_code_result":
        failed = data.get("tests", {}).get("failed", 0)
        if data["result"] == "PASS" and failed > 0:
            return "/result", f"result is PASS but {failed} test(s) failed", "/tests/failed"
        if data["result"] == "PASS" and data.get("critical", 0) > 0:
            return "/result", f"result is PASS with {data['critical']} critical finding(s)", "/critical"
    elif handoff_type == "security_audit":
        if data["result"] == "PASS" and data["critical"] > 0:
            return "/result", f"result is PASS with {data['critical']} critical finding(s)", "/critical"
    elif handoff_type == "code_review_result":
        if data["result"] == "approve" and data.get("critical", 0) > 0:
            return "/result", f"result is approve with {data['critical']} critical finding(s)", "/critical"
    elif handoff_type == "department_result":
        done, total = data.get("plans_completed"), data.get("plans_total")
        if data["result"] == "PASS" and done is not None and total is not None and done < total:
            return (
                "/result",
                f"result is PASS but only {done} of {total} plans are complete",
                "/plans_completed",
            )
    elif handoff_type == "summary_aggregation":
        done, total = data["tasks_completed"], data["tasks_total"]
        if data.get("status") == "complete" and done < total:
            return "/status", f"status is complete but only {done} of {total} tasks are", "/tasks_completed"
    elif (
        handoff_type == "owner_signoff"
        and data["decision"] == "SHIP"
        and data.get("integration_qa") == "FAIL"
    ):
        return "/decision", "decision is SHIP but integration_qa is FAIL", "/integration_qa"
    return None


def check_verdict_agrees(document: Document, settings: Settings) -> Iterator[Hit]:
    """A message's verdict contradicts its own counts: PASS with failed checks, approve with criticals.

    **What it does**: reports a `qa_result` that passes with failed checks or listed failures (or
    fails with neither after checks ran), a `qa_code_result` that passes with failed tests or critical findings, a
    `security_audit` or `code_review_result` that passes (approves) with critical findings, a
    `department_result` that passes with plans left, a `summary_aggregation` complete with tasks
    left, and an `owner_signoff` that ships while integration QA failed. The verdict is marked and
    the count named.

    **Why is this bad?** The receiver acts on the verdict alone: a phase ships, or a fix loop
    starts, on a word the message's own numbers deny.

    **Example**: `{"type": "qa_result", "result": "PASS", "checks": {"passed": 18, "failed": 2, "total": 20}, ...}`.

    **Use instead**: `"result": "PARTIAL"` (or `"FAIL"`), or fix the failures first.
    """
    found = _verdict_problem(document.handoff_type or "", document.data)
    if found is not None:
        pointer, message, count_pointer = found
        yield Hit(document, pointer, message, related=((document, count_pointer, count_pointer[1:]),))


def check_task_in_plan(document: Document, settings: Settings) -> Iterator[Hit]:
    """A task reference names another plan than the message's `plan_id`.

    **What it does**: reads `task` as `NN-MM/Tn` (`dev_progress`, `dev_blocker`,
    `research_request`) and reports it when its plan part is not the message's `plan_id`.

    **Why is this bad?** The Senior routes the progress or the blocker by plan: one of the two
    fields is wrong, and the report lands on the wrong plan.

    **Example**: `"task": "01-02/T3", "plan_id": "01-01"`.

    **Use instead**: `"task": "01-01/T3", "plan_id": "01-01"`.
    """
    data = document.data
    task, plan_id = data.get("task"), data.get("plan_id")
    if not isinstance(task, str) or not isinstance(plan_id, str):
        return
    plan = task_plan(task)
    if plan is not None and plan != plan_id:
        yield Hit(
            document,
            "/task",
            f"task {task!r} belongs to plan {plan}, but plan_id is {plan_id!r}",
            related=((document, "/plan_id", "plan_id"),),
        )
