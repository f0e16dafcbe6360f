"""Under pytest-xdist every group is checked once: each worker checks its share and reads the others'."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_handoff.pipeline.discovery import discover
from pytest_handoff.pipeline.parallel import check_groups
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.plugin.items import stamps
from pytest_handoff.plugin.xdist import SHARED_FOLDER, Prefetched, Share, check_share, read_shares, share_of
from pytest_handoff.values.groups import GroupRef
from pytest_handoff.values.settings import Settings
from tests.conftest import OTHER_CHAIN, SAMPLE_CHAIN, ChainFolder, copy_chain


def _project(tmp_path: Path) -> Path:
    handoffs = tmp_path / "project" / ".neuralrelay" / "handoffs"
    copy_chain(SAMPLE_CHAIN, handoffs / SAMPLE_CHAIN.name)
    chain = copy_chain(OTHER_CHAIN, handoffs / OTHER_CHAIN.name)
    ChainFolder(chain).edit("04-review-agent.json", lambda d: d.update(total_tokens=10))  # NR307
    return tmp_path / "project"


def _refs(root: Path) -> list[GroupRef]:
    return list(discover([], root, Settings(), registry=default_registry()).groups)


def _counted_check(root: Path, checked: list[GroupRef]) -> Callable[[Sequence[GroupRef]], Prefetched]:
    """A check of the groups it is given, as the plugin makes it, that records what it checked."""

    def check(chosen: Sequence[GroupRef]) -> Prefetched:
        checked.extend(chosen)
        results = check_groups(list(chosen), Settings(), root, jobs=1, registry=default_registry())
        return {result.ref.paths: (stamps(result.ref.paths), result) for result in results}

    return check


def test_each_worker_checks_its_share_once_and_reads_the_other_workers(tmp_path: Path) -> None:
    root, folder = _project(tmp_path), tmp_path / "shared"
    folder.mkdir()
    refs, checked = _refs(root), []
    first, second = Share(folder, 0, 2), Share(folder, 1, 2)

    own_first = check_share(first, refs, _counted_check(root, checked))
    own_second = check_share(second, refs, _counted_check(root, checked))
    read_by_first = read_shares(first, refs, default_registry(), root)

    assert sorted(ref.group_id for ref in checked) == sorted(ref.group_id for ref in refs)  # each once
    assert set(own_first).isdisjoint(own_second)
    assert set(read_by_first) == set(own_second)
    assert {paths: result.findings for paths, (_, result) in read_by_first.items()} == {
        paths: result.findings for paths, (_, result) in own_second.items()
    }
    everything = {**own_first, **read_by_first}
    assert [f.code for _, result in everything.values() for f in result.findings] == ["NR307"]


def test_shares_written_for_other_groups_are_not_read(tmp_path: Path) -> None:
    root, folder = _project(tmp_path), tmp_path / "shared"
    folder.mkdir()
    refs = _refs(root)
    check_share(Share(folder, 1, 2), refs, _counted_check(root, []))

    # As many groups as were written, but others: only the file's name (their paths) tells them apart.
    assert read_shares(Share(folder, 0, 2), refs[::-1], default_registry(), root) == {}


def test_a_share_no_worker_wrote_is_nothing_to_read(tmp_path: Path) -> None:
    root, folder = _project(tmp_path), tmp_path / "shared"
    folder.mkdir()

    assert read_shares(Share(folder, 0, 2), _refs(root), default_registry(), root) == {}


def _config(workerinput: dict[str, Any] | None) -> Any:
    return SimpleNamespace() if workerinput is None else SimpleNamespace(workerinput=workerinput)


def test_a_worker_knows_its_share_by_its_number(tmp_path: Path) -> None:
    given = {SHARED_FOLDER: str(tmp_path), "workercount": 2}

    assert share_of(_config({**given, "workerid": "gw1"})) == Share(tmp_path, 1, 2)
    assert share_of(_config({**given, "workerid": "gw2"})) == Share(tmp_path, 0, 2)
    assert share_of(_config({"workerid": "gw0", "workercount": 2})) is None  # its controller shares nothing
    assert share_of(_config(None)) is None  # not a worker


_COUNTING_CONFTEST = """
import os
import pytest_handoff.pipeline.check as check_module
import pytest_handoff.pipeline.parallel as parallel_module

