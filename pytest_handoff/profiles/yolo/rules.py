"""The YOLO profile's rule table (codes YL)."""

from __future__ import annotations

from pytest_handoff.profiles.yolo import artifacts, counts, envelope, markdown, places, routing, verdicts
from pytest_handoff.profiles.yolo.format import NAME
from pytest_handoff.rules.rows import listed
from pytest_handoff.values.findings import Severity
from pytest_handoff.values.rules import Rule

WARNING = Severity.WARNING

RULES: tuple[Rule, ...] = (
    # One flat message: counts and verdicts.
    listed(
        "YL101", "counts-disagree", counts.check_counts_add_up, profile=NAME,
        handoff_types=("critique_result", "security_audit", "code_review_result", "qa_code_result"),
        modes=('FM-3.3',),
    ),
    listed("YL102", "qa-checks-disagree", counts.check_qa_checks_add_up, profile=NAME, handoff_types=("qa_result",), modes=('FM-3.3',)),
    listed(
        "YL103", "done-exceeds-total", counts.check_done_within_total, profile=NAME,
        handoff_types=("summary_aggregation", "phase_progress", "department_result"),
    ),
    listed("YL104", "percent-disagrees", counts.check_percent_agrees, profile=NAME, handoff_types=("phase_progress",)),
    listed(
        "YL105", "verdict-contradicts-counts", counts.check_verdict_agrees, profile=NAME,
        handoff_types=(
            "qa_result", "qa_code_result", "security_audit", "code_review_result", "department_result",
            "summary_aggregation", "owner_signoff",
        ),
        modes=('FM-2.6', 'FM-3.1', 'FM-3.3'),
    ),
    listed(
        "YL106", "task-outside-plan", counts.check_task_in_plan, profile=NAME,
        handoff_types=("dev_progress", "dev_blocker", "research_request"),
    ),
    # Routing: the PO's verdict, patches, escalations.
    listed("YL111", "po-verdict-fields", routing.check_po_verdict_fields, profile=NAME, handoff_types=("po_qa_verdict",), modes=('FM-2.6', 'FM-3.3')),
    listed("YL112", "patch-over-cap", routing.check_patch_cap, profile=NAME, handoff_types=("patch_request",), modes=('FM-1.1',)),
    listed("YL113", "escalation-not-upward", routing.check_escalation_goes_up, profile=NAME, handoff_types=("escalation",)),
    # v2 messages against the project's message-schemas.json.
    listed("YL200", "message-schemas-unusable", envelope.check_project_schemas_usable, scope="chain", profile=NAME, severity=WARNING, modes=('FM-3.2',)),
    listed("YL201", "v2-missing-key", envelope.check_required_keys, profile=NAME, modes=('FM-1.1',)),
    listed("YL202", "v2-author-not-allowed", envelope.check_author_role, profile=NAME, modes=('FM-1.2',)),
    listed("YL203", "v2-target-cannot-receive", envelope.check_target_role, profile=NAME),
    listed("YL204", "v2-undeclared-payload-key", envelope.check_declared_payload_keys, profile=NAME, severity=WARNING, modes=('FM-1.1',)),
    listed("YL205", "v2-undocumented-value", envelope.check_prose_enums, profile=NAME, severity=WARNING, modes=('FM-1.1',)),
    # Across a phase folder.
    listed("YL301", "folder-mismatch", places.check_folder_numbers, scope="chain", profile=NAME),
    listed("YL302", "unknown-escalation", places.check_escalation_known, scope="chain", profile=NAME),
    listed("YL303", "gate-passes-blocked-handoff", places.check_gate_sees_blockers, scope="chain", profile=NAME, modes=('FM-2.5', 'FM-3.3')),
    listed("YL304", "summary-disagrees-with-plan", artifacts.check_summary_counts, scope="chain", profile=NAME, modes=('FM-3.1',)),
    listed(
        "YL305", "file-outside-plan", artifacts.check_summary_files, scope="chain", profile=NAME, severity=WARNING,
        modes=('FM-2.4',),
    ),
    listed("YL306", "verdict-contradicts-findings", verdicts.check_verdicts, scope="chain", profile=NAME, modes=('FM-2.6', 'FM-3.3')),
    listed("YL307", "critique-left-open", verdicts.check_critique_settled, scope="chain", profile=NAME, modes=('FM-2.5',)),
    listed("YL308", "test-not-red-first", verdicts.check_tests_red_first, scope="chain", profile=NAME, modes=('FM-1.1', 'FM-3.2')),
    listed("YL309", "gap-open-at-completion", verdicts.check_gaps_closed_when_complete, scope="chain", profile=NAME, modes=('FM-2.5', 'FM-3.1')),
    listed("YL310", "verification-counts", verdicts.check_verification_counts, scope="chain", profile=NAME, modes=('FM-3.3',)),
    listed(
        "YL311", "markdown-summary-counts", markdown.check_markdown_summary_counts, scope="chain", profile=NAME,
        modes=('FM-3.1', 'FM-3.3'),
    ),
)  # fmt: skip
