"""``handoff-lint --stdin-filename PATH -``: content on stdin checked as if it stood at PATH."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.cli import main
from tests.agent_loop import DEV, REVIEW, TEST, Project


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return Project(tmp_path)


def feed(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8"))


def bad_tokens(data: Any) -> None:
    data["tokens_used"] = "lots"


def test_hs001_content_on_stdin_is_reported_at_the_stdin_filename(
    project: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    feed(monkeypatch, project.changed(DEV, bad_tokens))
    assert main(["--stdin-filename", project.relative(DEV), "-"]) == 1
    out = capsys.readouterr().out
    assert f"{project.relative(DEV)}:" in out
    assert 'HS001 schema-violation [error] at /tokens_used\n    expected integer, got string "lots"' in out
    assert '"tokens_used": "lots",' in out  # the excerpt is of the content on stdin
    assert project.unchanged()


def test_clean_content_on_stdin_passes_even_when_the_file_on_disk_is_broken(
    project: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    clean = project.text(DEV)
    project.replace(DEV, project.changed(DEV, bad_tokens))
    feed(monkeypatch, clean)
    assert main(["--stdin-filename", project.relative(DEV), "-", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []
    assert project.unchanged()


@pytest.mark.parametrize(
    ("output_format", "expected"),
    [
        ("text", "HS001 schema-violation [error] at /tokens_used"),
        ("json", '"code": "HS001"'),
        ("sarif", '"ruleId": "HS001"'),
        ("github", "::error file=.neuralrelay/handoffs/20261103-091500/02-dev-agent.json,line=127"),
        ("markdown", "HS001"),
    ],
)
def test_every_output_format_reports_content_on_stdin(
    project: Project,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    output_format: str,
    expected: str,
) -> None:
    feed(monkeypatch, project.changed(DEV, bad_tokens))
    assert main(["--format", output_format, "--stdin-filename", project.relative(DEV), "-"]) == 1
    out = capsys.readouterr().out
    assert expected in out
    assert project.relative(DEV) in out
    assert project.unchanged()


def test_nr307_content_for_a_file_not_on_disk_yet_is_checked_in_its_chain(
    project: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = project.text(REVIEW)
    project.remove(REVIEW)
    feed(monkeypatch, text.replace('"total_tokens": 75200', '"total_tokens": 10'))
    assert main(["--stdin-filename", project.relative(REVIEW), "-"]) == 1
    assert "NR307 token-total [error] at /total_tokens" in capsys.readouterr().out
    assert project.unchanged()


def test_nr301_what_the_content_breaks_in_an_earlier_handoff_is_reported(
    project: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    feed(monkeypatch, project.changed(TEST, lambda d: d["property_verification"]["confirmed"].pop(0)))
    assert main(["--stdin-filename", project.relative(TEST), "-"]) == 1
    out = capsys.readouterr().out
    assert f"{project.relative(DEV)}:92:19: NR301 unclassified-property [error]" in out


def test_stdin_filename_takes_only_dash_as_its_path(
    project: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    feed(monkeypatch, "{}")
    assert main(["--stdin-filename", project.relative(DEV), project.relative(TEST)]) == 2
    assert "give '-' as the one path" in capsys.readouterr().err


def test_bytes_on_stdin_are_checked_as_they_are(
    project: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = b"\xef\xbb\xbf" + project.text(DEV).encode("utf-8")  # a BOM: HF001
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8"))
    assert main(["--stdin-filename", project.relative(DEV), "-"]) == 1
    assert "HF001 invalid-encoding" in capsys.readouterr().out


def test_the_excerpt_of_content_that_does_not_parse_is_of_stdin_not_of_the_file_on_disk(
    project: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    feed(monkeypatch, '{\n  "handoff_type": "dev_to_test",,\n}\n')
    assert main(["--stdin-filename", project.relative(DEV), "-"]) == 1
    out = capsys.readouterr().out
    assert f"{project.relative(DEV)}:2:" in out
    assert '2 |   "handoff_type": "dev_to_test",,' in out


def test_nr301_content_on_stdin_equal_to_a_broken_file_fails_as_naming_the_file_does(
    project: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project.replace(TEST, project.changed(TEST, lambda d: d["property_verification"]["confirmed"].pop(0)))
    assert main([project.relative(TEST)]) == 1
    named = capsys.readouterr().out
    feed(monkeypatch, project.text(TEST))  # an editor sending the buffer it just saved
    assert main(["--stdin-filename", project.relative(TEST), "-"]) == 1
    assert capsys.readouterr().out == named
    assert "NR301" in named
