"""EV rules on real history: claims judged as of the handoff's time, in repositories whose files
change after the handoffs were committed, with same-day summaries, handoffs that fail their schema,
unquoted numeric hashes and ignored files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.cli import main
from pytest_handoff.rules.evidence import repository
from tests.agent_loop import git

pytestmark = pytest.mark.slow  # real git repositories

PHASE = ".yolo-planning/phases/01-calc"


@pytest.fixture(params=["paths asked", "whole history"])
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Path:
    # Every test runs twice: with git asked about the group's own paths (a hook's few groups), and
    # with the whole history read once (a run of many groups): the verdicts are the same.
    if request.param == "whole history":
        monkeypatch.setattr(repository, "PARTIAL_LOADS", 0)
    for variable in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GITHUB_ACTIONS", "FORCE_COLOR"):
        monkeypatch.delenv(variable, raising=False)
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    monkeypatch.chdir(root)
    return root


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
    assert on_hashes == [("EV201", "commit 9633489 does not exist in this repository")]


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
