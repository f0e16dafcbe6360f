"""``pytest --handoffs`` starts checking the chains on workers when collection starts, and each
item waits only for its own chain: the findings are those of checking after collection."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import (
    CHAIN_ID,
    OTHER_CHAIN,
    OTHER_CHAIN_ID,
    ChainFolder,
    a_test_breaking_the_review,
    copy_chain,
)

Run = Callable[..., pytest.RunResult]
REVIEW = "04-review-agent.json"
THIRD_CHAIN_ID = "20261104-101500"


@pytest.fixture
def pooled_chains(
    sample_chain: ChainFolder, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> ChainFolder:
    """The sample chain and two more: enough for the process pool (its threshold lowered)."""
    from pytest_handoff.pipeline import parallel

    for group_id in (OTHER_CHAIN_ID, THIRD_CHAIN_ID):
        copy_chain(OTHER_CHAIN, pytester.path / ".neuralrelay" / "handoffs" / group_id)
    monkeypatch.setattr(parallel, "PARALLEL_THRESHOLD", 2)
    return sample_chain


@pytest.fixture
def three_chains(pooled_chains: ChainFolder) -> ChainFolder:
    """:func:`pooled_chains`, the sample one broken (NR307)."""
    pooled_chains.edit(REVIEW, lambda d: d.update(total_tokens=10))
    return pooled_chains


@pytest.fixture
def early_starts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many chains each early start was given (one entry per start)."""
    from pytest_handoff.pipeline import parallel

    started: list[int] = []
    start_checks = parallel.start_checks

    def recording(refs: list[Any], *args: Any, **kwargs: Any) -> Any:
        started.append(len(refs))
        return start_checks(refs, *args, **kwargs)

    monkeypatch.setattr(parallel, "start_checks", recording)
    return started


def failures(result: pytest.RunResult) -> list[str]:
    """The finding lines of the run's failure reports."""
    return sorted(line for line in result.outlines if ": NR" in line or ": HS" in line)


def test_chains_checked_while_collecting_give_the_findings_of_checking_after_collection(
    three_chains: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run, early_starts: list[int]
) -> None:
    pytester.makeini("[pytest]\nhandoff_jobs = 1\n")
    after = run_handoffs()
    assert early_starts == []  # one process: checked after collection, as before
    pytester.makeini("[pytest]\nhandoff_jobs = 2\n")
    early = run_handoffs()
    assert early_starts == [3]
    after.assert_outcomes(passed=2, failed=1)
    early.assert_outcomes(passed=2, failed=1)
    assert failures(early) == failures(after)
    assert any("NR307" in line for line in failures(early))


def test_a_handoff_a_test_rewrites_after_checking_started_is_checked_as_it_is_then(
    pooled_chains: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run, early_starts: list[int]
) -> None:
    pytester.makeini("[pytest]\nhandoff_jobs = 2\n")
    pytester.makepyfile(test_pipeline=a_test_breaking_the_review(pooled_chains))
    result = run_handoffs("test_pipeline.py", ".neuralrelay")
    assert early_starts == [3]  # checked while collecting, with the review as it was then
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines([f"FAILED .neuralrelay/handoffs/{CHAIN_ID}*"])
    result.stdout.fnmatch_lines(["*04-review-agent.json:*: NR307 token-total*"])


@pytest.mark.parametrize(
    ("selecting", "early", "outcomes"),
    [
        (["-k", OTHER_CHAIN_ID], [], {"passed": 1, "deselected": 2}),
        (["-m", "not handoff"], [], {"deselected": 3}),
        (
            ["--deselect", f".neuralrelay/handoffs/{THIRD_CHAIN_ID}"],
            [],
            {"passed": 1, "failed": 1, "deselected": 1},
        ),
        # Selections every handoff item passes (an addopts' "not slow", another folder): checked early.
        (["-m", "not slow"], [3], {"passed": 2, "failed": 1}),
        (["--deselect", "tests/test_slow.py"], [3], {"passed": 2, "failed": 1}),
    ],
)
def test_a_run_that_may_leave_out_chains_checks_only_the_selected_ones_after_collection(
    three_chains: ChainFolder,
    pytester: pytest.Pytester,
    run_handoffs: Run,
    early_starts: list[int],
    selecting: list[str],
    early: list[int],
    outcomes: dict[str, int],
) -> None:
    pytester.makeini("[pytest]\nhandoff_jobs = 2\n")
    result = run_handoffs(*selecting)
    assert early_starts == early
    result.assert_outcomes(**outcomes)


