"""A YOLO message written in any documented version of its type is valid; one that fits none is
told which versions were tried (HS001)."""

from __future__ import annotations

from typing import Any

from pytest_handoff.profiles.yolo.catalogue import FLAT, flat_schema
from pytest_handoff.profiles.yolo.messages_earlier import CURRENT_VERSION, EARLIER_FLAT, FIRST_FLAT
from tests.yolo_helpers import check_lines, codes, messages, places

FIRST_FLAT_SCOUT: dict[str, Any] = {
    "type": "scout_findings",
    "domain": "quality",
    "documents": [{"name": "CONCERNS.md", "content": "## Concerns\n- no retries on the sync client"}],
    "cross_cutting": [
        {"target_domain": "architecture", "finding": "sync client is shared", "relevance": "high"}
    ],
    "confidence": "medium",
    "confidence_rationale": "read the client and its tests",
}
CURRENT_SCOUT: dict[str, Any] = {
    "type": "scout_findings",
    "domain": "quality",
    "findings": [{"query": "retry policy", "finding": "none on the sync client", "confidence": "high"}],
}
FIRST_FLAT_QA: dict[str, Any] = {
    "type": "qa_result",
    "tier": "standard",
    "result": "FAIL",
    "checks": {"passed": 4, "failed": 1, "total": 5},
    "failures": [{"check": "docs link", "expected": "resolves", "actual": "404"}],
    "body": "## Must-Have Checks\n| 1 | docs link | FAIL |",
}


def test_a_scout_finding_of_the_first_flat_protocol_is_valid() -> None:
    assert codes(check_lines([FIRST_FLAT_SCOUT])) == []


def test_a_scout_finding_of_the_current_protocol_is_still_valid() -> None:
    assert codes(check_lines([CURRENT_SCOUT])) == []


def test_a_qa_result_with_a_markdown_body_is_valid() -> None:
    assert codes(check_lines([FIRST_FLAT_QA])) == []


def test_a_message_that_fits_no_version_is_HS001_naming_every_version_tried_at_the_nearest_versions_error() -> (
    None
):
    broken = {**FIRST_FLAT_SCOUT, "documents": [{"name": "CONCERNS.md"}]}  # no content
    findings = check_lines([broken])
    assert [place.line for place in places(findings, "HS001")] == [1]
    (message,) = messages(findings, "HS001")
    assert "missing required property 'content' in /documents/0" in message
    assert CURRENT_VERSION in message
    assert f"nearest: {FIRST_FLAT}" in message


def test_mixing_two_versions_fits_neither() -> None:
    mixed = {**CURRENT_SCOUT, "confidence_rationale": "both"}
    assert codes(check_lines([mixed])) == ["HS001"]


def test_every_type_with_earlier_versions_has_a_titled_branch_per_version() -> None:
    for name, earlier in EARLIER_FLAT.items():
        assert name in FLAT
        titles = [branch["title"] for branch in flat_schema(name)["anyOf"]]
        assert titles == [CURRENT_VERSION, *(label for label, _ in reversed(earlier))]
