"""A session of handoff items only keeps what it collected out of later garbage collections, and
leaves a process that goes on (an in-process session, a session after it) as it was."""

from __future__ import annotations

import gc

import pytest

from pytest_handoff.plugin import ending
from tests.conftest import ChainFolder


class FakeGc:
    """gc's freeze, unfreeze, freeze count and collect, counted and not done."""

    def __init__(self) -> None:
        self.frozen = 0
        self.collections = 0

    def freeze(self) -> None:
        self.frozen = 1

    def unfreeze(self) -> None:
        self.frozen = 0

    def get_freeze_count(self) -> int:
        return self.frozen

    def collect(self, generation: int = 2) -> int:
        self.collections += 1
        return 0


@pytest.fixture
def fake_gc(monkeypatch: pytest.MonkeyPatch) -> FakeGc:
    fake = FakeGc()
    for name in ("freeze", "unfreeze", "get_freeze_count", "collect"):
        monkeypatch.setattr(gc, name, getattr(fake, name))
    monkeypatch.setattr(ending, "_depth", 0)
    monkeypatch.setattr(ending, "_frozen", False)
    return fake


def test_a_session_of_handoff_items_only_collects_then_freezes_and_stays_frozen_to_the_end(
    fake_gc: FakeGc,
) -> None:
    ending.session_started()
    ending.collected(handoff_items_only=True)
    assert (fake_gc.collections, fake_gc.frozen) == (1, 1)
    ending.session_ended()
    assert fake_gc.frozen == 1  # the outermost session: the process ends next


def test_a_session_that_collected_a_project_test_freezes_nothing(fake_gc: FakeGc) -> None:
    ending.session_started()
    ending.collected(handoff_items_only=False)
    ending.session_ended()
    assert (fake_gc.collections, fake_gc.frozen) == (0, 0)


def test_a_session_inside_another_thaws_at_its_end(fake_gc: FakeGc) -> None:
    ending.session_started()  # the host's
    ending.session_started()  # an in-process one
    ending.collected(handoff_items_only=True)
    ending.session_ended()
    assert fake_gc.frozen == 0
    ending.session_ended()


def test_a_session_after_a_frozen_one_thaws_at_its_start(fake_gc: FakeGc) -> None:
    ending.session_started()
    ending.collected(handoff_items_only=True)
    ending.session_ended()
    ending.session_started()
    assert fake_gc.frozen == 0


def test_a_hosts_own_freeze_is_left_as_it_is(fake_gc: FakeGc) -> None:
    fake_gc.freeze()  # the host froze before the session
    ending.session_started()
    ending.collected(handoff_items_only=True)
    assert fake_gc.collections == 0
    ending.session_started()  # a nested one
    ending.session_ended()
    assert fake_gc.frozen == 1


FREEZE_PROBE = """
import gc
import pytest

@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    print(f"freeze count at the end: {'some' if gc.get_freeze_count() else 'none'}")
"""


@pytest.mark.slow
@pytest.mark.parametrize(("project_test", "frozen"), [(False, "some"), (True, "none")])
def test_pytest_freezes_a_session_of_handoff_items_only_and_no_other(
    sample_chain: ChainFolder, pytester: pytest.Pytester, project_test: bool, frozen: str
) -> None:
    pytester.makeconftest(FREEZE_PROBE)
    if project_test:
        pytester.makepyfile(test_app="def test_app():\n    assert True\n")
    result = pytester.runpytest_subprocess("--handoffs", "-p", "no:cacheprovider", "-s")
    result.assert_outcomes(passed=2 if project_test else 1)
    result.stdout.fnmatch_lines([f"freeze count at the end: {frozen}"])


def test_an_in_process_session_of_handoff_items_only_leaves_its_host_unfrozen(
    sample_chain: ChainFolder, pytester: pytest.Pytester
) -> None:
    before = gc.get_freeze_count()
    result = pytester.runpytest_inprocess("--handoffs", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert gc.get_freeze_count() == before
