"""Map the JSON pointers of a JSON document to source spans, lines and columns.

A linter only knows *where* in the data a schema error is (a JSON pointer such as
``/items/3/name``); this module tells it where that is in the text, so it can print
``file.json:LINE:COL``.

Handoff files are untrusted, so every cost here is linear in the size of the text and
nothing is recursive (arbitrarily deep documents must not hit Python's recursion limit).
The map is lazy: one pass finds where each container closes (in C speed regex matches for
everything but brackets and strings), and a container's members are listed only when a
pointer goes through it. Resolving the pointers of a few findings in a 10 MB file of a
million values therefore costs a fraction of a second, not a node object per value.
"""

from __future__ import annotations

import json
import re
from array import array
from bisect import bisect_left, bisect_right
from typing import NamedTuple

from pytest_handoff.places.pointers import escape_pointer_token, pointer_join, unescape_pointer_token

__all__ = [
    "DuplicateKey",
    "NodeSpans",
    "PositionMap",
    "Span",
    "deepest_opening",
    "scan_positions",
]


class Span(NamedTuple):
    """A half-open range of character offsets ``[start, end)`` into the text."""

    start: int
    end: int


class NodeSpans(NamedTuple):
    """Where one JSON value sits in the text, and its key if it is an object member."""

    value: Span
    key: Span | None


class DuplicateKey(NamedTuple):
    """A key that occurs more than once in the same object."""

    pointer: str
    first: Span
    second: Span


# Only these four characters are whitespace for json.loads (no form feed, no NBSP).
_WHITESPACE = re.compile(r"[ \t\n\r]*")
# Unrolled "normal* (escape normal*)*" so a string is matched in one linear pass. Raw control
# characters are tolerated (as json.loads(strict=False) does): they do not affect positions.
_STRING = re.compile(r'"[^"\\]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\]*)*"')
# Everything json.loads accepts that is neither a string nor a container, including the
# non-standard NaN/Infinity that Python writes and reads by default. [0-9], not \d, because
# \d would also match non-ASCII digits that json.loads rejects.
_SCALAR = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null|NaN|-?Infinity")
# What a bracket matcher must see in a valid text: whole strings (so that brackets inside them
# are skipped) and brackets. Numbers, literals, commas and colons are passed over inside the
# regex engine.
_STRUCTURE = re.compile(r'"[^"\\]*(?:\\[\s\S][^"\\]*)*"|[\[\]{}]')
# The separator between two members or items.
_COMMA = re.compile(r"[ \t\n\r]*,[ \t\n\r]*")
# An array index in a pointer: RFC 6901 forbids leading zeros, so "01" is not item 1.
_INDEX = re.compile(r"0|[1-9][0-9]*")


def _skip_whitespace(text: str, pos: int) -> int:
    match = _WHITESPACE.match(text, pos)
    assert match is not None  # "*" always matches, possibly empty
    return match.end()


def _decode_key(raw: str) -> str:
    # Decode exactly as json.loads does (escapes, surrogate pairs); skip the decoder for the
    # common escape-free key.
    if "\\" not in raw:
        return raw[1:-1]
    key: str = json.loads(raw, strict=False)
    return key


class _Members:
    """The members of one object in source order (duplicates included)."""

    __slots__ = ("keys", "last", "resume", "spans", "value_starts")

    def __init__(self, resume: int) -> None:
        # Where scanning goes on (-1: every member is known); a key looked for stops it early.
        self.resume = resume
        self.keys: list[str] = []
        # key_start, key_end, value_start, value_end of member i at [4 * i : 4 * i + 4].
        self.spans = array("q")
        self.value_starts = array("q")
        # A repeated key keeps its last member: "last one wins", exactly like json.loads.
        self.last: dict[str, int] = {}


class _Items:
    """The items of one array: where each starts and ends."""

    __slots__ = ("ends", "starts")

    def __init__(self) -> None:
        self.starts = array("q")
        self.ends = array("q")


# (value start, value end, key span or None)
_Located = tuple[int, int, Span | None]


