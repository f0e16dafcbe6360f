"""Discovery: which files are handoffs, of which profile, and how they group.

Every profile is asked, built-in and third-party alike: a path is matched against each
profile's globs (the built-in ones are known without importing the profile), and a profile's
code is imported only when one of its files is present. A file named on the command line is
also recognised by its own look (name, place, content); ``--profile`` forces one profile.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from pytest_handoff.pipeline.matcher import Matcher
from pytest_handoff.pipeline.registry import Registry
from pytest_handoff.profiles.base import Profile
from pytest_handoff.read.files import display_path_for
from pytest_handoff.values.groups import UNCLAIMED, GroupRef
from pytest_handoff.values.settings import Settings

SKIPPED_DIRECTORIES = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        "__pycache__",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        "site-packages",
        ".eggs",
    }
)


def profile_for(
    path: Path,
    settings: Settings,
    relative_posix: str | None = None,
    *,
    explicit: bool = False,
    matcher: Matcher | None = None,
    registry: Registry,
) -> Profile | None:
    """The profile that owns ``path``.

    A file found by walking a folder must match a profile's globs; a file named explicitly is
    also recognised by its own look (name, place, content), and ``settings.profile`` forces one.
    ``matcher``: the built-in profiles' globs under ``settings``, when the caller has them already.
    """
    if settings.profile and explicit:
        return registry.profile(settings.profile)
    if relative_posix is not None:
        owner = (matcher or Matcher(settings, registry, plugins=False)).first_owner(relative_posix)
        if owner is not None and registry.profile(owner).keeps(path):
            return registry.profile(owner)
    if explicit:
        return next((p for p in registry.all_profiles() if p.claims(path, settings)), None)
    return None


def iter_handoff_files(
    directory: Path,
    root: Path,
    settings: Settings,
    listings: dict[str, list[Path]] | None = None,
    matcher: Matcher | None = None,
    *,
    registry: Registry,
) -> Iterator[tuple[Path, Profile]]:
    """Handoff files below ``directory`` with their profile, skipping vendored and tool folders.

    Walks like ``os.walk`` (top-down, sorted, symbolic links to folders not entered). When
    ``listings`` is given it receives every folder's regular files (keyed by the folder's path
    as text, ``os.path.normcase``), so that chains need not list their folders again.
    """
    matcher = matcher or Matcher(settings, registry, plugins=True)
    pending = [directory]
    while pending:
        current = pending.pop()
        try:
            with os.scandir(current) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError:
            continue
        folders: list[Path] = []
        regular: list[Path] = []
        shown = display_path_for(current, root)
        prefix = "" if shown == "." else f"{shown}/"  # display paths of the files, built by hand
        for entry in entries:
            if entry.is_dir():
                if not entry.is_symlink() and entry.name not in SKIPPED_DIRECTORIES:
                    folders.append(current / entry.name)
                continue
            path = current / entry.name  # joining to a parsed folder costs half of Path(entry.path)
            if listings is not None and entry.is_file():
                regular.append(path)
            if matcher.may_match(entry.name):
                owner = matcher.first_owner(prefix + entry.name)
                if owner is not None:
                    profile = registry.profile(owner)
                    if profile.keeps(path):
                        yield path, profile
        if listings is not None:
            listings[os.path.normcase(current)] = regular
        pending.extend(reversed(folders))


def _under(root: Path, path: Path) -> Path:
    """A configured path: relative ones are relative to the project root."""
    return path if path.is_absolute() else root / path


def group_ref_for(
    profile: Profile,
    path: Path,
    settings: Settings,
    root: Path,
    listing: list[Path] | None = None,
    *,
    registry: Registry,
) -> GroupRef:
    """The group ``path`` belongs to, with all its member files (the profile says which).

    ``listing`` is the regular files of the group's folder, when already known.
    """
    registry.checked_options(profile, settings)
    located = profile.group_of(path, settings)
    if located is None:
        return GroupRef(profile.name, path.stem, None, (path,))
    directory, group_id = located
    members = profile.members(directory, group_id, listing, settings)
    if path not in members:
        members.append(path)
    return GroupRef(profile.name, group_id, directory, tuple(sorted(members, key=profile.sort_key)))


class Discovery(NamedTuple):
    """The chains to check and, when files were named, the files to report on."""

    groups: tuple[GroupRef, ...]
    focus: frozenset[str] | None
    missing: tuple[str, ...] = ()
    # The named folders (``os.path.normcase`` text): a chain inside one is reported whole.
    folders: frozenset[str] = frozenset()


def discover(
    paths: Sequence[Path],
    root: Path,
    settings: Settings,
    deleted: Sequence[Path] = (),
    *,
    registry: Registry,
) -> Discovery:
    """Group handoff files into chains.

    With no paths (and nothing deleted), handoffs under ``root`` matching the globs; a named
    folder is searched whatever its location; a named file brings its whole chain along
    (cross-handoff rules need it) but narrows reporting to itself.

    ``deleted`` are files a commit removes: they are left out of their chains even when still
    on disk, and a chain that loses one is checked (what is left of it) as if the deleted file
    were named, so that the gap or missing stage it leaves is reported. A chain with no file
    left is not checked. A named file no profile recognises gets one finding that says so
    (HF005, see :mod:`pytest_handoff.profiles.unclaimed`).
    """
    files: list[tuple[Path, Profile | None]] = []  # None: named, its profile still to find
    focus: set[str] = set()
    missing: list[str] = []
    folders: set[str] = set()
    listings: dict[str, list[Path]] = {}
    if not paths and not deleted:
        matcher = Matcher(settings, registry, plugins=True)
        files.extend(iter_handoff_files(root, root, settings, listings, matcher, registry=registry))
        if settings.profile:  # a forced profile's own sources outside the tree (a store in $HOME)
            forced = registry.profile(settings.profile)
            files.extend((_under(root, path), forced) for path in forced.default_sources(settings))
        else:  # sources named in a profile's options (Craik's stores), for configured profiles only
            for name in registry.builtin_names():
                if settings.options_of(name):
                    configured = registry.profile(name)
                    files.extend(
                        (_under(root, path), configured) for path in configured.configured_sources(settings)
                    )
    for given in paths:
        path = given if given.is_absolute() else (root / given)
        if path.is_dir():
            folders.add(os.path.normcase(path))
            files.extend(iter_handoff_files(path, root, settings, listings, registry=registry))
        elif path.is_file():
            files.append((path, None))
            focus.add(display_path_for(path, root))
        else:
            missing.append(str(given))
    gone = {os.path.normcase(given if given.is_absolute() else root / given) for given in deleted}

    # Keyed by the folder as text (normcase: one folder, however spelt): hashing a Path costs more.
    groups: dict[tuple[str, str], GroupRef] = {}
    named = Matcher(settings, registry, plugins=False)  # once for every named file, not once each
    for path, found in files:
        profile = (
            found
            or profile_for(
                path, settings, display_path_for(path, root), explicit=True, matcher=named, registry=registry
            )
            or registry.profile(UNCLAIMED)
        )
        located = profile.group_of(path, settings)
        folder = os.path.normcase(located[0] if located else path)
        if (profile.name, folder) in groups:
            continue  # its chain was listed with an earlier member
        listing = listings.get(folder) if located else None
        ref = group_ref_for(profile, path, settings, root, listing, registry=registry)
        if gone:
            ref = ref._replace(paths=tuple(p for p in ref.paths if os.path.normcase(p) not in gone))
            if not ref.paths:  # named and deleted: the commit holds nothing of the chain
                continue
        groups[(profile.name, folder)] = ref
    for given in deleted:
        path = given if given.is_absolute() else (root / given)
        relative = display_path_for(path, root)
        # Where the globs look: pre-commit filters no deletion.
        owner = profile_for(path, settings, relative, matcher=named, registry=registry)
        located = owner.group_of(path, settings) if owner is not None else None
        if owner is None or located is None or not located[0].is_dir():
            continue  # not a handoff, a file on its own, or its whole chain went with it
        focus.add(relative)
        folder = os.path.normcase(located[0])
        if (owner.name, folder) in groups:
            continue
        ref = group_ref_for(owner, path, settings, root, registry=registry)
        left = tuple(p for p in ref.paths if os.path.normcase(p) not in gone)
        if left:
            groups[(owner.name, folder)] = ref._replace(paths=left)
    ordered = tuple(sorted(groups.values(), key=lambda ref: str(ref.directory or ref.paths[0])))
    if settings.shard is not None:  # this machine's share of the run, whole groups only
        from pytest_handoff.pipeline.shards import shard_of

        index, count = settings.shard
        ordered = tuple(ref for ref in ordered if shard_of(ref, root, count) == index)
    return Discovery(ordered, frozenset(focus) if focus else None, tuple(missing), frozenset(folders))
