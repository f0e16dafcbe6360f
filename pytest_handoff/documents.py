"""Reading handoff files into documents that know where every value stands in the source.

A file becomes either a :class:`Document` (parsed data plus lazily built
positions) or a list of load findings; reading never raises for bad input.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from pytest_handoff.findings import Finding, Severity

if TYPE_CHECKING:
    from pytest_handoff.positions import LineIndex, PositionMap


# The position scanner is needed only for documents with findings: imported on first use.
def _line_index(text: str) -> LineIndex:
    from pytest_handoff.positions import LineIndex

    return LineIndex(text)


def _deepest_opening(text: str) -> int | None:
    from pytest_handoff.positions import deepest_opening

    return deepest_opening(text, MAX_DEPTH)


Anchor = Literal["value", "key"]

#: Files larger than this are reported instead of parsed (bytes).
DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024
#: Deepest nesting of arrays and objects accepted. Real handoffs nest a few levels; a fixed
#: limit keeps the verdict independent of how deep the caller's stack already is, and keeps
#: recursive code further down (schema validation, reporting) far from Python's limit.
MAX_DEPTH = 256

_UTF8_BOM = b"\xef\xbb\xbf"
_UTF32_BOMS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


class Region(NamedTuple):
    """A resolved 1-based source region; ``end_column`` is inclusive."""

    line: int
    column: int
    end_line: int
    end_column: int


class Document:
    """One handoff read from a source: its data, its text, and positions built on first use.

    A file may hold many documents. Where a document stands in its file is one of:

    - its own text, starting at ``origin`` (line, column) of the file: a whole JSON file starts at
      (1, 1), a JSONL line ``n`` at (n, 1); positions inside the text are shifted by the origin;
    - a ``fixed`` region every pointer resolves to, when the data was decoded from something the
      file shows as a whole (a base64 phrase in a log line): ``text`` is then empty;
    - a ``logical`` place with no text at all (``handoffs/handoff_42``, a row of a SQLite store):
      findings carry it, with line 0, and reporters show ``path#logical/pointer``.

    ``source_text`` is the whole file's text, for excerpts (the document's own text by default).
    ``label`` tells documents of one file apart in messages and pytest ids (``line 3``, a record id).
    """

    def __init__(
        self,
        path: Path,
        display_path: str,
        text: str,
        data: Any,
        *,
        origin: tuple[int, int] = (1, 1),
        fixed: Region | None = None,
        logical: str = "",
        source_text: str | None = None,
        label: str = "",
    ) -> None:
        self.path = path
        self.display_path = display_path
        self.text = text
        self.data = data
        self.origin = origin
        self.fixed = fixed
        self.logical = logical
        self.source_text = text if source_text is None else source_text
        self.label = label
        # Set by the engine once the profile has classified and validated the document.
        self.handoff_type: str | None = None
        self.schema_valid = False

    def __repr__(self) -> str:
        where = f" {self.label}" if self.label else ""
        return f"Document({self.display_path!r}{where}, handoff_type={self.handoff_type!r})"

    @property
    def has_text(self) -> bool:
        """True when positions come from the document's own text (not a fixed or logical place)."""
        return self.fixed is None and not self.logical

    @cached_property
    def name(self) -> str:  # rules ask for it often, and pathlib computes it on every call
        return self.path.name

    @cached_property
    def positions(self) -> PositionMap:
        # json.loads has read the text already: skip the scanner's own validation pass.
        from pytest_handoff.positions import scan_positions

        return scan_positions(self.text, trusted=True)

    @cached_property
    def lines(self) -> LineIndex:
        return _line_index(self.text)

    def region(self, pointer: str, anchor: Anchor = "value") -> Region:
        """Where ``pointer`` stands: its key (for ``anchor="key"``) or its value.

        A pointer that does not exist falls back to its nearest ancestor.
        """
        return self.locate(pointer, anchor)[0]

    def locate(self, pointer: str, anchor: Anchor = "value") -> tuple[Region, str]:
        """:meth:`region` and the pointer found there: ``pointer`` or its nearest existing ancestor."""
        if not self.has_text:
            found = nearest_in_data(self.data, pointer)
            return (self.fixed or Region(0, 0, 0, 0)), found
        found, spans = self.positions.nearest(pointer)
        if anchor == "key" and spans.key is not None and found == pointer:
            return self.region_of_offsets(spans.key.start, spans.key.end), found
        start, end = spans.value.start, spans.value.end
        if self.text[start] in "{[":
            # Marking a whole object would bury the message; its bracket points at it as well.
            end = start + 1
        return self.region_of_offsets(start, end), found

    def missing_pointer_note(self, pointer: str, found: str) -> str:
        """Why a finding about ``pointer`` is shown at ``found`` (its nearest existing ancestor)."""
        shown = f"shown at {found}" if found else "shown at the document root"
        if pointer.startswith("/"):
            return f"pointer {pointer} does not exist: {shown}"
        guess = "/" + pointer
        exists = (
            self.positions.spans(guess) is not None
            if self.has_text
            else nearest_in_data(self.data, guess) == guess
        )
        hint = f" did you mean {guess!r}?" if exists else ""
        return f"{pointer!r} is not a JSON pointer, which starts with '/':{hint} {shown}"

    def region_of_offsets(self, start: int, end: int) -> Region:
        line, column = self._shifted(*self.lines.position(start))
        end_line, end_column = self._shifted(*self.lines.position(max(start, end - 1)))
        return Region(line, column, end_line, end_column)

    def _shifted(self, line: int, column: int) -> tuple[int, int]:
        """A position in the document's text as a position in its file."""
        return shift(line, column, self.origin)