class PositionMap:
    """Pointer -> spans for one document (which must be valid JSON)."""

    __slots__ = (
        "_closes", "_duplicates", "_items", "_members", "_opens", "_root", "_size", "_text", "_unique",
    )  # fmt: skip

    def __init__(self, text: str, *, unique_keys: bool = False) -> None:
        self._text = text
        # No object repeats a key: the first member of a name is the one, and a scan for it may
        # stop there (a huge object is scanned only as far as its findings are).
        self._unique = unique_keys
        # json.loads refuses a BOM, but a caller may have decoded with plain "utf-8"; skipping
        # it keeps every other offset true to the text we were given.
        start = _skip_whitespace(text, 1 if text.startswith("\ufeff") else 0)
        self._opens = array("q")
        self._closes = array("q")
        self._members: dict[int, _Members] = {}
        self._items: dict[int, _Items] = {}
        self._size: int | None = None
        self._duplicates: list[DuplicateKey] | None = None
        self._root: _Located = (start, self._value_end(start), None)

    # --- public -------------------------------------------------------------------------

    def spans(self, pointer: str) -> NodeSpans | None:
        """Return the spans of the value at ``pointer``, or None if there is no such value."""
        resolved, (start, end, key) = self._resolve(pointer)
        return NodeSpans(Span(start, end), key) if resolved == len(pointer) else None

    def nearest(self, pointer: str) -> tuple[str, NodeSpans]:
        """Return ``pointer`` and its spans, or its closest existing ancestor and its spans."""
        resolved, (start, end, key) = self._resolve(pointer)
        return pointer[:resolved], NodeSpans(Span(start, end), key)

    @property
    def duplicates(self) -> list[DuplicateKey]:
        """Every key repeated in its object, in source order, each against its first occurrence."""
        if self._duplicates is None:
            self._duplicates = self._find_duplicates()
        return self._duplicates

    def __len__(self) -> int:
        """Return the number of pointers in the document (every value, the root included)."""
        if self._size is None:
            size = 0
            pending = [self._root[0]]
            while pending:
                start = pending.pop()
                size += 1
                opener = self._text[start]
                if opener == "{":
                    members = self._object(start)
                    pending.extend(members.spans[4 * i + 2] for i in members.last.values())
                elif opener == "[":
                    pending.extend(self._array(start).starts)
            self._size = size
        return self._size

    # --- resolving ----------------------------------------------------------------------

    def _resolve(self, pointer: str) -> tuple[int, _Located]:
        """Walk ``pointer`` as far as it exists: (length of the resolved prefix, its value)."""
        node = self._root
        if not pointer.startswith("/"):
            # "" is the root; anything else without a leading "/" is not a pointer at all.
            return 0, node
        end = 0
        while end < len(pointer):
            # Invariant: pointer[end] == "/" and pointer[:end] resolved to node.
            following = pointer.find("/", end + 1)
            if following == -1:
                following = len(pointer)
            child = self._child(node[0], pointer[end + 1 : following])
            if child is None:
                break
            node, end = child, following
        return end, node

    def _child(self, start: int, token: str) -> _Located | None:
        opener = self._text[start]
        if opener == "{":
            name = unescape_pointer_token(token)
            members = self._object(start, name)
            index = members.last.get(name)
            if index is None:
                return None
            key_start, key_end, value_start, value_end = members.spans[4 * index : 4 * index + 4]
            return value_start, value_end, Span(key_start, key_end)
        if opener != "[":
            return None
        items = self._array(start)
        # The length check keeps int() away from huge tokens (int() refuses > 4300 digits).
        if len(token) > len(str(len(items.starts))) or not _INDEX.fullmatch(token):
            return None
        index = int(token)
        if index >= len(items.starts):
            return None
        return items.starts[index], items.ends[index], None

    def _value_end(self, start: int) -> int:
        """Where the value starting at ``start`` ends."""
        text = self._text
        opener = text[start : start + 1]
        if opener == '"':
            match = _STRING.match(text, start)
        elif opener in ("{", "["):
            if not self._opens:
                self._match_brackets()
            return self._closes[bisect_left(self._opens, start)]
        else:
            match = _SCALAR.match(text, start)
        if match is None:
            raise ValueError(f"expected a JSON value at offset {start}")
        return match.end()

    def _match_brackets(self) -> None:
        """Find where every container closes, in one pass (opening offsets come out sorted)."""
        text = self._text
        opens, closes = self._opens, self._closes
        open_indexes: list[int] = []
        for match in _STRUCTURE.finditer(text, self._root_start()):
            char = text[match.start()]
            if char == '"':
                continue
            if char in "{[":
                open_indexes.append(len(opens))
                opens.append(match.start())
                closes.append(-1)
            elif open_indexes:
                closes[open_indexes.pop()] = match.end()
            else:
                raise ValueError(f"unmatched {char!r} at offset {match.start()}")
        if open_indexes:
            raise ValueError(
                f"unclosed {text[opens[open_indexes[-1]]]!r} at offset {opens[open_indexes[-1]]}"
            )

    def _root_start(self) -> int:
        return _skip_whitespace(self._text, 1 if self._text.startswith("\ufeff") else 0)

    def _object(self, start: int, wanted: str | None = None) -> _Members:
        """The members of the object at ``start``: all of them, or (keys being unique) as many
        as it takes to meet ``wanted``."""
        members = self._members.get(start)
        if members is None:
            text = self._text
            pos = _skip_whitespace(text, start + 1)
            members = self._members[start] = _Members(-1 if text.startswith("}", pos) else pos)
        if members.resume < 0 or (wanted is not None and self._unique and wanted in members.last):
            return members
        self._scan_members(members, wanted if self._unique else None)
        return members

    def _scan_members(self, members: _Members, wanted: str | None) -> None:
        text = self._text
        pos = members.resume
        while True:
            match = _STRING.match(text, pos)
            if match is None:
                raise ValueError(f"expected an object key at offset {pos}")
            key = _decode_key(match.group())
            key_end = match.end()
            pos = _skip_whitespace(text, key_end)
            if not text.startswith(":", pos):
                raise ValueError(f"expected ':' at offset {pos}")
            value_start = _skip_whitespace(text, pos + 1)
            value_end = self._value_end(value_start)
            members.last[key] = len(members.keys)
            members.keys.append(key)
            members.spans.extend((match.start(), key_end, value_start, value_end))
            members.value_starts.append(value_start)
            comma = _COMMA.match(text, value_end)
            if comma is None:
                break
            pos = comma.end()
            if key == wanted:
                members.resume = pos
                return
        members.resume = -1

    def _array(self, start: int) -> _Items:
        items = self._items.get(start)
        if items is not None:
            return items
        items = _Items()
        text = self._text
        pos = _skip_whitespace(text, start + 1)
        if not text.startswith("]", pos):
            starts, ends = items.starts, items.ends
            string, scalar, comma = _STRING.match, _SCALAR.match, _COMMA.match
            while True:
                # _value_end inlined: this loop runs once per item of possibly huge arrays.
                opener = text[pos]
                if opener == "{" or opener == "[":
                    end = self._value_end(pos)
                else:
                    matched = (string if opener == '"' else scalar)(text, pos)
                    if matched is None:
                        raise ValueError(f"expected a JSON value at offset {pos}")
                    end = matched.end()
                starts.append(pos)
                ends.append(end)
                separator = comma(text, end)
                if separator is None:
                    break
                pos = separator.end()
        self._items[start] = items
        return items

    # --- duplicates ---------------------------------------------------------------------

    def _find_duplicates(self) -> list[DuplicateKey]:
        text = self._text
        found: list[tuple[int, str, Span, Span]] = []
        # One entry per open container: its start and, for objects, the first span of each key.
        stack: list[tuple[int, dict[str, Span] | None]] = []
        for match in _STRUCTURE.finditer(text, self._root_start()):
            start = match.start()
            char = text[start]
            if char == '"':
                first_keys = stack[-1][1] if stack else None
                # A string in an object is a key exactly when a ':' follows it.
                if first_keys is not None and text.startswith(":", _skip_whitespace(text, match.end())):
                    span = Span(start, match.end())
                    key = _decode_key(match.group())
                    first = first_keys.setdefault(key, span)
                    if first is not span:
                        found.append((stack[-1][0], key, first, span))
            elif char in "{[":
                stack.append((start, {} if char == "{" else None))
            elif stack:
                stack.pop()
        return [DuplicateKey(pointer_join(self._pointer_at(where), key), a, b) for where, key, a, b in found]

    def _pointer_at(self, target: int) -> str:
        """The pointer of the container that starts at ``target`` (shadowed members included)."""
        tokens: list[str] = []
        start = self._root[0]
        while start != target:
            if self._text[start] == "{":
                members = self._object(start)
                index = bisect_right(members.value_starts, target) - 1
                tokens.append(escape_pointer_token(members.keys[index]))
                start = members.value_starts[index]
            else:
                items = self._array(start)
                index = bisect_right(items.starts, target) - 1
                tokens.append(str(index))
                start = items.starts[index]
        # One join instead of repeated concatenation keeps this linear in the pointer's length.
        return "".join("/" + token for token in tokens)


