"""The files a Codex ``apply_patch`` envelope writes, read from its text, never applied.

Codex writes files with a patch envelope::

    *** Begin Patch
    *** Add File: docs/handoffs/01.md
    +# Handoff
    *** Update File: HANDOFF.md
    *** Move to: docs/handoffs/02.md
    @@
    -old
    +new
    *** Delete File: notes.md
    *** End Patch

A hook after the call checks the handoffs among the files it adds, updates or moves to, as it
checks a ``Write`` or what a ``Bash`` command writes. The text is read leniently (a missing end
marker, ``\\r\\n`` lines, blanks around a marker, the envelope inside a heredoc) and never raises.
"""

from __future__ import annotations

import re
from typing import NamedTuple

#: Lines of an envelope read at the most: a patch that writes handoffs names them in its headers.
MAX_PATCH_LINES = 200_000
_HEADER = re.compile(r"^\*\*\* (Add File|Update File|Delete File|Move to): ?(.*?)\s*$")


class PatchPaths(NamedTuple):
    """The paths an envelope names (as written: relative to the call's working folder, or absolute)."""

    written: tuple[str, ...]  # added, updated, or the new name of a moved file
    deleted: tuple[str, ...]  # deleted, or the old name of a moved file


def patch_paths(text: str) -> PatchPaths:
    """The files the ``apply_patch`` envelope in ``text`` adds, updates, moves and deletes, in order."""
    written: list[str] = []
    deleted: list[str] = []
    updating = ""  # the file of the current "Update File" section, which a "Move to" renames
    inside = "*** Begin Patch" not in text  # a bare list of operations is read too
    for number, line in enumerate(text.splitlines()):
        if number >= MAX_PATCH_LINES:
            break
        stripped = line.strip()
        if stripped == "*** Begin Patch":
            inside = True
            continue
        if stripped == "*** End Patch":
            inside = False
            continue
        header = _HEADER.match(stripped) if inside and stripped.startswith("*** ") else None
        if header is None:
            continue
        action, path = header.group(1), header.group(2)
        if not path:
            continue
        if action == "Move to":
            if updating:
                deleted.append(updating)
                if updating in written:
                    written.remove(updating)
            written.append(path)
            updating = ""
        elif action == "Delete File":
            deleted.append(path)
            updating = ""
        else:
            written.append(path)
            updating = path if action == "Update File" else ""
    return PatchPaths(tuple(dict.fromkeys(written)), tuple(dict.fromkeys(deleted)))
