"""The contracts between GSD's agents, both sides of each rule, at the right line (GS1xx, GS2xx, GS3xx)."""

from __future__ import annotations

from pathlib import Path

from tests.gsd_helpers import check_phase, check_project, plan, summary, write_project

VERIFICATION = """---
phase: 01-setup
verified: 2026-11-20T16:00:00Z
status: {status}
score: {score}
{extra}---

### Observable Truths

| # | Truth | Status | Evidence |
|---|-------|--------|----------|
| 1 | Users can sign up | ✓ VERIFIED | test |
| 2 | Users can log in | {second} | test |
"""


def verification(
    status: str = "passed",
    score: str = "2/2 must-haves verified",
    second: str = "✓ VERIFIED",
    extra: str = "",
) -> str:
    return VERIFICATION.format(status=status, score=score, second=second, extra=extra)


def test_a_phase_as_gsd_writes_it_has_no_finding() -> None:
    files = {
        "01-01-PLAN.md": plan(tasks=2, checkpoints=1),
        "01-01-SUMMARY.md": summary("requirements-completed: [AUTH-01]\n", "- **Tasks:** 2\n"),
        "01-VERIFICATION.md": verification(),
    }
    assert check_phase(files) == []


def test_gs101_passed_over_a_failed_truth() -> None:
    found = check_phase({"01-VERIFICATION.md": verification(second="✗ FAILED")})
    assert found == [("GS101", "01-VERIFICATION.md", 4, "/front_matter/status")]


def test_gs101_human_needed_over_an_open_gap_but_not_over_a_resolved_one() -> None:
    open_gap = "gaps:\n  - truth: login\n    status: failed\n"
    resolved = "gaps:\n  - truth: login\n    status: resolved\n"
    assert check_phase({"01-VERIFICATION.md": verification("human_needed", extra=open_gap)}) == [
        ("GS101", "01-VERIFICATION.md", 4, "/front_matter/status")
    ]
    assert check_phase({"01-VERIFICATION.md": verification(extra=resolved)}) == []


def test_gs101_passed_with_human_items_a_person_approved_is_no_finding() -> None:
    human = "human_verification:\n  - test: sign up in a browser\n    expected: a welcome page\n"
    assert check_phase({"01-VERIFICATION.md": verification(extra=human)}) == []
    assert check_phase({"01-VERIFICATION.md": verification("gaps_found", second="FAILED")}) == []


def test_gs102_passed_with_a_score_short_of_its_total_or_past_it() -> None:
    assert check_phase({"01-VERIFICATION.md": verification(score="1/2 must-haves verified")}) == [
        ("GS102", "01-VERIFICATION.md", 5, "/front_matter/score")
    ]
    assert check_phase({"01-VERIFICATION.md": verification("human_needed", score="3/2")}) == [
        ("GS102", "01-VERIFICATION.md", 5, "/front_matter/score")
    ]
    assert check_phase({"01-VERIFICATION.md": verification("gaps_found", score="1/2")}) == []


def test_gs201_a_requirement_the_plan_never_had_is_a_warning_at_its_entry() -> None:
    files = {
        "01-01-PLAN.md": plan("[AUTH-01, AUTH-02]"),
        "01-01-SUMMARY.md": summary(
            "phase: 01\nrequirements-completed:\n  - AUTH-01 (partial)\n  - AUTH-03\n"
        ),
    }
    assert check_phase(files) == [("GS201", "01-01-SUMMARY.md", 5, "/front_matter/requirements-completed/1")]


def test_gs201_is_not_judged_without_both_lists() -> None:
    assert (
        check_phase(
            {"01-01-PLAN.md": plan("[]"), "01-01-SUMMARY.md": summary("requirements-completed: [X-01]\n")}
        )
        == []
    )
    assert check_phase({"01-01-PLAN.md": plan(), "01-01-SUMMARY.md": summary("phase: 01\n")}) == []


def test_gs202_a_task_count_neither_with_nor_without_the_checkpoints() -> None:
    pair = {"01-01-PLAN.md": plan(tasks=2, checkpoints=1)}
    assert check_phase({**pair, "01-01-SUMMARY.md": summary(body="- **Tasks:** 3\n")}) == []
    assert check_phase({**pair, "01-01-SUMMARY.md": summary(body="- **Tasks:** 2\n")}) == []
    assert check_phase({**pair, "01-01-SUMMARY.md": summary(body="\n- **Tasks:** 4\n")}) == [
        ("GS202", "01-01-SUMMARY.md", 4, "/tasks")
    ]


