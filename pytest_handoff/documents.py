"""Reading handoff files into documents that know where every value stands in the source.

A file becomes either a :class:`Document` (parsed data plus lazily built
positions) or a list of load findings; reading never raises for bad input.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pytest_handoff.findings import Finding, Severity
from pytest_handoff.positions import LineIndex, PositionMap, scan_positions

Anchor = Literal["value", "key"]

#: Files larger than this are reported instead of parsed (bytes).
DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024

_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


@dataclass(frozen=True, slots=True)
class Region:
    """A resolved 1-based source region; ``end_column`` is inclusive."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(eq=False)
class Document:
    """One parsed handoff file: its data, its text, and positions built on first use."""

    path: Path
    display_path: str
    text: str
    data: Any
    # Set by the engine once the profile has classified and validated the document.
    handoff_type: str | None = None
    schema_valid: bool = False
    memo: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.path.name

    @cached_property
    def positions(self) -> PositionMap:
        return scan_positions(self.text)

    @cached_property
    def lines(self) -> LineIndex:
        return LineIndex(self.text)

    def get(self, pointer: str) -> Any:
        """The value at ``pointer``, or ``None`` when it does not exist."""
        node: Any = self.data
        if not pointer:
            return node
        for raw in pointer.split("/")[1:]:
            token = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict):
                if token not in node:
                    return None
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return None
        return node

    def region(self, pointer: str, anchor: Anchor = "value") -> Region:
        """Where ``pointer`` stands: its key (for ``anchor="key"``) or its value.

        A pointer that does not exist falls back to its nearest ancestor.
        """
        found, spans = self.positions.nearest(pointer)
        if anchor == "key" and spans.key is not None and found == pointer:
            return self.region_of_offsets(spans.key.start, spans.key.end)
        start, end = spans.value.start, spans.value.end
        if self.text[start] in "{[":
            # Marking a whole object would bury the message; its bracket points at it as well.
            end = start + 1
        return self.region_of_offsets(start, end)

    def region_of_offsets(self, start: int, end: int) -> Region:
        line, column = self.lines.position(start)
        end_line, end_column = self.lines.position(max(start, end - 1))
        return Region(line, column, end_line, end_column)


@dataclass(frozen=True, slots=True)
class LoadResult:
    """What reading a file gave: a document (when it parsed) and any load findings."""

    document: Document | None
    findings: tuple[Finding, ...]


class _NonFinite(ValueError):
    def __init__(self, token: str) -> None:
        super().__init__(token)
        self.token = token


def _reject_constant(token: str) -> Any:
    raise _NonFinite(token)


def read_json_document(
    path: Path,
    display_path: str,
    *,
    max_size: int = DEFAULT_MAX_FILE_SIZE,
) -> LoadResult:
    """Read one JSON file strictly: UTF-8 without BOM, no NaN/Infinity, no duplicate keys."""
    finding = _file_finding(display_path)
    try:
        size = path.stat().st_size
        if size > max_size:
            return LoadResult(
                None, (finding("HF006", f"file is {size:,} bytes, over the {max_size:,}-byte limit"),)
            )
        raw = path.read_bytes()
    except OSError as error:
        reason = error.strerror or type(error).__name__
        return LoadResult(None, (finding("HF007", f"cannot read file: {reason}"),))
    return parse_json_bytes(raw, path, display_path)


