"""YOLO's names: the format's name, its flat message types and the ``v2.<type>`` handoff types.

The profile and the rules both read these; this module imports nothing of the format.
"""

from __future__ import annotations

NAME = "yolo"

#: The flat message types of YOLO's catalogue (each has ``schemas/yolo/<type>.schema.json``).
FLAT_TYPES = frozenset(
    {
        "critique_result", "test_plan_result", "architecture_design", "senior_spec", "dev_progress",
        "dev_blocker", "code_review_changes", "code_review_result", "qa_result", "qa_code_result",
        "security_audit", "scout_findings", "research_request", "research_response", "debugger_report",
        "escalation", "escalation_resolution", "escalation_timeout_warning", "agent_health_event",
        "circuit_breaker_state", "task_claim", "task_complete", "summary_aggregation", "phase_progress",
        "shutdown_request", "shutdown_response", "design_handoff", "api_contract", "department_result",
        "owner_review", "owner_signoff", "po_qa_verdict", "patch_request", "major_rejection",
        "feedback_response", "phase_handoff", "dept_handoff",
    }
)  # fmt: skip
#: The v2 types YOLO ships (its message-schemas.json at HEAD): what a v2 message's type is
#: checked against when the project has no message-schemas.json of its own.
SHIPPED_V2_TYPES = (
    "scout_findings", "plan_contract", "execution_update", "blocker_report", "debugger_report",
    "qa_verdict", "approval_request", "approval_response", "hitl_approval", "shutdown_request",
    "shutdown_response",
)  # fmt: skip

#: Handoff types of v2 messages are ``v2.<type>``; a v2 envelope with no usable type is ``v2``.
V2 = "v2"
V2_PREFIX = "v2."


def is_envelope(data: dict[str, object]) -> bool:
    """A v2 message: it carries the envelope's ``payload`` or ``schema_version``."""
    return "payload" in data or "schema_version" in data


def v2_type(handoff_type: str | None) -> str | None:
    """The v2 type name of a handoff type (``v2.execution_update`` -> ``execution_update``)."""
    if handoff_type is not None and handoff_type.startswith(V2_PREFIX):
        return handoff_type[len(V2_PREFIX) :]
    return None
