"""``pytest_handoff.check()`` and friends: the engine in-process, for orchestrators that check before writing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import pytest_handoff
from pytest_handoff import api
from pytest_handoff.values.findings import Finding, Severity
from pytest_handoff.values.settings import Settings
from tests.agent_loop import CHAIN_ID, DEV, REVIEW, TEST, Project
from tests.conftest import REPO


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def bad_tokens(data: Any) -> None:
    # HS001 (the other handoffs still trace every acceptance criterion).
    data["tokens_used"] = "lots"


def errors(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity >= Severity.ERROR]


def test_check_is_exported_from_the_package_and_typed() -> None:
    assert pytest_handoff.check is api.check
    assert (REPO / "pytest_handoff" / "py.typed").is_file()
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        pytest_handoff.nothing  # noqa: B018


def test_importing_the_package_does_not_import_the_engine() -> None:
    probe = "import sys, pytest_handoff; print('pytest_handoff.engine' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout == "False\n"


def test_check_reads_the_file_from_disk_when_no_content_is_given(project: Project) -> None:
    assert api.check(project.path(DEV), root=project.root) == []
    project.replace(DEV, project.changed(DEV, bad_tokens))
    (finding,) = errors(api.check(project.relative(DEV), root=project.root))
    assert isinstance(finding, Finding)
    assert (finding.code, finding.pointer, finding.severity) == ("HS001", "/tokens_used", Severity.ERROR)
    assert finding.path == project.relative(DEV)
    assert finding.chain == CHAIN_ID


def test_hs001_check_takes_content_as_text_or_bytes_and_writes_nothing(project: Project) -> None:
    text = project.changed(DEV, bad_tokens)
    from_text = errors(api.check(project.relative(DEV), text, root=project.root))
    from_bytes = errors(api.check(project.relative(DEV), text.encode("utf-8"), root=project.root))
    assert [f.code for f in from_text] == ["HS001"]
    assert from_bytes == from_text
    assert from_text[0].line == text.splitlines().index('  "tokens_used": "lots",') + 1
    assert api.check(project.relative(DEV), project.text(DEV), root=project.root) == []
    assert project.unchanged()


def test_check_defaults_to_the_working_directory(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project.root)
    found = api.check(project.relative(DEV), project.changed(DEV, bad_tokens))
    assert [f.code for f in found] == ["HS001"]


def test_check_takes_settings(project: Project) -> None:
    text = project.changed(DEV, bad_tokens)
    assert [f.code for f in api.check(project.relative(DEV), text, root=project.root)] == ["HS001"]
    found = api.check(project.relative(DEV), text, root=project.root, settings=Settings(ignore=("HS001",)))
    assert found == []


def test_check_reads_the_projects_configuration(project: Project) -> None:
    (project.root / "pyproject.toml").write_text(
        '[tool.handoff]\nignore = ["HS001", "NR3"]\n', encoding="utf-8"
    )
    assert api.check(project.relative(DEV), project.changed(DEV, bad_tokens), root=project.root) == []


def test_nr307_check_of_a_new_file_uses_its_chain_on_disk(project: Project) -> None:
    text = project.text(REVIEW)
    project.remove(REVIEW)
    low = text.replace('"total_tokens": 75200', '"total_tokens": 10')
    assert [f.code for f in api.check(project.relative(REVIEW), low, root=project.root)] == ["NR307"]
    assert api.check(project.relative(REVIEW), text, root=project.root) == []
    assert not project.path(REVIEW).exists()


def test_nr301_check_reports_what_content_breaks_elsewhere_but_not_what_was_broken_before(
    project: Project,
) -> None:
    dropped = project.changed(TEST, lambda d: d["property_verification"]["confirmed"].pop(0))
    (finding,) = api.check(project.relative(TEST), dropped, root=project.root)
    assert (finding.code, finding.path) == ("NR301", project.relative(DEV))
    project.replace(DEV, project.changed(DEV, bad_tokens))  # a finding in another file, already there
    assert api.check(project.relative(TEST), project.text(TEST), root=project.root) == []


def test_check_folder_checks_a_chain_by_folder_or_by_id(project: Project) -> None:
    project.replace(DEV, project.changed(DEV, bad_tokens))
    by_folder = api.check_folder(project.chain, root=project.root)
    by_id = api.check_folder(CHAIN_ID, root=project.root)
    assert [f.code for f in by_folder] == ["HS001"]
    assert by_id == by_folder
    with pytest.raises(LookupError, match="no chain folder or chain id '20990101-000000'"):
        api.check_folder("20990101-000000", root=project.root)


def test_check_folder_says_so_when_a_folder_holds_no_handoff(project: Project) -> None:
    (project.root / "docs").mkdir()
    with pytest.raises(LookupError, match="no handoff files in docs"):
        api.check_folder("docs", root=project.root)


def test_rules_explain_and_use_instead_come_from_the_rule_table() -> None:
    codes = [rule.code for rule in api.rules()]
    assert codes == sorted(codes)
    assert {"HS001", "NR202", "NR307"} <= set(codes)
    assert all(rule.profile in (None, "neuralrelay") for rule in api.rules("neuralrelay"))
    assert [rule.code for rule in api.rules("no-such-profile") if rule.profile is not None] == []
    assert api.explain("nr202").name == "vague-coverage-gap"
    with pytest.raises(KeyError, match="XX999"):
        api.explain("XX999")
    assert api.use_instead("NR202").startswith('`"race condition when two refreshAccessToken')
    assert api.use_instead("XX999") == ""


def test_finding_data_is_plain_json_with_the_fix_hint(project: Project) -> None:
    (finding,) = errors(api.check(project.relative(DEV), project.changed(DEV, bad_tokens), root=project.root))
    data = api.finding_data(finding)
    assert data["code"] == "HS001"
    assert data["severity"] == "error"
    assert data["pointer"] == "/tokens_used"
    assert data["fix"] == "add the missing fields, fix types and values as the message says."
    assert {"rule", "message", "path", "line", "column", "end_line", "end_column", "chain"} <= set(data)


def test_hs001_a_cached_result_is_not_replayed_for_content_that_replaces_the_file(
    project: Project, tmp_path: Path
) -> None:
    from pytest_handoff.pipeline.cache import ResultCache

    settings = Settings()
    cache = ResultCache(tmp_path / "cache", settings.fingerprint())
    clean = api.check_file(project.relative(DEV), root=project.root, settings=settings, cache=cache)
    assert (clean.findings, clean.from_cache) == ((), False)
    again = api.check_file(project.relative(DEV), root=project.root, settings=settings, cache=cache)
    assert again.from_cache
    text = project.changed(DEV, bad_tokens)
    broken = api.check_file(project.relative(DEV), text, root=project.root, settings=settings, cache=cache)
    assert (broken.from_cache, [f.code for f in errors(list(broken.findings))]) == (False, ["HS001"])
    replayed = api.check_file(project.relative(DEV), text, root=project.root, settings=settings, cache=cache)
    assert replayed.from_cache
    assert replayed.findings == broken.findings
    assert project.path(DEV).read_text(encoding="utf-8") == project.text(DEV) != text


def test_content_over_the_size_limit_is_a_finding_not_a_check(project: Project) -> None:
    settings = Settings(max_file_size=100)
    (finding,) = api.check(project.relative(DEV), project.text(DEV), root=project.root, settings=settings)
    assert (finding.code, finding.line) == ("HF006", 0)
    assert "over the 100-byte limit" in finding.message
