"""The phase's other artifacts are checked line by line (HS001), and YL309-YL310 hold them to what
the next agent relies on: no open gap in a completed phase, verification counts that add up."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.yolo_helpers import PHASE, check_folder, write

GAP = {
    "id": "gap-001",
    "sev": "major",
    "desc": "retry budget untested",
    "exp": "tested",
    "act": "none",
    "st": "open",
}
VERIFIED = {"tier": "standard", "r": "PARTIAL", "ps": 30, "fl": 2, "tt": 32, "dt": "2026-02-18"}
CLEAN_LINES: dict[str, list[dict[str, Any]]] = {
    "verification.jsonl": [VERIFIED, {"c": "router exists", "r": "pass", "ev": "grep", "cat": "must_have"}],
    "qa-code.jsonl": [
        {
            "r": "PARTIAL",
            "tests": {"ps": 9, "fl": 0, "sk": 1},
            "lint": {"err": 0, "warn": 2},
            "dt": "2026-02-18",
        },
        {"f": "src/x.py", "ln": 3, "sev": "minor", "issue": "long function", "sug": "split"},
    ],
    "code-review.jsonl": [
        {"plan": "05-01", "r": "approve", "cycle": 1, "dt": "2026-02-18"},
        {"f": "src/x.py", "ln": 3, "sev": "nit", "issue": "naming", "sug": "rename"},
    ],
    "critique.jsonl": [
        {
            "id": "C1",
            "cat": "gap",
            "sev": "minor",
            "q": "clock skew?",
            "ctx": "",
            "sug": "",
            "st": "addressed",
        }
    ],
    "test-plan.jsonl": [{"id": "T1", "tf": ["tests/test_x.py"], "tc": 3, "red": True, "desc": "retries"}],
    "gaps.jsonl": [{**GAP, "st": "fixed", "res": "abc1234"}],
}
# What each file's lines must hold for the agent that reads them, broken one key at a time.
BROKEN_LINES: list[tuple[str, list[dict[str, Any]], int, str]] = [
    ("verification.jsonl", [{**VERIFIED, "r": "pass"}], 1, "/r"),
    ("verification.jsonl", [VERIFIED, {"c": "router exists", "r": "PASS", "ev": "grep"}], 2, "/r"),
    ("qa-code.jsonl", [{"r": "PASS"}, {"f": "src/x.py", "sev": "blocker", "issue": "x"}], 2, "/sev"),
    ("qa-code.jsonl", [{"result": "PASS", "dt": "2026-02-18"}], 1, ""),
    ("code-review.jsonl", [{"plan": "05-01", "r": "approved", "cycle": 1}], 1, "/r"),
    ("code-review.jsonl", [{"plan": "05-01", "r": "approve", "cycle": 0}], 1, "/cycle"),
    (
        "critique.jsonl",
        [{"id": "C1", "cat": "gap", "sev": "minor", "title": "clock skew?", "st": "open"}],
        1,
        "",
    ),
    ("test-plan.jsonl", [{"id": "T1", "tf": "tests/test_x.py", "tc": 3, "red": True}], 1, "/tf"),
    ("gaps.jsonl", [{**GAP, "st": "done"}], 1, "/st"),
]


@pytest.mark.parametrize("name", sorted(CLEAN_LINES))
def test_a_documented_artifact_has_no_finding(tmp_path: Path, name: str) -> None:
    write(tmp_path, f"{PHASE}/{name}", CLEAN_LINES[name])
    assert [(f.code, f.line) for f in check_folder(tmp_path)] == []


@pytest.mark.parametrize(("name", "lines", "line", "pointer"), BROKEN_LINES)
def test_hs001_an_artifact_line_missing_what_its_reader_reads_is_an_error_at_the_line(
    tmp_path: Path, name: str, lines: list[dict[str, Any]], line: int, pointer: str
) -> None:
    write(tmp_path, f"{PHASE}/{name}", lines)
    assert {(f.code, f.line, f.pointer) for f in check_folder(tmp_path)} == {("HS001", line, pointer)}


def found(tmp_path: Path, code: str) -> list[tuple[str, int, str]]:
    return [(f.code, f.line, f.pointer) for f in check_folder(tmp_path) if f.code == code]


def test_yl309_an_open_gap_in_a_phase_its_execution_state_marks_complete(tmp_path: Path) -> None:
    write(tmp_path, f"{PHASE}/gaps.jsonl", [{**GAP, "id": "gap-000", "st": "fixed"}, GAP])
    write(tmp_path, f"{PHASE}/.execution-state.json", {"phase": 5, "status": "complete"})
    assert found(tmp_path, "YL309") == [("YL309", 2, "/st")]


def test_yl309_an_open_gap_in_the_phase_state_json_marks_complete(tmp_path: Path) -> None:
    write(tmp_path, f"{PHASE}/gaps.jsonl", [GAP])
    write(tmp_path, ".yolo-planning/state.json", {"ms": "m1", "ph": 5, "tt": 6, "st": "complete", "pr": 100})
    assert found(tmp_path, "YL309") == [("YL309", 1, "/st")]


def test_yl309_an_open_gap_while_the_phase_still_runs_is_fine(tmp_path: Path) -> None:
    write(tmp_path, f"{PHASE}/gaps.jsonl", [GAP])
    write(tmp_path, f"{PHASE}/.execution-state.json", {"phase": 5, "status": "running"})
    write(tmp_path, ".yolo-planning/state.json", {"ph": 6, "st": "complete"})  # another phase
    assert found(tmp_path, "YL309") == []


def test_yl309_an_accepted_gap_in_a_completed_phase_is_fine(tmp_path: Path) -> None:
    write(tmp_path, f"{PHASE}/gaps.jsonl", [{**GAP, "st": "accepted"}])
    write(tmp_path, f"{PHASE}/.execution-state.json", {"status": "complete"})
    assert found(tmp_path, "YL309") == []


def test_yl310_verification_counts_that_do_not_add_up(tmp_path: Path) -> None:
    write(tmp_path, f"{PHASE}/verification.jsonl", [{**VERIFIED, "ps": 28}])
    assert found(tmp_path, "YL310") == [("YL310", 1, "/tt")]


def test_yl310_verification_counts_that_add_up_are_fine(tmp_path: Path) -> None:
    write(tmp_path, f"{PHASE}/verification.jsonl", [VERIFIED])
    assert found(tmp_path, "YL310") == []


def test_the_shipped_artifact_schemas_require_what_the_read_map_says_each_reader_reads() -> None:
    folder = Path(__file__).parents[1] / "schemas" / "yolo-artifacts"
    required = {
        path.name.split(".")[0]: json.loads(path.read_text())["required"] for path in folder.glob("*.json")
    }
    assert required["critique_finding"] == ["id", "st"]  # the Architect sets st; q or desc via anyOf
    assert required["test_plan_entry"] == ["id", "tf", "tc", "red"]
    assert required["gap"] == ["id", "sev", "desc", "st"]
