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
checks a ``Write`` or what a ``Bash`` command writes. The text is read as Codex's parser reads it
(``codex-rs/apply-patch/src/parser.rs``), leniently where Codex would refuse the patch (a missing
end marker, blanks between operations), and never raises.
"""

from __future__ import annotations

from typing import NamedTuple

#: Lines of an envelope read at the most: a patch that writes handoffs names them in its headers.
MAX_PATCH_LINES = 200_000
_BEGIN, _END = "*** Begin Patch", "*** End Patch"
_ADD, _DELETE, _UPDATE, _MOVE = "*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: "


class PatchPaths(NamedTuple):
    """The paths an envelope names (as written: relative to the call's working folder, or absolute)."""

    written: tuple[str, ...]  # added, updated, or the new name of a moved file
    deleted: tuple[str, ...]  # deleted, or the old name of a moved file


def _lines(text: str) -> list[str]:
    """The envelope's lines as Codex splits them: at ``\n`` only, a ``\r`` before it dropped."""
    lines = text.split("\n", MAX_PATCH_LINES)[:MAX_PATCH_LINES]
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def patch_paths(text: str) -> PatchPaths:
    """The files the ``apply_patch`` envelopes in ``text`` add, update, move and delete, in order.

    Read as Codex's parser reads an envelope: an operation's header (a line, trimmed, starting
    ``*** Add File:``, ``*** Delete File:`` or ``*** Update File:``), an Add's ``+`` lines, an
    Update's ``*** Move to:`` on the line after its header and its hunk lines up to the next line
    starting ``***``. So a hunk's context line that looks like a header (`` *** Add File: x``) is
    content, as it is to Codex. A line Codex would refuse is skipped, never raised on.
    """
    written: dict[str, None] = {}
    deleted: dict[str, None] = {}
    lines = _lines(text)
    # From the first envelope's start; a bare list of operations from the first line.
    index = next((number + 1 for number, line in enumerate(lines) if line.strip() == _BEGIN), 0)
    while index < len(lines):
        header = lines[index].strip()
        index += 1
        if header == _END:  # another envelope may follow, as in a shell command holding two
            index = next((n + 1 for n in range(index, len(lines)) if lines[n].strip() == _BEGIN), len(lines))
        elif header.startswith(_ADD):
            written[header[len(_ADD) :]] = None
            while index < len(lines) and lines[index].startswith("+"):
                index += 1
        elif header.startswith(_DELETE):
            deleted[header[len(_DELETE) :]] = None
        elif header.startswith(_UPDATE):
            path = header[len(_UPDATE) :]
            if index < len(lines) and lines[index].startswith(_MOVE):
                deleted[path] = None
                written.pop(path, None)
                path = lines[index][len(_MOVE) :]
                index += 1
            written[path] = None
            while index < len(lines) and not lines[index].startswith("***"):
                index += 1
    return PatchPaths(tuple(p for p in written if p.strip()), tuple(p for p in deleted if p.strip()))
