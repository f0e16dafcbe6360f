"""Discover, then check: the whole pipeline for named paths, as ``handoff-lint`` and the API run it."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_handoff.pipeline.discovery import Discovery, discover
from pytest_handoff.pipeline.parallel import Progress, check_groups
from pytest_handoff.pipeline.registry import Registry, default_registry
from pytest_handoff.read.files import display_path_for
from pytest_handoff.values.groups import ExtraCheck, GroupRef, GroupResult
from pytest_handoff.values.settings import Settings

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
    gone: dict[str, list[str]] = {}  # deleted files by their folder
    for given in deleted:
        shown = display_path_for(given if given.is_absolute() else root / given, root)
        gone.setdefault(shown.rpartition("/")[0], []).append(shown)
    results = []
    for ref, result in zip(
        discovery.groups,
        check_groups(
            discovery.groups, settings, root, extra_checks, cache, jobs, progress, registry=registry
        ),
        strict=True,
    ):
        named = None if whole_chain else reported_files(ref, discovery, root, gone)
        results.append(result if named is None else result.narrowed_to(named))
    return discovery, results


def reported_files(
    ref: GroupRef, discovery: Discovery, root: Path, gone: Mapping[str, list[str]] | None = None
) -> list[str] | None:
    """The display paths of a group's files named on the command line, which its report is narrowed
    to; None when it is reported whole (nothing was named, or a named folder holds it).

    ``gone`` are deleted files by their folder: a deleted file of the group counts as named. The
    pytest plugin makes one item of each of these files (``handoff-lint`` and pytest agree).
    """
    if discovery.focus is None or _in_named_folder(ref, discovery.folders):
        return None
    named = [display_path_for(path, root) for path in ref.paths]
    if ref.directory is not None and gone:
        named += gone.get(display_path_for(ref.directory, root), [])
    return [shown for shown in named if shown in discovery.focus]


def _in_named_folder(ref: GroupRef, folders: frozenset[str]) -> bool:
    """True when a named folder holds this group (then it is reported whole): its folder, or the
    folder of a file on its own.

    Looks the folder and its parents up in the named folders: linear in the number of groups,
    where comparing every group with every named path was quadratic.
    """
    if not folders:
        return False
    folder = ref.directory if ref.directory is not None else ref.paths[0].parent
    return any(os.path.normcase(place) in folders for place in (folder, *folder.parents))
