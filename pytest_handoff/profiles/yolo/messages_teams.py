"""YOLO's flat messages between teammates and departments: health, tasks, progress, shutdown, hand-overs, the PO's verdicts."""

from __future__ import annotations

from pytest_handoff.profiles.yolo.fields import (
    DEPARTMENT,
    PHASE,
    PLAN_ID,
    O,
    R,
    Schema,
    count,
    flag,
    list_of,
    one_of,
    record,
    strings,
    text,
    when,
)

#: type -> (what it is, fields as name -> (schema, required)).
TEAM_MESSAGES: dict[str, tuple[str, dict[str, tuple[Schema, bool]]]] = {
    "agent_health_event": (
        "Lead's own record of a teammate's health.",
        {
            "agent_id": (text("The agent.", empty=False), R),
            "dept": (DEPARTMENT, O),
            "state": (one_of("New state.", "start", "idle", "stop", "disappeared"), R),
            "timestamp": (when("When."), O),
            "prev_state": (one_of("Previous state.", "start", "idle", "stop", "disappeared"), O),
            "timeout_triggered": (flag("Whether a timeout caused it."), O),
        },
    ),
    "circuit_breaker_state": (
        "Lead's own record of a department's circuit breaker.",
        {
            "dept": (DEPARTMENT, R),
            "state": (one_of("Breaker state.", "closed", "open", "half-open"), R),
            "opened_at": (when("When it opened.", null=True), O),
            "failure_count": (count("Failures counted."), O),
            "last_probe_at": (when("Last probe.", null=True), O),
        },
    ),
    "task_claim": (
        "Dev to Lead: a task claimed, with its files.",
        {
            "task_id": (text('Task ("T3").', empty=False), R),
            "plan_id": (PLAN_ID, R),
            "files": (strings("Files the task will touch."), R),
            "claimed_at": (when("When."), O),
        },
    ),
    "task_complete": (
        "Dev to Lead: a task committed.",
        {
            "task_id": (text('Task ("T3").', empty=False), R),
            "plan_id": (PLAN_ID, R),
            "commit": (text("Commit.", empty=False), R),
            "files_modified": (strings("Files changed."), O),
            "status": (one_of("Always complete.", "complete"), R),
            "deviations": (strings("Deviations from the spec."), O),
        },
    ),
    "summary_aggregation": (
        "Lead's own summary of a plan from its task_complete messages.",
        {
            "plan_id": (PLAN_ID, R),
            "tasks_completed": (count("Tasks done."), R),
            "tasks_total": (count("Tasks in the plan."), R),
            "commit_hashes": (strings("Commits."), O),
            "files_modified": (strings("Files changed."), O),
            "deviations": (strings("Deviations."), O),
            "status": (one_of("Plan status.", "complete", "partial", "failed"), O),
        },
    ),
    "phase_progress": (
        "Lead to the orchestrator: progress within a phase.",
        {
            "department": (DEPARTMENT, O),
            "phase": (PHASE, R),
            "step": (text("Workflow step.", empty=False), R),
            "plans_complete": (count("Plans done."), R),
            "plans_total": (count("Plans in the phase."), R),
            "percent_complete": (
                {"description": "Percent done.", "type": "number", "minimum": 0, "maximum": 100},
                R,
            ),
            "blockers": (strings("Open blockers."), O),
            "eta": (text("Expected end."), O),
        },
    ),
    "shutdown_request": (
        "Lead to teammates: shut down.",
        {
            "reason": (one_of("Why.", "phase_complete", "timeout", "error"), R),
            "deadline_seconds": (count("Seconds given."), O),
        },
    ),
    "shutdown_response": (
        "Teammate to Lead: the answer to a shutdown request.",
        {
            "status": (one_of("State at shutdown.", "clean", "in_progress", "error"), R),
            "pending_work": (strings("Work left."), O),
            "artifacts_committed": (flag("Whether everything is committed."), O),
        },
    ),
    "design_handoff": (
        "UX Lead to Frontend and Backend Leads: design artifacts ready.",
        {
            "phase": (PHASE, R),
            "department": (DEPARTMENT, O),
            "artifacts": (
                record(
                    {
                        "design_tokens": (text("Design tokens file."), O),
                        "component_specs": (text("Component specs file."), O),
                        "user_flows": (text("User flows file."), O),
                    },
                    "Artifact files.",
                ),
                R,
            ),
            "ready_components": (strings("Components ready."), O),
            "deferred": (strings("Components deferred."), O),
            "acceptance_criteria": (strings("Acceptance criteria."), O),
            "status": (text("Status.", empty=False), R),
        },
    ),
    "api_contract": (
        "Frontend and Backend Leads: an API contract under negotiation.",
        {
            "direction": (one_of("Who proposes.", "frontend_to_backend", "backend_to_frontend"), R),
            "endpoints": (
                list_of(
                    "Endpoints.",
                    record(
                        {
                            "method": (text("HTTP method.", empty=False), R),
                            "path": (text("Path.", empty=False), R),
                            "request": ({"description": "Request shape."}, O),
                            "response": ({"description": "Response shape."}, O),
                        }
                    ),
                ),
                R,
            ),
            "status": (one_of("Where the negotiation stands.", "proposed", "agreed", "implemented"), R),
        },
    ),
    "department_result": (
        "Department Lead to Owner: the department's result for a phase.",
        {
            "department": (DEPARTMENT, R),
            "phase": (PHASE, R),
            "result": (one_of("The verdict.", "PASS", "PARTIAL", "FAIL"), R),
            "plans_completed": (count("Plans done."), O),
            "plans_total": (count("Plans in the phase."), O),
            "qa_result": (text("QA verdict."), O),
            "security_result": (text("Security verdict."), O),
            "tdd_coverage": (text("TDD coverage."), O),
        },
    ),
    "owner_review": (
        "Owner to Leads: departments, order and priorities after the critique.",
        {
            "phase": (PHASE, R),
            "departments_needed": (list_of("Departments needed.", DEPARTMENT), R),
            "dispatch_order": (list_of("Order to dispatch them.", DEPARTMENT), O),
            "priorities": (strings("Priorities."), O),
            "risks": (strings("Risks."), O),
        },
    ),
    "owner_signoff": (
        "Owner to Leads: ship or hold the phase.",
        {
            "phase": (PHASE, R),
            "decision": (one_of("The decision.", "SHIP", "HOLD"), R),
            "departments_approved": (list_of("Departments approved.", DEPARTMENT), O),
            "integration_qa": (text("Integration QA verdict."), O),
            "notes": (text("Notes."), O),
        },
    ),
    "po_qa_verdict": (
        "PO to the orchestrator: the verdict after checking results against scope.",
        {
            "verdict": (
                one_of(
                    "approve (all pass), patch (minor gaps), major (re-scope).", "approve", "patch", "major"
                ),
                R,
            ),
            "findings": (
                list_of(
                    "Checks looked at.",
                    record(
                        {
                            "check": (text("The check.", empty=False), R),
                            "result": (text("Its result."), O),
                            "dept": (text("Department concerned."), O),
                            "detail": (text("Detail."), O),
                        }
                    ),
                ),
                O,
            ),
            "target_dept": (text("Department to fix a patch; empty unless the verdict is patch."), R),
            "re_scope_items": (strings("Items to re-scope; empty unless the verdict is major."), R),
            "scope_confidence": (
                {
                    "description": "Confidence in scope coverage, 0 to 1.",
                    "type": "number",
                    "minimum": 0,
                    "maximum": 1,
                },
                R,
            ),
        },
    ),
    "patch_request": (
        "PO to a department's Senior: a targeted fix (at most 2 tasks).",
        {
            "target_dept": (text("Department to fix.", empty=False), R),
            "failing_checks": (strings("Integration checks that failed.", at_least=1), R),
            "fix_instructions": (text("What to fix.", empty=False), R),
            "scope_ref": (text("Scope section concerned."), O),
            "max_tasks": (
                {"description": "Tasks allowed (YOLO caps a patch at 2).", "type": "integer", "minimum": 1},
                R,
            ),
        },
    ),
    "major_rejection": (
        "PO to the questionary: re-scope.",
        {
            "re_scope_items": (strings("Items to re-define.", at_least=1), R),
            "affected_depts": (list_of("Departments that run again.", DEPARTMENT), R),
            "rationale": (text("Why.", empty=False), R),
            "original_scope_ref": (text("Scope sections concerned."), O),
        },
    ),
    "feedback_response": (
        "User to PO: feedback on a delivery.",
        {
            "response": (one_of("The answer.", "approve", "request_changes", "reject"), R),
            "comments": (text("Comments."), O),
            "change_requests": (strings("Changes asked for."), O),
            "scope_ref": (text("Scope version."), O),
        },
    ),
    "phase_handoff": (
        "Orchestrator, at a phase's end (phase-handoff.jsonl): what the next phase inherits.",
        {
            "from_phase": (PHASE, R),
            "to_phase": (PHASE, R),
            "dt": (when("When."), O),
            "decisions": (strings("Decisions carried forward."), O),
            "open_items": (strings("Items left open."), O),
            "artifacts": (strings("Artifacts produced."), O),
            "research_refs": (strings("Research archive references."), O),
            "escalations_resolved": (count("Escalations resolved."), O),
            "escalations_pending": (count("Escalations pending."), O),
        },
    ),
    "dept_handoff": (
        "Department Lead to another (dept-handoff.jsonl): artifacts and contracts handed over.",
        {
            "from_dept": (DEPARTMENT, R),
            "to_dept": (DEPARTMENT, R),
            "dt": (when("When."), O),
            "artifacts": (strings("Artifacts shared."), O),
            "contracts": (
                list_of(
                    "Contracts the receiver must satisfy.",
                    record(
                        {"name": (text("Name.", empty=False), R), "spec": (text("Where it is specified."), R)}
                    ),
                ),
                O,
            ),
            "blockers": (strings("Unresolved blockers: any fails the integration gate."), R),
            "notes": (text("Notes."), O),
        },
    ),
}
