"""``handoff-lint chain`` on a Ralph session: the handoffs in time order, the PRD's items as criteria."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.cli import main
from tests.ralph_helpers import make_session


def _view(capsys: pytest.CaptureFixture[str]) -> Any:
    assert main(["chain", "--format", "json"]) in (0, 1)
    return json.loads(capsys.readouterr().out)


def test_the_chain_view_shows_each_handoff_in_time_order_and_the_prd_items(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(make_session(tmp_path / "lantern"))
    view = _view(capsys)

    assert (view["profile"], view["task"], view["verdict"]) == (
        "ralph",
        "lantern: 2 of 2 PRD items pass",
        "complete",
    )
    assert [(s["file"], s["agent"], s["handoff_type"]) for s in view["stages"]] == [
        (".claude/session/logs/pm.log:3", "pm -> developer", "task_assignment"),
        (".claude/session/logs/developer.log:4", "developer -> qa", "ready_for_qa"),
        (".claude/session/logs/qa.log:4", "qa -> pm", "validation_passed"),
    ]
    assert [(c["label"], c["traced"]) for c in view["acceptance_criteria"]] == [
        ("feat-101", True),
        ("test-101", True),
    ]


def test_the_chain_view_of_a_session_not_complete_has_no_verdict_and_counts_open_items(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_session(tmp_path / "lantern", logs={})
    (root / ".claude/session/handoff-signal.json").unlink()
    prd = json.loads((root / "prd.json").read_text())
    prd["items"][0]["passes"] = False
    (root / "prd.json").write_text(json.dumps(prd))
    monkeypatch.chdir(root)
    view = _view(capsys)

    assert (view["task"], view["verdict"]) == ("lantern: 1 of 2 PRD items pass", None)
    assert [s["file"] for s in view["stages"]][-1] == "prd.json"
