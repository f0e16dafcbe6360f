"""GSD summaries' claims judged against real history: task commits, files, the plan metadata
commit (EV203), a self-check over a false claim (EV601), paths relative to a monorepo's package."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rules.test_evidence_history import codes, commit, evidence, repo, write

__all__ = ["repo"]  # the fixture: each test runs with git asked by path and with the whole history read

pytestmark = pytest.mark.slow  # real git repositories

PHASE = ".planning/phases/01-calc"


def summary(hashes: list[str], files: list[str], metadata: str = "TBD", check: str = "PASSED") -> str:
    tasks = "".join(f"{n}. **Task {n}: step** - `{h}` (feat)\n" for n, h in enumerate(hashes, 1))
    created = "".join(f"    - {path}\n" for path in files)
    return (
        f"---\nphase: 01-calc\nplan: 01\nkey-files:\n  created:\n{created}completed: 2026-02-16\n---\n\n"
        f"# Phase 1 Plan 1: Calc Summary\n\n## Task Commits\n\n{tasks}\n"
        f"**Plan metadata:** {metadata} (docs: complete plan)\n\n## Self-Check: {check}\n"
    )


def work(repo: Path) -> str:
    write(repo, "src/add.py", "def add(a, b):\n    return a + b\n")
    return commit(repo, "2026-02-16T10:00:00+00:00")


def test_a_summary_whose_claims_hold_has_no_finding(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    task = work(repo)
    write(repo, f"{PHASE}/01-01-SUMMARY.md", summary([task[:7]], ["src/add.py"]))
    commit(repo, "2026-02-16T11:00:00+00:00")
    assert evidence(capsys) == []


def test_ev201_and_ev601_a_made_up_task_commit_under_a_passed_self_check(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = work(repo)
    write(repo, f"{PHASE}/01-01-SUMMARY.md", summary([task[:7], "9f3c2ab"], ["src/add.py"]))
    commit(repo, "2026-02-16T11:00:00+00:00")
    found = evidence(capsys)
    assert codes(found) == [
        ("EV201", "01-01-SUMMARY.md", "/commits/1"),
        ("EV601", "01-01-SUMMARY.md", "/self_check"),
    ]
    assert "self-check passed, but 1 of its claims is false (EV201)" in found[1][3]


def test_a_failed_self_check_over_a_false_claim_is_no_ev601(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = work(repo)
    write(
        repo, f"{PHASE}/01-01-SUMMARY.md", summary([task[:7]], ["src/add.py", "src/mul.py"], check="FAILED")
    )
    commit(repo, "2026-02-16T11:00:00+00:00")
    assert codes(evidence(capsys)) == [("EV101", "01-01-SUMMARY.md", "/files_created/1")]


def test_ev203_the_plan_metadata_hash_that_does_not_exist_is_a_warning_of_its_own(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = work(repo)
    write(repo, f"{PHASE}/01-01-SUMMARY.md", summary([task[:7]], ["src/add.py"], metadata="`a1b2c3d`"))
    commit(repo, "2026-02-16T11:00:00+00:00")
    assert codes(evidence(capsys)) == [("EV203", "01-01-SUMMARY.md", "/plan_metadata/0")]


def test_a_path_relative_to_a_package_of_a_monorepo_is_not_missing(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, "apps/web/src/add.ts", "export const add = (a: number, b: number) => a + b\n")
    task = commit(repo, "2026-02-16T10:00:00+00:00")
    write(repo, f"{PHASE}/01-01-SUMMARY.md", summary([task[:7]], ["src/add.ts", "src/mul.ts"]))
    commit(repo, "2026-02-16T11:00:00+00:00")
    assert codes(evidence(capsys)) == [
        ("EV101", "01-01-SUMMARY.md", "/files_created/1"),
        ("EV601", "01-01-SUMMARY.md", "/self_check"),
    ]


def test_a_summary_archived_to_a_milestone_keeps_its_claims_true(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = work(repo)
    write(repo, f"{PHASE}/01-01-SUMMARY.md", summary([task[:7]], ["src/add.py", f"{PHASE}/01-01-PLAN.md"]))
    write(repo, f"{PHASE}/01-01-PLAN.md", "---\nphase: 01-calc\n---\n")
    commit(repo, "2026-02-16T11:00:00+00:00")
    archived = ".planning/milestones/v1.0-phases/01-calc"
    (repo / archived).parent.mkdir(parents=True)
    (repo / PHASE).rename(repo / archived)
    commit(repo, "2026-03-01T09:00:00+00:00")
    assert evidence(capsys) == []


def test_ev105_a_file_claimed_created_that_a_commit_before_the_work_already_held(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, "src/models.py", "class User: ...\n")
    commit(repo, "2026-02-09T10:00:00+00:00")  # a week before the plan's work
    write(repo, f"{PHASE}/01-01-SUMMARY.md", summary([], []).replace("2026-02-16", "2026-02-15"))
    commit(repo, "2026-02-15T12:00:00+00:00")  # the previous plan's summary opens this plan's window
    write(repo, "src/models.py", "class User:\n    name: str\n")
    write(repo, "src/add.py", "def add(a, b):\n    return a + b\n")
    task = commit(repo, "2026-02-16T10:00:00+00:00")
    write(repo, f"{PHASE}/01-02-SUMMARY.md", summary([task[:7]], ["src/add.py", "src/models.py"]))
    commit(repo, "2026-02-16T11:00:00+00:00")
    found = evidence(capsys)
    assert codes(found) == [("EV105", "01-02-SUMMARY.md", "/files_created/1")]
    assert "src/models.py is claimed created, but a commit older than the handoff" in found[0][3]


def test_ev105_is_not_said_of_a_file_an_unlisted_commit_of_the_same_work_created(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, "src/add.py", "def add(a, b):\n    return a + b\n")
    write(repo, f"{PHASE}/01-01-SUMMARY.md", summary([], ["src/add.py"]).replace("2026-02-16", "2026-02-15"))
    commit(repo, "2026-02-15T12:00:00+00:00")  # the previous plan's summary: this plan's work starts after it
    write(repo, "src/models.py", "class User: ...\n")
    commit(repo, "2026-02-16T09:00:00+00:00")  # this plan's first commit, not listed in its summary
    write(repo, "src/models.py", "class User:\n    name: str\n")
    task = commit(repo, "2026-02-16T10:00:00+00:00")
    write(repo, f"{PHASE}/01-02-SUMMARY.md", summary([task[:7]], ["src/models.py"]))
    commit(repo, "2026-02-16T11:00:00+00:00")
    assert evidence(capsys) == []


def test_an_ignored_path_that_a_package_of_the_monorepo_committed_is_no_ev104(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, ".gitignore", ".cache/\n")
    write(repo, "tools/indexer/.cache/index.json", "{}\n")
    task = commit(repo, "2026-02-16T10:00:00+00:00", ".gitignore")
    git_add_forced = ["add", "-f", "tools/indexer/.cache/index.json"]
    from tests.agent_loop import git

    git(repo, *git_add_forced)
    task = commit(repo, "2026-02-16T10:30:00+00:00")
    write(repo, f"{PHASE}/01-01-SUMMARY.md", summary([task[:7]], [".cache/index.json"]))
    commit(repo, "2026-02-16T11:00:00+00:00")
    assert evidence(capsys) == []


def test_ev202_a_session_past_midnight_keeps_the_date_it_began_on(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, "src/add.py", "def add(a, b):\n    return a + b\n")
    task = commit(repo, "2026-02-17T00:40:00+05:30")  # the small hours after the summary's date
    write(repo, f"{PHASE}/01-01-SUMMARY.md", summary([task[:7]], ["src/add.py"]))  # completed: 2026-02-16
    commit(repo, "2026-02-17T00:50:00+05:30")
    assert evidence(capsys) == []


def test_ev102_a_previous_summary_dated_after_this_one_sets_no_window(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 01-01 is dated a day after 01-02 was written: the names' order is not the order of the work.
    write(repo, "src/add.py", "def add(a, b):\n    return a + b\n")
    commit(repo, "2026-02-16T10:00:00+00:00")  # a commit the summary does not list
    write(repo, f"{PHASE}/01-01-SUMMARY.md", summary([], []).replace("2026-02-16", "2026-02-20"))
    write(repo, f"{PHASE}/01-02-SUMMARY.md", summary([], ["src/add.py"]))
    commit(repo, "2026-02-16T11:00:00+00:00")
    assert evidence(capsys) == []


def test_ev102_a_summary_without_a_date_committed_before_its_previous_ones_date_sets_no_window(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, "src/add.py", "def add(a, b):\n    return a + b\n")
    commit(repo, "2026-02-16T10:00:00+00:00")
    write(repo, f"{PHASE}/01-01-SUMMARY.md", summary([], []).replace("2026-02-16", "2026-02-20"))
    write(
        repo, f"{PHASE}/01-02-SUMMARY.md", summary([], ["src/add.py"]).replace("completed: 2026-02-16\n", "")
    )
    commit(repo, "2026-02-16T11:00:00+00:00")
    assert evidence(capsys) == []
