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

from pytest_handoff.config import Settings
from pytest_handoff.documents import display_path_for
from pytest_handoff.globs import Matcher as Matcher
from pytest_handoff.globs import matches_globs as matches_globs
from pytest_handoff.profiles import Profile, load
from pytest_handoff.specs import BUILTIN_SPECS

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


class ChainRef(NamedTuple):
    """A chain before it is read: its profile, id, folder and member files in order."""

    profile: Profile
    chain_id: str
    directory: Path | None
    paths: tuple[Path, ...]

    @property
    def standalone(self) -> bool:
        return self.directory is None


def profile_for(
    path: Path,
    settings: Settings,
    relative_posix: str | None = None,
    *,
    explicit: bool = False,
    matcher: Matcher | None = None,
) -> Profile | None:
    """The profile that owns ``path``.

    A file found by walking a folder must match a profile's globs; a file named explicitly is
    also recognised by its own look (name, place, content), and ``settings.profile`` forces one.
    ``matcher``: the built-in profiles' globs under ``settings``, when the caller has them already.
    """
    if settings.profile and explicit:
        return load(settings.profile)
    if relative_posix is not None:
        owner = (matcher or Matcher(settings, plugins=False)).owner_of(path, relative_posix)
        if owner is not None:
            return owner
    if explicit:
        from pytest_handoff.profiles import all_profiles

        return next((p for p in all_profiles() if p.claims(path)), None)
    return None


def iter_handoff_files(
    directory: Path,
    root: Path,
    settings: Settings,
    listings: dict[str, list[Path]] | None = None,
    matcher: Matcher | None = None,
) -> Iterator[tuple[Path, Profile]]:
    """Handoff files below ``directory`` with their profile, skipping vendored and tool folders.

    Walks like ``os.walk`` (top-down, sorted, symbolic links to folders not entered). When
    ``listings`` is given it receives every folder's regular files (keyed by the folder's path
    as text, ``os.path.normcase``), so that chains need not list their folders again.
    """
    matcher = matcher or Matcher(settings, plugins=True)
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
                owner = matcher.owner_of(path, prefix + entry.name)
                if owner is not None:
                    yield path, owner
        if listings is not None:
            listings[os.path.normcase(current)] = regular
        pending.extend(reversed(folders))


def _under(root: Path, path: Path) -> Path:
    """A configured path: relative ones are relative to the project root."""
    return path if path.is_absolute() else root / path


_CHECKED: set[tuple[str, str]] = set()


def checked_options(profile: Profile, settings: Settings) -> None:
    """Let ``profile`` refuse its option values (ConfigError), once per profile and settings.

    Done when the profile is first used rather than when the configuration is read, so that
    configuring a format costs nothing on runs that check none of its files.
    """
    options = settings.options_of(profile.name)
    if not options:
        return
    key = (profile.name, repr(sorted(options.items(), key=lambda item: item[0])))
    if key not in _CHECKED:
        profile.check_options(dict(options), f"[tool.handoff.{profile.name}]")
        _CHECKED.add(key)


def chain_ref_for(
    profile: Profile, path: Path, settings: Settings, root: Path, listing: list[Path] | None = None
) -> ChainRef:
    """The group ``path`` belongs to, with all its member files (the profile says which).

    ``listing`` is the regular files of the group's folder, when already known.
    """
    checked_options(profile, settings)
    located = profile.chain_of(path)
    if located is None:
        return ChainRef(profile, path.stem, None, (path,))
    directory, chain_id = located
    members = profile.members(directory, chain_id, listing)
    if path not in members:
        members.append(path)
    return ChainRef(profile, chain_id, directory, tuple(sorted(members, key=profile.sort_key)))


class Discovery(NamedTuple):
    """The chains to check and, when files were named, the files to report on."""

    chains: tuple[ChainRef, ...]
    focus: frozenset[str] | None
    missing: tuple[str, ...] = ()
    # The named folders (``os.path.normcase`` text): a chain inside one is reported whole.
    folders: frozenset[str] = frozenset()


