"""YOLO's flat messages about a phase's work: critique, design, development, review, QA, research, escalation."""

from __future__ import annotations

from pytest_handoff.profiles.yolo.fields import (
    ARTIFACT,
    COMMITTED,
    ESCALATION_ID,
    LEVELS,
    PHASE,
    PLAN_ID,
    TASK_REF,
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
WORK_MESSAGES: dict[str, tuple[str, dict[str, tuple[Schema, bool]]]] = {
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
}