def nearest_in_data(data: Any, pointer: str) -> str:
    """``pointer`` when it exists in ``data``, else its nearest existing ancestor ("" at worst)."""
    if not pointer.startswith("/"):
        return ""
    found = ""
    node = data
    for raw in pointer[1:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return found
        found = f"{found}/{raw}"
    return found


class LoadResult(NamedTuple):
    """What reading a file gave: a document (when it parsed) and any load findings."""

    document: Document | None
    findings: tuple[Finding, ...]


class Loaded(NamedTuple):
    """What reading a source gave: its documents (a file or store may hold many) and load findings."""

    documents: tuple[Document, ...]
    findings: tuple[Finding, ...]

    @classmethod
    def of(cls, result: LoadResult) -> Loaded:
        """A one-document source's result."""
        return cls(() if result.document is None else (result.document,), result.findings)


class _NonFinite(ValueError):
    def __init__(self, token: str) -> None:
        super().__init__(token)
        self.token = token


def _reject_constant(token: str) -> Any:
    raise _NonFinite(token)


def _finite_float(token: str) -> float:
    # 1e999 reads as inf: as non-standard as the Infinity token, and it must not pass silently.
    value = float(token)
    if math.isinf(value):
        raise _NonFinite(token)
    return value


def read_file_bytes(path: Path, display_path: str, max_size: int | None = None) -> bytes | Finding:
    """A file's bytes, or the finding (HF006/HF007) that says why they cannot be had.

    ``max_size`` defaults to :data:`DEFAULT_MAX_FILE_SIZE` as it is when called. Only regular
    files are read (a FIFO or device would block or never end), and never more than
    ``max_size + 1`` bytes, even from a file that grows while it is read.
    """
    limit = DEFAULT_MAX_FILE_SIZE if max_size is None else max_size
    finding = _file_finding(display_path)
    try:
        # O_NONBLOCK: opening a FIFO swapped in after a check must not wait for a writer.
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        try:
            info = os.fstat(descriptor)
            if not stat.S_ISREG(info.st_mode):
                return finding("HF007", "cannot read file: not a regular file")
            if info.st_size > limit:
                return too_large(display_path, info.st_size, limit)
            # One byte past the size fstat() gave tells whether the file grew meanwhile.
            raw = _read_up_to(descriptor, info.st_size + 1)
            if len(raw) > info.st_size:
                raw += _read_up_to(descriptor, limit + 1 - len(raw))
        finally:
            os.close(descriptor)
    except OSError as error:
        return finding("HF007", f"cannot read file: {error.strerror or type(error).__name__}")
    if len(raw) > limit:
        return finding("HF006", f"file grew over the {limit:,}-byte limit while read")
    return raw


def _read_up_to(descriptor: int, count: int) -> bytes:
    """Up to ``count`` bytes, fewer only at the end of the file (os.read may return a part)."""
    first = os.read(descriptor, count)
    if len(first) == count or not first:
        return first
    chunks = [first]
    received = len(first)
    while received < count:
        chunk = os.read(descriptor, count - received)
        if not chunk:
            break
        chunks.append(chunk)
        received += len(chunk)
    return b"".join(chunks)


def parse_json_bytes(
    raw: bytes, path: Path, display_path: str, *, origin: tuple[int, int] = (1, 1), label: str = ""
) -> LoadResult:
    """Parse bytes read from ``path`` (by :func:`read_file_bytes`) strictly, as one JSON document.

    Never raises for bad input: every way the bytes can fail to be a handoff's JSON is one
    finding at the position where it shows (line and column of the decoded text).

    ``origin`` is where the bytes start in the file (a JSONL line ``n``: ``(n, 1)``): the
    document's positions and the findings are placed in the file, not in the bytes.
    """
    result = _parse_json_bytes(raw, path, display_path, label, origin)
    if origin == (1, 1) or result.document is not None:
        return result  # a document's findings are placed through its origin already
    return LoadResult(None, tuple(shifted(finding, origin) for finding in result.findings))


def shift(line: int, column: int, origin: tuple[int, int]) -> tuple[int, int]:
    """A position in text that starts at ``origin`` of a file, as a position in the file."""
    if line <= 0:
        return line, column
    first_line, first_column = origin
    return line + first_line - 1, column + (first_column - 1 if line == 1 else 0)


def shifted(finding: Finding, origin: tuple[int, int]) -> Finding:
    """``finding`` (placed in text that starts at ``origin`` of its file) placed in the file."""
    line, column = shift(finding.line, finding.column, origin)
    end_line, end_column = shift(finding.end_line, finding.end_column, origin)
    related = tuple(
        (path, *shift(r_line, r_column, origin), label) for path, r_line, r_column, label in finding.related
    )
    return finding.replace(
        line=line, column=column, end_line=end_line, end_column=end_column, related=related
    )


def _parse_json_bytes(
    raw: bytes, path: Path, display_path: str, label: str, origin: tuple[int, int]
) -> LoadResult:
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
    for boms, name in ((_UTF32_BOMS, "UTF-32"), (_UTF16_BOMS, "UTF-16")):
        if raw.startswith(boms):
            return LoadResult(
                None, (finding("HF001", f"file is {name} encoded; JSON handoffs must be UTF-8", 1, 1),)
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
    nul = text.find("\x00")
    if nul != -1:
        line, column = _line_index(text).position(nul)
        return LoadResult(
            None,
            (
                finding(
                    "HF001",
                    "NUL character (U+0000): JSON text never holds one raw; is the file binary, "
                    "or UTF-16/UTF-32 without a byte order mark?",
                    line,
                    column,
                ),
            ),
        )
    if not text.strip(" \t\r\n"):
        what = "empty" if not text else "only whitespace"
        return LoadResult(None, (finding("HF002", f"file is {what}: expected a JSON object", 1, 1),))

    duplicates: list[int] = []
    try:
        data = json.loads(
            text,
            object_pairs_hook=_pairs_hook(duplicates),
            parse_constant=_reject_constant,
            parse_float=_finite_float,
        )
    except _NonFinite as error:
        token = error.token
        offset = max(0, _find_token(text, lambda bare: bare == token))
        line, column = _line_index(text).position(offset)
        return LoadResult(
            None,
            (
                finding(
                    "HF004",
                    f"{error.token} is not a finite number (JSON numbers must be finite)",
                    line,
                    column,
                ),
            ),
        )
    except json.JSONDecodeError as error:
        comma = _trailing_comma(error, text)
        if comma is not None:
            line, column = _line_index(text).position(comma)
            return LoadResult(None, (finding("HF002", _trailing_comma_message(text, comma), line, column),))
        line, column = _line_index(text).position(error.pos)
        return LoadResult(None, (finding("HF002", _syntax_message(error, text), line, column),))
    except RecursionError:
        return LoadResult(None, (_too_deep(text, finding),))
    except ValueError as error:  # integers longer than Python's int-from-string limit
        return LoadResult(None, (_unreadable_number(text, error, finding),))

    if text.count("[") + text.count("{") > MAX_DEPTH and _deepest_opening(text) is not None:
        return LoadResult(None, (_too_deep(text, finding),))
    surrogate = _lone_surrogate(text)
    if surrogate is not None:
        line, column = _line_index(text).position(surrogate)
        escape = text[surrogate : surrogate + 6]
        return LoadResult(
            None,
            (
                finding(
                    "HF002",
                    f"invalid JSON: {escape} is half of a surrogate pair (an unpaired surrogate is "
                    "no character and cannot be written as UTF-8)",
                    line,
                    column,
                ),
            ),
        )

    document = Document(
        path=path, display_path=display_path, text=text, data=data, label=label, origin=origin
    )
    if not duplicates:
        return LoadResult(document, ())
    return LoadResult(document, tuple(_duplicate_findings(document)))


def _too_deep(text: str, finding: Callable[..., Finding]) -> Finding:
    offset = _deepest_opening(text)
    if offset is None:
        # The parser ran out of stack before MAX_DEPTH (a deep caller): say so at the start.
        return finding("HF002", "JSON is nested too deeply to parse", 1, 1)
    line, column = _line_index(text).position(offset)
    return finding("HF002", f"JSON nests deeper than {MAX_DEPTH} levels of arrays and objects", line, column)


def _unreadable_number(text: str, error: ValueError, finding: Callable[..., Finding]) -> Finding:
    limit = getattr(sys, "get_int_max_str_digits", lambda: 4300)() or 4300
    offset = _find_token(text, lambda token: len(token.lstrip("-")) > limit and token.lstrip("-").isdigit())
    if offset < 0:
        return finding("HF002", f"JSON value cannot be read: {error}", 1, 1)
    digits = len(_BARE.match(text, offset).group().lstrip("-"))  # type: ignore[union-attr]
    line, column = _line_index(text).position(offset)
    return finding(
        "HF002",
        f"integer of {digits:,} digits is longer than the {limit:,} digits Python reads",
        line,
        column,
    )


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


def too_large(display_path: str, size: int, limit: int) -> Finding:
    """HF006 for content of ``size`` bytes (on disk or given in memory) over ``limit``."""
    return _file_finding(display_path)(
        "HF006", f"file is {size:,} bytes, over the {limit:,}-byte limit (max-file-size)"
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


_JSON_WHITESPACE = " \t\r\n"


def _trailing_comma(error: json.JSONDecodeError, text: str) -> int | None:
    """Offset of the comma when ``error`` is a comma before a closing bracket, else None.

    json reports it at the bracket (Python < 3.13), often a line below the comma, or at the comma
    with a message of its own (3.13+); either way the comma is what to delete.
    """
    if error.msg.startswith("Illegal trailing comma"):
        return error.pos if text[error.pos : error.pos + 1] == "," else None
    if error.pos >= len(text) or text[error.pos] not in "}]":
        return None
    before = len(text[: error.pos].rstrip(_JSON_WHITESPACE)) - 1
    return before if before >= 0 and text[before] == "," else None


def _trailing_comma_message(text: str, comma: int) -> str:
    closing = text[comma + 1 :].lstrip(_JSON_WHITESPACE)[:1]
    last = "member" if closing == "}" else "element"
    return f"invalid JSON: trailing comma before {closing!r} (JSON allows no comma after the last {last})"


def _syntax_message(error: json.JSONDecodeError, text: str) -> str:
    found = _describe(text, error.pos)
    msg = error.msg
    if msg == "Extra data":
        return f"unexpected data after the end of the JSON document (found {found})"
    if msg.startswith("Unterminated string"):
        return "invalid JSON: unterminated string (its closing quote is missing)"
    if msg.startswith("Invalid control character"):
        return f"invalid JSON: raw control character {found} in a string (write it as an escape)"
    # "Invalid \\escape: 'x'" from the pure-Python scanner carries its own detail.
    msg = msg.split(":", 1)[0]
    if msg.startswith("Invalid \\"):
        return f"invalid JSON: {msg[0].lower()}{msg[1:]} in a string"
    return f"invalid JSON: {msg[0].lower()}{msg[1:]}, found {found}"


def _describe(text: str, offset: int) -> str:
    if offset >= len(text):
        return "the end of the file"
    char = text[offset]
    return repr(char) if char.isprintable() and not char.isspace() else f"U+{ord(char):04X}"


# A whole string, or a bare token: number, literal, or anything else up to a separator.
_STRING_OR_BARE = re.compile(r'"[^"\\]*(?:\\[\s\S][^"\\]*)*"|([^\s,:\[\]{}"]+)')
_BARE = re.compile(r'[^\s,:\[\]{}"]+')


def _find_token(text: str, wanted: Callable[[str], bool]) -> int:
    """Offset of the first bare token (outside strings) that is ``wanted``, else -1."""
    for match in _STRING_OR_BARE.finditer(text):
        token = match.group(1)
        if token is not None and wanted(token):
            return match.start(1)
    return -1


# A \u escape of a surrogate (D800-DFFF), the only way one can get into a str from UTF-8.
_SURROGATE_HINT = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\[\s\S][^"\\]*)*"')
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|[\s\S])")


def _lone_surrogate(text: str) -> int | None:
    """Offset of the first ``\\uD800``-``\\uDFFF`` escape that is not half of a valid pair.

    json.loads accepts them (RFC 8259 leaves it open) but the string it makes cannot be
    encoded as UTF-8, so writing any report that quotes it would fail later.
    """
    if _SURROGATE_HINT.search(text) is None:
        return None
    for string in _JSON_STRING.finditer(text):
        raw = string.group()
        if _SURROGATE_HINT.search(raw) is None:
            continue
        high = -1  # offset in raw of a high surrogate waiting for its low half
        high_end = -1
        for escape in _ESCAPE.finditer(raw):
            code = int(escape.group(1), 16) if escape.group(1) else -1
            is_low = 0xDC00 <= code <= 0xDFFF
            if high >= 0:
                if is_low and escape.start() == high_end:
                    high = -1
                    continue
                return string.start() + high
            if 0xD800 <= code <= 0xDBFF:
                high, high_end = escape.start(), escape.end()
            elif is_low:
                return string.start() + escape.start()
        if high >= 0:
            return string.start() + high
    return None


def _byte_position(raw: bytes, offset: int) -> tuple[int, int]:
    """1-based line and character column of a byte offset in possibly invalid UTF-8."""
    prefix = raw[:offset]
    line_start = max(prefix.rfind(b"\n"), prefix.rfind(b"\r")) + 1
    line = prefix.count(b"\n") + prefix.count(b"\r") - prefix.count(b"\r\n") + 1
    column = len(prefix[line_start:].decode("utf-8", errors="replace")) + 1
    return line, column


def display_path_for(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` with POSIX slashes, or as given when outside it."""
    text, base = str(path), str(root)
    # The common case, a path below the root, without os.path.relpath's normalisation.
    if text.startswith(base) and text[len(base) : len(base) + 1] == os.sep and ".." not in text:
        relative = text[len(base) + 1 :]
        return relative.replace(os.sep, "/") if os.sep != "/" else relative
    try:
        relative = os.path.relpath(path, root)
    except ValueError:  # another drive on Windows
        return path.as_posix()
    if relative.startswith(".."):
        return path.as_posix()
    return Path(relative).as_posix()
