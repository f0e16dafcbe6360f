"""Under pytest-xdist every group is checked once, by one worker, and the others read its results."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from pytest_handoff.config import Settings
from pytest_handoff.model import GroupRef
from pytest_handoff.pipeline.discovery import discover
from pytest_handoff.pipeline.parallel import check_groups
from pytest_handoff.plugin_items import stamps
from pytest_handoff.plugin_xdist import Prefetched, checked_once
from pytest_handoff.registry import Registry, default_registry
from tests.conftest import OTHER_CHAIN, SAMPLE_CHAIN, ChainFolder, copy_chain

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="results are shared under a POSIX file lock")


def _project(tmp_path: Path) -> Path:
    handoffs = tmp_path / "project" / ".neuralrelay" / "handoffs"
    copy_chain(SAMPLE_CHAIN, handoffs / SAMPLE_CHAIN.name)
    chain = copy_chain(OTHER_CHAIN, handoffs / OTHER_CHAIN.name)
    ChainFolder(chain).edit("04-review-agent.json", lambda d: d.update(total_tokens=10))  # NR307
    return tmp_path / "project"


def _checker(root: Path, calls: list[int]) -> tuple[Sequence[GroupRef], Registry, Callable[[], Prefetched]]:
    """The project's groups, the registry and a check of them all that counts its calls."""
    registry = default_registry()
    refs = discover([], root, Settings(), registry=registry).groups

    def check() -> Prefetched:
        calls.append(1)
        results = check_groups(refs, Settings(), root, registry=registry)
        return {result.ref.paths: (stamps(result.ref.paths), result) for result in results}

    return refs, registry, check


def test_the_second_worker_reads_what_the_first_checked(tmp_path: Path) -> None:
    root, shared = _project(tmp_path), tmp_path / "shared"
    shared.mkdir()
    calls: list[int] = []
    refs, registry, check = _checker(root, calls)

    first = checked_once(shared, refs, registry, root, check)
    second = checked_once(shared, refs, registry, root, check)

    assert calls == [1]
    assert first is not None
    assert second is not None
    assert {paths: result.findings for paths, (_, result) in second.items()} == {
        paths: result.findings for paths, (_, result) in first.items()
    }
    assert any(f.code == "NR307" for _, result in second.values() for f in result.findings)
    assert [stamped for stamped, _ in second.values()] == [stamped for stamped, _ in first.values()]


def test_results_written_for_other_groups_are_not_read(tmp_path: Path) -> None:
    root, shared = _project(tmp_path), tmp_path / "shared"
    shared.mkdir()
    calls: list[int] = []
    refs, registry, check = _checker(root, calls)
    checked_once(shared, refs, registry, root, check)

    fewer = refs[:1]
    found = checked_once(shared, fewer, registry, root, check)

    assert calls == [1, 1]
    assert found is not None


def test_an_unwritable_folder_leaves_each_item_to_check_its_own_group(tmp_path: Path) -> None:
    root = _project(tmp_path)
    calls: list[int] = []
    refs, registry, check = _checker(root, calls)

    assert checked_once(tmp_path / "missing", refs, registry, root, check) is None
    assert calls == []


_COUNTING_CONFTEST = """
import os
import pytest_handoff.pipeline.check as check_module
import pytest_handoff.pipeline.parallel as parallel_module

_original = check_module.check_group


def _counted(ref, *args, **kwargs):
    with open(os.path.join(os.path.dirname(__file__), "checks.log"), "a") as log:
        log.write(f"{os.getpid()} {ref.group_id}\\n")
    return _original(ref, *args, **kwargs)


check_module.check_group = _counted
parallel_module.check_group = _counted
"""


@pytest.mark.slow
def test_under_xdist_one_worker_checks_every_group_once(
    sample_chain: ChainFolder, pytester: pytest.Pytester
) -> None:
    copy_chain(OTHER_CHAIN, pytester.path / ".neuralrelay" / "handoffs" / OTHER_CHAIN.name)
    sample_chain.edit("04-review-agent.json", lambda d: d.update(total_tokens=10))
    pytester.makeconftest(_COUNTING_CONFTEST)

    result = pytester.runpytest_subprocess("--handoffs", "-p", "no:cacheprovider", "-n", "2")

    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*NR307 token-total*"])
    checks = (pytester.path / "checks.log").read_text().split("\n")[:-1]
    assert sorted(line.split()[1] for line in checks) == sorted([SAMPLE_CHAIN.name, OTHER_CHAIN.name])
    assert len({line.split()[0] for line in checks}) == 1  # one worker checked both
    assert not list(pytester.path.glob("**/*.pickle"))  # nothing written beside the handoffs