# --- validation ---------------------------------------------------------------------------

# Validator states: where we are between tokens.
_VALUE = 0  # a value must start here
_FIRST = 1  # just after "{" or "[": a first member/item or the closing bracket
_AFTER = 2  # just after a complete value: ",", a closing bracket, or the end of the text


def _error(text: str, expected: str, pos: int) -> ValueError:
    found = repr(text[pos]) if pos < len(text) else "end of text"
    return ValueError(f"expected {expected} at offset {pos}, found {found}")


def _validate(text: str) -> None:
    """Raise ValueError naming the offset unless ``text`` is JSON that json.loads(strict=False) reads.

    A single left-to-right pass with an explicit stack of closing brackets (no recursion).
    """
    pos = _skip_whitespace(text, 1 if text.startswith("\ufeff") else 0)
    closers: list[str] = []
    state = _VALUE
    # Each _VALUE step consumes text and each _AFTER step consumes text or closes a
    # container, with at most one _FIRST step between, so the loop always ends.
    while True:
        if state == _VALUE:
            if text.startswith(("{", "["), pos):
                closers.append("}" if text[pos] == "{" else "]")
                pos = _skip_whitespace(text, pos + 1)
                state = _FIRST
                continue
            is_string = text.startswith('"', pos)
            match = (_STRING if is_string else _SCALAR).match(text, pos)
            if match is None:
                raise _error(text, "a complete string" if is_string else "a JSON value", pos)
            pos = match.end()
            state = _AFTER
        elif state == _FIRST:
            if text.startswith(closers[-1], pos):
                closers.pop()
                pos += 1
                state = _AFTER
            else:
                pos = _member(text, closers[-1], pos)
                state = _VALUE
        else:
            pos = _skip_whitespace(text, pos)
            if not closers:
                if pos != len(text):
                    raise _error(text, "end of text", pos)
                return
            if text.startswith(",", pos):
                pos = _member(text, closers[-1], _skip_whitespace(text, pos + 1))
                state = _VALUE
            elif text.startswith(closers[-1], pos):
                closers.pop()
                pos += 1
            else:
                raise _error(text, f"',' or '{closers[-1]}'", pos)


