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
from typing import TYPE_CHECKING, NamedTuple

from pytest_handoff.read.files import file_finding
from pytest_handoff.values.documents import Loaded
from pytest_handoff.values.findings import Finding, Severity

if TYPE_CHECKING:
    from pytest_handoff.read.yamldoc import Node

_OPENING = re.compile(rb"---[ \t]*\r?\n")
_CLOSING = re.compile(rb"\r?\n---[ \t]*(?:\r?\n|$)")
# An ATX heading: its #s and its text (the closing #s are taken off by _heading_text: a regular
# expression doing it backtracks over a long run of #s).
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*))?$")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_COMMENT_LINES = re.compile(rb"(?m)^[ \t]*#.*$")
# A relative path as handoffs name files: words joined by /, ending in a folder's / or a file's extension.
_PATH = re.compile(r"^(?:\.{0,2}/)?[\w@.+-]+(?:/[\w@.+\[\]()-]+)*(?:/|\.[A-Za-z0-9]{1,10})$")
_LINE_SUFFIX = re.compile(r"(?::\d+(?:-\d+)?|#L\d+(?:-L?\d+)?)$")
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


#: Lines a lenient reading quotes, one at a time, before it gives the block up.
MAX_REPAIRS = 12

# A line of a block mapping or sequence: its indent and "- ", its key, and its value.
_ENTRY = re.compile(
    r"^(?P<lead>[ \t]*(?:-[ \t]+)*)(?:(?P<key>[^\s'\"\[{#:][^:]*?|\"[^\"]*\"|'[^']*'):(?:[ \t]+|$))?(?P<value>.*)$"
)


class LenientFrontMatter(NamedTuple):
    """A front matter read as its agents' own tools read it: the YAML tree (None when even a
    lenient reading finds none), where the body starts, and what kept it from being strict YAML."""

    root: Node | None
    body_line: int
    findings: tuple[Finding, ...]


def read_front_matter_leniently(
    raw: bytes, path: Path, display_path: str, code: str, severity: Severity = Severity.WARNING
) -> LenientFrontMatter:
    """The front matter of a Markdown file, read even when it is not strict YAML.

    Real front matters hold values YAML does not take unquoted (``added: [@scope/pkg@2]``,
    ``title: ARCH: unify``); the tools that write them read them line by line. Where strict YAML
    fails, the failing line's value is read as quoted text and the block read again, line after
    line; the first failure is one finding of ``code`` at its line, saying whether the block was
    still read. An unclosed block is an HF002 finding, and the whole file is body.
    """
    found = split_front_matter(raw)
    if found.problem:
        return LenientFrontMatter(None, 1, (file_finding(display_path)("HF002", found.problem, 1, 1),))
    if found.block is None:
        return LenientFrontMatter(None, 1, ())
    if not _COMMENT_LINES.sub(b"", found.block).strip():
        return LenientFrontMatter(
            None, found.body_line, ()
        )  # an empty block (Jekyll's "---\n---"): nothing to say
    from pytest_handoff.read.yamldoc import read_yaml

    loaded = read_yaml(found.block, path, display_path)
    if not loaded.findings:
        root = loaded.documents[0].root if loaded.documents else None  # type: ignore[attr-defined]
        return LenientFrontMatter(root, found.body_line, ())
    first = loaded.findings[0]
    block = found.block
    above = 0  # lines above the failure the repair looks at: a failure may be the line before's
    for _ in range(MAX_REPAIRS):
        if (loaded.documents and not loaded.findings) or not loaded.findings or above > 2:
            break
        failed = loaded.findings[0]
        quoted = _quote_line(block, failed.line - above)
        if quoted is None:
            above += 1
            continue
        block = quoted
        loaded = read_yaml(block, path, display_path)
        again = loaded.findings[0] if loaded.findings else None
        above = above + 1 if again is not None and again[:3] == failed[:3] else 0
    read = bool(loaded.documents) and not loaded.findings
    root = loaded.documents[0].root if read else None  # type: ignore[attr-defined]
    detail = first.message.removeprefix("invalid YAML: ")
    outcome = (
        "its values were read as text where YAML could not read them"
        if read
        else "it was not read; the body was"
    )
    message = f"front matter is not strict YAML ({detail}): {outcome}"
    finding = first._replace(code=code, severity=severity, message=message, related=())
    return LenientFrontMatter(root, found.body_line, (finding,))


