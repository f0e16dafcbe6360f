"""Markdown handoffs as agents write them: a YAML front matter block, then sections by heading.

One reader for every format whose handoffs are Markdown (YOLO's plans and summaries, GSD's
``.planning/`` files, ``HANDOFF.md``): :func:`split_front_matter` finds the block between the
opening ``---`` line and the next line of only ``---``; :func:`read_front_matter` reads it as YAML,
every value placed at its line of the file, the whole file kept as the document's source text;
:func:`sections` lists the body's ATX headings (``## Task Commits``) with the lines each spans,
skipping fenced code blocks, where a ``#`` line is code, not a heading.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from pytest_handoff.read.files import file_finding
from pytest_handoff.values.documents import Loaded

_OPENING = re.compile(rb"---[ \t]*\r?\n")
_CLOSING = re.compile(rb"\r?\n---[ \t]*(?:\r?\n|$)")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


class FrontMatter(NamedTuple):
    """Where a file's front matter is: its YAML bytes (the opening line blanked, so that lines keep
    their numbers), the line its body starts at, and why a block that opens is not read."""

    block: bytes | None  # None: the file has no front matter
    body_line: int  # 1-based: the first line after the closing ---
    problem: str = ""  # the block opens but never closes


def split_front_matter(raw: bytes) -> FrontMatter:
    """The front matter of ``raw`` (a Markdown file's bytes), if it opens with a ``---`` line."""
    opening = _OPENING.match(raw)
    if opening is None:
        return FrontMatter(None, 1)
    closing = _CLOSING.search(raw, opening.end() - 1)
    if closing is None:
        return FrontMatter(
            None, 1, "front matter opens with --- but never closes: no line of only --- after it"
        )
    # The opening line becomes an empty line: the YAML's line numbers are the file's.
    line_end = closing.start() + (2 if raw[closing.start() : closing.start() + 1] == b"\r" else 1)
    block = b"\n" + raw[opening.end() : max(opening.end(), line_end)]
    return FrontMatter(block, raw.count(b"\n", 0, closing.end()) + 1)


def read_front_matter(raw: bytes, path: Path, display_path: str) -> Loaded:
    """The front matter of a Markdown file as one document, placed at the file's lines (none when the
    file has none; an unclosed block is an HF002 finding at line 1)."""
    found = split_front_matter(raw)
    if found.problem:
        return Loaded((), (file_finding(display_path)("HF002", found.problem, 1, 1),))
    if found.block is None:
        return Loaded((), ())
    from pytest_handoff.read.yamldoc import read_yaml

    loaded = read_yaml(found.block, path, display_path)
    if len(loaded.documents) > 1:  # the front matter is one mapping
        return Loaded(loaded.documents[:1], loaded.findings, loaded.unmade)
    full = raw.decode("utf-8", errors="replace")
    for document in loaded.documents:
        document.source_text = full  # excerpts show the file; the front matter is its first lines
    return loaded


class Section(NamedTuple):
    """One section of a Markdown body: its heading, and the lines from the heading to the next
    heading of the same or a higher level."""

    heading: str  # the heading's text, without its #s
    level: int  # 1 for #, 2 for ##...
    line: int  # 1-based line of the heading
    end: int  # the section's last line (inclusive)
    text: str  # the section's lines after the heading


def sections(text: str, first_line: int = 1) -> list[Section]:
    """The sections of a Markdown ``text`` whose first line is the file's ``first_line``, in order."""
    lines = text.splitlines()
    headings = list(_headings(lines))
    found = []
    for index, (at, level, heading) in enumerate(headings):
        end = next((other for other, deeper, _ in headings[index + 1 :] if deeper <= level), len(lines))
        found.append(
            Section(heading, level, first_line + at, first_line + end - 1, "\n".join(lines[at + 1 : end]))
        )
    return found


def _headings(lines: list[str]) -> Iterator[tuple[int, int, str]]:
    """(index, level, text) of each ATX heading outside fenced code blocks."""
    fence = ""
    for index, line in enumerate(lines):
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            continue
        if opened:
            fence = opened.group(1)
            continue
        heading = _HEADING.match(line)
        if heading:
            yield index, len(heading.group(1)), (heading.group(2) or "").strip()
