"""The result cache skips unchanged chains and never hides a finding."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pytest_handoff.pipeline.cache import ResultCache
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.pipeline.run import check_paths
from pytest_handoff.values.findings import Severity
from pytest_handoff.values.settings import Settings
from tests.conftest import ChainFolder

REVIEW = "04-review-agent.json"


def run(root: Path, cache: ResultCache, settings: Settings | None = None) -> list[str]:
    _, results = check_paths([], root, settings or Settings(), cache=cache, registry=default_registry())
    cache.flush()
    return [f"{f.code}@{f.line}" for r in results for f in r.findings]


def reopen(cache: ResultCache, settings: Settings | None = None) -> ResultCache:
    """The cache as the next run sees it."""
    return ResultCache(cache.directory, (settings or Settings()).fingerprint())


def test_an_unchanged_chain_is_answered_from_the_cache(
    sample_chain: ChainFolder, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = ResultCache(pytester.path / "cache", Settings().fingerprint())
    first = run(pytester.path, cache)
    import pytest_handoff.pipeline.check as engine

    def must_not_check(*args: object, **kwargs: object) -> None:
        raise AssertionError("checked again although nothing changed")

    monkeypatch.setattr(engine, "_check_contents", must_not_check)
    assert run(pytester.path, reopen(cache)) == first
    assert len(list(cache.directory.glob("*.pack.json"))) == 1


def test_a_changed_file_is_checked_again(sample_chain: ChainFolder, pytester: pytest.Pytester) -> None:
    cache = ResultCache(pytester.path / "cache", Settings().fingerprint())
    assert not any(f.startswith("NR307@") for f in run(pytester.path, cache))
    sample_chain.edit(REVIEW, lambda d: d.update(total_tokens=10))
    assert any(f.startswith("NR307@") for f in run(pytester.path, reopen(cache)))


def test_other_settings_do_not_share_entries(sample_chain: ChainFolder, pytester: pytest.Pytester) -> None:
    sample_chain.edit(REVIEW, lambda d: d["issues"][0].update(severity="high"))  # an NR212 warning
    strict = Settings(severities={"NR212": Severity.ERROR})
    directory = pytester.path / "cache"
    assert any(
        f.startswith("NR212@") for f in run(pytester.path, ResultCache(directory, Settings().fingerprint()))
    )
    _, results = check_paths(
        [],
        pytester.path,
        strict,
        cache=ResultCache(directory, strict.fingerprint()),
        registry=default_registry(),
    )
    assert results[0].failed


def test_a_corrupt_entry_is_a_miss(sample_chain: ChainFolder, pytester: pytest.Pytester) -> None:
    cache = ResultCache(pytester.path / "cache", Settings().fingerprint())
    first = run(pytester.path, cache)
    for entry in (pytester.path / "cache").rglob("*.json"):
        entry.write_text("{not json")
    assert run(pytester.path, reopen(cache)) == first


def test_pytest_reuses_results_between_runs(sample_chain: ChainFolder, pytester: pytest.Pytester) -> None:
    sample_chain.edit(REVIEW, lambda d: d.update(total_tokens=10))
    pytester.runpytest("--handoffs").assert_outcomes(failed=1)
    assert list((pytester.path / ".pytest_cache" / "d" / "handoff").rglob("*.json"))
    result = pytester.runpytest("--handoffs")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*NR307 token-total*"])


def test_a_cache_without_trace_notes_is_not_read_by_one_that_keeps_them(
    sample_chain: ChainFolder, pytester: pytest.Pytester
) -> None:
    directory = pytester.path / "cache"
    lean = ResultCache(directory, Settings().fingerprint(), keep_notes=False)
    _, results = check_paths([], pytester.path, Settings(), cache=lean, registry=default_registry())
    lean.flush()
    assert results[0].notes  # this run's own results keep their notes
    _, again = check_paths(
        [],
        pytester.path,
        Settings(),
        cache=ResultCache(directory, Settings().fingerprint(), keep_notes=False),
        registry=default_registry(),
    )
    assert again[0].from_cache
    assert again[0].notes == ()
    _, traced = check_paths([], pytester.path, Settings(), cache=reopen(lean), registry=default_registry())
    assert not traced[0].from_cache
    assert traced[0].notes == results[0].notes


def test_an_edited_module_of_the_tool_changes_the_code_digest_in_the_cache_salt(tmp_path: Path) -> None:
    from pytest_handoff.pipeline.cache import _code_digest

    module = tmp_path / "rules.py"
    module.write_text("A = 1\n")
    before = _code_digest(tmp_path)
    module.write_text("A = 22\n")
    assert _code_digest.__wrapped__(tmp_path) != before
    assert _code_digest() in ResultCache(tmp_path, "settings").salt.decode()


def test_an_unwritable_cache_folder_is_said_once_and_the_run_still_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_handoff.cli import main as lint

    shutil.copytree(Path(__file__).parents[1] / "examples" / "neuralrelay" / "broken", tmp_path / "project")
    monkeypatch.chdir(tmp_path / "project")
    (tmp_path / "file").write_text("a file where a folder should be")
    assert lint(["--cache-dir", str(tmp_path / "file" / "cache"), "."]) == 1
    err = capsys.readouterr().err
    assert err.count("cannot write the cache") == 1
    assert str(tmp_path / "file" / "cache") in err
