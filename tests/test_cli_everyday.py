"""handoff-lint as people run it: from a subfolder, into a pipe, with typos, as a package."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_handoff.cli import SIGPIPE_STATUS, main
from pytest_handoff.pipeline.config import project_root
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.reporters.excerpt import source_excerpt
from pytest_handoff.values.findings import Finding, Severity
from tests.conftest import EXAMPLES, REPO

CHAIN_ID = "20261104-132000"
HANDOFFS = Path(".neuralrelay") / "handoffs"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of examples/broken: one chain with 10 errors, outside CI."""
    destination = tmp_path / "project"
    shutil.copytree(EXAMPLES / "neuralrelay" / "broken", destination)
    for variable in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "FORCE_COLOR"):
        monkeypatch.delenv(variable, raising=False)
    return destination


def totals(out: str) -> tuple[int, int, int]:
    """(chains, files, errors) from the text report's summary table."""
    numbers = out.splitlines()[-2].split()
    return int(numbers[0]), int(numbers[1]), int(numbers[2])


# --- item 4: run from inside a folder of the project -----------------------------------------


@pytest.mark.parametrize(
    ("folder", "args"),
    [
        (".", []),
        (HANDOFFS, []),
        (HANDOFFS, ["."]),
        (HANDOFFS, [CHAIN_ID]),
        (HANDOFFS / CHAIN_ID, []),
        (HANDOFFS / CHAIN_ID, ["."]),
        (Path(".neuralrelay"), ["handoffs"]),
    ],
)
def test_every_folder_inside_the_project_finds_the_broken_chain(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    folder: Path,
    args: list[str],
) -> None:
    monkeypatch.chdir(project / folder)
    assert main(args) == 1
    captured = capsys.readouterr()
    assert totals(captured.out) == (1, 4, 10)
    assert f".neuralrelay/handoffs/{CHAIN_ID}/01-ba-agent.json:" in captured.out
    assert captured.err == ""


def test_a_named_folder_without_handoffs_warns_on_stderr(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "docs").mkdir()
    monkeypatch.chdir(project)
    assert main(["docs"]) == 0
    captured = capsys.readouterr()
    assert captured.err.startswith("handoff-lint: warning: no handoff files in docs (")
    assert ".neuralrelay/handoffs/**/*.json" in captured.err
    assert main([str(HANDOFFS)]) == 1  # a folder with handoffs: no warning
    assert "warning" not in capsys.readouterr().err


def test_a_named_file_is_read_relative_to_the_working_directory(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(project / HANDOFFS / CHAIN_ID)
    assert main(["01-ba-agent.json"]) == 1
    out = capsys.readouterr().out
    assert f".neuralrelay/handoffs/{CHAIN_ID}/01-ba-agent.json:36:16: HS001" in out
    assert "02-dev-agent.json:" not in out  # narrowed to the named file
    assert main(["nothing.json"]) == 2
    assert capsys.readouterr().err == "handoff-lint: error: no such file or folder: nothing.json\n"


def test_the_project_root_is_the_folder_holding_neuralrelay_else_the_git_root(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "app" / ".neuralrelay" / "handoffs").mkdir(parents=True)
    (tmp_path / "repo" / "docs" / "deep").mkdir(parents=True)
    assert (
        project_root(
            tmp_path / "repo" / "app" / ".neuralrelay" / "handoffs", default_registry().project_markers()
        )
        == tmp_path / "repo" / "app"
    )
    assert (
        project_root(tmp_path / "repo" / "docs" / "deep", default_registry().project_markers())
        == tmp_path / "repo"
    )
    (tmp_path / "loose").mkdir()
    assert project_root(tmp_path / "loose", default_registry().project_markers()) == tmp_path / "loose"


# --- item 10: a reader that goes away --------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [["rules"], ["explain", "NR301"], ["--format", "github"], [], ["chain"], ["report"]],
    ids=["rules", "explain", "github", "text", "chain view", "report view"],
)
def test_a_closed_pipe_ends_the_run_quietly(project: Path, args: list[str]) -> None:
    reading, writing = os.pipe()
    os.close(reading)  # like `| head -1` that has already read its line
    try:
        run = subprocess.run(
            [sys.executable, "-m", "pytest_handoff", *args],
            cwd=project,
            stdout=writing,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
            timeout=120,
        )
    finally:
        os.close(writing)
    assert run.stderr == ""
    assert run.returncode == SIGPIPE_STATUS