_original = check_module.check_group
os.environ.pop("PYTEST_CURRENT_TEST", None)  # the outer test's, inherited: set again only while an item runs


def _counted(ref, *args, **kwargs):
    # When: at collection's end, or while an item runs (pytest sets PYTEST_CURRENT_TEST then).
    when = "item" if os.environ.get("PYTEST_CURRENT_TEST") else "collection"
    with open(os.path.join(os.path.dirname(__file__), "checks.log"), "a") as log:
        log.write(f"{ref.group_id} {when}\\n")
    return _original(ref, *args, **kwargs)


check_module.check_group = _counted
parallel_module.check_group = _counted
"""


@pytest.mark.slow
def test_under_xdist_every_group_is_checked_once_before_any_item_runs(
    sample_chain: ChainFolder, pytester: pytest.Pytester
) -> None:
    copy_chain(OTHER_CHAIN, pytester.path / ".neuralrelay" / "handoffs" / OTHER_CHAIN.name)
    sample_chain.edit("04-review-agent.json", lambda d: d.update(total_tokens=10))
    pytester.makeconftest(_COUNTING_CONFTEST)

    result = pytester.runpytest_subprocess("--handoffs", "-p", "no:cacheprovider", "-n", "2")

    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*NR307 token-total*"])
    checks = (pytester.path / "checks.log").read_text().split("\n")[:-1]
    assert sorted(checks) == sorted([f"{SAMPLE_CHAIN.name} collection", f"{OTHER_CHAIN.name} collection"])
    assert not list(pytester.path.glob("**/*.pickle"))  # nothing written beside the handoffs


_CHECKING_CONFTEST = """
import os
import pytest_handoff.pipeline.check as check_module

_original = check_module._check_contents


def _counted(ref, *args, **kwargs):  # a group checked, not taken from the cache
    with open(os.path.join(os.path.dirname(__file__), "checks.log"), "a") as log:
        log.write(f"{ref.group_id}\\n")
    return _original(ref, *args, **kwargs)


check_module._check_contents = _counted
"""


@pytest.mark.slow
def test_under_xdist_the_cache_keeps_every_shares_results_after_a_change(pytester: pytest.Pytester) -> None:
    handoffs = pytester.path / ".neuralrelay" / "handoffs"
    copy_chain(SAMPLE_CHAIN, handoffs / SAMPLE_CHAIN.name)
    other = ChainFolder(copy_chain(OTHER_CHAIN, handoffs / OTHER_CHAIN.name))
    pytester.makeconftest(_CHECKING_CONFTEST)
    log = pytester.path / "checks.log"

    def checked_in_a_run() -> list[str]:
        log.write_text("")
        pytester.runpytest_subprocess("--handoffs", "-n", "2").assert_outcomes(passed=2)
        return sorted(log.read_text().split())

    assert checked_in_a_run() == sorted([SAMPLE_CHAIN.name, OTHER_CHAIN.name])  # cold
    other.edit("04-review-agent.json", lambda d: d.update(summary=d["summary"] + " "))
    assert checked_in_a_run() == [OTHER_CHAIN.name]  # the changed chain only
    assert checked_in_a_run() == []  # and every chain's result is still kept


_HOOK_CONFTEST = """
def pytest_handoff_check_chain(chain):
    return [chain.hit(document, "", "a project rule") for document in chain.documents if document.name == "01-ba-agent.json"]
"""


@pytest.mark.slow
def test_under_xdist_a_projects_own_rule_reports_on_every_chain(pytester: pytest.Pytester) -> None:
    handoffs = pytester.path / ".neuralrelay" / "handoffs"
    copy_chain(SAMPLE_CHAIN, handoffs / SAMPLE_CHAIN.name)
    copy_chain(OTHER_CHAIN, handoffs / OTHER_CHAIN.name)
    pytester.makeconftest(_HOOK_CONFTEST)

    result = pytester.runpytest_subprocess("--handoffs", "-p", "no:cacheprovider", "-n", "2")

    result.assert_outcomes(failed=2)
    assert result.stdout.str().count("a project rule") >= 2