def discover(
    paths: Sequence[Path], root: Path, settings: Settings, deleted: Sequence[Path] = ()
) -> Discovery:
    """Group handoff files into chains.

    With no paths (and nothing deleted), handoffs under ``root`` matching the globs; a named
    folder is searched whatever its location; a named file brings its whole chain along
    (cross-handoff rules need it) but narrows reporting to itself.

    ``deleted`` are files a commit removes: they are left out of their chains even when still
    on disk, and a chain that loses one is checked (what is left of it) as if the deleted file
    were named, so that the gap or missing stage it leaves is reported. A chain with no file
    left is not checked.
    """
    files: list[tuple[Path, Profile | None]] = []  # None: named, its profile still to find
    focus: set[str] = set()
    missing: list[str] = []
    folders: set[str] = set()
    listings: dict[str, list[Path]] = {}
    if not paths and not deleted:
        matcher = Matcher(settings, plugins=True)
        files.extend(iter_handoff_files(root, root, settings, listings, matcher))
        if settings.profile:  # a forced profile's own sources outside the tree (a store in $HOME)
            forced = load(settings.profile)
            files.extend((_under(root, path), forced) for path in forced.default_sources(settings))
        else:  # sources named in a profile's options (Craik's stores), for configured profiles only
            for spec in BUILTIN_SPECS:
                if settings.options_of(spec.name):
                    configured = load(spec.name)
                    files.extend(
                        (_under(root, path), configured) for path in configured.configured_sources(settings)
                    )
    for given in paths:
        path = given if given.is_absolute() else (root / given)
        if path.is_dir():
            folders.add(os.path.normcase(path))
            files.extend(iter_handoff_files(path, root, settings, listings))
        elif path.is_file():
            files.append((path, None))
            focus.add(display_path_for(path, root))
        else:
            missing.append(str(given))
    gone = {os.path.normcase(given if given.is_absolute() else root / given) for given in deleted}

    # Keyed by the folder as text (normcase: one folder, however spelt): hashing a Path costs more.
    chains: dict[tuple[str, str], ChainRef] = {}
    named = Matcher(settings, plugins=False)  # once for every named file, not once each
    for path, found in files:
        profile = (
            found
            or profile_for(path, settings, display_path_for(path, root), explicit=True, matcher=named)
            or load("neuralrelay")
        )
        located = profile.chain_of(path)
        folder = os.path.normcase(located[0] if located else path)
        if (profile.name, folder) in chains:
            continue  # its chain was listed with an earlier member
        ref = chain_ref_for(profile, path, settings, root, listings.get(folder) if located else None)
        if gone:
            ref = ref._replace(paths=tuple(p for p in ref.paths if os.path.normcase(p) not in gone))
            if not ref.paths:  # named and deleted: the commit holds nothing of the chain
                continue
        chains[(profile.name, folder)] = ref
    for given in deleted:
        path = given if given.is_absolute() else (root / given)
        relative = display_path_for(path, root)
        # Where the globs look: pre-commit filters no deletion.
        owner = profile_for(path, settings, relative, matcher=named)
        located = owner.chain_of(path) if owner is not None else None
        if owner is None or located is None or not located[0].is_dir():
            continue  # not a handoff, a file on its own, or its whole chain went with it
        focus.add(relative)
        folder = os.path.normcase(located[0])
        if (owner.name, folder) in chains:
            continue
        ref = chain_ref_for(owner, path, settings, root)
        left = tuple(p for p in ref.paths if os.path.normcase(p) not in gone)
        if left:
            chains[(owner.name, folder)] = ref._replace(paths=left)
    ordered = tuple(sorted(chains.values(), key=lambda ref: str(ref.directory or ref.paths[0])))
    return Discovery(ordered, frozenset(focus) if focus else None, tuple(missing), frozenset(folders))
