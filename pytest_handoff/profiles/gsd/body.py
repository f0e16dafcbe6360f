"""What GSD's Markdown bodies say, read line by line: commits, files, counts, verdicts.

Each reader takes a file's lines (the whole file; the body starts at ``body_line``) and returns
placed values (nodes of :mod:`pytest_handoff.read.placed`), so that a finding stands at the line
a claim was read from. A value is read only where its form is unmistakable (a hash in backticks
or on a commit line, a path in a files section); anything else is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from pytest_handoff.read.markdown import Section, clean_path, is_path, sections
from pytest_handoff.read.placed import leaf
from pytest_handoff.read.yamldoc import Node

# A hash in backticks (`abc1234`, `backend@abc1234`), or bare on a commit line with a letter and a digit.
# Digits alone are a hash of 7 to 9 (a longer number is an id or a time, not a short hash).
_TICKED_HASH = re.compile(r"`(?:[\w.-]+@)?((?=[0-9]{0,39}[a-f])[0-9a-f]{7,40}|[0-9]{7,9})`")
_BARE_HASH = re.compile(r"(?<![\w/#.@-])(?:[\w.-]+@)?([0-9a-f]{7,40})(?![\w/-])")
# "Committed in: abc1234", "**Commit:**", and "(commit abc1234)": a hash the line says is a commit.
_COMMIT_LABEL = re.compile(
    r"\b(?:committed in|commits?|hash(?:es)?|sha)\b[*_]*\s*[:=]|\bcommit(?:ted)?(?:\s+(?:in|as))?\s+`?(?=[0-9a-f]{7})",
    re.IGNORECASE,
)
_METADATA = re.compile(r"plan metadata|metadata commit|docs?\([^)]*\):\s*complete", re.IGNORECASE)
_COMMIT_HEADING = re.compile(r"\bcommits?\b", re.IGNORECASE)
_FILES_HEADING = re.compile(
    r"^(?:key\s+)?files?\b(?:\s+(?:created|modified|changed|touched|added|updated)\b.*)?$|"
    r"^files?\s*(?:created|modified|changed)\s*/\s*(?:created|modified|changed)$",
    re.IGNORECASE,
)
_CREATED = re.compile(r"\b(?:created|new|added)\b", re.IGNORECASE)
# An item's own words that make its file new: "(new)", "(created)", "- New module", "new file"; not
# "- Added a route" (a change made in the file).
_ITEM_CREATED = re.compile(
    r"\((?:new|created|added)\b[^)]*\)|\bnew file\b|\bcreated\b|^\W*new\b", re.IGNORECASE
)
_MODIFIED = re.compile(r"\b(?:modified|changed|updated|edited)\b", re.IGNORECASE)
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?P<rest>.*)$")
# `path`, **path**, [name](path): the forms a files list names its paths in.
_TICKED = re.compile(r"`([^`\s]+)`|\*\*([^*\s]+)\*\*|\]\(([^)\s\]]+)\)")
# **Tasks:** 3, or 1/3 when the executor says it did one of three (then the plan's count is 3).
_TASKS = re.compile(
    r"^\W*\*\*Tasks(?::\*\*|\*\*\s*:)\s*(\d{1,9})(?:\s*(?:/|of)\s*(\d{1,9}))?\b", re.IGNORECASE
)
_SELF_CHECK = re.compile(r"\bself[- ]check\b\W*(PASSED|FAILED)\b", re.IGNORECASE)


def commit_hashes(lines: list[str], body_line: int) -> tuple[list[Node], list[Node]]:
    """(task and deviation commits, plan metadata commits) the body names, each at its place.

    Read from a commit section (``## Task Commits``, ``## Commits``) and from labelled lines
    anywhere (``Committed in: abc1234``, ``**Commit:** `abc1234` ``) and from a table's commit
    column. The "Plan metadata" commit is apart: GSD writes it before that commit exists.
    """
    commits: list[Node] = []
    metadata: list[Node] = []
    seen: set[tuple[str, bool]] = set()
    in_section = _commit_lines(lines, body_line)
    columns = _commit_columns(lines, body_line)
    for index in range(body_line - 1, len(lines)):
        text = lines[index]
        column = columns.get(index)
        labelled = _COMMIT_LABEL.search(text) or _METADATA.search(text)
        if index in in_section or labelled or column is not None:
            found = list(_hashes_on(text, bare=index in in_section or bool(labelled), cell=column))
        else:
            found = [(m.group(1), m.start(1)) for m in _TICKED_HASH.finditer(text) if _near_commit(text)]
        target = metadata if _METADATA.search(text) else commits
        for value, at in found:
            if (value, target is metadata) in seen:
                continue
            seen.add((value, target is metadata))
            target.append(leaf(value, index + 1, at + 1))
    return commits, metadata


def _near_commit(text: str) -> bool:
    """A line outside commit sections whose backticked hash is a commit: it says so."""
    return bool(re.search(r"\bcommit", text, re.IGNORECASE))


def _hashes_on(text: str, *, bare: bool, cell: int | None) -> Iterator[tuple[str, int]]:
    if cell is not None:
        cells = _cells(text)
        if cell < len(cells):
            start, content = cells[cell]
            for found in _BARE_HASH.finditer(content):
                if _hash_like(found.group(1)):
                    yield found.group(1), start + found.start(1)
        return
    ticked = list(_TICKED_HASH.finditer(text))
    for found in ticked:
        yield found.group(1), found.start(1)
    if bare and not ticked:
        for found in _BARE_HASH.finditer(text):
            if _hash_like(found.group(1)):
                yield found.group(1), found.start(1)


def _hash_like(value: str) -> bool:
    """A bare hex word that is a hash, not a word or a number: it has a digit and a letter."""
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _commit_lines(lines: list[str], body_line: int) -> set[int]:
    """Indexes of lines in a section about commits."""
    found: set[int] = set()
    for section in body_sections(lines, body_line):
        if _COMMIT_HEADING.search(section.heading):
            found.update(range(section.line, section.end))  # the lines after the heading (0-based)
    return found


def _cells(text: str) -> list[tuple[int, str]]:
    """(offset, text) of each cell of a table row."""
    cells = []
    offset = text.index("|") + 1 if "|" in text else 0
    for part in text[offset:].split("|"):
        cells.append((offset, part))
        offset += len(part) + 1
    return cells[:-1] if text.rstrip().endswith("|") else cells


def _commit_columns(lines: list[str], body_line: int) -> dict[int, int]:
    """For each row of a table with a commit column, that column's index."""
    rows: dict[int, int] = {}
    column: int | None = None
    for index in range(body_line - 1, len(lines)):
        text = lines[index].strip()
        if not text.startswith("|"):
            column = None
            continue
        if column is None:
            names = [cell.strip().strip("*").lower() for _, cell in _cells(text)]
            column = next(
                (i for i, name in enumerate(names) if name in ("commit", "commits", "hash", "sha")), -1
            )
            continue
        if column >= 0 and not set(text) <= set("|:- "):
            rows[index] = column
    return rows


def body_sections(lines: list[str], body_line: int) -> list[Section]:
    """The body's sections (headings after the front matter)."""
    return sections("\n".join(lines[body_line - 1 :]), body_line)


def claimed_files(lines: list[str], body_line: int) -> tuple[list[Node], list[Node]]:
    """(created, modified) paths of the body's files sections (``## Files Created/Modified``).

    An item is created when its sub-heading, label or own words say so (``### Created``,
    ``**Created:**``, ``- `a.py` (new)``); otherwise modified. The path is the item's first
    backticked word that is a path, or its first word when that is one.
    """
    created: list[Node] = []
    modified: list[Node] = []
    for section in body_sections(lines, body_line):
        if section.level > 3 or not _FILES_HEADING.match(section.heading):
            continue
        mode = _mode(section.heading)
        fence = False
        for index in range(section.line, section.end):
            text = lines[index]
            if text.lstrip().startswith(("```", "~~~")):
                fence = not fence
            if fence:
                continue  # a tree drawn in a code block is no claim of its own
            heading = re.match(r"^\s*#{1,6}\s+(.*)$", text) or re.match(r"^\s*\*\*([^*]+)\*\*:?\s*$", text)
            if heading:
                mode = _mode(heading.group(1)) or mode
                continue
            item = _ITEM.match(text)
            if item is None:
                continue
            found = _item_path(text, item.start("rest"))
            if found is None:
                continue
            path, at = found
            words = text[at + len(path) :][:40]
            kind = "created" if _ITEM_CREATED.search(words) and not _MODIFIED.search(words) else mode
            (created if kind == "created" else modified).append(leaf(clean_path(path), index + 1, at + 1))
    return created, modified


def _mode(heading: str) -> str:
    created, modified = bool(_CREATED.search(heading)), bool(_MODIFIED.search(heading))
    return "created" if created and not modified else "modified" if modified or not created else ""


def _item_path(text: str, start: int) -> tuple[str, int] | None:
    ticked = _TICKED.search(text, start)
    if ticked:
        group = next(index for index in (1, 2, 3) if ticked.group(index) is not None)
        if is_path(clean_path(ticked.group(group))):
            return ticked.group(group), ticked.start(group)
    first = re.match(r"\S+", text[start:])
    if first and not ticked:
        word = first.group(0).rstrip(":,;")
        if is_path(clean_path(word)):
            return word, start
    return None


def task_count(lines: list[str], body_line: int) -> Node | None:
    """The ``**Tasks:** N`` of a summary's Performance section, at its place."""
    for index in range(body_line - 1, len(lines)):
        found = _TASKS.match(lines[index])
        if found:
            group = 2 if found.group(2) else 1
            return leaf(int(found.group(group)), index + 1, found.start(group) + 1, found.end(group))
    return None


def self_check(lines: list[str], body_line: int) -> Node | None:
    """``PASSED`` or ``FAILED`` of a summary's ``## Self-Check`` heading or line, at its place."""
    for index in range(body_line - 1, len(lines)):
        text = lines[index]
        found = _SELF_CHECK.search(text) if "elf" in text else None
        if found:
            return leaf(found.group(1).upper(), index + 1, found.start(1) + 1, found.end(1))
    return None
