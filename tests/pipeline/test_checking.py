"""Chains being checked on workers (:class:`pytest_handoff.pipeline.parallel.Checking`): results by
chunk, chunks nobody wants cancelled, and what was checked kept when the run ends early."""

from __future__ import annotations

from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.pipeline.parallel import Checking
from pytest_handoff.values.groups import GroupRef, GroupResult


class StoppedPool(Executor):
    """A pool whose workers are gone: shutting it down cancels what is still pending."""

    def __init__(self, futures: list[Future[Any]]) -> None:
        self.futures = futures
        self.shut = False

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.shut = True
        if cancel_futures:
            for future in self.futures:
                future.cancel()


def refs(count: int) -> list[GroupRef]:
    return [GroupRef("neuralrelay", f"chain-{n}", None, (Path(f"c{n}/a.json"),)) for n in range(count)]


def checking(done: dict[int, str]) -> tuple[Checking, list[Future[Any]], list[int], StoppedPool]:
    """Three chunks of one chain each; chunk ``n`` done with the note ``done[n]``, the others pending."""
    chains = refs(3)
    futures: list[Future[Any]] = [Future() for _ in chains]
    for number, note in done.items():
        futures[number].set_result([(note, None)])
    arrived: list[int] = []

    def arrive(index: int, parts: Any, view: Any) -> GroupResult:
        arrived.append(index)
        return GroupResult(chains[index], (), (parts,))

    pool = StoppedPool(futures)
    made = Checking(chains, [None] * 3, [([n], f) for n, f in enumerate(futures)], pool, arrive)
    return made, futures, arrived, pool


def test_a_result_is_taken_from_its_own_chunk() -> None:
    made, _, arrived, _ = checking({0: "zero", 2: "two"})
    assert made.result(2).notes == ("two",)
    assert arrived == [2]


def test_chunks_holding_no_wanted_chain_are_cancelled_and_the_others_kept() -> None:
    made, futures, _, _ = checking({})
    made.keep_only({1})
    assert [future.cancelled() for future in futures] == [True, False, True]


def test_closing_takes_in_every_chunk_checked_though_no_one_asked_for_it() -> None:
    made, futures, arrived, pool = checking({0: "zero", 1: "one"})
    assert made.result(0).notes == ("zero",)
    made.close()
    assert pool.shut
    assert sorted(arrived) == [0, 1]  # chunk 1 was checked: kept (the cache records it)
    assert futures[2].cancelled()  # chunk 2 had not started: cancelled, nothing taken in
    made.close()  # a second close does nothing
    assert sorted(arrived) == [0, 1]


def test_a_chunk_whose_check_raised_raises_when_asked_and_is_left_out_on_closing() -> None:
    made, futures, arrived, _ = checking({0: "zero"})
    futures[1].set_exception(ValueError("a rule raised"))
    with pytest.raises(ValueError, match="a rule raised"):
        made.result(1)
    made.close()
    assert arrived == [0]  # the chunk that raised is not taken in; the item checks its chain itself
