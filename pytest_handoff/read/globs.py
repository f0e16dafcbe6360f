"""Globs over project-relative POSIX paths: ``**`` spans folders; a pattern matches at any
depth unless it starts with ``/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache
from typing import NamedTuple


@cache
def glob_regex(pattern: str) -> re.Pattern[str]:
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
    return any(glob_regex(glob).fullmatch(relative_posix) for glob in globs)


class Owner(NamedTuple):
    """One profile's globs, with the file-name endings they can match."""

    name: str
    globs: tuple[str, ...]
    # None: a glob whose last part is not ``*.ext`` or a plain name, so any file may match.
    endings: tuple[str, ...] | None


def _ending(glob: str) -> str | None:
    """The literal end every name the glob matches has (``*-*T*.json``: ``.json``), or None."""
    last = glob.rsplit("/", 1)[-1]
    cut = max(last.rfind(c) for c in "*?]")
    return (last[cut + 1 :] or None) if "**" not in last else None


def owner(name: str, globs: Sequence[str]) -> Owner:
    endings = [_ending(glob) for glob in globs]
    return Owner(name, tuple(globs), None if None in endings else tuple(e for e in endings if e is not None))