def test_the_command_prints_all_it_has_and_exits_with_mains_status(project: Path) -> None:
    # The command skips the interpreter's teardown (cli.run): what it printed must still be whole.
    def command(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pytest_handoff", *args],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=120,
        )

    broken = command("--format", "json")
    assert (broken.returncode, json.loads(broken.stdout)["summary"]["errors"]) == (1, 10)
    shown = command("--help")
    assert (shown.returncode, shown.stdout.startswith("usage: handoff-lint")) == (0, True)
    bad = command("--no-such-option")
    assert (bad.returncode, "unrecognized arguments" in bad.stderr) == (2, True)


def test_output_files_are_complete_when_the_stdout_reader_goes_away(project: Path) -> None:
    reading, writing = os.pipe()
    os.close(reading)
    try:
        subprocess.run(
            [sys.executable, "-m", "pytest_handoff", "--output", "json=out.json"],
            cwd=project,
            stdout=writing,
            stderr=subprocess.PIPE,
            check=False,
            timeout=120,
        )
    finally:
        os.close(writing)
    assert '"errors": 10' in (project / "out.json").read_text(encoding="utf-8")


# --- item 14: configuration errors -----------------------------------------------------------


def config_error(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> str:
    monkeypatch.chdir(project)
    assert main(list(args)) == 2
    err: str = capsys.readouterr().err
    assert err.count("\n") == 1
    return err


def test_an_unknown_code_in_pyproject_names_the_file(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text('[tool.handoff]\nignore = ["NR999"]\n', encoding="utf-8")
    err = config_error(project, monkeypatch, capsys)
    assert err.startswith(
        f"handoff-lint: error: {project / 'pyproject.toml'}: 'ignore': 'NR999' matches no rule"
    )
    err = config_error(project, monkeypatch, capsys, "--config", str(project / "pyproject.toml"))
    assert f"{project / 'pyproject.toml'}: 'ignore'" in err


def test_pytest_names_the_pyproject_with_an_unknown_code(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml('[tool.handoff]\nignore = ["NR999"]\n')
    result = pytester.runpytest("--handoffs", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*pytest-handoff: {pytester.path / 'pyproject.toml'}: 'ignore': 'NR999'*"])


def test_an_unknown_code_on_the_command_line_says_so(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    err = config_error(project, monkeypatch, capsys, "--select", "NR999")
    assert err.startswith("handoff-lint: error: command line: 'select': 'NR999' matches no rule")


def test_config_given_a_folder_says_it_takes_a_file(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    err = config_error(project, monkeypatch, capsys, "--config", str(project))
    assert "is a folder; --config takes a file" in err
    assert "not found" not in err


def test_a_bad_severity_is_said_once(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text('[tool.handoff.severity]\nNR106 = "loud"\n', encoding="utf-8")
    err = config_error(project, monkeypatch, capsys)
    assert err.endswith(
        "pyproject.toml: 'severity': NR106 = 'loud' is not a severity (use info, warning, error)\n"
    )
    message = err.split("pyproject.toml: ")[1]
    assert message.count("severity") == 2  # the key and the explanation, no "unknown severity" on top


@pytest.mark.parametrize(
    ("key", "suggestion"),
    [("selec", "select"), ("max_rework_cycle", "max_rework_cycles"), ("serverity", "severity")],
)
def test_a_near_miss_key_gets_a_did_you_mean(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    key: str,
    suggestion: str,
) -> None:
    (project / "pyproject.toml").write_text(f'[tool.handoff]\n{key} = "NR1"\n', encoding="utf-8")
    err = config_error(project, monkeypatch, capsys)
    assert err.rstrip().endswith(f"unknown setting '{key}'; did you mean '{suggestion}'?")


def test_a_far_off_key_lists_the_known_settings(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text('[tool.handoff]\ncolour = "red"\n', encoding="utf-8")
    err = config_error(project, monkeypatch, capsys)
    assert "did you mean" not in err
    assert "(known settings: select, ignore, severity, threshold" in err


@pytest.mark.parametrize("jobs", ["0", "-1", "two"])
def test_jobs_must_be_at_least_one(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], jobs: str
) -> None:
    monkeypatch.chdir(project)
    assert main(["--jobs", jobs]) == 2
    assert "--jobs" in capsys.readouterr().err


def test_jobs_one_is_accepted(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    assert main(["--jobs", "1"]) == 1


def test_select_and_ignore_take_lower_case_codes_as_explain_does(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(project)
    assert main(["--select", "HS001"]) == 1
    upper = capsys.readouterr().out
    assert main(["--select", "hs001"]) == 1
    assert capsys.readouterr().out == upper
    assert "HS001" in upper
    assert main(["--ignore", "hs,nr"]) == 0
    assert main(["explain", "hs001"]) == 0


# --- item 15: packaging ----------------------------------------------------------------------


def test_python_m_pytest_handoff_is_handoff_lint(project: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pytest_handoff", "--version"], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0
    assert re.fullmatch(r"handoff-lint \d+\.\d+\.\d+\S*\n", run.stdout)
    broken = subprocess.run(
        [sys.executable, "-m", "pytest_handoff"], cwd=project, capture_output=True, text=True, check=False
    )
    assert broken.returncode == 1
    assert "contracts broken" in broken.stdout


def test_the_package_is_marked_typed_and_licensed() -> None:
    assert (REPO / "pytest_handoff" / "py.typed").is_file()
    license_text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License")
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert 'license = "MIT"' in pyproject
    assert "[project.urls]" in pyproject
    assert "LICENSE" in pyproject.split("[tool.hatch.build.targets.sdist]")[1]


def test_no_tracked_file_is_ignored_by_gitignore() -> None:
    if not (REPO / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--ignored", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    assert listed.stdout == ""  # e.g. examples/README.md is tracked and must not be listed


# --- issue 14: long strings ------------------------------------------------------------------


def caret_lines(value_length: int, lead: str = '  "summary": ') -> tuple[str, str]:
    line = f'{lead}"{"x" * value_length}",'
    column = len(lead) + 1
    finding = Finding(
        path="a.json",
        line=1,
        column=column,
        end_line=1,
        end_column=column + value_length + 1,
        code="NR206",
        severity=Severity.WARNING,
        message="long",
    )
    shown, carets = source_excerpt([line], finding)
    return shown, carets


def test_the_caret_line_under_a_long_value_stays_within_the_shown_excerpt() -> None:
    shown, carets = caret_lines(2_000)
    assert len(shown) <= 120
    assert carets.count("^") <= 100
    assert len(carets) <= len(shown)
    assert shown.endswith("…")


def test_the_caret_line_under_a_short_value_marks_exactly_the_value() -> None:
    shown, carets = caret_lines(3)
    assert carets.count("^") == 5  # the quotes and three characters
    assert shown[carets.index("^") : carets.index("^") + 5] == '"xxx"'


def test_a_long_value_far_right_on_its_line_is_still_marked() -> None:
    shown, carets = caret_lines(500, lead=" " * 300 + '"summary": ')
    start = carets.index("^")
    assert shown.startswith("    1 | …")
    assert shown[start] == '"'
    assert len(carets) <= len(shown)
