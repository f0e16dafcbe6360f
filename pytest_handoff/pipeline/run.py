"""Discover, then check: the whole pipeline for named paths, as ``handoff-lint`` and the API run it."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_handoff.config import Settings
from pytest_handoff.model import ExtraCheck, GroupRef, GroupResult
from pytest_handoff.pipeline.discovery import Discovery, discover
from pytest_handoff.pipeline.parallel import Progress, check_groups
from pytest_handoff.read.files import display_path_for
from pytest_handoff.registry import Registry, default_registry

if TYPE_CHECKING:
    from pytest_handoff.pipeline.cache import ResultCache


def check_paths(
    paths: Sequence[Path],
    root: Path,
    settings: Settings,
    extra_checks: Sequence[ExtraCheck] = (),
    *,
    whole_chain: bool = False,
    cache: ResultCache | None = None,
    jobs: int | None = None,
    deleted: Sequence[Path] = (),
    progress: Progress | None = None,
    registry: Registry | None = None,
) -> tuple[Discovery, list[GroupResult]]:
    """Discover and check; results narrowed to named files when files were named (unless ``whole_chain``).

    ``deleted``: files the commit being checked removes (see :func:`discover`).
    """
    registry = registry or default_registry()
    discovery = discover(paths, root, settings, deleted, registry=registry)
    focus = discovery.focus
    gone: dict[str, list[str]] = {}  # deleted files by their folder
    for given in deleted:
        shown = display_path_for(given if given.is_absolute() else root / given, root)
        gone.setdefault(shown.rpartition("/")[0], []).append(shown)
    results = []
    for ref, result in zip(
        discovery.groups,
        check_groups(discovery.groups, settings, root, extra_checks, cache, jobs, progress, registry=registry),
        strict=True,
    ):
        if focus is not None and not whole_chain and not _in_named_folder(ref, discovery.folders):
            named = [display_path_for(path, root) for path in ref.paths]
            if ref.directory is not None and gone:  # a deleted file of the chain is named too
                named += gone.get(display_path_for(ref.directory, root), [])
            result = result.narrowed_to(shown for shown in named if shown in focus)
        results.append(result)
    return discovery, results


def _in_named_folder(ref: GroupRef, folders: frozenset[str]) -> bool:
    """True when a named folder contains this chain (then it is reported whole).

    Looks the chain's folder and its parents up in the named folders: linear in the number
    of chains, where comparing every chain with every named path was quadratic.
    """
    if ref.directory is None or not folders:
        return False
    return any(os.path.normcase(folder) in folders for folder in (ref.directory, *ref.directory.parents))
