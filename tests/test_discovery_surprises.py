"""A plain run in an ordinary repository takes no unrelated file for a handoff."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_handoff.cli import main


@pytest.fixture
def project(git_project: Path) -> Path:
    return git_project


def test_an_applications_logs_folder_is_not_read_as_ralph_agent_logs(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = project / "services" / "api" / "logs"
    logs.mkdir(parents=True)
    (logs / "app.log").write_text("INFO handoff: pm: nightly rotation\n", encoding="utf-8")
    assert main(["--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []


def test_with_profile_ralph_a_log_anywhere_is_read_as_an_agents_log(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = project / "services" / "api" / "logs"
    logs.mkdir(parents=True)
    (logs / "app.log").write_text("INFO handoff: pm: nightly rotation\n", encoding="utf-8")
    assert main(["--format", "json", "--profile", "ralph", "services/api/logs/app.log"]) == 1
    assert {f["code"] for f in json.loads(capsys.readouterr().out)["findings"]} >= {"RL003"}


def test_another_projects_handoff_folder_is_not_trinitys(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project / "src" / "i18n" / "handoff"
    folder.mkdir(parents=True)
    (folder / "Translations.json").write_text('{"hello": "Hallo"}', encoding="utf-8")
    assert main(["--format", "json", "src/i18n/handoff/Translations.json"]) in (0, 1)
    codes = {f["code"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert not any(code.startswith("TR") for code in codes)
