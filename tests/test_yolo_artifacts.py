"""YOLO's planning artifacts: plan header and task lines, the summary, and YL304/YL305 between them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.yolo_helpers import PHASE, check_folder, write

HEADER = {"p": "05", "n": "01", "t": "Escalation", "w": 1, "d": [], "obj": "Route escalations upward"}
TASKS = [
    {"id": f"T{n}", "tp": "auto", "a": f"step {n}", "f": [f"src/step{n}.py"], "v": "pytest", "done": "tested"}
    for n in (1, 2, 3)
]
SUMMARY = {
    "p": "05", "n": "01", "t": "Escalation", "s": "complete", "dt": "2026-02-18", "tc": 3, "tt": 3,
    "ch": ["1a2b3c4"], "fm": ["src/step1.py", "src/step2.py", "src/step3.py"], "dv": [], "built": ["routing"],
}  # fmt: skip


def phase(
    tmp_path: Path, summary: dict[str, Any], tasks: list[dict[str, Any]] = TASKS
) -> list[tuple[str, str, str]]:
    write(tmp_path, f"{PHASE}/05-01.plan.jsonl", [HEADER, *tasks])
    write(tmp_path, f"{PHASE}/05-01.summary.jsonl", [summary])
    return [(f.code, f.path.rsplit("/", 1)[-1], f.pointer) for f in check_folder(tmp_path)]


def test_a_plan_and_its_summary_as_documented_have_no_finding(tmp_path: Path) -> None:
    assert phase(tmp_path, SUMMARY) == []


def test_every_documented_version_of_a_summary_is_accepted(tmp_path: Path) -> None:
    """tst came in the second version of the format, sg in the fourteenth: both optional."""
    assert phase(tmp_path, {**SUMMARY, "tst": "red_green", "sg": ["split the router"]}) == []


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        ({"s": "done"}, "/s"),
        ({"s": None}, "/s"),
        ({"tc": "3"}, "/tc"),
        ({"dt": "18/02/2026"}, "/dt"),
    ],
)
def test_a_summary_outside_the_format_is_hs001_at_its_field(
    tmp_path: Path, change: dict[str, Any], pointer: str
) -> None:
    found = phase(tmp_path, {**SUMMARY, **change})
    assert ("HS001", "05-01.summary.jsonl", pointer) in found


def test_a_summary_without_a_status_is_hs001(tmp_path: Path) -> None:
    summary = {key: value for key, value in SUMMARY.items() if key != "s"}
    assert [code for code, _, _ in phase(tmp_path, summary)] == ["HS001"]


def test_a_summary_written_with_full_word_keys_is_hs001_at_each_of_them(tmp_path: Path) -> None:
    summary = {
        "p": "05",
        "n": "01",
        "status": "complete",
        "tasks": 3,
        "commits": ["1a2b3c4"],
        "files_modified": [],
    }
    pointers = {pointer for code, _, pointer in phase(tmp_path, summary) if code == "HS001"}
    assert {"/status", "/tasks", "/commits", "/files_modified"} <= pointers


def test_a_task_line_needs_its_id_action_files_and_checks(tmp_path: Path) -> None:
    found = phase(tmp_path, SUMMARY, [TASKS[0], TASKS[1], {"id": "3", "a": "step 3"}])
    assert ("HS001", "05-01.plan.jsonl", "/id") in found
    assert sum(1 for code, name, _ in found if (code, name) == ("HS001", "05-01.plan.jsonl")) >= 2


# --- YL304 summary-disagrees-with-plan ---------------------------------------------------------


def test_yl304_a_summary_that_counts_fewer_tasks_than_its_plan_has(tmp_path: Path) -> None:
    assert phase(tmp_path, {**SUMMARY, "tc": 2, "tt": 2}) == [("YL304", "05-01.summary.jsonl", "/tt")]


def test_yl304_complete_with_tasks_left_undone(tmp_path: Path) -> None:
    assert phase(tmp_path, {**SUMMARY, "tc": 2}) == [("YL304", "05-01.summary.jsonl", "/s")]


def test_yl304_partial_with_tasks_left_undone_is_fine(tmp_path: Path) -> None:
    assert phase(tmp_path, {**SUMMARY, "s": "partial", "tc": 2}) == []


def test_yl304_more_completed_than_in_all(tmp_path: Path) -> None:
    assert phase(tmp_path, {**SUMMARY, "tc": 4}) == [("YL304", "05-01.summary.jsonl", "/tc")]


# --- YL305 file-outside-plan -------------------------------------------------------------------


def test_yl305_a_modified_file_the_plan_never_named(tmp_path: Path) -> None:
    summary = {**SUMMARY, "fm": [*SUMMARY["fm"], "src/admin.py"]}
    assert phase(tmp_path, summary) == [("YL305", "05-01.summary.jsonl", "/fm/3")]


def test_yl305_is_quiet_when_a_deviation_names_the_file(tmp_path: Path) -> None:
    summary = {**SUMMARY, "fm": [*SUMMARY["fm"], "src/admin.py"], "dv": ["src/admin.py: exposed the TTL"]}
    assert phase(tmp_path, summary) == []


def test_yl305_takes_the_headers_files_and_a_leading_dot_slash_alike(tmp_path: Path) -> None:
    write(tmp_path, f"{PHASE}/05-01.plan.jsonl", [{**HEADER, "fm": ["docs/routing.md"]}, *TASKS])
    write(
        tmp_path, f"{PHASE}/05-01.summary.jsonl", [{**SUMMARY, "fm": ["./src/step1.py", "docs/routing.md"]}]
    )
    assert check_folder(tmp_path) == []


def test_lines_a_summary_adds_after_its_first_are_not_taken_for_summaries(tmp_path: Path) -> None:
    write(tmp_path, f"{PHASE}/05-01.plan.jsonl", [HEADER, *TASKS])
    write(tmp_path, f"{PHASE}/05-01.summary.jsonl", [SUMMARY, {"id": "T1", "s": "done", "c": "1a2b3c4"}])
    assert check_folder(tmp_path) == []


def test_a_plan_that_starts_with_blank_lines_still_has_its_header_first(tmp_path: Path) -> None:
    write(
        tmp_path,
        f"{PHASE}/05-01.plan.jsonl",
        "\n\r\n" + "".join(json.dumps(line) + "\n" for line in [HEADER, *TASKS]),
    )
    write(tmp_path, f"{PHASE}/05-01.summary.jsonl", [SUMMARY])
    assert check_folder(tmp_path) == []


def test_yl304_does_not_count_a_plan_whose_task_line_is_invalid(tmp_path: Path) -> None:
    found = phase(tmp_path, SUMMARY, [TASKS[0], TASKS[1], {"id": "T3"}])
    assert [code for code, _, _ in found if code != "HS001"] == []


def test_yl305_finds_a_file_named_in_a_deviation_among_its_punctuation(tmp_path: Path) -> None:
    summary = {**SUMMARY, "fm": [*SUMMARY["fm"], "src/admin.py"], "dv": ["Also touched (`src/admin.py`)."]}
    assert phase(tmp_path, summary) == []
