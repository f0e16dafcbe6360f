"""``handoff-lint --changed-since BASE``: the handoffs a branch changed, committed or not yet."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_handoff.cli import main
from tests.agent_loop import git
from tests.conftest import EXAMPLES

pytestmark = pytest.mark.slow  # a git repository

CHAIN = Path(".neuralrelay", "handoffs", "20261103-091500")


def chains_checked(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, int]:
    capsys.readouterr()
    status = main(["--no-evidence", "--format", "json", *args])
    out = capsys.readouterr().out
    return status, (json.loads(out)["summary"]["chains"] if out else 0)


def test_committed_staged_changed_and_new_handoffs_all_count_as_changed_since_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(EXAMPLES / "neuralrelay" / "clean", tmp_path, dirs_exist_ok=True)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "a clean chain")
    monkeypatch.chdir(tmp_path)
    assert chains_checked(capsys, "--changed-since", "HEAD") == (0, 0)
    review = tmp_path / CHAIN / "04-review-agent.json"
    data = json.loads(review.read_text(encoding="utf-8"))
    data["total_tokens"] = 1
    review.write_text(json.dumps(data, indent=2), encoding="utf-8")  # changed, not committed
    assert chains_checked(capsys, "--changed-since", "HEAD") == (1, 1)
    git(tmp_path, "checkout", "-q", "--", str(CHAIN / "04-review-agent.json"))
    shutil.copytree(tmp_path / CHAIN, tmp_path / CHAIN.parent / "20261104-100000")  # new, untracked
    assert chains_checked(capsys, "--changed-since", "HEAD")[1] == 1


def test_a_shallow_clone_is_told_to_fetch_the_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    origin = tmp_path / "origin"
    shutil.copytree(EXAMPLES / "neuralrelay" / "clean", origin)
    git(origin, "init", "-q")
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "one")
    git(origin, "commit", "-q", "--allow-empty", "-m", "two")
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", "shallow")
    monkeypatch.chdir(tmp_path / "shallow")
    assert main(["--no-evidence", "--changed-since", "HEAD~1"]) == 2
    assert "this clone is shallow" in capsys.readouterr().err
    monkeypatch.chdir(origin)
    assert main(["--no-evidence", "--changed-since", "nope"]) == 2
    assert "shallow" not in capsys.readouterr().err