def _quote_line(block: bytes, line: int) -> bytes | None:
    """``block`` with the value of the entry at its ``line`` (1-based) as single-quoted text, or
    None when quoting changes nothing there (the block cannot be mended). An entry's value that
    runs on over more deeply indented lines is joined onto its first line (the others left empty,
    so that lines keep their numbers)."""
    lines = block.split(b"\n")
    if not 0 < line <= len(lines):
        return None
    texts = [raw.decode("utf-8", errors="replace") for raw in lines]
    first = line - 1
    while first > 0 and _continues(texts[first], texts[first - 1]):
        first -= 1
    last = first
    while last + 1 < len(texts) and _continues(texts[last + 1], texts[first]):
        last += 1
    carriage = texts[first].endswith("\r")
    entry = _ENTRY.match(texts[first].removesuffix("\r"))
    if entry is None or not entry.group("value").rstrip(" \t"):
        return None
    value = " ".join(
        [entry.group("value").rstrip(" \t"), *(text.strip() for text in texts[first + 1 : last + 1])]
    )
    if value.startswith("'") and value.endswith("'") and len(value) > 1:
        return None  # already single-quoted text: nothing left to quote
    if value.startswith('"') and value.endswith('"') and len(value) > 1 and '"' not in value[1:-1]:
        value = value[1:-1]  # a double-quoted value YAML refused (a bad escape): its letters as written
    key = f"{entry.group('key')}: " if entry.group("key") else ""
    mended = f"{entry.group('lead')}{key}'{value.replace(chr(39), chr(39) * 2)}'" + ("\r" if carriage else "")
    lines[first] = mended.encode()
    for index in range(first + 1, last + 1):
        lines[index] = b"\r" if carriage else b""
    return b"\n".join(lines)


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" \t"))


def _continues(text: str, previous: str) -> bool:
    """Whether ``text`` runs on the value of the line ``previous`` (more indented, no entry of its own)."""
    stripped = text.strip()
    if not stripped or stripped.startswith(("- ", "#")) or stripped == "-":
        return False
    entry = _ENTRY.match(text.rstrip())
    return entry is not None and not entry.group("key") and _indent(text) > _indent(previous)


class Section(NamedTuple):
    """One section of a Markdown body: its heading, and the lines from the heading to the next
    heading of the same or a higher level."""

    heading: str  # the heading's text, without its #s
    level: int  # 1 for #, 2 for ##...
    line: int  # 1-based line of the heading
    end: int  # the section's last line (inclusive)
    text: str  # the section's lines after the heading


def sections(text: str, first_line: int = 1) -> list[Section]:
    """The sections of a Markdown ``text`` whose first line is the file's ``first_line``, in order.

    Lines are split as editors (and every place this package reports) count them: at ``\r\n``,
    ``\r`` or ``\n`` only, not at the other breaks ``str.splitlines`` knows (a form feed, U+2028)."""
    lines = _LINE_BREAK.split(text)
    headings = list(_headings(lines))
    ends = [len(lines)] * len(headings)
    open_: list[int] = []  # headings whose section has not ended yet, deepest last
    for index, (at, level, _) in enumerate(headings):
        while open_ and headings[open_[-1]][1] >= level:
            ends[open_.pop()] = at  # a heading of the same or a higher level ends it
        open_.append(index)
    return [
        Section(heading, level, first_line + at, first_line + end - 1, "\n".join(lines[at + 1 : end]))
        for (at, level, heading), end in zip(headings, ends, strict=True)
    ]


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
            yield index, len(heading.group(1)), _heading_text(heading.group(2) or "")


def _heading_text(text: str) -> str:
    """A heading's text without its closing sequence of #s (``## Title ##`` -> ``Title``)."""
    text = text.strip(" \t")
    bare = text.rstrip("#")
    if bare != text and (not bare or bare[-1] in " \t"):
        return bare.rstrip(" \t")
    return text


def is_path(text: str) -> bool:
    """A file or folder path as agents write them: a ``/`` or a file extension, no spaces, no URL."""
    if "://" in text or text.startswith(("~", "$", "-")) or len(text) > 300:
        return False
    if "/" not in text and not re.search(r"\.[A-Za-z][A-Za-z0-9]{0,9}$", text):
        return False
    return bool(_PATH.match(text)) and not re.fullmatch(r"[\d.]+", text)


def clean_path(text: str) -> str:
    """A cited path without its line (``src/a.py:12`` -> ``src/a.py``) and its ``./``."""
    text = _LINE_SUFFIX.sub("", text.strip().rstrip(":,;"))
    return text[2:] if text.startswith("./") else text
