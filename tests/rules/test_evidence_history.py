"""EV rules on real history: claims judged as of the handoff's time, in repositories whose files
change after the handoffs were committed, with same-day summaries, handoffs that fail their schema,
unquoted numeric hashes and ignored files."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.cli import main
from pytest_handoff.rules.evidence import repository
from tests.agent_loop import git

pytestmark = pytest.mark.slow  # real git repositories

PHASE = ".yolo-planning/phases/01-calc"


@pytest.fixture(params=["paths asked", "whole history"])
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[Path]:
    # Every test runs twice: with git asked about the group's own paths (a hook's few groups), and
    # with the whole history read once (a run of many groups): the verdicts are the same.
    if request.param == "whole history":
        monkeypatch.setattr(repository, "PARTIAL_LOADS", 0)
    else:  # a run of folders reads the whole history from the start: as a hook's run would, ask by path
        start = repository.Repository.start
        monkeypatch.setattr(
            repository.Repository, "start", lambda self, whole=False: start(self, whole=False)
        )
        loads = repository.Repository.load

        def load(self: repository.Repository, *args: Any) -> None:
            request.node.loaded = True
            loads(self, *args)

        monkeypatch.setattr(repository.Repository, "load", load)
    for variable in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GITHUB_ACTIONS", "FORCE_COLOR"):
        monkeypatch.delenv(variable, raising=False)
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    monkeypatch.chdir(root)
    yield root
    if request.param == "paths asked":  # the mode under test was the one used
        assert getattr(request.node, "loaded", False)


def write(root: Path, relative: str, text: str) -> None:
    (root / relative).parent.mkdir(parents=True, exist_ok=True)
    (root / relative).write_text(text, encoding="utf-8")


def commit(root: Path, when: str, *paths: str) -> str:
    git(root, "add", "-A", "--", *(paths or (".",)))
    git(root, "commit", "-q", "--allow-empty", "-m", f"at {when}", when=when)
    return git(root, "rev-parse", "HEAD").strip()


def jsonl(*objects: dict[str, Any]) -> str:
    return "".join(json.dumps(o) + "\n" for o in objects)


def plan(number: str, files: list[str]) -> str:
    return jsonl(
        {"p": "01", "n": number, "t": "Calc", "w": 1, "d": [], "obj": "Add numbers"},
        {"id": "T1", "tp": "auto", "a": "Add", "f": files, "v": "pytest", "done": "adds"},
    )


def summary(number: str, day: str, files: list[str], commits: list[str] | None = None) -> str:
    return jsonl(
        {"p": "01", "n": number, "t": "Calc", "s": "complete", "dt": day, "tc": 1, "tt": 1,
         "ch": commits or [], "fm": files, "dv": [], "built": ["calc"]}
    )  # fmt: skip


def evidence(capsys: pytest.CaptureFixture[str], *args: str) -> list[tuple[str, str, str, str]]:
    main(["--format", "json", "--select", "EV", *args])
    found = json.loads(capsys.readouterr().out)["findings"]
    return sorted((f["code"], f["path"].rsplit("/", 1)[-1], f["pointer"], f["message"]) for f in found)


def codes(found: list[tuple[str, str, str, str]]) -> list[tuple[str, str, str]]:
    return [(code, name, pointer) for code, name, pointer, _ in found]


# --- time windows --------------------------------------------------------------------------------


def test_ev102_two_summaries_of_one_day_are_supported_by_that_days_commits(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The author works in UTC+1: 00:30 local is still 2026-02-16 there, 23:30 UTC the day before.
    write(repo, "src/add.py", "def add(a, b):\n    return a + b\n")
    commit(repo, "2026-02-16T00:30:00+01:00")
    write(repo, "src/sub.py", "def sub(a, b):\n    return a - b\n")
    commit(repo, "2026-02-16T15:00:00+01:00")
    write(repo, f"{PHASE}/01-01.plan.jsonl", plan("01", ["src/add.py"]))
    write(repo, f"{PHASE}/01-01.summary.jsonl", summary("01", "2026-02-16", ["src/add.py"]))
    write(repo, f"{PHASE}/01-02.plan.jsonl", plan("02", ["src/sub.py"]))
    write(repo, f"{PHASE}/01-02.summary.jsonl", summary("02", "2026-02-16", ["src/sub.py"]))
    commit(repo, "2026-02-16T18:00:00+01:00")
    assert evidence(capsys) == []


def test_ev102_a_file_last_touched_before_the_previous_summary_is_reported(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, "src/add.py", "def add(a, b):\n    return a + b\n")
    commit(repo, "2026-02-10T10:00:00+00:00")
    write(repo, "src/sub.py", "x = 1\n")
    commit(repo, "2026-02-15T10:00:00+00:00")
    write(repo, f"{PHASE}/01-01.plan.jsonl", plan("01", ["src/sub.py"]))
    write(repo, f"{PHASE}/01-01.summary.jsonl", summary("01", "2026-02-15", ["src/sub.py"]))
    write(repo, f"{PHASE}/01-02.plan.jsonl", plan("02", ["src/add.py"]))
    write(repo, f"{PHASE}/01-02.summary.jsonl", summary("02", "2026-02-16", ["src/add.py"]))
    commit(repo, "2026-02-16T18:00:00+00:00")
    found = evidence(capsys)
    assert codes(found) == [("EV102", "01-02.summary.jsonl", "/fm/0")]
    assert "no commit between 2026-02-15T00:00:00+00:00 and 2026-02-16T23:59:59+00:00" in found[0][3]


def test_ev102_a_commit_the_summary_itself_lists_supports_its_files(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, "src/add.py", "def add(a, b):\n    return a + b\n")
    listed = commit(repo, "2026-02-10T10:00:00+00:00")
    write(repo, "src/sub.py", "x = 1\n")
    commit(repo, "2026-02-15T10:00:00+00:00")
    write(repo, f"{PHASE}/01-01.plan.jsonl", plan("01", ["src/sub.py"]))
    write(repo, f"{PHASE}/01-01.summary.jsonl", summary("01", "2026-02-15", ["src/sub.py"]))
    write(repo, f"{PHASE}/01-02.plan.jsonl", plan("02", ["src/add.py"]))
    write(repo, f"{PHASE}/01-02.summary.jsonl", summary("02", "2026-02-16", ["src/add.py"], [listed[:7]]))
    commit(repo, "2026-02-16T18:00:00+00:00")
    assert evidence(capsys) == []


def test_ev202_a_commit_dated_after_the_summarys_day_is_reported(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, f"{PHASE}/01-01.plan.jsonl", plan("01", ["src/add.py"]))
    write(repo, "src/add.py", "x = 1\n")
    later = commit(repo, "2026-02-17T09:00:00+00:00")
    write(repo, f"{PHASE}/01-01.summary.jsonl", summary("01", "2026-02-16", ["src/add.py"], [later[:7]]))
    commit(repo, "2026-02-17T10:00:00+00:00")
    assert codes(evidence(capsys)) == [("EV202", "01-01.summary.jsonl", "/ch/0")]


# --- the state of the repository a claim is judged against ----------------------------------------


TRINITY = "developer/handoff/developer-2026-03-02T10_00_00.000Z.json"


def trinity(context: Any) -> str:
    return json.dumps(
        {"from": "developer", "to": "reviewer", "timestamp": "2026-03-02T10:00:00.000Z", "context": context,
         "status": "pending"}
    )  # fmt: skip


def test_ev301_a_location_true_when_committed_stays_true_after_the_file_shrinks(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, "src/app.py", "".join(f"line_{n} = {n}\n" for n in range(50)))
    write(repo, TRINITY, trinity("The guard is at src/app.py:40, please review."))
    commit(repo, "2026-03-02T10:05:00+00:00")
    write(repo, "src/app.py", "line = 0\n")
    commit(repo, "2026-03-09T10:00:00+00:00")
    assert evidence(capsys) == []


def test_ev301_a_location_past_the_end_then_and_now_names_the_commit_it_was_judged_at(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, "src/app.py", "".join(f"line_{n} = {n}\n" for n in range(50)))
    write(repo, TRINITY, trinity("The guard is at src/app.py:80, please review."))
    written = commit(repo, "2026-03-02T10:05:00+00:00")
    write(repo, "src/app.py", "line = 0\n")
    commit(repo, "2026-03-09T10:00:00+00:00")
    found = evidence(capsys)
    assert codes(found) == [("EV301", TRINITY.rsplit("/", 1)[1], "/context")]
    assert found[0][3] == (
        f"src/app.py:80 is past the end of the file (50 lines) (judged at commit {written[:12]}, "
        "the handoff's last change, and in the working tree)"
    )


def test_ev301_an_uncommitted_handoff_is_judged_in_the_working_tree(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, "src/app.py", "".join(f"line_{n} = {n}\n" for n in range(50)))
    commit(repo, "2026-03-02T10:00:00+00:00")
    write(repo, "src/app.py", "line = 0\n")
    commit(repo, "2026-03-09T10:00:00+00:00")
    write(repo, TRINITY, trinity("The guard is at src/app.py:40, please review."))
    found = evidence(capsys)
    assert codes(found) == [("EV301", TRINITY.rsplit("/", 1)[1], "/context")]
    assert found[0][3].endswith("(judged in the working tree: the handoff is not committed)")


def test_ev301_a_location_inside_a_context_object_is_checked(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, "src/app.py", "x = 1\n")
    write(repo, TRINITY, trinity({"goal": "review", "where": ["src/app.py:1", "src/app.py:9"]}))
    commit(repo, "2026-03-02T10:05:00+00:00")
    assert codes(evidence(capsys)) == [("EV301", TRINITY.rsplit("/", 1)[1], "/context/where/1")]


def test_ev301_the_claims_of_a_handoff_that_fails_its_schema_are_checked(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, "src/app.py", "x = 1\n")
    body = json.loads(trinity("see src/app.py:9"))
    del body["status"]  # required: the handoff fails its schema
    write(repo, TRINITY, json.dumps(body))
    main(["--format", "json"])
    found = {(f["code"], f["pointer"]) for f in json.loads(capsys.readouterr().out)["findings"]}
    assert ("EV301", "/context") in found
    assert any(code == "HS001" for code, _ in found)


# --- YAML's numbers and git's ignored files -------------------------------------------------------


SUMMARY_MD = """---
phase: 01
plan: 01
title: Calc
status: complete
tasks_completed: 1
tasks_total: 1
commit_hashes:
  - {hash}
