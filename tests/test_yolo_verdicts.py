"""YL306-YL308: the verdicts, critique and test plan YOLO's reviewing agents leave in a phase folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.yolo_helpers import PHASE, check_folder, write

PLAN = [{"p": "05", "n": "01", "t": "x", "w": 1, "d": [], "obj": "x"},
        {"id": "T1", "tp": "auto", "a": "x", "f": ["src/x.py"], "v": "pytest", "done": "x"}]  # fmt: skip


def found(
    tmp_path: Path, name: str, lines: list[dict[str, Any]], *, plan: bool = True
) -> list[tuple[str, int, str]]:
    if plan:
        write(tmp_path, f"{PHASE}/05-01.plan.jsonl", PLAN)
    write(tmp_path, f"{PHASE}/{name}", lines)
    return [
        (f.code, f.line, f.pointer) for f in check_folder(tmp_path) if f.code in ("YL306", "YL307", "YL308")
    ]


VERIFIED = {"tier": "standard", "r": "PASS", "ps": 2, "fl": 0, "tt": 2, "dt": "2026-02-18"}
CHECK = {"c": "router exists", "r": "pass", "ev": "grep", "cat": "must_have"}


def test_yl306_a_verification_pass_with_failed_checks_counted(tmp_path: Path) -> None:
    assert found(tmp_path, "verification.jsonl", [{**VERIFIED, "ps": 1, "fl": 1}, CHECK]) == [
        ("YL306", 1, "/r")
    ]


def test_yl306_a_verification_pass_over_a_failed_check_line(tmp_path: Path) -> None:
    assert found(tmp_path, "verification.jsonl", [VERIFIED, CHECK, {**CHECK, "r": "fail"}]) == [
        ("YL306", 1, "/r")
    ]


def test_yl306_a_verification_pass_whose_line_explains_its_failures_is_fine(tmp_path: Path) -> None:
    lines = [
        {**VERIFIED, "fl": 1, "gaps": ["literal string differs; behaviour tested"]},
        {**CHECK, "r": "fail"},
    ]
    assert found(tmp_path, "verification.jsonl", lines) == []


def test_yl306_a_qa_pass_with_failing_tests_no_line_explains(tmp_path: Path) -> None:
    head = {
        "r": "PASS",
        "tests": {"ps": 9, "fl": 1, "sk": 0},
        "lint": {"err": 0, "warn": 0},
        "dt": "2026-02-18",
    }
    assert found(tmp_path, "qa-code.jsonl", [head]) == [("YL306", 1, "/r")]


def test_yl306_a_qa_pass_with_a_major_finding(tmp_path: Path) -> None:
    head = {
        "r": "PASS",
        "tests": {"ps": 9, "fl": 0, "sk": 0},
        "lint": {"err": 0, "warn": 0},
        "dt": "2026-02-18",
    }
    finding = {"f": "src/x.py", "ln": 3, "sev": "major", "issue": "race", "sug": "lock"}
    assert found(tmp_path, "qa-code.jsonl", [head, finding]) == [("YL306", 1, "/r")]


def test_yl306_a_review_approving_a_critical_finding_or_past_three_cycles(tmp_path: Path) -> None:
    head = {"plan": "05-01", "r": "approve", "cycle": 4, "dt": "2026-02-18"}
    critical = {"f": "src/x.py", "ln": 3, "sev": "critical", "issue": "sql injection", "sug": "bind"}
    assert found(tmp_path, "code-review.jsonl", [head, critical]) == [
        ("YL306", 1, "/r"),
        ("YL306", 1, "/cycle"),
    ]


def test_yl306_a_review_requesting_changes_over_a_critical_finding_is_fine(tmp_path: Path) -> None:
    head = {"plan": "05-01", "r": "changes_requested", "cycle": 1, "dt": "2026-02-18"}
    critical = {"f": "src/x.py", "ln": 3, "sev": "critical", "issue": "sql injection", "sug": "bind"}
    assert found(tmp_path, "code-review.jsonl", [head, critical]) == []


CRITIQUE = {"id": "C1", "cat": "gap", "sev": "minor", "q": "clock skew", "ctx": "x", "sug": "x", "st": "open"}


def test_yl307_an_open_critique_finding_once_the_phase_has_plans(tmp_path: Path) -> None:
    assert found(tmp_path, "critique.jsonl", [{**CRITIQUE, "st": "addressed"}, CRITIQUE]) == [
        ("YL307", 2, "/st")
    ]


def test_yl307_an_open_critique_finding_before_planning_is_fine(tmp_path: Path) -> None:
    assert found(tmp_path, "critique.jsonl", [CRITIQUE], plan=False) == []


@pytest.mark.parametrize(("red", "expected"), [(True, []), (False, [("YL308", 1, "/red")]), ("yes", [])])
def test_yl308_a_test_plan_line_not_red_first(
    tmp_path: Path, red: object, expected: list[tuple[str, int, str]]
) -> None:
    line = {"id": "T1", "tf": ["tests/test_x.py"], "tc": 3, "red": red, "desc": "router"}
    assert found(tmp_path, "test-plan.jsonl", [line]) == expected
    if red == "yes":  # a malformed value: the schema's finding is the one at its place
        assert [(f.code, f.pointer) for f in check_folder(tmp_path) if f.pointer == "/red"] == [
            ("HS001", "/red")
        ]


def test_lines_of_another_shape_are_skipped_not_failed(tmp_path: Path) -> None:
    assert found(tmp_path, "verification.jsonl", [["not", "an", "object"], {"r": 1}]) == []  # type: ignore[list-item]


def test_yl306_a_qa_pass_whose_finding_lines_explain_its_failing_tests_is_fine(tmp_path: Path) -> None:
    """As YOLO's own phase 03 does: three failing tests, three 'pre-existing failure' lines."""
    head = {
        "r": "PASS",
        "tests": {"ps": 9, "fl": 2, "sk": 0},
        "lint": {"err": 0, "warn": 0},
        "dt": "2026-02-16",
    }
    note = {
        "f": "tests/a.bats",
        "ln": 3,
        "sev": "info",
        "issue": "pre-existing failure",
        "sug": "not this phase",
    }
    assert found(tmp_path, "qa-code.jsonl", [head, note, note]) == []
