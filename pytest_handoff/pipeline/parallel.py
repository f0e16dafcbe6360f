"""Checking many groups: one process per core once there are enough groups to pay for it.

Cached results are looked up first, in this process; the rest go to workers forked with the
groups already in their memory (never pickled), and only their findings come back.
"""

from __future__ import annotations

import _thread
import gc
import os
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_handoff.pipeline.check import ResultParts, cached_result, check_group, from_parts, parts_of
from pytest_handoff.pipeline.registry import Registry
from pytest_handoff.values.groups import ExtraCheck, GroupRef, GroupResult
from pytest_handoff.values.settings import Settings

if TYPE_CHECKING:
    from concurrent.futures import Executor, Future

    from pytest_handoff.pipeline.cache import ResultCache
    from pytest_handoff.values.view_model import ChainView


#: Below this many chains a process pool costs more than it saves.
PARALLEL_THRESHOLD = 200

#: Told ``(all chains, None)`` before the first check, then ``(all chains, chain)`` as each is done.
Progress = Callable[[Sequence[GroupRef], "GroupRef | None"], None]


def _no_progress(refs: Sequence[GroupRef], done: GroupRef | None) -> None:
    pass


def check_groups(
    refs: Sequence[GroupRef],
    settings: Settings,
    root: Path,
    extra_checks: Sequence[ExtraCheck] = (),
    cache: ResultCache | None = None,
    jobs: int | None = None,
    progress: Progress | None = None,
    *,
    registry: Registry,
    summarise: bool = False,
) -> list[GroupResult]:
    """Check every chain, on several processes when there are many chains and cores.

    ``jobs`` is the most processes to use (default: one per core). ``progress`` hears of each
    chain as it is done (a progress bar for large trees).

    Cached results are looked up here first, in this process: a warm run only
    reads and hashes, and only the chains that changed go to the workers. An empty
    cache is not asked (the workers hash what they check).
    """
    checking = _start_checks(
        refs,
        settings,
        root,
        extra_checks,
        cache,
        jobs,
        progress,
        registry=registry,
        summarise=summarise,
    )
    return checking.results()


def forks_for(count: int, jobs: int | None) -> bool:
    """Whether :func:`start_checks` would check ``count`` chains on forked workers (before the cache
    is asked): enough chains, more than one process allowed, and a platform that forks."""
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    return workers >= 2 and count >= PARALLEL_THRESHOLD and _forks()