def test_gs202_a_halted_plans_summary_is_not_held_to_the_plans_task_count() -> None:
    pair = {"01-01-PLAN.md": plan(tasks=4)}
    halted = summary("status: halted\n", "\n- **Tasks:** 2\n")
    assert check_phase({**pair, "01-01-SUMMARY.md": halted}) == []
    complete = summary("status: complete\n", "\n- **Tasks:** 2\n")
    assert [code for code, *_ in check_phase({**pair, "01-01-SUMMARY.md": complete})] == ["GS202"]


UAT = "---\nstatus: complete\n---\n\n### 1. Sign up\nresult: pass\n\n### 2. Log in\nresult: {second}\n\n## Summary\n\ntotal: {total}\npassed: {passed}\nissues: {issues}\npending: 0\nskipped: 0\n"


def test_gs203_uat_counts_that_do_not_add_up_or_disagree_with_the_results() -> None:
    assert check_phase({"01-UAT.md": UAT.format(second="pass", total=2, passed=2, issues=0)}) == []
    assert check_phase({"01-UAT.md": UAT.format(second="pass", total=3, passed=2, issues=0)}) == [
        ("GS203", "01-UAT.md", 13, "/counts/total")
    ]
    assert check_phase({"01-UAT.md": UAT.format(second="issue", total=2, passed=2, issues=0)}) == [
        ("GS203", "01-UAT.md", 14, "/counts/passed"),
        ("GS203", "01-UAT.md", 15, "/counts/issues"),
    ]
    # A result in the project's own words (pass_but_reverted) is not compared.
    assert (
        check_phase({"01-UAT.md": UAT.format(second="pass_but_reverted", total=2, passed=1, issues=1)}) == []
    )


def test_gs204_a_pause_file_past_its_plans_last_task() -> None:
    pause = "---\nphase: 01-setup\ntask: {task}\ntotal_tasks: 3\nstatus: in_progress\n---\n"
    assert check_phase({".continue-here.md": pause.format(task=3)}) == []
    assert check_phase({".continue-here.md": pause.format(task=5)}) == [
        ("GS204", ".continue-here.md", 3, "/front_matter/task")
    ]


ROADMAP = "# Roadmap\n\n### Phase 1: Setup\n\nPlans:\n- [{first}] 01-01-PLAN.md — models\n- [{second}] 01-02: API\n\n### Phase 2: Deploy\n"


def project(tmp_path: Path, first: str, second: str, position: str = "Phase: 1 of 2 (Setup)") -> Path:
    return write_project(
        tmp_path,
        {
            ".planning/ROADMAP.md": ROADMAP.format(first=first, second=second),
            ".planning/STATE.md": f"# State\n\n## Current Position\n\n{position}\nPlan: 2 of 2\n",
            ".planning/phases/01-setup/01-01-PLAN.md": plan(),
            ".planning/milestones/v1.0-phases/01-setup/01-01-SUMMARY.md": summary("phase: 01\n"),
        },
    )


def test_gs301_and_gs302_roadmap_ticks_against_the_summaries_of_any_phase_folder(tmp_path: Path) -> None:
    assert check_project(project(tmp_path, "x", " ")) == []  # 01-01's summary is archived: still there
    assert check_project(project(tmp_path, " ", "x")) == [
        ("GS302", "ROADMAP.md", 6, "/plans/0/plan"),
        ("GS301", "ROADMAP.md", 7, "/plans/1/plan"),
    ]


def test_gs303_a_position_past_the_count_or_of_no_phase(tmp_path: Path) -> None:
    assert check_project(project(tmp_path, "x", " ", "Phase: 2 of 2 (Deploy, not planned yet)")) == []
    assert check_project(project(tmp_path, "x", " ", "Phase: 3 of 2 (Ship)")) == [
        ("GS303", "STATE.md", 5, "/position/phase")
    ]
    assert check_project(project(tmp_path, "x", " ", "**Phase:** 7 (Ship)")) == [
        ("GS303", "STATE.md", 5, "/position/phase")
    ]


def test_counts_of_thousands_of_digits_are_no_counts_and_no_crash() -> None:
    huge = "9" * 5000
    files = {
        "01-01-PLAN.md": plan(),
        "01-01-SUMMARY.md": summary(body=f"- **Tasks:** {huge}\n"),
        "01-VERIFICATION.md": verification(score=f"{huge}/1"),
    }
    assert check_phase(files) == []


def test_hx001_a_secret_in_a_front_matter_no_reading_can_take_is_still_found() -> None:
    token = "ghp_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"
    found = check_phase({"01-01-SUMMARY.md": f"---\n- a list\ntoken: {token}\n---\n\n# Summary\n"})
    assert ("HX001", "01-01-SUMMARY.md", 3, "/body/3") in found
