"""Under pytest-xdist: every group is checked once, each worker checking its share of them, and
each worker's items report the results of every share.

Every xdist worker collects every item (xdist requires it), so none can know at collection's end
which items it will run. Worker K of N checks groups K, K+N, K+2N... of the collection (in its
own process: forking a worker, which runs execnet's threads, is not safe), and writes their
results to a folder the controller made for the run and handed to every worker. xdist hands out
no item before every worker has collected, and a worker writes its share before it says it has:
so an item whose group another worker checked finds that worker's results there, and reads them
once. Should they be missing (the worker died), the item checks its own group. The controller
removes the folder at the end; nothing is written beside the handoffs.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from pytest_handoff.pipeline.check import ResultParts, from_parts, parts_of
from pytest_handoff.pipeline.registry import Registry
from pytest_handoff.plugin.base import Prefetched, Stamps
from pytest_handoff.values.groups import GroupRef, GroupResult

#: The key of ``workerinput`` that names the folder the workers share results in.
SHARED_FOLDER = "handoff_shared_results"

#: A result as written to a share's file: its files' stamps, and the result but its ref.
_Stored = tuple[Stamps, ResultParts]


class XdistController:
    """On the xdist controller: the folder the workers share results through."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="pytest-handoff-"))

    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[SHARED_FOLDER] = str(self.folder)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def register_controller(config: pytest.Config) -> None:
    """On a run that starts xdist workers, share the groups' results among them (called when xdist is loaded)."""
    if not hasattr(config, "workerinput") and getattr(config.option, "dist", "no") != "no":
        config.pluginmanager.register(XdistController(), "handoff-xdist-controller")


class Share(NamedTuple):
    """The groups worker ``worker`` of ``workers`` checks: every ``workers``-th of the collection,
    from the ``worker``-th."""

    folder: Path
    worker: int
    workers: int

    def of(self, refs: Sequence[GroupRef], worker: int | None = None) -> Sequence[GroupRef]:
        """The share of worker ``worker`` (default: this one) of ``refs``."""
        return refs[self.worker if worker is None else worker :: self.workers]

    def path(self, refs: Sequence[GroupRef], worker: int) -> Path:
        """The file of worker ``worker``'s share of these groups (named by them: another collection's is not read)."""
        digest = hashlib.sha256(
            "\n".join("\0".join(map(str, ref.paths)) for ref in refs).encode()
        ).hexdigest()
        return self.folder / f"{digest[:32]}-{worker}-of-{self.workers}.pickle"


def share_of(config: pytest.Config) -> Share | None:
    """On an xdist worker whose controller shares results, the share it checks (None elsewhere)."""
    workerinput = getattr(config, "workerinput", {})
    folder, worker, count = (
        workerinput.get(SHARED_FOLDER),
        workerinput.get("workerid", ""),
        workerinput.get("workercount"),
    )
    if not folder or not isinstance(count, int) or count < 1 or not worker[2:].isdigit():
        return None
    # xdist numbers a worker started in place of one that died on (gw2, gw3, ...): it takes a share
    # by its number, whichever it is; a share that no worker wrote is checked by its items.
    return Share(Path(folder), int(worker[2:]) % count, count)


def check_share(
    share: Share,
    refs: Sequence[GroupRef],
    check: Callable[[Sequence[GroupRef]], Prefetched],
) -> Prefetched:
    """Check this worker's share of ``refs`` and write its results for the other workers."""
    mine = share.of(refs)
    prefetched = check(mine)
    written = share.path(refs, share.worker)
    partial = written.with_suffix(".partial")
    try:
        with open(partial, "wb") as out:
            pickle.dump([_stored(prefetched[ref.paths]) for ref in mine], out, pickle.HIGHEST_PROTOCOL)
        os.replace(partial, written)  # whole or not at all: a reader never sees half a file
    except Exception:  # not written: the other workers' items check their own groups
        pass
    return prefetched


def read_shares(share: Share, refs: Sequence[GroupRef], registry: Registry, root: Path) -> Prefetched:
    """The results the other workers wrote of their shares of ``refs`` (those that are there)."""
    found: Prefetched = {}
    for worker in range(share.workers):
        if worker == share.worker:
            continue
        theirs = share.of(refs, worker)
        try:
            with open(share.path(refs, worker), "rb") as stored:
                # Written by a worker of this run, in a folder only its controller made (mode 0700).
                entries: list[_Stored] = pickle.load(stored)
        except Exception:  # unreadable, or written by another interpreter: its items check their own groups
            continue
        if len(entries) == len(theirs):
            found.update(_rebuilt(entries, theirs, registry, root))
    return found


def _stored(entry: tuple[Stamps, GroupResult]) -> _Stored:
    stamped, result = entry
    return stamped, parts_of(result)


def _rebuilt(stored: list[_Stored], refs: Sequence[GroupRef], registry: Registry, root: Path) -> Prefetched:
    return {
        ref.paths: (stamped, from_parts(ref, parts, registry, root))
        for ref, (stamped, parts) in zip(refs, stored, strict=True)
    }
