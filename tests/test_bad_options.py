"""A format's bad option is one clean line naming the file and the key, under pytest and handoff-lint."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_handoff.cli import main

MISSING_SCHEMA = '[tool.handoff.contracts.work]\nglobs = ["h/*.json"]\nschema = "missing.json"\n'
BAD_TOLERANCE = '[tool.handoff.trinity]\ntimestamp-tolerance-ms = "1s"\n'


def project(root: Path, pyproject: str) -> None:
    (root / "pyproject.toml").write_text(pyproject)
    (root / "h").mkdir()
    for name in ("a.json", "b.json"):
        (root / "h" / name).write_text("{}")
    workspace = root / "ws" / "handoff"
    workspace.mkdir(parents=True)
    (workspace / "dev-2026-04-02T10_00_00.000Z.json").write_text("{}")


@pytest.mark.parametrize(
    ("pyproject", "named"),
    [(MISSING_SCHEMA, "contract 'work': schema"), (BAD_TOLERANCE, "timestamp-tolerance-ms")],
)
def test_handoff_lint_names_the_configuration_file_and_the_key(
    git_project: Path, capsys: pytest.CaptureFixture[str], pyproject: str, named: str
) -> None:
    project(git_project, pyproject)
    assert main(["."]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "pyproject.toml" in err
    assert named in err


@pytest.mark.slow
@pytest.mark.parametrize(
    "pyproject", [MISSING_SCHEMA, BAD_TOLERANCE], ids=["missing schema", "bad tolerance"]
)
def test_pytest_reports_a_bad_option_once_without_a_traceback(
    pytester: pytest.Pytester, pyproject: str
) -> None:
    project(pytester.path, pyproject)
    result = pytester.runpytest("--handoffs", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if "pyproject.toml" in line]
    assert len(errors) == 1
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
