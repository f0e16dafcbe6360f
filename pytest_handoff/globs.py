"""Globs: which profile's files a relative path is, decided without importing any profile.

``**`` spans folders; a pattern matches at any depth unless it starts with ``/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

from pytest_handoff.specs import BUILTIN_SPECS

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_handoff.config import Settings
    from pytest_handoff.profiles.base import Profile


@cache
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A glob as a regex over POSIX relative paths; ``**`` spans folders.

    A pattern matches at any depth unless it starts with ``/``.
    """
    anchored = pattern.startswith("/")
    body = pattern.lstrip("/")
    out: list[str] = []
    index = 0
    while index < len(body):
        if body.startswith("**/", index):
            out.append("(?:[^/]*/)*")
            index += 3
        elif body.startswith("**", index):
            out.append(".*")
            index += 2
        elif body[index] == "*":
            out.append("[^/]*")
            index += 1
        elif body[index] == "?":
            out.append("[^/]")
            index += 1
        else:
            out.append(re.escape(body[index]))
            index += 1
    prefix = "" if anchored else "(?:.*/)?"
    return re.compile(prefix + "".join(out))


def matches_globs(relative_posix: str, globs: Iterable[str]) -> bool:
    return any(_glob_regex(glob).fullmatch(relative_posix) for glob in globs)


class _Owner(NamedTuple):
    """One profile's globs as compiled patterns, with the file-name endings they can match."""

    name: str
    patterns: tuple[re.Pattern[str], ...]
    # None: a glob whose last part is not ``*.ext`` or a plain name, so any file may match.
    endings: tuple[str, ...] | None


def _ending(glob: str) -> str | None:
    """The literal end every name the glob matches has (``*-*T*.json``: ``.json``), or None."""
    last = glob.rsplit("/", 1)[-1]
    cut = max(last.rfind(c) for c in "*?]")
    return (last[cut + 1 :] or None) if "**" not in last else None


def _owner(name: str, globs: Sequence[str]) -> _Owner:
    endings = [_ending(glob) for glob in globs]
    return _Owner(
        name,
        tuple(_glob_regex(glob) for glob in globs),
        None if None in endings else tuple(e for e in endings if e is not None),
    )


class Matcher:
    """Which profile's globs a relative path matches (the first profile in order wins)."""

    def __init__(self, settings: Settings, *, plugins: bool) -> None:
        only = settings.profile
        owners = [_owner(spec.name, spec.globs(settings)) for spec in BUILTIN_SPECS]
        if plugins:
            from pytest_handoff.profiles import plugin_profiles

            owners += [_owner(p.name, p.globs(settings)) for p in plugin_profiles()]
        self.owners = tuple(o for o in owners if o.patterns and (not only or o.name == only))
        endings = [o.endings for o in self.owners]
        self.endings: tuple[str, ...] | None = (
            None if None in endings else tuple({e for group in endings if group for e in group})
        )

    def may_match(self, name: str) -> bool:
        """A cheap first test on a file name alone."""
        return self.endings is None or name.endswith(self.endings)

    def first_owner(self, relative_posix: str) -> str | None:
        """The name of the first profile (in :data:`BUILTIN_SPECS` order, then plugins) whose globs
        match; built-in formats come before user contracts, so a contract never takes their files."""
        name = relative_posix.rsplit("/", 1)[-1]
        for owner in self.owners:
            if (owner.endings is None or name.endswith(owner.endings)) and any(
                pattern.fullmatch(relative_posix) for pattern in owner.patterns
            ):
                return owner.name
        return None

    def owner_of(self, path: Path, relative_posix: str) -> Profile | None:
        """The profile of a file its globs match (the first, see :meth:`first_owner`)."""
        found = self.first_owner(relative_posix)
        if found is None:
            return None
        from pytest_handoff.profiles import load

        return load(found)
