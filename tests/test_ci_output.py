"""What handoff-lint and pytest --handoffs write in GitHub Actions: pure stdout, the step summary."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from pytest_handoff.cli import main
from pytest_handoff.reporters import ReportContext, Summary, write_reports
from pytest_handoff.reporters.markdown import MarkdownReporter
from pytest_handoff.values.findings import Finding, Severity
from pytest_handoff.values.groups import GroupRef, GroupResult
from tests.conftest import EXAMPLES

BROKEN_CHAIN = ".neuralrelay/handoffs/20261104-132000"


@pytest.fixture
def broken_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """examples/broken (10 errors) as the working directory, in GitHub Actions without a summary."""
    project = tmp_path / "project"
    shutil.copytree(EXAMPLES / "neuralrelay" / "broken", project)
    monkeypatch.chdir(project)
    for variable in (
        "GITHUB_STEP_SUMMARY",
        "GITHUB_WORKSPACE",
        "GITHUB_SERVER_URL",
        "GITHUB_SHA",
        "FORCE_COLOR",
    ):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    return project


def finding(path: str, line: int, severity: Severity, message: str = "broken") -> Finding:
    return Finding(path=path, line=line, column=1, code="USER", severity=severity, message=message)


def chain(group_id: str, *findings: Finding) -> GroupResult:
    paths = (Path(f"handoffs/{group_id}/01.json"),)
    ref = GroupRef("neuralrelay", group_id, Path(f"handoffs/{group_id}"), paths)
    return GroupResult(ref=ref, findings=findings, notes=())


def markdown(results: list[GroupResult], context: ReportContext, max_bytes: int | None = None) -> str:
    reporter = MarkdownReporter(io.StringIO(), context, max_bytes=max_bytes)
    summary = Summary()
    for result in results:
        summary.add(result)
        reporter.handle(result)
    return reporter.render(summary)


# --- stdout stays the format asked for --------------------------------------------------------


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_machine_readable_stdout_stays_valid_json_in_actions_with_annotations_on_stderr(
    broken_project: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    assert main(["--format", fmt]) == 1
    captured = capsys.readouterr()
    json.loads(captured.out)  # no ::error lines mixed in
    assert "::error " not in captured.out
    errors = [line for line in captured.err.splitlines() if line.startswith("::error ")]
    assert len(errors) == 10


def test_text_stdout_in_actions_carries_the_annotations(
    broken_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([]) == 1
    captured = capsys.readouterr()
    assert sum(line.startswith("::error ") for line in captured.out.splitlines()) == 10
    assert "::error" not in captured.err


# --- the step summary ------------------------------------------------------------------------


def test_an_unwritable_step_summary_is_a_warning_and_the_lint_result_stands(
    broken_project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(broken_project / "no-such-folder" / "summary.md"))
    assert main([]) == 1  # not 2: the findings are still the result
    captured = capsys.readouterr()
    assert "handoff-lint: warning: cannot write the step summary" in captured.err
    assert "internal error" not in captured.err
    assert "contracts broken" in captured.out


def test_a_writable_step_summary_gets_the_markdown_report(
    broken_project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = broken_project / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main([]) == 1
    assert "**10 errors**" in summary.read_text(encoding="utf-8")
    assert "warning" not in capsys.readouterr().err


def test_pytest_with_an_unwritable_step_summary_warns_without_a_traceback(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(EXAMPLES / "neuralrelay" / "broken" / ".neuralrelay", pytester.path / ".neuralrelay")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(pytester.path / "no-such-folder" / "summary.md"))
    result = pytester.runpytest("--handoffs", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*handoff: warning: cannot write the step summary*", "::error *"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in result.stdout.str()


def test_the_summary_under_its_size_limit_keeps_the_broken_chain_before_warnings() -> None:
    warned = chain("a-warned", *(finding("handoffs/a/01.json", n, Severity.WARNING) for n in range(1, 200)))
    broken = chain("b-broken", finding("handoffs/b/01.json", 7, Severity.ERROR, "the broken contract"))
    text = markdown([warned, broken], ReportContext(root=Path(".")), max_bytes=4_000)
    assert "the broken contract" in text
    assert text.index("b-broken") < text.index("a-warned")
    assert "findings were left out" in text


def test_within_a_chain_errors_come_before_warnings_and_notes() -> None:
    mixed = chain(
        "c",
        finding("handoffs/c/01.json", 1, Severity.INFO, "a note"),
        finding("handoffs/c/01.json", 2, Severity.WARNING, "a warning"),
        finding("handoffs/c/01.json", 3, Severity.ERROR, "an error"),
    )
    text = markdown([mixed], ReportContext(root=Path(".")))
    assert text.index("an error") < text.index("a warning") < text.index("a note")


def test_the_summary_overflow_line_does_not_send_readers_to_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", "/tmp/summary.md")
    many = chain("c", *(finding("handoffs/c/01.json", n, Severity.ERROR) for n in range(1, 300)))
    stream = io.StringIO()
    with monkeypatch.context() as patched:
        patched.setattr(MarkdownReporter, "max_bytes", 3_000)
        write_reports([many], [("markdown", stream)], Path("."))
    footer = stream.getvalue().rstrip().splitlines()[-1]
    assert "left out" in footer
    assert "job summary" not in footer
    assert "See the job log for the full list." in footer


def test_annotations_overflow_still_points_at_the_job_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", "/tmp/summary.md")
    many = chain("c", *(finding("handoffs/c/01.json", n, Severity.ERROR) for n in range(1, 20)))
    stream = io.StringIO()
    write_reports([many], [("github", stream)], Path("."))
    assert "see the job summary for the full list" in stream.getvalue().splitlines()[-1]


def test_summary_links_open_the_file_at_the_line_on_github(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")
    monkeypatch.setenv("GITHUB_REPOSITORY", "octo/handoffs")
    monkeypatch.setenv("GITHUB_SHA", "0123abc")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    broken = chain("b", finding("handoffs/b/01 x.json", 7, Severity.ERROR))
    stream = io.StringIO()
    write_reports([broken], [("markdown", stream)], tmp_path / "sub")
    assert (
        "(https://github.com/octo/handoffs/blob/0123abc/sub/handoffs/b/01%20x.json#L7)" in stream.getvalue()
    )


def test_summary_links_stay_relative_without_the_repository_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for variable in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("GITHUB_REPOSITORY", "octo/handoffs")  # one of three is not enough
    stream = io.StringIO()
    write_reports(
        [chain("b", finding("handoffs/b/01.json", 7, Severity.ERROR))], [("markdown", stream)], Path(".")
    )
    assert "(handoffs/b/01.json#L7)" in stream.getvalue()
    assert "github.com" not in stream.getvalue()