files_modified:
  - src/add.py
---

## What Was Built

An adder.
"""


def test_ev201_an_unquoted_numeric_hash_is_read_as_a_hash_and_passes_the_schema(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, "src/add.py", "x = 1\n")
    write(repo, f"{PHASE}/01-01-PLAN.md", "---\nphase: 01\nplan: 01\n---\n\n## Tasks\n\n- add\n")
    write(repo, f"{PHASE}/01-01-SUMMARY.md", SUMMARY_MD.format(hash="9633489"))
    commit(repo, "2026-02-16T10:00:00+00:00")
    main(["--format", "json"])
    found = json.loads(capsys.readouterr().out)["findings"]
    on_hashes = [(f["code"], f["message"]) for f in found if f["pointer"].startswith("/commit_hashes")]
    assert on_hashes == [("EV201", "commit 9633489 is not in this clone: no branch or tag reaches it")]


def test_ev104_a_claimed_file_git_ignores_is_not_called_missing(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, ".gitignore", "/build/\n")
    write(repo, f"{PHASE}/01-01.plan.jsonl", plan("01", ["build/report.html", "src/gone.py"]))
    write(
        repo,
        f"{PHASE}/01-01.summary.jsonl",
        summary("01", "2026-02-16", ["build/report.html", "src/gone.py"]),
    )
    commit(repo, "2026-02-16T10:00:00+00:00")
    found = evidence(capsys)
    assert codes(found) == [
        ("EV101", "01-01.summary.jsonl", "/fm/1"),
        ("EV104", "01-01.summary.jsonl", "/fm/0"),
    ]
    assert (
        found[1][3] == "build/report.html is ignored by git and absent here: it cannot be judged in a clone"
    )


# --- found by review: each a false verdict or a crash before ---------------------------------------


def test_a_path_git_reads_as_magic_neither_crashes_the_run_nor_hides_the_other_findings(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, f"{PHASE}/01-01.plan.jsonl", plan("01", ["src/add.py"]))
    write(repo, f"{PHASE}/01-01.summary.jsonl", summary("01", "2026-02-16", [":(x)y.py", "src/gone.py"]))
    commit(repo, "2026-02-16T10:00:00+00:00")
    assert codes(evidence(capsys, *handoffs(repo))) == [
        ("EV101", "01-01.summary.jsonl", "/fm/0"),
        ("EV101", "01-01.summary.jsonl", "/fm/1"),
    ]


def test_ev202_a_commit_of_the_same_day_where_its_author_was_is_not_after_a_date(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, f"{PHASE}/01-01.plan.jsonl", plan("01", ["src/add.py"]))
    write(repo, "src/add.py", "x = 1\n")
    work = commit(repo, "2026-02-16T20:00:00-08:00")  # 2026-02-17 04:00 UTC
    write(repo, f"{PHASE}/01-01.summary.jsonl", summary("01", "2026-02-16", ["src/add.py"], [work[:7]]))
    commit(repo, "2026-02-17T05:00:00+00:00")
    assert evidence(capsys, *handoffs(repo)) == []


def test_ev301_a_location_and_a_test_file_on_one_path_are_both_judged_at_the_commit(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, "src/app.py", "".join(f"line_{n} = {n}\n" for n in range(30)))
    write(repo, TRINITY, trinity("see src/app.py:20"))
    commit(repo, "2026-03-02T10:05:00+00:00")
    git(repo, "mv", "src/app.py", "src/moved.py")
    commit(repo, "2026-03-09T10:00:00+00:00")
    assert evidence(capsys, *handoffs(repo)) == []


def test_ev101_ten_groups_of_named_files_are_judged_as_a_folder_run_judges_them(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for number in range(10):
        phase = f".yolo-planning/phases/{number:02d}-p"
        write(repo, f"src/f{number}.py", "x = 1\n")
        write(
            repo,
            f"{phase}/{number:02d}-01.plan.jsonl",
            plan("01", [f"src/f{number}.py"]).replace('"p": "01"', f'"p": "{number:02d}"'),
        )
        write(
            repo,
            f"{phase}/{number:02d}-01.summary.jsonl",
            summary("01", "2026-02-16", [f"src/f{number}.py"]).replace('"p": "01"', f'"p": "{number:02d}"'),
        )
    commit(repo, "2026-02-16T10:00:00+00:00")
    for number in range(10):
        (repo / f"src/f{number}.py").unlink()
    commit(repo, "2026-02-20T10:00:00+00:00")
    assert evidence(capsys, *handoffs(repo)) == []


def test_ev201_a_made_up_hash_of_23_digits_costs_the_summarys_real_commits_nothing(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, f"{PHASE}/01-01.plan.jsonl", plan("01", ["src/add.py"]))
    write(repo, "src/add.py", "x = 1\n")
    work = commit(repo, "2026-02-10T10:00:00+00:00")
    made_up = "abcdef1234567890abcdef1"
    write(
        repo, f"{PHASE}/01-01.summary.jsonl", summary("01", "2026-02-16", ["src/add.py"], [work[:7], made_up])
    )
    commit(repo, "2026-02-16T10:00:00+00:00")
    assert codes(evidence(capsys, *handoffs(repo))) == [("EV201", "01-01.summary.jsonl", "/ch/1")]


def test_ev102_a_folder_claimed_changed_is_supported_by_a_change_to_a_file_in_it(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, "src/calc/add.py", "x = 1\n")
    commit(repo, "2026-02-10T10:00:00+00:00")
    write(repo, f"{PHASE}/01-01.plan.jsonl", plan("01", ["src/calc"]))
    write(repo, "src/calc/add.py", "x = 2\n")
    write(repo, f"{PHASE}/01-01.summary.jsonl", summary("01", "2026-02-16", ["src/calc"]))
    commit(repo, "2026-02-16T10:00:00+00:00")
    assert evidence(capsys, *handoffs(repo)) == []


def test_ev301_a_tracked_file_replaced_by_a_link_out_of_the_project_is_never_read(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("".join(f"secret line {n}\n" for n in range(24)))
    write(repo, "src/app.py", "x = 1\n")
    write(repo, TRINITY, trinity("see src/app.py:30"))
    commit(repo, "2026-03-02T10:05:00+00:00")
    git(repo, "update-index", "--assume-unchanged", "src/app.py")
    (repo / "src/app.py").unlink()
    (repo / "src/app.py").symlink_to(outside)
    found = evidence(capsys, *handoffs(repo))
    assert all("24 lines" not in message for *_, message in found)


def handoffs(root: Path) -> list[str]:
    """The handoff files of the project, named (as a hook or pre-commit names them)."""
    return sorted(
        str(path.relative_to(root))
        for pattern in (".yolo-planning/**/*.jsonl", ".yolo-planning/**/*.md", "developer/handoff/*.json")
        for path in root.glob(pattern)
    )


def test_ev102_a_folder_claimed_changed_is_supported_by_a_commit_the_summary_lists(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, "src/calc/add.py", "x = 1\n")
    listed = commit(repo, "2026-02-05T10:00:00+00:00")
    write(repo, f"{PHASE}/01-01.plan.jsonl", plan("01", ["src/calc"]))
    write(repo, f"{PHASE}/01-01.summary.jsonl", summary("01", "2026-02-10", ["src/calc"]))
    write(repo, f"{PHASE}/01-02.plan.jsonl", plan("02", ["src/calc"]))
    write(repo, f"{PHASE}/01-02.summary.jsonl", summary("02", "2026-02-16", ["src/calc"], [listed[:7]]))
    commit(repo, "2026-02-16T10:00:00+00:00")
    assert evidence(capsys, *handoffs(repo)) == []  # 01-02: outside its window, but the commit is listed