def parse_json_bytes(raw: bytes, path: Path, display_path: str) -> LoadResult:
    """Parse bytes already read from ``path``; see :func:`read_json_document`."""
    finding = _file_finding(display_path)
    if raw.startswith(_UTF8_BOM):
        return LoadResult(
            None,
            (
                finding(
                    "HF001", "file starts with a UTF-8 byte order mark (BOM); JSON must be plain UTF-8", 1, 1
                ),
            ),
        )
    if raw.startswith(_UTF16_BOMS):
        return LoadResult(
            None, (finding("HF001", "file is UTF-16 encoded; JSON handoffs must be UTF-8", 1, 1),)
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line, column = _byte_position(raw, error.start)
        return LoadResult(
            None,
            (
                finding(
                    "HF001",
                    f"invalid UTF-8 byte 0x{raw[error.start]:02x} at byte offset {error.start}",
                    line,
                    column,
                ),
            ),
        )
    if not text.strip():
        what = "empty" if not text else "only whitespace"
        return LoadResult(None, (finding("HF002", f"file is {what}: expected a JSON object", 1, 1),))

    duplicates: list[int] = []
    try:
        data = json.loads(text, object_pairs_hook=_pairs_hook(duplicates), parse_constant=_reject_constant)
    except _NonFinite as error:
        offset = _find_token(text, error.token)
        line, column = LineIndex(text).position(offset)
        return LoadResult(
            None,
            (finding("HF004", f"{error.token} is not valid JSON (numbers must be finite)", line, column),),
        )
    except json.JSONDecodeError as error:
        line, column = LineIndex(text).position(error.pos)
        return LoadResult(None, (finding("HF002", _syntax_message(error), line, column),))
    except RecursionError:
        return LoadResult(None, (finding("HF002", "JSON is nested too deeply to parse", 1, 1),))
    except ValueError as error:  # e.g. integers longer than Python's int-from-string limit
        return LoadResult(None, (finding("HF002", f"JSON value cannot be read: {error}", 1, 1),))

    document = Document(path=path, display_path=display_path, text=text, data=data)
    if not duplicates:
        return LoadResult(document, ())
    return LoadResult(document, tuple(_duplicate_findings(document)))


def _pairs_hook(duplicates: list[int]) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    def build(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(pairs)
        if len(result) != len(pairs):
            duplicates.append(len(pairs) - len(result))
        return result

    return build


def _duplicate_findings(document: Document) -> Iterator[Finding]:
    for duplicate in document.positions.duplicates:
        first = document.region_of_offsets(duplicate.first.start, duplicate.first.end)
        second = document.region_of_offsets(duplicate.second.start, duplicate.second.end)
        key = duplicate.pointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
        yield Finding(
            path=document.display_path,
            line=second.line,
            column=second.column,
            end_line=second.end_line,
            end_column=second.end_column,
            code="HF003",
            severity=Severity.ERROR,
            message=f"duplicate key {key!r}: first defined at line {first.line}, column {first.column}; "
            "only the last value is kept by JSON readers",
            pointer=duplicate.pointer,
            related=((document.display_path, first.line, first.column, "first definition"),),
        )


def _file_finding(display_path: str) -> Callable[..., Finding]:
    def make(code: str, message: str, line: int = 0, column: int = 0) -> Finding:
        return Finding(
            path=display_path,
            line=line,
            column=column,
            end_line=line,
            end_column=column,
            code=code,
            severity=Severity.ERROR,
            message=message,
        )

    return make


def _syntax_message(error: json.JSONDecodeError) -> str:
    if error.msg == "Extra data":
        return "unexpected data after the end of the JSON document"
    return f"invalid JSON: {error.msg[0].lower()}{error.msg[1:]}"


_STRING_OR_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')


def _find_token(text: str, token: str) -> int:
    """Offset of the first bare NaN/Infinity token, skipping string contents."""
    for match in _STRING_OR_CONSTANT.finditer(text):
        if match.group(1) == token:
            return match.start(1)
    return 0


def _byte_position(raw: bytes, offset: int) -> tuple[int, int]:
    """1-based line and character column of a byte offset in possibly invalid UTF-8."""
    prefix = raw[:offset]
    line_start = max(prefix.rfind(b"\n"), prefix.rfind(b"\r")) + 1
    line = prefix.count(b"\n") + prefix.count(b"\r") - prefix.count(b"\r\n") + 1
    column = len(prefix[line_start:].decode("utf-8", errors="replace")) + 1
    return line, column


def display_path_for(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` with POSIX slashes, or as given when outside it."""
    try:
        relative = os.path.relpath(path, root)
    except ValueError:  # another drive on Windows
        return path.as_posix()
    if relative.startswith(".."):
        return path.as_posix()
    return Path(relative).as_posix()
