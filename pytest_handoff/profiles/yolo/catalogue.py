"""YOLO's message catalogue as one table, from which ``schemas/yolo/*.schema.json`` are written.

The shipped schema files are generated from this table (``python -m
pytest_handoff.profiles.yolo.catalogue schemas/yolo``) and a test keeps them equal to it, so
the table is the one place a field, its type or its enum is decided. The engine reads the
files, never this module: it is imported by the profile only for :data:`FLAT_TYPES` (names).

Which fields are required is our reading of YOLO's examples: the fields a receiver cannot do
without (counts, verdicts, ids); lists and artifact paths may be left out.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

Schema = dict[str, Any]

# --- field shapes ----------------------------------------------------------------------------

DEPARTMENTS = ("backend", "frontend", "uiux")
LEVELS = ("high", "medium", "low")


def text(description: str, *, empty: bool = True) -> Schema:
    schema: Schema = {"description": description, "type": "string"}
    if not empty:
        schema["minLength"] = 1
    return schema


def count(description: str) -> Schema:
    return {"description": description, "type": "integer", "minimum": 0}


def flag(description: str) -> Schema:
    return {"description": description, "type": "boolean"}


def one_of(description: str, *values: str) -> Schema:
    schema: Schema = {"description": description} if description else {}
    schema.update({"type": "string", "enum": list(values)})
    return schema


def strings(description: str, *, at_least: int = 0) -> Schema:
    schema: Schema = {"description": description, "type": "array", "items": {"type": "string"}}
    if at_least:
        schema["minItems"] = at_least
    return schema


def list_of(description: str, item: Schema, *, at_least: int = 0) -> Schema:
    schema: Schema = {"description": description, "type": "array", "items": item}
    if at_least:
        schema["minItems"] = at_least
    return schema


def record(fields: dict[str, tuple[Schema, bool]], description: str = "") -> Schema:
    """An object with exactly ``fields`` (name -> (schema, required))."""
    schema: Schema = {"description": description} if description else {}
    schema.update(
        {
            "type": "object",
            "additionalProperties": False,
            "required": [name for name, (_, required) in fields.items() if required],
            "properties": {name: field for name, (field, _) in fields.items()},
        }
    )
    if not schema["required"]:
        del schema["required"]
    return schema


def when(description: str, *, null: bool = False) -> Schema:
    schema: Schema = {"description": description, "type": ["string", "null"] if null else "string"}
    schema["format"] = "date-time"
    return schema


PHASE = {
    "description": 'Phase number, as in the phase folder\'s name ("03").',
    "type": ["string", "integer"],
    "pattern": "^[0-9]+$",
    "minimum": 0,
}
PLAN_ID = {
    "description": 'Plan id: phase and plan number ("03-01").',
    "type": "string",
    "pattern": "^[0-9]+-[0-9]+$",
}
TASK_REF = text('Task reference, plan and task ("03-01/T2").', empty=False)
ARTIFACT = text("Path of the artifact the message summarises, below .yolo-planning/.")
COMMITTED = flag("Whether the artifact has been committed.")
DEPARTMENT = one_of("A department.", *DEPARTMENTS)
ESCALATION_ID = {
    "description": 'Id of the escalation entry in .execution-state.json ("ESC-03-01-T2").',
    "type": "string",
    "minLength": 1,
}

R = True  # required
O = False  # optional  # noqa: E741

#: Flat messages (no envelope): type -> (what it is, fields as name -> (schema, required)).
FLAT: dict[str, tuple[str, dict[str, tuple[Schema, bool]]]] = {
    "critique_result": (
        "Critic to Lead: counts of the findings of a phase's critique.",
        {
            "phase": (PHASE, R),
            "findings": (count("All findings: critical + major + minor."), R),
            "critical": (count("Critical findings."), R),
            "major": (count("Major findings."), R),
            "minor": (count("Minor findings."), R),
            "categories": (
                list_of(
                    "Categories found.", one_of("", "gap", "risk", "improvement", "question", "alternative")
                ),
                O,
            ),
            "artifact": (ARTIFACT, O),
            "committed": (COMMITTED, O),
        },
    ),
    "test_plan_result": (
        "Tester to Senior: the tests written in the red phase of a plan.",
        {
            "plan_id": (PLAN_ID, R),
            "tasks_tested": (count("Tasks that got tests."), R),
            "tasks_skipped": (count("Tasks left without tests."), O),
            "total_tests": (count("Test cases written."), R),
            "all_red": (flag("Whether every new test fails before the implementation."), O),
            "artifact": (ARTIFACT, O),
            "committed": (COMMITTED, O),
        },
    ),
    "architecture_design": (
        "Architect to Lead: the design decisions and risks of a phase.",
        {
            "phase": (PHASE, R),
            "artifact": (ARTIFACT, R),
            "decisions": (
                list_of(
                    "Decisions taken.",
                    record(
                        {
                            "decision": (text("What was decided.", empty=False), R),
                            "rationale": (text("Why."), R),
                            "alternatives": (strings("Options turned down."), O),
                        }
                    ),
                ),
                O,
            ),
            "risks": (
                list_of(
                    "Risks seen.",
                    record(
                        {
                            "risk": (text("The risk.", empty=False), R),
                            "impact": (text("How bad it would be."), O),
                            "mitigation": (text("What limits it."), O),
                        }
                    ),
                ),
                O,
            ),
            "committed": (COMMITTED, O),
        },
    ),
    "senior_spec": (
        "Senior to Lead: the plan's tasks now carry specs.",
        {
            "plan_id": (PLAN_ID, R),
            "tasks_enriched": (count("Tasks given a spec."), R),
            "concerns": (strings("Concerns for the Lead."), O),
            "committed": (COMMITTED, O),
        },
    ),
    "dev_progress": (
        "Dev to Senior: a task's status.",
        {
            "task": (TASK_REF, R),
            "plan_id": (PLAN_ID, R),
            "commit": (text("Commit of the task's work."), O),
            "status": (one_of("How far the task got.", "complete", "partial", "failed"), R),
            "concerns": (strings("Concerns for the Senior."), O),
        },
    ),
    "dev_blocker": (
        "Dev to Senior: a task cannot go on.",
        {
            "task": (TASK_REF, R),
            "plan_id": (PLAN_ID, R),
            "blocker": (text("What blocks the task.", empty=False), R),
            "needs": (text("What would unblock it.", empty=False), R),
            "attempted": (strings("What was tried."), O),
        },
    ),
    "code_review_changes": (
        "Senior to Dev: the exact changes a code review asks for.",
        {
            "plan_id": (PLAN_ID, R),
            "cycle": ({"description": "Review cycle, from 1.", "type": "integer", "minimum": 1}, R),
            "changes": (
                list_of(
                    "Changes to make.",
                    record(
                        {
                            "f": (text("File.", empty=False), R),
                            "ln": (count("Line."), O),
                            "issue": (text("What is wrong.", empty=False), R),
                            "fix": (text("What to do.", empty=False), R),
                        }
                    ),
                ),
                R,
            ),
            "must_fix": (strings("Places that must change (file:line)."), O),
            "rerun_tests": (flag("Whether the tests must run again."), O),
        },
    ),
    "code_review_result": (
        "Senior to Lead: the verdict of a code review.",
        {
            "plan_id": (PLAN_ID, R),
            "result": (one_of("The verdict.", "approve", "changes_requested"), R),
            "cycle": ({"description": "Review cycle, from 1.", "type": "integer", "minimum": 1}, R),
            "findings_count": (count("Findings of the review."), O),
            "critical": (count("Critical findings."), O),
            "artifact": (ARTIFACT, O),
            "committed": (COMMITTED, O),
        },
    ),
    "qa_result": (
        "QA Lead to Lead: the plan-level verification.",
        {
            "tier": (one_of("How deep QA went.", "quick", "standard", "deep"), R),
            "result": (one_of("The verdict.", "PASS", "FAIL", "PARTIAL"), R),
            "checks": (
                record(
                    {
                        "passed": (count("Checks passed."), R),
                        "failed": (count("Checks failed."), R),
                        "total": (count("All checks: passed + failed."), R),
                    },
                    "Check counts.",
                ),
                R,
            ),
            "failures": (
                list_of(
                    "The failed checks.",
                    record(
                        {
                            "check": (text("The check.", empty=False), R),
                            "expected": (text("What was expected."), O),
                            "actual": (text("What was found."), O),
                            "evidence": (text("How it was found."), O),
                        }
                    ),
                ),
                O,
            ),
            "artifact": (ARTIFACT, O),
            "committed": (COMMITTED, O),
        },
    ),
    "qa_code_result": (
        "QA (code mode) to Lead: tests, lint and findings of the code.",
        {
            "result": (one_of("The verdict.", "PASS", "FAIL", "PARTIAL"), R),
            "tests": (
                record(
                    {
                        "passed": (count("Tests passed."), O),
                        "failed": (count("Tests failed."), O),
                        "skipped": (count("Tests skipped."), O),
                    },
                    "Test counts.",
                ),
                O,
            ),
            "lint": (
                record({"errors": (count("Lint errors."), O), "warnings": (count("Lint warnings."), O)}),
                O,
            ),
            "findings_count": (count("Findings."), O),
            "critical": (count("Critical findings."), O),
            "artifact": (ARTIFACT, O),
            "committed": (COMMITTED, O),
        },
    ),
    "security_audit": (
        "Security to Lead: the audit's verdict and counts.",
        {
            "result": (one_of("The verdict.", "PASS", "FAIL", "WARN"), R),
            "findings": (count("Findings."), R),
            "critical": (count("Critical findings."), R),
            "categories": (
                list_of("Categories audited.", one_of("", "secrets", "owasp", "deps", "config")),
                O,
            ),
            "artifact": (ARTIFACT, O),
            "committed": (COMMITTED, O),
        },
    ),
    "scout_findings": (
        "Scout to Lead: research findings on one domain.",
        {
            "domain": (one_of("The domain.", "tech-stack", "architecture", "quality", "concerns"), R),
            "findings": (
                list_of(
                    "What was found.",
                    record(
                        {
                            "query": (text("The question.", empty=False), R),
                            "finding": (text("The answer.", empty=False), R),
                            "confidence": (one_of("How sure.", *LEVELS), O),
                        }
                    ),
                ),
                R,
            ),
            "artifact": (ARTIFACT, O),
            "committed": (COMMITTED, O),
        },
    ),
    "research_request": (
        "Any agent to the orchestrator: research needed.",
        {
            "from": (text("Role asking.", empty=False), R),
            "task": (TASK_REF, O),
            "plan_id": (PLAN_ID, O),
            "query": (text("The question.", empty=False), R),
            "context": (text("Why it is needed."), O),
            "request_type": (one_of("Whether the asker waits.", "blocking", "informational"), R),
            "priority": (one_of("Priority.", *LEVELS), O),
        },
    ),
    "research_response": (
        "Orchestrator to the asker: the research found.",
        {
            "request_from": (text("Role that asked.", empty=False), R),
            "query": (text("The question, as asked.", empty=False), R),
            "findings": (
                list_of(
                    "What was found.",
                    record(
                        {
                            "q": (text("Question."), O),
                            "src": (text("Source."), O),
                            "finding": (text("Answer.", empty=False), R),
                            "conf": (one_of("How sure.", *LEVELS), O),
                        }
                    ),
                ),
                R,
            ),
            "request_type": (one_of("Echoed from the request.", "blocking", "informational"), O),
            "resolved_at": (when("When the answer was produced."), O),
        },
    ),
    "debugger_report": (
        "Debugger to Lead: a hypothesis and its evidence.",
        {
            "hypothesis": (text("The suspected cause.", empty=False), R),
            "evidence_for": (strings("Evidence for it."), R),
            "evidence_against": (strings("Evidence against it."), R),
            "confidence": (one_of("How sure.", *LEVELS), R),
            "recommended_fix": (text("The fix proposed.", empty=False), R),
            "artifact": (ARTIFACT, O),
        },
    ),
    "escalation": (
        "An agent to the level above: an issue beyond its authority.",
        {
            "from": (one_of("Who escalates.", "dev", "senior", "lead"), R),
            "to": (one_of("Who receives it.", "senior", "lead", "architect"), R),
            "issue": (text("The issue.", empty=False), R),
            "evidence": (strings("Evidence."), O),
            "recommendation": (text("What the sender recommends."), O),
            "severity": (one_of("How much it blocks.", "blocking", "major", "minor"), R),
        },
    ),
    "escalation_resolution": (
        "The resolver, down the chain: the decision on an escalation.",
        {
            "original_escalation": (ESCALATION_ID, R),
            "decision": (text("What was decided.", empty=False), R),
            "rationale": (text("Why.", empty=False), R),
            "action_items": (strings("Instructions that follow."), O),
            "resolved_by": (one_of("Who decided.", "user", "owner", "architect", "lead"), R),
        },
    ),
    "escalation_timeout_warning": (
        "Lead to Architect or Owner: an escalation has waited too long.",
        {
            "original_escalation": (ESCALATION_ID, R),
            "elapsed_seconds": ({"description": "Seconds waited.", "type": "number", "minimum": 0}, R),
            "current_level": (one_of("Where it is stuck.", "senior", "lead", "architect"), R),
            "agent_blocked": (text("Who waits."), O),
            "recommended_action": (text("What to do next."), O),
        },
    ),
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

#: The envelope of YOLO's v2 typed protocol; its payload is checked against the project's
#: ``config/schemas/message-schemas.json`` by rules, not here.
ENVELOPE_FIELDS = (
    "id",
    "type",
    "phase",
    "task",
    "author_role",
    "timestamp",
    "schema_version",
    "payload",
    "confidence",
)


def flat_schema(name: str) -> Schema:
    """The JSON Schema of flat message ``name``."""
    summary, fields = FLAT[name]
    body = record({"type": ({"description": "The message type.", "const": name}, R), **fields})
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": f"https://pytest-handoff.dev/schemas/yolo/{name}.schema.json",
        "title": f"YOLO {name} message",
        "description": summary,
        **body,
    }


def envelope_schema() -> Schema:
    """The JSON Schema of a v2 envelope (any type)."""
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "https://pytest-handoff.dev/schemas/yolo/v2_envelope.schema.json",
        "title": "YOLO v2 message envelope",
        "description": "A typed message of YOLO's v2 protocol: the envelope; its payload keys come from the "
        "project's message-schemas.json.",
        "type": "object",
        "required": list(ENVELOPE_FIELDS),
        "properties": {
            "id": text("Message id.", empty=False),
            "type": {
                "description": "Message type, a key of message-schemas.json's schemas.",
                "type": "string",
                "pattern": "^[a-z][a-z0-9_]*$",
            },
            "phase": PHASE,
            "task": text("Task reference."),
            "author_role": text("Role that wrote the message.", empty=False),
            "target_role": text("Role the message is for (optional).", empty=False),
            "timestamp": when("When the message was written."),
            "schema_version": {
                "description": "Protocol version: 2.x.",
                "type": "string",
                "pattern": "^2(\\.[0-9]+)*$",
            },
            "payload": {"description": "The type's own fields.", "type": "object"},
            "confidence": one_of("How sure the author is.", *LEVELS),
        },
    }


def all_schemas() -> dict[str, Schema]:
    """File stem -> schema, for every shipped YOLO schema."""
    schemas = {name: flat_schema(name) for name in FLAT}
    schemas["v2_envelope"] = envelope_schema()
    return schemas


def render(schema: Schema) -> str:
    """A schema as the shipped file holds it."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def write_schemas(folder: Path) -> list[Path]:
    """Write every schema into ``folder`` (``schemas/yolo``); returns the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, schema in all_schemas().items():
        path = folder / f"{stem}.schema.json"
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover - a maintainer's command
    for written_path in write_schemas(Path(sys.argv[1] if len(sys.argv) > 1 else "schemas/yolo")):
        print(written_path)
