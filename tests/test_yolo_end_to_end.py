"""YOLO end to end: the linter's outputs, --profile, configuration, and pytest --handoffs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_handoff.cli import main
from tests.probes import lint_in_fresh_process
from tests.yolo_helpers import column_of, fixture_project, jsonl, write

PHASE = ".yolo-planning/phases/03-auth"
CRITIQUE = {"type": "critique_result", "phase": "03", "findings": 3, "critical": 0, "major": 1, "minor": 1}


def lint(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of our broken YOLO fixture project as the working directory (a git root)."""
    root = fixture_project("broken", tmp_path / "project")
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    for variable in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "FORCE_COLOR", "CI"):
        monkeypatch.delenv(variable, raising=False)
    return root


def test_the_json_output_places_every_yolo_finding_at_its_line_and_column(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = lint(capsys, "--format", "json")
    assert code == 1
    findings = json.loads(out)["findings"]
    by_code = {(f["code"], f["path"].rsplit("/", 1)[-1], f["line"]) for f in findings}
    assert ("YL101", "messages.jsonl", 1) in by_code
    assert ("YL303", "integration-gate-result.jsonl", 1) in by_code
    assert ("HF002", "messages.jsonl", 13) in by_code
    assert ("YL204", "v2-messages.jsonl", 1) in by_code
    critique = next(f for f in findings if f["code"] == "YL101")
    line = (project / PHASE / "messages.jsonl").read_text().splitlines()[0]
    assert (critique["column"], critique["pointer"]) == (column_of(line, '"findings": '), "/findings")
    assert len(findings) == 24  # the 23 planted before, and the critique finding left open (YL307)


def test_the_clean_fixture_project_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = fixture_project("clean", tmp_path / "clean")
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    code, out, _ = lint(capsys, "--format", "json")
    assert (code, json.loads(out)["findings"]) == (0, [])


def test_naming_one_file_checks_its_phase_folder_and_reports_that_file(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = lint(capsys, "--format", "json", f"{PHASE}/integration-gate-result.jsonl")
    assert code == 1
    findings = json.loads(out)["findings"]
    # The gate's PASS is contradicted by the department handoff, a file not named.
    assert [(f["code"], f["line"]) for f in findings] == [("YL303", 1)]
    assert findings[0]["related"][0]["path"].endswith("dept-handoff.jsonl")


def test_the_text_output_shows_the_line_of_the_jsonl_file(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = lint(capsys, "--select", "YL112", f"{PHASE}/messages.jsonl")
    assert code == 1
    assert f"{PHASE}/messages.jsonl:10:" in out
    assert "YL112 patch-over-cap [error] at /max_tasks" in out
    assert '"max_tasks": 4}' in out  # the excerpt is line 10 of the file


def test_profile_yolo_reads_a_file_outside_yolo_planning_as_yolo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    # Its first line is an artifact line, so nothing tells the file's format but --profile.
    (tmp_path / "x.jsonl").write_text(jsonl([{"id": "C1", "sev": "minor"}, CRITIQUE]))
    code, out, _ = lint(capsys, "--format", "json", "--profile", "yolo", "x.jsonl")
    assert code == 1
    assert [f["code"] for f in json.loads(out)["findings"]] == ["YL101"]


def test_a_named_jsonl_file_whose_first_object_is_a_message_is_yolos(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.jsonl").write_text(jsonl([CRITIQUE]))
    code, out, _ = lint(capsys, "--format", "json", "x.jsonl")
    assert (code, [f["code"] for f in json.loads(out)["findings"]]) == (1, ["YL101"])


def test_configured_globs_narrow_the_walk(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.handoff.yolo]\nglobs = [".yolo-planning/phases/04-*/*.jsonl"]\n'
    )
    code, out, _ = lint(capsys, "--format", "json")
    assert (code, json.loads(out)["findings"]) == (0, [])


def test_a_planning_folder_of_another_name_is_found_by_configured_globs(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".yolo-planning").rename(project / "planning")
    (project / "pyproject.toml").write_text('[tool.handoff.yolo]\nglobs = ["planning/**/*.jsonl"]\n')
    code, out, _ = lint(capsys, "--format", "json")
    findings = json.loads(out)["findings"]
    # The phase folder is still one group (YL303 across two files) and the project's
    # message-schemas.json is found beside the planning folder (YL202).
    assert code == 1
    assert {"YL303", "YL301", "YL202", "YL101"} <= {f["code"] for f in findings}
    assert all(f["path"].startswith("planning/phases/03-auth/") for f in findings)


def test_the_message_schemas_setting_says_where_the_project_file_is(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text('[tool.handoff.yolo]\nmessage-schemas = "elsewhere.json"\n')
    code, out, _ = lint(capsys, "--format", "json", f"{PHASE}/v2-messages.jsonl")
    # No message-schemas.json at the configured place: only YOLO's documented enums are checked.
    assert (code, [f["code"] for f in json.loads(out)["findings"]]) == (0, ["YL205"])
    shutil.move(project / "config" / "schemas" / "message-schemas.json", project / "elsewhere.json")
    code, out, _ = lint(capsys, "--format", "json", f"{PHASE}/v2-messages.jsonl")
    assert (code, [f["code"] for f in json.loads(out)["findings"]]) == (
        1,
        ["YL202", "YL201", "YL205", "YL204", "YL203"],
    )


def test_a_cached_result_is_not_reused_once_the_projects_message_schemas_change(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = project.parent / "cache"
    target = f"{PHASE}/v2-messages.jsonl"
    _, out, _ = lint(capsys, "--format", "json", "--cache-dir", str(cache), target)
    assert "YL201" in [f["code"] for f in json.loads(out)["findings"]]
    (project / "config" / "schemas" / "message-schemas.json").unlink()
    _, out, _ = lint(capsys, "--format", "json", "--cache-dir", str(cache), target)
    assert [f["code"] for f in json.loads(out)["findings"]] == ["YL205"]


def test_an_unknown_yolo_setting_is_refused_with_a_suggestion(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text('[tool.handoff.yolo]\nmessage_schema = "x.json"\n')
    code, _, err = lint(capsys)
    assert code == 2
    assert "did you mean 'message-schemas'?" in err


def test_explain_prints_a_yolo_rules_documentation(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = lint(capsys, "explain", "YL303")
    assert code == 0
    assert "gate-passes-blocked-handoff" in out
    assert "**Why is this bad?**" in out or "Why is this bad?" in out


def test_pytest_handoffs_collects_a_phase_folder_and_fails_it_at_its_lines(pytester: pytest.Pytester) -> None:
    write(pytester.path, f"{PHASE}/messages.jsonl", [CRITIQUE])
    write(
        pytester.path,
        ".yolo-planning/phases/04-api/messages.jsonl",
        [{**CRITIQUE, "phase": "04", "findings": 2}],
    )
    result = pytester.runpytest("--handoffs", "-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=1, failed=1)
    column = column_of(json.dumps(CRITIQUE), '"findings": ')
    result.stdout.fnmatch_lines([f"*{PHASE}/messages.jsonl:1:{column}: YL101 *"])


def test_pytest_handoffs_passes_the_clean_fixture_project(pytester: pytest.Pytester) -> None:
    fixture_project("clean", pytester.path)
    result = pytester.runpytest("--handoffs", "-p", "no:cacheprovider")
    # The phase folder, and the top-level execution state, a file of its own.
    result.assert_outcomes(passed=2)


def test_linting_one_yolo_file_imports_no_other_profile(tmp_path: Path) -> None:
    write(tmp_path, f"{PHASE}/x.jsonl", [{**CRITIQUE, "findings": 2}])
    (tmp_path / ".git").mkdir()
    probe = lint_in_fresh_process([f"{PHASE}/x.jsonl"], tmp_path)
    assert (probe.code, probe.formats) == (0, ["yolo"])
