"""Checking the groups while pytest collects: the workers start when discovery has found the
groups, and each item waits only for its own group's result.

pytest builds its items after discovery (one per group, and the project's own tests), then runs
them. Checking many groups goes to forked workers anyway (:mod:`pytest_handoff.pipeline.parallel`):
started at the first collection hook, they check while pytest collects and runs the items before
them, instead of after collection with pytest waiting. Only a main process starts early (an xdist
worker checks its share in its own process), and only where the groups would go to workers.
When the project's own tests run in the same session, every result is collected when collection
ends and the workers are ended then: no test of the project runs beside our process pool (a test
that forks would find its thread; its conftest hooks and test modules' imports do run during
collection). A run that may leave chains out (``-k``, a ``-m`` a handoff item fails, ``--lf``...:
see :func:`_selects`) does not start early: it checks only the selected chains, after collection.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_handoff.plugin.base import RUN_KEY, SETTINGS_KEY, Prefetched, Stamps

if TYPE_CHECKING:
    from pytest_handoff.pipeline.cache import ResultCache
    from pytest_handoff.pipeline.parallel import Checking
    from pytest_handoff.values.groups import GroupRef, GroupResult

#: The groups being checked since collection started (only where they go to forked workers).
EARLY_KEY = pytest.StashKey["EarlyChecks"]()


class EarlyChecks:
    """Groups checked on workers since collection started: each result once its item asks."""

    def __init__(self, checking: Checking, stamped: dict[tuple[Path, ...], Stamps]) -> None:
        self.checking = checking
        self.stamped = stamped  # before reading: a file a test changes later is seen as changed
        self.pid = os.getpid()  # a test run in a forked child (pytest-forked) cannot reach the pool
        self._index = {ref.paths: index for index, ref in enumerate(checking.refs)}

    def keep_only(self, refs: list[GroupRef]) -> None:
        """Only these groups were collected: chunks holding none of them and not started are dropped."""
        self.checking.keep_only({self._index[ref.paths] for ref in refs if ref.paths in self._index})

    def settle(self, refs: list[GroupRef]) -> Prefetched:
        """The results of ``refs`` (waiting for them; those that failed left out), the workers
        ended: what items read when other code runs before them."""
        self.keep_only(refs)
        try:
            found = {ref.paths: got for ref in refs if (got := self.get(ref.paths)) is not None}
        finally:
            self.close()
        return found

    def get(self, paths: tuple[Path, ...]) -> tuple[Stamps, GroupResult] | None:
        """The result of the group of ``paths``, waiting for it; None when it was not checked
        early or its checking failed (the item then checks the group itself, as it reports)."""
        index = self._index.get(paths)
        if index is None or os.getpid() != self.pid:
            return None
        try:
            return self.stamped[paths], self.checking.result(index)
        except Exception:  # a rule that raises, a worker that died, a chunk cancelled
            return None

    def close(self) -> None:
        if os.getpid() == self.pid:
            self.checking.close()


def start(
    config: pytest.Config,
    refs: tuple[GroupRef, ...],
    jobs: int | None,
    cache: Callable[[], ResultCache | None],
    stamps: Callable[[tuple[Path, ...]], Stamps],
) -> None:
    """Start checking ``refs`` on workers now, when there are enough of them and nothing asks
    to check them in this process (collect-only, a project's own chain hook). ``cache`` gives the
    run's result cache; ``stamps`` stamps a group's files."""
    from pytest_handoff.pipeline import parallel

    if (
        config.option.collectonly
        or _selects(config, refs)
        or hasattr(config, "workerinput")
        or config.hook.pytest_handoff_check_chain.get_hookimpls()
        or not parallel.forks_for(len(refs), jobs)
    ):
        return
    stamped = {ref.paths: stamps(ref.paths) for ref in refs}
    try:
        checking = parallel.start_checks(
            list(refs),
            config.stash[SETTINGS_KEY],
            config.rootpath,
            cache=cache(),
            jobs=jobs,
            registry=config.stash[RUN_KEY].registry,
        )
    except Exception:  # the groups are checked after collection, as without an early start
        return
    early = EarlyChecks(checking, stamped)
    config.stash[EARLY_KEY] = early
    config.add_cleanup(early.close)


def _selects(config: pytest.Config, refs: tuple[GroupRef, ...]) -> bool:
    """Whether the run may leave out some of the groups' items: a keyword (``-k``), a marker
    expression a handoff item fails, a ``--deselect`` inside the groups' folders, or ``--lf`` and
    ``--sw`` with failures recorded. Then only the selected groups are checked, after collection."""
    option = config.option
    if getattr(option, "keyword", ""):
        return True
    markexpr = getattr(option, "markexpr", "")
    if markexpr and not _keeps_handoff_items(markexpr):
        return True
    if any(
        _inside(config.rootpath / prefix.split("::", 1)[0], refs)
        for prefix in getattr(option, "deselect", None) or ()
    ):
        return True
    return bool(
        (getattr(option, "lf", False) and _recorded(config, "cache/lastfailed"))
        or (getattr(option, "stepwise", False) and _recorded(config, "cache/stepwise"))
    )


def _recorded(config: pytest.Config, key: str) -> bool:
    """Whether pytest's cache holds something under ``key`` (failures ``--lf`` or ``--sw`` go back to)."""
    cache = getattr(config, "cache", None)
    return cache is not None and bool(cache.get(key, None))


def _keeps_handoff_items(markexpr: str) -> bool:
    """Whether ``-m markexpr`` keeps an item marked ``handoff`` and nothing else (``not slow``)."""
    try:
        from _pytest.mark.expression import Expression

        def marked(name: str, /, **kwargs: object) -> bool:
            return name == "handoff" and not kwargs

        return bool(Expression.compile(markexpr).evaluate(marked))
    except Exception:  # pytest's own evaluation changed: take it as selecting
        return False


def _inside(deselected: Path, refs: tuple[GroupRef, ...]) -> bool:
    """Whether a ``--deselect`` path may name a group's item: a group's file or folder, or above."""
    return any(deselected == path or deselected in path.parents for ref in refs for path in ref.paths)
