"""Each YOLO rule on both sides: a message that keeps the contract, and the same message broken, at its line and column."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.yolo_helpers import (
    PHASE,
    Place,
    check_folder,
    check_lines,
    codes,
    column_of,
    messages,
    places,
    write,
)

CRITIQUE = {"type": "critique_result", "phase": "05", "findings": 4, "critical": 1, "major": 2, "minor": 1}
QA = {
    "type": "qa_result",
    "tier": "quick",
    "result": "PARTIAL",
    "checks": {"passed": 8, "failed": 2, "total": 10},
}
SUMMARY = {
    "type": "summary_aggregation",
    "plan_id": "05-01",
    "tasks_completed": 3,
    "tasks_total": 4,
    "status": "partial",
}
PROGRESS = {
    "type": "phase_progress", "phase": "05", "step": "implementation", "plans_complete": 1, "plans_total": 3,
    "percent_complete": 33.3,
}  # fmt: skip
VERDICT = {
    "type": "po_qa_verdict",
    "verdict": "approve",
    "target_dept": "",
    "re_scope_items": [],
    "scope_confidence": 0.8,
}
PATCH = {
    "type": "patch_request", "target_dept": "frontend", "failing_checks": ["login-flow"],
    "fix_instructions": "Show the error the API returns", "max_tasks": 1,
}  # fmt: skip
ESCALATION = {
    "type": "escalation",
    "from": "senior",
    "to": "lead",
    "issue": "Spec contradicts the API",
    "severity": "blocking",
}
DEV_PROGRESS = {"type": "dev_progress", "task": "05-01/T2", "plan_id": "05-01", "status": "complete"}


def line_of(message: dict[str, Any]) -> str:
    return json.dumps(message)


def only(findings: list[Any], code: str) -> list[Place]:
    return places(findings, code)


def test_messages_that_keep_every_contract_have_no_finding() -> None:
    lines = [CRITIQUE, QA, SUMMARY, PROGRESS, VERDICT, PATCH, ESCALATION, DEV_PROGRESS]
    assert check_lines(lines) == []


# --- YL101 counts-disagree ------------------------------------------------------------------


def test_yl101_reports_critique_findings_that_are_not_the_sum_of_the_severities() -> None:
    broken = {**CRITIQUE, "findings": 5}
    findings = check_lines([CRITIQUE, broken])
    assert only(findings, "YL101") == [Place("messages.jsonl", 2, column_of(line_of(broken), '"findings": '))]
    assert "findings is 5 but critical + major + minor is 1 + 2 + 1 = 4" in messages(findings, "YL101")[0]
    assert next(f.related for f in findings)[0][1:3] == (2, column_of(line_of(broken), '"critical": '))


def test_yl101_reports_more_critical_findings_than_findings() -> None:
    audit = {"type": "security_audit", "result": "FAIL", "findings": 1, "critical": 2}
    assert only(check_lines([audit]), "YL101") == [
        Place("messages.jsonl", 1, column_of(line_of(audit), '"critical": '))
    ]
    assert check_lines([{**audit, "findings": 2}]) == []


# --- YL102 qa-checks-disagree -----------------------------------------------------------------


def test_yl102_reports_a_total_that_is_not_passed_plus_failed() -> None:
    broken = {**QA, "checks": {"passed": 8, "failed": 2, "total": 11}}
    findings = check_lines([QA, broken])
    assert only(findings, "YL102") == [Place("messages.jsonl", 2, column_of(line_of(broken), '"total": '))]
    assert codes(check_lines([QA])) == []


# --- YL103 done-exceeds-total -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "key"),
    [
        ({**SUMMARY, "tasks_completed": 5}, "tasks_completed"),
        ({**PROGRESS, "plans_complete": 4, "percent_complete": 100}, "plans_complete"),
        ({"type": "department_result", "department": "backend", "phase": "05", "result": "PARTIAL",
          "plans_completed": 3, "plans_total": 2}, "plans_completed"),
    ],
)  # fmt: skip
def test_yl103_reports_more_done_than_there_is(message: dict[str, Any], key: str) -> None:
    assert only(check_lines([message]), "YL103") == [
        Place("messages.jsonl", 1, column_of(line_of(message), f'"{key}": '))
    ]


def test_yl103_accepts_everything_done() -> None:
    assert check_lines([{**SUMMARY, "tasks_completed": 4, "status": "complete"}]) == []


# --- YL104 percent-disagrees ------------------------------------------------------------------


@pytest.mark.parametrize("percent", [33, 33.3, 34, 33.34])
def test_yl104_accepts_a_percentage_rounded_either_way(percent: float) -> None:
    assert check_lines([{**PROGRESS, "percent_complete": percent}]) == []


def test_yl104_reports_a_percentage_the_plan_counts_deny() -> None:
    broken = {**PROGRESS, "percent_complete": 50}
    findings = check_lines([broken])
    assert only(findings, "YL104") == [
        Place("messages.jsonl", 1, column_of(line_of(broken), '"percent_complete": '))
    ]
    assert "1 of 3 plans is 33.33%" in messages(findings, "YL104")[0]


def test_yl104_says_nothing_of_a_phase_without_plans() -> None:
    assert check_lines([{**PROGRESS, "plans_complete": 0, "plans_total": 0, "percent_complete": 0}]) == []


# --- YL105 verdict-contradicts-counts ---------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "fragment"),
    [
        ({**QA, "result": "PASS"}, "2 check(s) failed"),
        ({**QA, "result": "FAIL", "checks": {"passed": 10, "failed": 0, "total": 10}}, "no check failed"),
        ({"type": "qa_code_result", "result": "PASS", "tests": {"passed": 9, "failed": 1}}, "1 test(s) failed"),
        ({"type": "code_review_result", "plan_id": "05-01", "result": "approve", "cycle": 1, "critical": 1,
          "findings_count": 2}, "approve with 1 critical"),
        ({"type": "department_result", "department": "uiux", "phase": "05", "result": "PASS", "plans_completed": 1,
          "plans_total": 2}, "only 1 of 2 plans"),
        ({**SUMMARY, "status": "complete"}, "only 3 of 4 tasks"),
    ],
)  # fmt: skip
def test_yl105_reports_a_verdict_its_counts_deny(message: dict[str, Any], fragment: str) -> None:
    findings = check_lines([message])
    key = "status" if message["type"] == "summary_aggregation" else "result"
    assert only(findings, "YL105") == [Place("messages.jsonl", 1, column_of(line_of(message), f'"{key}": '))]
    assert fragment in messages(findings, "YL105")[0]


def test_yl105_reports_an_owner_shipping_over_a_failed_integration_qa() -> None:
    signoff = {"type": "owner_signoff", "phase": "05", "decision": "SHIP", "integration_qa": "FAIL"}
    assert only(check_lines([signoff]), "YL105") == [
        Place("messages.jsonl", 1, column_of(line_of(signoff), '"decision": '))
    ]
    assert check_lines([{**signoff, "decision": "HOLD"}]) == []


def test_yl105_accepts_a_partial_result_with_failures_and_a_fail_with_no_check_run() -> None:
    no_check = {**QA, "result": "FAIL", "checks": {"passed": 0, "failed": 0, "total": 0}}
    assert (
        check_lines([QA, {"type": "qa_code_result", "result": "FAIL", "tests": {"failed": 1}}, no_check])
        == []
    )


# --- YL106 task-outside-plan ------------------------------------------------------------------


def test_yl106_reports_a_task_of_another_plan() -> None:
    broken = {**DEV_PROGRESS, "task": "05-02/T2"}
    findings = check_lines([DEV_PROGRESS, broken])
    assert only(findings, "YL106") == [Place("messages.jsonl", 2, column_of(line_of(broken), '"task": '))]


# --- YL111 po-verdict-fields ------------------------------------------------------------------


def test_yl111_reports_a_department_named_outside_a_patch() -> None:
    broken = {**VERDICT, "target_dept": "backend"}
    findings = check_lines([broken])
    assert only(findings, "YL111") == [
        Place("messages.jsonl", 1, column_of(line_of(broken), '"target_dept": '))
    ]


def test_yl111_reports_a_patch_without_a_department_and_a_major_without_items() -> None:
    patch = {**VERDICT, "verdict": "patch"}
    major = {**VERDICT, "verdict": "major"}
    findings = check_lines([patch, major])
    assert only(findings, "YL111") == [
        Place("messages.jsonl", 1, column_of(line_of(patch), '"target_dept": ')),
        Place("messages.jsonl", 2, column_of(line_of(major), '"re_scope_items": ')),
    ]


def test_yl111_reports_re_scope_items_outside_a_major_and_a_failed_check_under_approve() -> None:
    broken = {**VERDICT, "re_scope_items": ["SSO"], "findings": [{"check": "sso", "result": "fail"}]}
    findings = check_lines([broken])
    assert only(findings, "YL111") == [
        Place("messages.jsonl", 1, column_of(line_of(broken), '"re_scope_items": ')),
        Place("messages.jsonl", 1, column_of(line_of(broken), '"result": ')),
    ]


def test_yl111_accepts_each_verdict_with_its_own_field() -> None:
    patch = {**VERDICT, "verdict": "patch", "target_dept": "backend"}
    major = {**VERDICT, "verdict": "major", "re_scope_items": ["SSO"]}
    assert check_lines([VERDICT, patch, major]) == []


def test_scope_confidence_outside_0_to_1_is_a_schema_error() -> None:
    broken = {**VERDICT, "scope_confidence": 1.2}
    assert only(check_lines([broken]), "HS001") == [
        Place("messages.jsonl", 1, column_of(line_of(broken), '"scope_confidence": '))
    ]


# --- YL112 patch-over-cap ---------------------------------------------------------------------


def test_yl112_reports_a_patch_of_more_than_two_tasks() -> None:
    broken = {**PATCH, "max_tasks": 3}
    findings = check_lines([{**PATCH, "max_tasks": 2}, broken])
    assert only(findings, "YL112") == [
        Place("messages.jsonl", 2, column_of(line_of(broken), '"max_tasks": '))
    ]


# --- YL113 escalation-not-upward --------------------------------------------------------------


@pytest.mark.parametrize(("sender", "receiver"), [("lead", "senior"), ("senior", "senior")])
def test_yl113_reports_an_escalation_sent_down_or_sideways(sender: str, receiver: str) -> None:
    broken = {**ESCALATION, "from": sender, "to": receiver}
    assert only(check_lines([broken]), "YL113") == [
        Place("messages.jsonl", 1, column_of(line_of(broken), '"to": '))
    ]


def test_yl113_accepts_an_escalation_that_skips_a_level_upward() -> None:
    assert check_lines([{**ESCALATION, "from": "dev", "to": "architect"}]) == []


# --- YL301 folder-mismatch (files on disk: the folder is the point) ---------------------------


def test_yl301_reports_a_plan_header_of_another_phase(tmp_path: Path) -> None:
    header = {"p": "04", "n": "02", "t": "Timeouts", "w": 1}
    write(tmp_path, f"{PHASE}/05-02.plan.jsonl", [header, {"id": "T1", "a": "Add the timeout"}])
    findings = check_folder(tmp_path)
    assert only(findings, "YL301") == [Place("05-02.plan.jsonl", 1, column_of(line_of(header), '"p": '))]


def test_yl301_reports_a_plan_number_that_is_not_the_file_name(tmp_path: Path) -> None:
    header = {"p": "05", "n": "03", "t": "Timeouts"}
    write(tmp_path, f"{PHASE}/05-02.summary.jsonl", [header])
    assert only(check_folder(tmp_path), "YL301") == [
        Place("05-02.summary.jsonl", 1, column_of(line_of(header), '"n": '))
    ]


def test_yl301_reports_a_file_named_for_another_phase(tmp_path: Path) -> None:
    write(tmp_path, f"{PHASE}/04-01.plan.jsonl", [{"p": "04", "n": "01"}])
    findings = check_folder(tmp_path)
    assert only(findings, "YL301") == [Place("04-01.plan.jsonl", 1, 1)]
    assert "named for phase 04 but sits in phase folder 05-escalation" in messages(findings, "YL301")[0]


def test_yl301_reports_messages_and_artifacts_of_another_phase(tmp_path: Path) -> None:
    critique = {**CRITIQUE, "phase": "4"}
    review = {"r": "approve", "plans": ["05-01", "04-02"]}
    progress = {**DEV_PROGRESS, "task": "06-01/T2", "plan_id": "06-01"}
    write(tmp_path, f"{PHASE}/messages.jsonl", [critique, progress])
    write(tmp_path, f"{PHASE}/code-review.jsonl", [review])
    findings = check_folder(tmp_path)
    assert only(findings, "YL301") == [
        Place("code-review.jsonl", 1, column_of(line_of(review), '"05-01", ')),
        Place("messages.jsonl", 1, column_of(line_of(critique), '"phase": ')),
        Place("messages.jsonl", 2, column_of(line_of(progress), '"plan_id": ')),
    ]


def test_yl301_takes_5_and_05_for_the_same_phase(tmp_path: Path) -> None:
    write(tmp_path, f"{PHASE}/messages.jsonl", [{**CRITIQUE, "phase": 5}, {**SUMMARY, "plan_id": "5-01"}])
    assert check_folder(tmp_path) == []


def test_a_plan_header_numbers_its_phase_with_two_digits_as_the_format_says(tmp_path: Path) -> None:
    write(tmp_path, f"{PHASE}/05-01.plan.jsonl", [{"p": 5, "n": "1"}])
    pointers = {f.pointer for f in check_folder(tmp_path) if f.code == "HS001"}
    assert {"/p", "/n"} <= pointers


def test_yl301_checks_a_plan_file_outside_a_phase_folder_against_its_name(tmp_path: Path) -> None:
    header = {"p": "05", "n": "07"}
    write(tmp_path, ".yolo-planning/05-01.plan.jsonl", [header])
    findings = check_folder(tmp_path, ".yolo-planning")
    assert only(findings, "YL301") == [Place("05-01.plan.jsonl", 1, column_of(line_of(header), '"n": '))]


# --- YL302 unknown-escalation ------------------------------------------------------------------

RESOLUTION = {
    "type": "escalation_resolution", "original_escalation": "ESC-05-01-T2", "decision": "Keep the API",
    "rationale": "Clients depend on it", "resolved_by": "architect",
}  # fmt: skip
STATE = {"status": "running", "escalations": [{"id": "ESC-05-01-T2", "status": "pending", "level": "lead"}]}


def test_yl302_reports_a_resolution_of_an_escalation_the_phase_state_lacks(tmp_path: Path) -> None:
    write(tmp_path, f"{PHASE}/.execution-state.json", STATE)
    broken = {**RESOLUTION, "original_escalation": "ESC-05-01-T3"}
    write(tmp_path, f"{PHASE}/messages.jsonl", [RESOLUTION, broken])
    findings = check_folder(tmp_path)
    assert only(findings, "YL302") == [
        Place("messages.jsonl", 2, column_of(line_of(broken), '"original_escalation": '))
    ]
    assert "did you mean 'ESC-05-01-T2'?" in messages(findings, "YL302")[0]


def test_yl302_reads_the_state_of_yolo_planning_and_the_escalation_log(tmp_path: Path) -> None:
    write(tmp_path, ".yolo-planning/.execution-state.json", {"status": "running", "escalations": []})
    write(tmp_path, f"{PHASE}/escalation.jsonl", [{"id": "ESC-05-01-T2", "st": "open", "tgt": "lead"}])
    warning = {
        "type": "escalation_timeout_warning", "original_escalation": "ESC-05-02-T1", "elapsed_seconds": 320,
        "current_level": "lead",
    }  # fmt: skip
    write(tmp_path, f"{PHASE}/messages.jsonl", [RESOLUTION, warning])
    findings = check_folder(tmp_path)
    assert only(findings, "YL302") == [
        Place("messages.jsonl", 2, column_of(line_of(warning), '"original_escalation": '))
    ]
    assert ".yolo-planning/.execution-state.json" in messages(findings, "YL302")[0]


def test_yl302_says_nothing_without_an_escalation_record(tmp_path: Path) -> None:
    write(tmp_path, f"{PHASE}/messages.jsonl", [{**RESOLUTION, "original_escalation": "ESC-09-09-T9"}])
    assert check_folder(tmp_path) == []


def test_yl302_says_nothing_when_the_state_file_is_broken(tmp_path: Path) -> None:
    write(tmp_path, f"{PHASE}/.execution-state.json", '{"status": "running",}')
    write(tmp_path, f"{PHASE}/messages.jsonl", [RESOLUTION])
    assert codes(check_folder(tmp_path)) == ["HF002"]


# --- YL303 gate-passes-blocked-handoff ---------------------------------------------------------

BLOCKED = {
    "type": "dept_handoff",
    "from_dept": "uiux",
    "to_dept": "frontend",
    "blockers": ["icons not exported"],
}
GATE = {"r": "PASS", "checks": {"api": "pass", "handoffs": "pass"}, "failures": [], "dt": "2026-05-12"}


def test_yl303_reports_a_passing_gate_over_a_blocked_handoff(tmp_path: Path) -> None:
    write(tmp_path, f"{PHASE}/dept-handoff.jsonl", [BLOCKED])
    write(tmp_path, f"{PHASE}/integration-gate-result.jsonl", [{**GATE, "r": "FAIL"}, GATE])
    findings = check_folder(tmp_path)
    assert only(findings, "YL303") == [
        Place("integration-gate-result.jsonl", 2, column_of(line_of(GATE), '"r": '))
    ]
    assert findings[0].related[0][:3] == (
        f"{PHASE}/dept-handoff.jsonl",
        1,
        column_of(line_of(BLOCKED), '"blockers": '),
    )


def test_yl303_reports_an_owner_signoff_that_says_integration_passed(tmp_path: Path) -> None:
    signoff = {"type": "owner_signoff", "phase": "05", "decision": "HOLD", "integration_qa": "PASS"}
    write(tmp_path, f"{PHASE}/dept-handoff.jsonl", [BLOCKED])
    write(tmp_path, f"{PHASE}/messages.jsonl", [signoff])
    assert only(check_folder(tmp_path), "YL303") == [
        Place("messages.jsonl", 1, column_of(line_of(signoff), '"integration_qa": '))
    ]


def test_yl303_takes_the_latest_handoff_of_a_department_pair(tmp_path: Path) -> None:
    write(tmp_path, f"{PHASE}/dept-handoff.jsonl", [BLOCKED, {**BLOCKED, "blockers": []}])
    write(tmp_path, f"{PHASE}/integration-gate-result.jsonl", [GATE])
    assert check_folder(tmp_path) == []


def test_yl303_accepts_a_failing_gate_over_a_blocked_handoff(tmp_path: Path) -> None:
    write(tmp_path, f"{PHASE}/dept-handoff.jsonl", [BLOCKED])
    write(
        tmp_path,
        f"{PHASE}/integration-gate-result.jsonl",
        [{**GATE, "r": "FAIL", "checks": {"handoffs": "fail"}}],
    )
    assert check_folder(tmp_path) == []
