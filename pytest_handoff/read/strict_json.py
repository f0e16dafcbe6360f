"""Strict JSON: bytes become one document with places, or one finding where the text goes wrong.

UTF-8 without a BOM, no duplicate keys, no ``NaN`` or ``Infinity``, no lone surrogates, nesting
at most :data:`~pytest_handoff.values.documents.MAX_DEPTH` deep; each failure is reported at the
line and column where it shows, with a message that says what was found.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_handoff.places.lines import byte_position
from pytest_handoff.places.pointers import pointer_join
from pytest_handoff.read.files import file_finding
from pytest_handoff.values.documents import MAX_DEPTH, Document, LoadResult, line_index, shifted
from pytest_handoff.values.findings import Finding, Severity

if TYPE_CHECKING:
    pass

#: What a number too large for a float reads as (1e999): as non-standard as Infinity.
_INFINITY = float("inf")


def _deepest_opening(text: str) -> int | None:
    # The position scanner is needed only for documents with findings: imported on first use.
    from pytest_handoff.places.positions import deepest_opening

    return deepest_opening(text, MAX_DEPTH)


_UTF8_BOM = b"\xef\xbb\xbf"


_UTF32_BOMS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")


_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


class _NonFinite(ValueError):
    def __init__(self, token: str) -> None:
        super().__init__(token)
        self.token = token


class _Pairs(list[tuple[str, Any]]):
    """An object's members in document order (duplicate keys kept), for finding a value's pointer."""


def _first_non_finite_pointer(text: str) -> str:
    """The JSON pointer of the first non-finite number of ``text`` (in document order), or ""."""
    marker = object()

    def constant(token: str) -> Any:
        return marker

    def number(token: str) -> Any:
        value = float(token)
        return marker if abs(value) == _INFINITY else value

    try:
        data = json.loads(text, parse_constant=constant, parse_float=number, object_pairs_hook=_Pairs)
    except (ValueError, RecursionError):
        return ""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:  # depth first, in document order
        pointer, node = stack.pop()
        if node is marker:
            return pointer
        if isinstance(node, _Pairs):
            stack.extend((pointer_join(pointer, key), value) for key, value in reversed(node))
        elif isinstance(node, list):
            stack.extend(
                (pointer_join(pointer, index), value) for index, value in reversed(list(enumerate(node)))
            )
    return ""


def _reject_constant(token: str) -> Any:
    raise _NonFinite(token)


def _finite_float(token: str) -> float:
    # 1e999 reads as inf: as non-standard as the Infinity token, and it must not pass silently.
    value = float(token)
    if abs(value) == _INFINITY:
        raise _NonFinite(token)
    return value


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


def line_failure(raw: bytes) -> str | None:
    """The load code that :func:`parse_json_bytes` certainly reports for ``raw`` (HF001: not
    UTF-8, a byte order mark or a NUL; HF002: not JSON), found cheaply; None when it may parse."""
    if raw.startswith(_UTF8_BOM) or b"\x00" in raw:
        return "HF001"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "HF001"
    try:
        json.loads(text)
    except RecursionError:
        return "HF002"
    except ValueError:
        # A non-finite constant is HF004 where strict parsing meets it first.
        return None if "NaN" in text or "Infinity" in text else "HF002"
    return None


def _parse_json_bytes(
    raw: bytes, path: Path, display_path: str, label: str, origin: tuple[int, int]
) -> LoadResult:
    finding = file_finding(display_path)
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
        line, column = byte_position(raw, error.start)
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
        line, column = line_index(text).position(nul)
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
        line, column = line_index(text).position(offset)
        message = f"{error.token} is not a finite number (JSON numbers must be finite)"
        return LoadResult(
            None, (finding("HF004", message, line, column).replace(pointer=_first_non_finite_pointer(text)),)
        )
    except json.JSONDecodeError as error:
        comma = _trailing_comma(error, text)
        if comma is not None:
            line, column = line_index(text).position(comma)
            return LoadResult(None, (finding("HF002", _trailing_comma_message(text, comma), line, column),))
        line, column = line_index(text).position(error.pos)
        return LoadResult(None, (finding("HF002", _syntax_message(error, text), line, column),))
    except RecursionError:
        return LoadResult(None, (_too_deep(text, finding),))
    except ValueError as error:  # integers longer than Python's int-from-string limit
        return LoadResult(None, (_unreadable_number(text, error, finding),))

    if text.count("[") + text.count("{") > MAX_DEPTH and _deepest_opening(text) is not None:
        return LoadResult(None, (_too_deep(text, finding),))
    surrogate = _lone_surrogate(text)
    if surrogate is not None:
        line, column = line_index(text).position(surrogate)
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
        document.unique_keys = True
        return LoadResult(document, ())
    return LoadResult(document, tuple(_duplicate_findings(document)))


def _too_deep(text: str, finding: Callable[..., Finding]) -> Finding:
    offset = _deepest_opening(text)
    if offset is None:
        # The parser ran out of stack before MAX_DEPTH (a deep caller): say so at the start.
        return finding("HF002", "JSON is nested too deeply to parse", 1, 1)
    line, column = line_index(text).position(offset)
    return finding("HF002", f"JSON nests deeper than {MAX_DEPTH} levels of arrays and objects", line, column)


def _unreadable_number(text: str, error: ValueError, finding: Callable[..., Finding]) -> Finding:
    limit = getattr(sys, "get_int_max_str_digits", lambda: 4300)() or 4300
    offset = _find_token(text, lambda token: len(token.lstrip("-")) > limit and token.lstrip("-").isdigit())
    if offset < 0:
        return finding("HF002", f"JSON value cannot be read: {error}", 1, 1)
    digits = len(_BARE.match(text, offset).group().lstrip("-"))  # type: ignore[union-attr]
    line, column = line_index(text).position(offset)
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