def _start_checks(
    refs: Sequence[GroupRef],
    settings: Settings,
    root: Path,
    extra_checks: Sequence[ExtraCheck] = (),
    cache: ResultCache | None = None,
    jobs: int | None = None,
    progress: Progress | None = None,
    *,
    registry: Registry,
    summarise: bool = False,
) -> Checking:
    """Start checking every chain (see :func:`check_groups`) and return at once when they go to
    forked workers: their results are then collected as they are asked for (:class:`Checking`),
    while this process does other work (pytest collects its items meanwhile). Fewer chains are
    checked here, before this returns."""
    links: dict[str, bool] = {}  # which folders are symbolic links, looked up once a run
    told = progress or _no_progress
    told(refs, None)

    def here(ref: GroupRef, extra: Sequence[ExtraCheck] = ()) -> GroupResult:
        """One group checked in this process, and told."""
        result = check_group(
            ref, settings, root, extra, cache, registry=registry, links=links, summarise=summarise
        )
        return _told(result, refs, told)

    if extra_checks or not forks_for(len(refs), jobs):
        with rarer_collections():
            return Checking(refs, [here(ref, extra_checks) for ref in refs])
    results: list[GroupResult | None] = (
        [cached_result(ref, settings, root, cache, registry=registry, links=links) for ref in refs]
        if cache is not None and not cache.empty and not summarise
        else [None] * len(refs)
    )
    for result in results:
        if result is not None:
            told(refs, result.ref)
    todo = [index for index, result in enumerate(results) if result is None]
    if len(todo) < PARALLEL_THRESHOLD:
        with rarer_collections():
            for index in todo:
                results[index] = here(refs[index])
        return Checking(refs, results)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial

    if settings.evidence:  # asked once, here: the forked workers inherit git's answers
        from pytest_handoff.pipeline.evidence import prepare_git

        prepare_git(root)

    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    check = partial(_check_chunk, settings=settings, root=root, cache=cache, summarise=summarise)
    # The workers are forked when the first task is submitted, and inherit the chains through the
    # initializer's arguments (never pickled with fork): tasks are indices, and results come
    # back without their ref (unpickling paths costs more than checking some rules).
    pool = ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_receive_refs,
        initargs=(refs, registry),
    )
    size = max(1, len(todo) // (workers * 8))
    chunks = [todo[start : start + size] for start in range(0, len(todo), size)]
    try:
        with _FORK_LOCK:  # gc.freeze is process-wide: one forking caller at a time
            # Objects the workers inherit stay out of their garbage collections, which would
            # otherwise walk (and so copy) every inherited page. A host's own freeze is left as is.
            freeze = gc.get_freeze_count() == 0
            if freeze:
                gc.freeze()
            try:
                futures = [pool.submit(check, chunk) for chunk in chunks]
            finally:
                if freeze:
                    gc.unfreeze()
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise

    def arrived(index: int, parts: ResultParts, view: ChainView | None) -> GroupResult:
        result = from_parts(refs[index], parts, registry, root)._replace(view=view)
        told(refs, refs[index])
        # The workers' copies of the cache are gone: record what they computed here.
        findings, notes, sources, stamps, key, *_ = parts
        if cache is not None and key is not None:
            cache.put(key, findings, notes, sources, stamps)
        return result

    return Checking(refs, results, list(zip(chunks, futures, strict=True)), pool, arrived)


#: What pytest calls to start checking as collection starts. check_groups calls the same function
#: by its own name, so that a test can tell the two callers apart.
start_checks = _start_checks


class Checking:
    """Chains being checked: each result once it is there, in the order of the chains.

    Results computed on workers arrive a chunk at a time; asking for one waits for its chunk
    (and raises what checking it raised). :meth:`close` ends the workers.
    """

    def __init__(
        self,
        refs: Sequence[GroupRef],
        results: list[GroupResult | None],
        chunks: Sequence[tuple[list[int], Future[list[tuple[ResultParts, ChainView | None]]]]] = (),
        pool: Executor | None = None,
        arrived: Callable[[int, ResultParts, ChainView | None], GroupResult] | None = None,
    ) -> None:
        self.refs = refs
        self._results = results
        self._chunks = chunks
        self._chunk_of = {index: number for number, (indices, _) in enumerate(chunks) for index in indices}
        self._pool = pool
        self._arrived = arrived

    def result(self, index: int) -> GroupResult:
        """The result of chain ``index``, waiting for it if it is being checked."""
        found = self._results[index]
        if found is None:
            self._take_in(self._chunk_of[index])
            found = self._results[index]
            assert found is not None
        return found

    def _take_in(self, number: int) -> None:
        """Chunk ``number``'s results, all or none (raises what checking or taking them raised)."""
        assert self._arrived is not None  # a chain without a result is in a chunk
        indices, future = self._chunks[number]
        made = [
            self._arrived(at, parts, view) for at, (parts, view) in zip(indices, future.result(), strict=True)
        ]
        for at, result in zip(indices, made, strict=True):
            self._results[at] = result

    def results(self) -> list[GroupResult]:
        """Every result, in order, once all are there; the workers are ended."""
        try:
            return [self.result(index) for index in range(len(self.refs))]
        finally:
            self.close()

    def keep_only(self, wanted: Collection[int]) -> None:
        """Cancel the chunks not yet started that hold none of the ``wanted`` chains."""
        for indices, future in self._chunks:
            if not any(index in wanted for index in indices):
                future.cancel()

    def close(self) -> None:
        """End the workers (chunks not started are cancelled, those running finish). Every chunk
        checked is taken in, asked for or not, so that a run cut short (``-x``, an interrupt)
        still leaves its results in the cache."""
        if self._pool is None:
            return
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._pool = None
        for number, (indices, future) in enumerate(self._chunks):
            if future.cancelled() or self._results[indices[0]] is not None:
                continue
            try:
                self._take_in(number)
            except Exception:  # a chunk that failed to check, or to be taken in: left out
                continue


def _forks() -> bool:
    """Whether this platform can fork workers (multiprocessing is imported only when asked: it
    costs start-up time that a small run need not pay)."""
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


#: Allocations between young-generation collections while checking (Python's default: 700).
YOUNG_COLLECTION_THRESHOLD = 10_000


@contextmanager
def rarer_collections() -> Iterator[None]:
    """Young-generation garbage collections rarer while checking: a chain's check makes many
    short-lived objects and hardly a cycle, and collecting every 700 allocations was about a
    tenth of a 10,000-file run in one process. The host's thresholds come back afterwards."""
    global _HOST_THRESHOLDS, _CHECKING
    with _THRESHOLD_LOCK:  # threads checking at once: the first one in saves, the last one out restores
        if _CHECKING == 0:
            _HOST_THRESHOLDS = gc.get_threshold()
            gc.set_threshold(_rarer(_HOST_THRESHOLDS[0]), *_HOST_THRESHOLDS[1:])
        _CHECKING += 1
    try:
        yield
    finally:
        with _THRESHOLD_LOCK:
            _CHECKING -= 1
            if _CHECKING == 0:
                gc.set_threshold(*_HOST_THRESHOLDS)


def _rarer(threshold: int) -> int:
    """A young-generation threshold no lower than ours; 0 (collection turned off) stays 0."""
    return threshold and max(threshold, YOUNG_COLLECTION_THRESHOLD)


_THRESHOLD_LOCK = _thread.allocate_lock()
_CHECKING = 0
_HOST_THRESHOLDS: tuple[int, ...] = gc.get_threshold()


def _told(result: GroupResult, refs: Sequence[GroupRef], progress: Progress) -> GroupResult:
    progress(refs, result.ref)
    return result


_FORK_LOCK = _thread.allocate_lock()
# In a worker: the groups (and the registry) of the check_groups call that forked it.
_FORKED_REFS: Sequence[GroupRef] = ()
_FORKED_REGISTRY: Registry | None = None
# In a worker: which folders are symbolic links, for all the groups it checks.
_FORKED_LINKS: dict[str, bool] = {}


def _receive_refs(refs: Sequence[GroupRef], registry: Registry) -> None:
    global _FORKED_REFS, _FORKED_REGISTRY
    _FORKED_REFS = refs
    _FORKED_REGISTRY = registry
    gc.set_threshold(_rarer(gc.get_threshold()[0]))  # see rarer_collections


def _check_chunk(
    indices: list[int], *, settings: Settings, root: Path, cache: ResultCache | None, summarise: bool
) -> list[tuple[ResultParts, ChainView | None]]:
    registry = _FORKED_REGISTRY
    assert registry is not None  # set by _receive_refs, which runs first in every worker
    found = []
    for index in indices:
        result = check_group(
            _FORKED_REFS[index],
            settings,
            root,
            (),
            cache,
            registry=registry,
            links=_FORKED_LINKS,
            summarise=summarise,
        )
        found.append((parts_of(result), result.view))
    return found
