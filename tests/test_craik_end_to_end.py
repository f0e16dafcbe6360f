"""Craik end to end: handoff-lint on a store and on exports, --profile craik, pytest --handoffs, imports."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_handoff.cli import main
from tests.craik_helpers import CLEAN_HANDOFF, FIXTURES, clean_handoff, clean_score, copy_as_exports
from tests.probes import HEAVY_MODULES, lint_in_fresh_process
from tests.test_craik_store import as_row, build_store


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty project as the working directory of an in-process ``handoff-lint``, outside CI."""
    monkeypatch.chdir(pytester.path)
    for variable in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "FORCE_COLOR"):
        monkeypatch.delenv(variable, raising=False)
    pytester.makepyprojecttoml("[tool.handoff]\n")
    return pytester.path


def broken_store(path: Path) -> Path:
    """A store whose handoff claims validation it does not record (CK101, and its score disagrees)."""
    handoff = clean_handoff()
    handoff["tests_run"] = []
    path.parent.mkdir(parents=True, exist_ok=True)
    return build_store(path, [as_row("handoffs", handoff), as_row("handoff_quality_scores", clean_score())])


def test_handoff_lint_on_a_store_places_findings_at_store_hash_kind_id_pointer(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken_store(project / "store.sqlite3")
    assert main(["store.sqlite3", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    locations = {(f["code"], f["location"]) for f in report["findings"]}
    assert (
        "CK101",
        "store.sqlite3#handoffs/handoff_invoice_export/self_audit/validation_recorded",
    ) in locations
    assert (
        "CK204",
        "store.sqlite3#handoff_quality_scores/handoff_quality_handoff_invoice_export/components/2/score",
    ) in locations


def test_handoff_lint_prints_a_store_finding_with_its_logical_place(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken_store(project / "store.sqlite3")
    assert main(["store.sqlite3"]) == 1
    out = capsys.readouterr().out
    assert (
        "store.sqlite3#handoffs/handoff_invoice_export/self_audit/validation_recorded: "
        "CK101 validation-recorded-without-tests [error]" in out
    )


def test_profile_craik_with_no_path_checks_the_store_in_craik_home(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    home = project / "craik-home"
    monkeypatch.setenv("CRAIK_HOME", str(home))
    broken_store(home / "state" / "craik.sqlite3")
    assert main(["--profile", "craik"]) == 1
    assert (
        "craik.sqlite3#handoffs/handoff_invoice_export/self_audit/validation_recorded"
        in capsys.readouterr().out
    )


def test_profile_craik_without_a_store_says_where_it_looked(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRAIK_HOME", str(project / "nowhere"))
    assert main(["--profile", "craik"]) == 1
    out = capsys.readouterr().out
    assert "nowhere/state/craik.sqlite3: CK001 store-unreadable" in out
    assert not (project / "nowhere").exists()


def test_profile_craik_checks_the_configured_stores(
    project: Path,
    pytester: pytest.Pytester,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CRAIK_HOME", str(project / "nowhere"))
    pytester.makepyprojecttoml('[tool.handoff.craik]\nstores = ["ci/craik.sqlite3"]\n')
    broken_store(project / "ci" / "craik.sqlite3")
    assert main(["--profile", "craik"]) == 1
    out = capsys.readouterr().out
    assert "ci/craik.sqlite3#handoffs/handoff_invoice_export/self_audit/validation_recorded" in out
    assert "nowhere" not in out


def test_a_plain_run_over_the_project_checks_the_configured_stores_too(
    project: Path,
    pytester: pytest.Pytester,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CRAIK_HOME", str(project / "nowhere"))
    pytester.makepyprojecttoml('[tool.handoff.craik]\nstores = ["ci/craik.sqlite3"]\n')
    broken_store(project / "ci" / "craik.sqlite3")
    (project / ".git").mkdir()
    monkeypatch.chdir(project / "ci")  # relative to the project root, not to where it runs
    assert main([]) == 1
    out = capsys.readouterr().out
    assert "ci/craik.sqlite3#handoffs/handoff_invoice_export/self_audit/validation_recorded" in out


def test_handoff_lint_finds_exports_under_the_default_globs(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(FIXTURES / "clean", project / ".craik" / "handoffs")
    copy_as_exports(FIXTURES / "broken", project / "docs" / "handoffs")
    (project / ".craik" / "config.json").write_text('{"theme": "dark"}')  # not a record: not judged
    assert main(["--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["chains"] == 3
    assert {f["path"].rsplit("/", 1)[0] for f in report["findings"]} == {"docs/handoffs"}


def test_a_store_kept_in_the_project_under_craik_state_is_found_by_the_walk(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken_store(project / ".craik" / "state" / "craik.sqlite3")
    assert main([]) == 1
    assert ".craik/state/craik.sqlite3#handoffs/handoff_invoice_export/self_audit/validation_recorded" in (
        capsys.readouterr().out
    )


def test_pytest_collects_one_item_per_group_of_exports_and_per_named_store(pytester: pytest.Pytester) -> None:
    shutil.copytree(FIXTURES / "clean", pytester.path / ".craik" / "handoffs")
    copy_as_exports(FIXTURES / "broken", pytester.path / "docs" / "handoffs")
    broken_store(pytester.path / "store.sqlite3")
    result = pytester.runpytest(
        "--handoffs", "-p", "no:cacheprovider", "-rf", ".craik", "docs", "store.sqlite3"
    )
    result.assert_outcomes(passed=1, failed=2, warnings=6)
    result.stdout.fnmatch_lines(
        [
            "FAILED docs/handoffs::handoffs - handoff chain handoffs: *",
            "FAILED store.sqlite3::store.sqlite3 - *",
        ]
    )


def test_checking_one_craik_export_imports_no_other_profile_and_nothing_heavy(tmp_path: Path) -> None:
    export = tmp_path / "handoff_invoice_export.craik.json"
    shutil.copyfile(CLEAN_HANDOFF, export)
    (tmp_path / "pyproject.toml").write_text("[tool.handoff]\n")
    probe = lint_in_fresh_process([export.name], tmp_path)
    assert probe.code == 0
    assert probe.loaded((*HEAVY_MODULES, "sqlite3")) == []
    assert probe.formats == ["craik"]


def test_profile_craik_on_a_machine_without_craik_checks_the_exports_alone(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CRAIK_HOME", raising=False)
    monkeypatch.setenv("HOME", str(project / "home"))
    shutil.copytree(FIXTURES / "clean", project / ".craik" / "handoffs")
    assert main(["--profile", "craik"]) == 0
    assert "CK001" not in capsys.readouterr().out
