"""The progress bar: on a terminal for large trees only; never in CI, pipes, machine formats or pytest."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from views_helpers import generator, run

import pytest_handoff.pipeline.parallel as engine
from pytest_handoff.pipeline.discovery import discover
from pytest_handoff.pipeline.parallel import check_groups
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.values.groups import GroupRef
from pytest_handoff.values.settings import Settings
from pytest_handoff.views.progress import FileProgress, progress_bar, wants_progress


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


CLEAN_ENV: dict[str, str] = {"TERM": "xterm-256color"}


@pytest.fixture(scope="module")
def many_chains(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """80 chains: 320 files, more than the bar's threshold of 300."""
    out = tmp_path_factory.mktemp("many")
    generator().generate(out, 80, seed=3)
    return out


def test_bar_is_wanted_for_a_person_at_a_terminal() -> None:
    assert wants_progress("text", Terminal(), Terminal(), CLEAN_ENV)
    assert wants_progress("markdown", Terminal(), Terminal(), CLEAN_ENV)


@pytest.mark.parametrize("format_name", ["json", "sarif", "github"])
def test_no_bar_for_machine_formats(format_name: str) -> None:
    assert not wants_progress(format_name, Terminal(), Terminal(), CLEAN_ENV)


@pytest.mark.parametrize("variable", ["CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE"])
def test_no_bar_in_ci_logs(variable: str) -> None:
    assert not wants_progress("text", Terminal(), Terminal(), {**CLEAN_ENV, variable: "true"})


def test_no_bar_when_output_is_piped_or_captured() -> None:
    assert not wants_progress("text", io.StringIO(), Terminal(), CLEAN_ENV)  # stdout piped
    assert not wants_progress("text", Terminal(), io.StringIO(), CLEAN_ENV)  # stderr redirected
    assert not wants_progress("text", Terminal(), Terminal(), {"TERM": "dumb"})
    assert progress_bar("text") is None  # pytest's capture replaced sys.stdout and sys.stderr


def _refs(count: int, files: int) -> list[GroupRef]:
    profile = default_registry().profile("neuralrelay")
    return [
        GroupRef(
            profile,
            f"c{i}",
            Path(f"/x/c{i}"),
            tuple(Path(f"/x/c{i}/{n:02d}-dev-agent.json") for n in range(files)),
        )
        for i in range(count)
    ]


def test_bar_appears_above_the_threshold_and_goes_when_done() -> None:
    stream = Terminal()
    bar = FileProgress(stream, threshold=300)
    refs = _refs(80, 4)
    bar(refs, None)
    for ref in refs:
        bar(refs, ref)
    assert bar.done == bar.total == 320
    assert "checking handoffs" in stream.getvalue()
    assert bar._bar is None  # stopped


def test_no_bar_below_the_threshold() -> None:
    stream = Terminal()
    bar = FileProgress(stream, threshold=300)
    refs = _refs(10, 4)
    bar(refs, None)
    for ref in refs:
        bar(refs, ref)
    assert stream.getvalue() == ""


def _told(many_chains: Path, jobs: int) -> tuple[list[GroupRef | None], list[str]]:
    refs = list(discover([], many_chains, Settings(), registry=default_registry()).groups)
    told: list[GroupRef | None] = []
    results = check_groups(
        refs,
        Settings(),
        many_chains,
        jobs=jobs,
        progress=lambda _, ref: told.append(ref),
        registry=default_registry(),
    )
    return told, [result.ref.group_id for result in results]


def test_check_chains_tells_progress_of_every_chain_once(many_chains: Path) -> None:
    told, checked = _told(many_chains, jobs=1)
    assert told[0] is None
    assert [ref.group_id for ref in told[1:] if ref] == checked
    assert len(checked) == 80


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(), reason="no fork")
def test_check_chains_tells_progress_from_the_process_pool(
    many_chains: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine, "PARALLEL_THRESHOLD", 20)
    told, checked = _told(many_chains, jobs=2)
    assert sorted(ref.group_id for ref in told[1:] if ref) == sorted(checked)
    assert len(told) == 81


def test_lint_shows_no_bar_under_pytest_capture(
    many_chains: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(many_chains)
    for variable in ("CI", "GITHUB_ACTIONS"):
        monkeypatch.delenv(variable, raising=False)
    code, _out, err = run(capsys, "--jobs", "1")
    assert code == 0
    assert err == ""


def test_lint_shows_a_bar_on_a_terminal(many_chains: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_handoff.cli import main

    monkeypatch.chdir(many_chains)
    for variable in (
        "CI",
        "GITHUB_ACTIONS",
        "GITLAB_CI",
        "BUILDKITE",
        "JENKINS_URL",
        "TF_BUILD",
        "TEAMCITY_VERSION",
    ):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("TERM", "xterm")
    stdout, stderr = Terminal(), Terminal()
    monkeypatch.setattr("sys.stdout", stdout)
    monkeypatch.setattr("sys.stderr", stderr)
    assert main(["--jobs", "1"]) == 0
    assert "checking handoffs" in stderr.getvalue()
    assert "checking handoffs" not in stdout.getvalue()
    stderr.seek(0)
    stderr.truncate()
    assert main(["--jobs", "1", "--format", "json"]) == 0
    assert stderr.getvalue() == ""
    assert os.environ.get("TERM") == "xterm"
