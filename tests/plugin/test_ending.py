"""A session of handoff items only keeps what it collected out of later garbage collections, and
leaves a process that goes on (an in-process session, a session after it) as it was."""

from __future__ import annotations

import gc
import subprocess
import sys
from typing import cast

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


class FakeConfig:
    """A session's config, as far as the ending reads it: its stash."""

    def __init__(self) -> None:
        self.stash = pytest.Stash()


def started() -> pytest.Config:
    """A session whose configure has run."""
    config = cast(pytest.Config, FakeConfig())
    ending.session_started(config)
    return config


def collected(handoff_items_only: bool = True) -> pytest.Config:
    """A session that has started and collected (handoff items only, or not)."""
    config = started()
    ending.collected(handoff_items_only=handoff_items_only)
    return config


@pytest.fixture
def process_ends(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether the process ends with its outermost session (the pytest command), as set."""
    ends = [True]
    monkeypatch.setattr(ending, "_process_ends_with", lambda config: ends[0])
    return ends


def test_a_session_of_handoff_items_only_collects_then_freezes_and_stays_frozen_to_the_end(
    fake_gc: FakeGc, process_ends: list[bool]
) -> None:
    session = collected()
    assert (fake_gc.collections, fake_gc.frozen) == (1, 1)
    ending.session_ended(session)
    assert fake_gc.frozen == 1  # the pytest command: the process ends next


def test_a_program_that_calls_pytest_main_and_goes_on_is_thawed_at_the_sessions_end(
    fake_gc: FakeGc, process_ends: list[bool]
) -> None:
    process_ends[0] = False
    ending.session_ended(collected())
    assert fake_gc.frozen == 0


def test_a_session_that_collected_a_project_test_freezes_nothing(
    fake_gc: FakeGc, process_ends: list[bool]
) -> None:
    ending.session_ended(collected(handoff_items_only=False))
    assert (fake_gc.collections, fake_gc.frozen) == (0, 0)


def test_a_session_inside_another_thaws_at_its_end(fake_gc: FakeGc, process_ends: list[bool]) -> None:
    host = started()
    ending.session_ended(collected())
    assert fake_gc.frozen == 0
    ending.session_ended(host)


def test_a_session_whose_configure_never_reached_us_does_not_count_down(
    fake_gc: FakeGc, process_ends: list[bool]
) -> None:
    host = started()
    ending.session_ended(cast(pytest.Config, FakeConfig()))  # another plugin's configure raised
    ending.session_ended(collected())
    assert fake_gc.frozen == 0  # still nested in the host: thawed
    ending.session_ended(host)


def test_a_session_after_a_frozen_one_thaws_at_its_start(fake_gc: FakeGc, process_ends: list[bool]) -> None:
    ending.session_ended(collected())
    started()
    assert fake_gc.frozen == 0


def test_a_hosts_own_freeze_is_left_as_it_is(fake_gc: FakeGc, process_ends: list[bool]) -> None:
    fake_gc.freeze()  # the host froze before the session
    session = collected()
    assert fake_gc.collections == 0
    ending.session_ended(session)
    assert fake_gc.frozen == 1


def test_only_the_pytest_command_and_an_xdist_worker_end_with_their_session() -> None:
    worker = FakeConfig()
    worker.workerinput = {}  # type: ignore[attr-defined]
    assert ending._process_ends_with(worker)  # type: ignore[arg-type]
    program = (  # a program of its own, as one that calls pytest.main() and goes on
        "from pytest_handoff.plugin import ending\n"
        "class Config: pass\n"
        "print(ending._process_ends_with(Config()))\n"
    )
    ran = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == "False"


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