def test_collect_only_starts_no_checking(
    three_chains: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_handoff.pipeline import check, parallel

    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("a chain was checked")

    for module, name in ((parallel, "start_checks"), (parallel, "check_groups"), (check, "check_group")):
        monkeypatch.setattr(module, name, fail)
    pytester.makeini("[pytest]\nhandoff_jobs = 2\n")
    result = run_handoffs("--collect-only", "-q")
    result.stdout.fnmatch_lines(["3 tests collected*"])


def test_a_chain_hook_in_the_projects_conftest_leaves_checking_to_the_items(
    three_chains: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run, early_starts: list[int]
) -> None:
    pytester.makeconftest(
        """
        def pytest_handoff_check_chain(chain, settings):
            if chain.chain_id == "20261104-101500":
                return chain.hit(chain.documents[0], "", "a project rule says no")
            return None
        """
    )
    pytester.makeini("[pytest]\nhandoff_jobs = 2\n")
    result = run_handoffs()
    assert early_starts == []  # the hook runs with each item, in this process
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*a project rule says no*"])


def test_the_projects_own_tests_run_after_the_workers_have_ended(
    three_chains: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run, early_starts: list[int]
) -> None:
    pytester.makeini("[pytest]\nhandoff_jobs = 2\n")
    pytester.makepyfile(
        test_forks="""
        import multiprocessing, threading

        def test_no_worker_or_feeding_thread_of_the_plugin_is_alive():
            assert multiprocessing.active_children() == []
            assert not [t for t in threading.enumerate() if type(t).__name__ == "_ExecutorManagerThread"]
        """
    )
    result = run_handoffs("test_forks.py", ".neuralrelay")
    assert early_starts == [3]
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*04-review-agent.json:*: NR307 token-total*"])


def test_a_chain_hook_a_conftest_brings_during_collection_is_run_by_the_items(
    three_chains: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run, early_starts: list[int]
) -> None:
    # Loaded when pytest collects .neuralrelay/, after checking started: its hook still runs.
    (pytester.path / ".neuralrelay" / "conftest.py").write_text(
        "def pytest_handoff_check_chain(chain, settings):\n"
        "    if chain.chain_id == '20261104-101500':\n"
        "        return chain.hit(chain.documents[0], '', 'a project rule says no')\n"
        "    return None\n",
        encoding="utf-8",
    )
    pytester.makeini("[pytest]\nhandoff_jobs = 2\n")
    result = run_handoffs()
    assert early_starts == [3]
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*a project rule says no*"])


def cached_entries(pytester: pytest.Pytester) -> int:
    """How many chain results pytest's cache holds for the plugin."""
    packs = (pytester.path / ".pytest_cache" / "d" / "handoff").glob("*.pack.json")
    return sum(len(json.loads(pack.read_text(encoding="utf-8"))["entries"]) for pack in packs)


def test_what_the_workers_checked_reaches_the_cache_when_x_ends_the_run(
    three_chains: ChainFolder, pytester: pytest.Pytester, early_starts: list[int]
) -> None:
    pytester.makeini("[pytest]\nhandoff_jobs = 2\n")
    result = pytester.runpytest("--handoffs", "-x")  # the broken sample chain is collected first
    assert early_starts == [3]
    result.assert_outcomes(failed=1)
    assert cached_entries(pytester) >= 2  # not only the one chain whose item ran


def test_a_run_of_some_chains_keeps_the_others_cached(
    three_chains: ChainFolder, pytester: pytest.Pytester
) -> None:
    pytester.makeini("[pytest]\nhandoff_jobs = 2\n")
    pytester.runpytest("--handoffs").assert_outcomes(passed=2, failed=1)
    assert cached_entries(pytester) == 3
    other = ChainFolder(pytester.path / ".neuralrelay" / "handoffs" / OTHER_CHAIN_ID)
    other.edit(REVIEW, lambda d: d.update(total_tokens=10))  # its result is new: the cache is written
    pytester.runpytest("--handoffs", "-k", OTHER_CHAIN_ID).assert_outcomes(failed=1, deselected=2)
    assert cached_entries(pytester) == 4  # the next whole run finds the other two still cached


class WaitedInChild(BaseException):
    """Raised by a future a forked child must never wait on (it would wait for ever)."""


def test_an_item_run_in_a_forked_child_checks_its_chain_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    # pytest-forked runs each test in a child, which has no thread to take the workers' results in.
    from concurrent.futures import Future
    from pathlib import Path

    from pytest_handoff.pipeline.parallel import Checking
    from pytest_handoff.plugin import early
    from pytest_handoff.values.groups import GroupRef, GroupResult

    class Unreachable(Future[Any]):
        def result(self, timeout: float | None = None) -> Any:
            raise WaitedInChild

    ref = GroupRef("neuralrelay", "c", None, (Path("c/a.json"),))

    def arrived(index: int, parts: Any, view: Any) -> GroupResult:
        return GroupResult(ref, (), ())

    checks = early.EarlyChecks(
        Checking([ref], [None], [([0], Unreachable())], None, arrived), {ref.paths: ()}
    )
    monkeypatch.setattr(checks, "pid", checks.pid + 1)  # as if this process were the forked child
    assert checks.get(ref.paths) is None