def _member(text: str, closer: str, pos: int) -> int:
    """Check what precedes a member's value (``"key" :`` in objects, nothing in arrays)."""
    if closer == "]":
        return pos
    match = _STRING.match(text, pos) if text.startswith('"', pos) else None
    if match is None:
        raise _error(text, "an object key", pos)
    try:
        _decode_key(match.group())
    except ValueError as error:
        raise ValueError(f"invalid object key at offset {pos}: {error}") from error
    pos = _skip_whitespace(text, match.end())
    if not text.startswith(":", pos):
        raise _error(text, "':'", pos)
    return _skip_whitespace(text, pos + 1)


def deepest_opening(text: str, limit: int) -> int | None:
    """Offset of the first ``[`` or ``{`` nested deeper than ``limit`` levels, or None.

    Brackets inside strings are skipped; the text need not be valid JSON (a string that never
    closes just hides the rest), and nothing here recurses.
    """
    depth = 0
    for match in _STRUCTURE.finditer(text):
        char = text[match.start()]
        if char == "[" or char == "{":
            depth += 1
            if depth > limit:
                return match.start()
        elif char != '"':
            depth -= 1
    return None


def scan_positions(text: str, *, trusted: bool = False, unique_keys: bool = False) -> PositionMap:
    """Map each pointer of a JSON text (one ``json.loads`` accepts) to its spans.

    Raises ValueError, naming the offset, if the text is not JSON after all. ``trusted``
    skips that check for a text that json.loads has just read; ``unique_keys`` says no object
    of it repeats a key.
    """
    if not trusted:
        _validate(text)
    return PositionMap(text, unique_keys=unique_keys)
