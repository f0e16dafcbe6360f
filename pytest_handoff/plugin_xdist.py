"""Under pytest-xdist: every group is checked once, by the first worker that needs the results,
on every core; the other workers wait for them and read them (pytest-mypy shares its run alike).

Every xdist worker collects every item, so a worker cannot know at collection's end which items
it will run. Checking each item in the worker that runs it checks every group once, but on one
core per worker, after each worker has paid for its own start-up and collection. Here the first
worker checks all groups with the process pool that a run without xdist uses, while the others
wait on a lock; then every worker's items only report. The controller makes a private folder
for the results and hands its path to each worker; it removes the folder at the end.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_handoff.model import Finding, GroupRef, GroupResult, Stamp
from pytest_handoff.pipeline.check import GroupNames, result_of
from pytest_handoff.registry import Registry

if TYPE_CHECKING:
    from pytest_handoff.plugin_items import Stamps

#: The key of ``workerinput`` that names the folder the workers share results in.
SHARED_FOLDER = "handoff_shared_results"

#: Results by a group's paths, each with its files' stamps from before they were read.
Prefetched = dict[tuple[Path, ...], tuple["Stamps", GroupResult]]
#: A result as written to the shared file: what it holds but its ref (rebuilt from the worker's own).
_Stored = tuple[
    "Stamps",
    tuple[Finding, ...],
    tuple[str, ...],
    dict[str, tuple[str, ...]],
    tuple[Stamp, ...],
    "str | None",
    GroupNames,
]


class XdistController:
    """On the xdist controller: the folder the workers share results through."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="pytest-handoff-"))

    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[SHARED_FOLDER] = str(self.folder)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def register_controller(config: pytest.Config) -> None:
    """On a run that starts xdist workers, share the groups' results among them."""
    if (
        config.pluginmanager.hasplugin("xdist")
        and not hasattr(config, "workerinput")
        and getattr(config.option, "dist", "no") != "no"
        and _can_lock()
    ):
        config.pluginmanager.register(XdistController(), "handoff-xdist-controller")


def shared_folder(config: pytest.Config) -> Path | None:
    """On an xdist worker, the folder its controller shares results in (None elsewhere)."""
    given = getattr(config, "workerinput", {}).get(SHARED_FOLDER)
    return Path(given) if given else None


def checked_once(
    folder: Path,
    refs: Sequence[GroupRef],
    registry: Registry,
    root: Path,
    check: Callable[[], Prefetched],
) -> Prefetched | None:
    """The results of ``refs``: read from ``folder`` if another worker checked them, else checked
    here (``check``) and written there for the others. None when they cannot be shared (then each
    item checks its own group).

    The workers' collections are equal (xdist requires it); a digest of the groups' paths makes
    sure, and a folder written for other groups is not read.
    """
    import fcntl

    digest = hashlib.sha256("\n".join("\0".join(map(str, ref.paths)) for ref in refs).encode()).hexdigest()
    results = folder / f"{digest}.pickle"
    try:
        lock = open(folder / f"{digest}.lock", "ab")  # noqa: SIM115 (held across the check below)
    except OSError:
        return None
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released on close, or by the system if this worker dies
        try:
            with open(results, "rb") as stored:
                # Our own file, in a folder only this run's controller made (mode 0700).
                return _rebuilt(pickle.load(stored), refs, registry, root)
        except FileNotFoundError:
            pass
        prefetched = check()
        written = results.with_suffix(".partial")
        with open(written, "wb") as out:
            pickle.dump([_stored(prefetched[ref.paths]) for ref in refs], out, pickle.HIGHEST_PROTOCOL)
        os.replace(written, results)
        return prefetched


def _can_lock() -> bool:
    try:
        import fcntl  # noqa: F401  (POSIX only: elsewhere every worker checks its own items)
    except ImportError:
        return False
    return True


def _stored(entry: tuple[Stamps, GroupResult]) -> _Stored:
    stamped, result = entry
    names = (dict(result.shown_paths), result.masked_id)
    return stamped, result.findings, result.notes, dict(result.sources), result.stamps, result.cache_key, names


def _rebuilt(stored: list[_Stored], refs: Sequence[GroupRef], registry: Registry, root: Path) -> Prefetched:
    prefetched: Prefetched = {}
    for ref, (stamped, findings, notes, sources, stamps, key, names) in zip(refs, stored, strict=True):
        profile = registry.profile(ref.profile)
        result = result_of(ref, profile, root, findings, notes, sources, stamps, cache_key=key, names=names)
        prefetched[ref.paths] = (stamped, result)
    return prefetched
