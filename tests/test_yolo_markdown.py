"""YOLO's Markdown plans and summaries: their YAML front matter checked at its places (HS001, YL311)."""

from __future__ import annotations

from pathlib import Path

from tests.yolo_helpers import check_folder

FOLDER = ".yolo-planning/milestones/m1/01-routing"
PLAN = """---
phase: 01
plan: 01
title: Route escalations
wave: 1
depends_on: []
must_haves:
  - escalations reach the lead
---

## Task 1: Router
## Task 2: Tests
"""


def summary(status: str = "complete", done: int = 2, total: int = 2, commit: str = "abc1234") -> str:
    return (
        f"---\nphase: 01\nplan: 01\ntitle: Route escalations\nstatus: {status}\n"
        f"tasks_completed: {done}\ntasks_total: {total}\ncommit_hashes:\n  - {commit}\n---\n\n## What Was Built\n"
    )


def found(tmp_path: Path, plan: str, summary_text: str) -> list[tuple[str, str, int, str]]:
    folder = tmp_path / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "01-01-PLAN.md").write_text(plan, encoding="utf-8")
    (folder / "01-01-SUMMARY.md").write_text(summary_text, encoding="utf-8")
    return [(f.code, f.path.rsplit("/", 1)[-1], f.line, f.pointer) for f in check_folder(tmp_path, FOLDER)]


def test_a_plan_and_summary_as_yolo_writes_them_have_no_finding(tmp_path: Path) -> None:
    assert found(tmp_path, PLAN, summary()) == []


def test_hs001_a_summary_front_matter_breaking_yolos_validator_is_placed_at_the_value(tmp_path: Path) -> None:
    assert found(tmp_path, PLAN, summary(status="done", commit="abc")) == [
        ("HS001", "01-01-SUMMARY.md", 5, "/status"),
        ("HS001", "01-01-SUMMARY.md", 9, "/commit_hashes/0"),
    ]


def test_yl311_a_complete_summary_with_tasks_left(tmp_path: Path) -> None:
    assert found(tmp_path, PLAN, summary(done=1)) == [("YL311", "01-01-SUMMARY.md", 6, "/tasks_completed")]


def test_yl311_a_summary_counting_other_tasks_than_its_plan_lists(tmp_path: Path) -> None:
    three = PLAN + "### Task 3: Docs\n"
    assert found(tmp_path, three, summary()) == [("YL311", "01-01-SUMMARY.md", 7, "/tasks_total")]


def test_a_plan_without_front_matter_is_not_checked_and_an_unclosed_one_is_hf002(tmp_path: Path) -> None:
    assert found(tmp_path, "## Task 1\n", summary(total=2)) == []
    assert found(tmp_path, "---\nphase: 01\n\n## Task 1\n", summary()) == [("HF002", "01-01-PLAN.md", 1, "")]


def test_yl311_speaks_in_the_run_that_reports_a_schema_error_of_the_same_summary(tmp_path: Path) -> None:
    # A commit hash YOLO's validator refuses no longer hides that the summary has tasks left.
    assert found(tmp_path, PLAN, summary(done=1, commit="abc")) == [
        ("YL311", "01-01-SUMMARY.md", 6, "/tasks_completed"),
        ("HS001", "01-01-SUMMARY.md", 9, "/commit_hashes/0"),
    ]


def test_yl311_says_nothing_of_a_count_the_schema_found_malformed(tmp_path: Path) -> None:
    text = summary().replace("tasks_completed: 2", "tasks_completed: two")
    assert [code for code, *_ in found(tmp_path, PLAN, text)] == ["HS001"]
