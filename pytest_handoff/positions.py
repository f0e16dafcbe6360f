"""Map the JSON pointers of a JSON document to source spans, lines and columns.

A linter only knows *where* in the data a schema error is (a JSON pointer such as
``/items/3/name``); this module tells it where that is in the text, so it can print
``file.json:LINE:COL``. It is only run for documents that have findings, so it favours
clarity over speed, but it is linear in the size of the text and never recursive:
arbitrarily deep documents must not hit Python's recursion limit.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from dataclasses import dataclass

__all__ = [
    "DuplicateKey",
    "LineIndex",
    "NodeSpans",
    "PositionMap",
    "Span",
    "escape_pointer_token",
    "pointer_join",
    "scan_positions",
]


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open range of character offsets ``[start, end)`` into the text."""

    start: int
    end: int


@dataclass(frozen=True, slots=True)
class NodeSpans:
    """Where one JSON value sits in the text, and its key if it is an object member."""

    value: Span
    key: Span | None


@dataclass(frozen=True, slots=True)
class DuplicateKey:
    """A key that occurs more than once in the same object."""

    pointer: str
    first: Span
    second: Span


def escape_pointer_token(token: str) -> str:
    """Escape one reference token for a JSON pointer (RFC 6901)."""
    # "~" must go first, otherwise the "~" of a freshly written "~1" would be escaped again.
    return token.replace("~", "~0").replace("/", "~1")


def _unescape_pointer_token(token: str) -> str:
    # The reverse order of escape_pointer_token: "~01" means the key "~1", not "/".
    return token.replace("~1", "/").replace("~0", "~")


def pointer_join(parent: str, token: str | int) -> str:
    """Append one token (a raw object key or an array index) to a JSON pointer."""
    if isinstance(token, int):
        return f"{parent}/{token}"
    return f"{parent}/{escape_pointer_token(token)}"


# Only these four characters are whitespace for json.loads (no form feed, no NBSP).
_WHITESPACE = re.compile(r"[ \t\n\r]*")
# Unrolled "normal* (escape normal*)*" so a string is matched in one linear pass. Raw control
# characters are tolerated (as json.loads(strict=False) does): they do not affect positions.
_STRING = re.compile(r'"[^"\\]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\]*)*"')
# Everything json.loads accepts that is neither a string nor a container, including the
# non-standard NaN/Infinity that Python writes and reads by default. [0-9], not \d, because
# \d would also match non-ASCII digits that json.loads rejects.
_SCALAR = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null|NaN|-?Infinity")
# An array index in a pointer: RFC 6901 forbids leading zeros, so "01" is not item 1.
_INDEX = re.compile(r"0|[1-9][0-9]*")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class _Node:
    """One value of the document; containers keep their children to resolve pointers."""

    __slots__ = ("children", "end", "key", "start")

    def __init__(self, start: int, children: dict[str, _Node] | list[_Node] | None) -> None:
        self.start = start
        self.end = -1  # containers learn their end only when they close
        self.key: Span | None = None
        # Children are keyed by the *decoded* key, so a repeated key simply replaces the
        # earlier member and its whole subtree: "last one wins", exactly like json.loads.
        self.children = children

    def spans(self) -> NodeSpans:
        return NodeSpans(Span(self.start, self.end), self.key)


class PositionMap:
    """Pointer -> spans for one document."""

    __slots__ = ("_root", "_size", "duplicates")

    duplicates: list[DuplicateKey]

    def __init__(self, root: _Node, duplicates: list[DuplicateKey]) -> None:
        # Built by scan_positions; storing a tree rather than a dict of pointer strings keeps
        # memory linear (a dict would hold O(depth**2) characters for deep documents).
        self._root = root
        self._size: int | None = None
        self.duplicates = duplicates

    def spans(self, pointer: str) -> NodeSpans | None:
        """Return the spans of the value at ``pointer``, or None if there is no such value."""
        resolved, node = self._resolve(pointer)
        return node.spans() if resolved == len(pointer) else None

    def nearest(self, pointer: str) -> tuple[str, NodeSpans]:
        """Return ``pointer`` and its spans, or its closest existing ancestor and its spans."""
        resolved, node = self._resolve(pointer)
        return pointer[:resolved], node.spans()

    def __len__(self) -> int:
        """Return the number of pointers in the document (every value, the root included)."""
        if self._size is None:
            size = 0
            pending = [self._root]
            while pending:
                node = pending.pop()
                size += 1
                children = node.children
                if isinstance(children, dict):
                    pending.extend(children.values())
                elif children is not None:
                    pending.extend(children)
            self._size = size
        return self._size

    def _resolve(self, pointer: str) -> tuple[int, _Node]:
        """Walk ``pointer`` as far as it exists: (length of the resolved prefix, its node)."""
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
            child = _child(node, pointer[end + 1 : following])
            if child is None:
                break
            node, end = child, following
        return end, node


def _child(node: _Node, token: str) -> _Node | None:
    children = node.children
    if isinstance(children, dict):
        return children.get(_unescape_pointer_token(token))
    # The length check keeps int() away from huge tokens (int() refuses > 4300 digits).
    if children is None or len(token) > len(str(len(children))) or not _INDEX.fullmatch(token):
        return None
    index = int(token)
    return children[index] if index < len(children) else None


class _Frame:
    """An open container on the scanner's explicit stack."""

    __slots__ = ("closer", "first_keys", "key", "key_span", "node", "token")

    def __init__(self, node: _Node, token: str | int | None) -> None:
        self.node = node
        # The container's own token in its parent (None for the root). Kept raw and only
        # escaped when a duplicate key needs a pointer string, so paths cost nothing otherwise.
        self.token = token
        self.closer = "}" if isinstance(node.children, dict) else "]"
        self.key = ""  # the member whose value comes next (objects only)
        self.key_span: Span | None = None
        self.first_keys: dict[str, Span] = {}  # first occurrence of each key, for duplicates


# Scanner states: where we are between tokens.
_VALUE = 0  # a value must start here
_FIRST = 1  # just after "{" or "[": a first member/item or the closing bracket
_AFTER = 2  # just after a complete value: ",", a closing bracket, or the end of the text


class _Scanner:
    """A single left-to-right pass over the text with an explicit stack (no recursion)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.stack: list[_Frame] = []
        self.duplicates: list[DuplicateKey] = []

    def run(self) -> PositionMap:
        text = self.text
        # json.loads refuses a BOM, but a caller may have decoded with plain "utf-8"; skipping
        # it keeps every other offset true to the text we were given.
        pos = self._skip_whitespace(1 if text.startswith("\ufeff") else 0)
        root: _Node | None = None
        state = _VALUE
        # Each _VALUE step consumes text and each _AFTER step consumes text or closes a
        # container, with at most one _FIRST step between, so the loop always ends.
        while True:
            if state == _VALUE:
                node, pos = self._value(pos)
                if root is None:
                    root, token = node, None
                else:
                    token = self._attach(node)
                if node.children is None:
                    state = _AFTER
                else:
                    self.stack.append(_Frame(node, token))
                    pos = self._skip_whitespace(pos)
                    state = _FIRST
            elif state == _FIRST:
                frame = self.stack[-1]
                if text.startswith(frame.closer, pos):
                    pos = self._close(pos)
                    state = _AFTER
                else:
                    pos = self._member(frame, pos)
                    state = _VALUE
            else:
                pos = self._skip_whitespace(pos)
                if not self.stack:
                    if pos != len(text):
                        raise self._error("end of text", pos)
                    assert root is not None  # the first _VALUE state always sets it
                    return PositionMap(root, self.duplicates)
                frame = self.stack[-1]
                if text.startswith(",", pos):
                    pos = self._member(frame, self._skip_whitespace(pos + 1))
                    state = _VALUE
                elif text.startswith(frame.closer, pos):
                    pos = self._close(pos)
                else:
                    raise self._error(f"',' or '{frame.closer}'", pos)

    def _skip_whitespace(self, pos: int) -> int:
        match = _WHITESPACE.match(self.text, pos)
        assert match is not None  # "*" always matches, possibly empty
        return match.end()

    def _value(self, pos: int) -> tuple[_Node, int]:
        """Start the value at ``pos``: a whole scalar, or just the opening bracket."""
        text = self.text
        if text.startswith("{", pos):
            return _Node(pos, {}), pos + 1
        if text.startswith("[", pos):
            return _Node(pos, []), pos + 1
        is_string = text.startswith('"', pos)
        match = (_STRING if is_string else _SCALAR).match(text, pos)
        if match is None:
            raise self._error("a complete string" if is_string else "a JSON value", pos)
        node = _Node(pos, None)
        node.end = match.end()
        return node, node.end

    def _attach(self, node: _Node) -> str | int:
        """Hang ``node`` under the innermost open container; return its token there."""
        frame = self.stack[-1]
        children = frame.node.children
        if isinstance(children, dict):
            node.key = frame.key_span
            children[frame.key] = node
            return frame.key
        assert children is not None  # only containers are ever pushed
        children.append(node)
        return len(children) - 1

    def _member(self, frame: _Frame, pos: int) -> int:
        """Read what precedes a member's value (``"key" :`` in objects, nothing in arrays)."""
        if frame.closer == "]":
            return pos
        text = self.text
        match = _STRING.match(text, pos) if text.startswith('"', pos) else None
        if match is None:
            raise self._error("an object key", pos)
        raw = match.group()
        try:
            # Decode exactly as json.loads does (escapes, surrogate pairs); skip the decoder
            # for the common escape-free key.
            key = json.loads(raw, strict=False) if "\\" in raw else raw[1:-1]
        except ValueError as error:
            raise ValueError(f"invalid object key at offset {pos}: {error}") from error
        key_span = Span(pos, match.end())
        first = frame.first_keys.setdefault(key, key_span)
        if first is not key_span:
            self.duplicates.append(DuplicateKey(self._pointer_to(key), first, key_span))
        frame.key, frame.key_span = key, key_span
        pos = self._skip_whitespace(match.end())
        if not text.startswith(":", pos):
            raise self._error("':'", pos)
        return self._skip_whitespace(pos + 1)

    def _close(self, pos: int) -> int:
        self.stack.pop().node.end = pos + 1
        return pos + 1

    def _pointer_to(self, key: str) -> str:
        """The pointer of member ``key`` of the innermost container (only built for duplicates)."""
        tokens = [frame.token for frame in self.stack if frame.token is not None]  # root: None
        tokens.append(key)
        # One join instead of repeated concatenation keeps this linear in the pointer's length.
        return "".join(pointer_join("", token) for token in tokens)

    def _error(self, expected: str, pos: int) -> ValueError:
        found = repr(self.text[pos]) if pos < len(self.text) else "end of text"
        return ValueError(f"expected {expected} at offset {pos}, found {found}")


def scan_positions(text: str) -> PositionMap:
    """Scan a JSON text (one ``json.loads`` accepts) and map each pointer to its spans.

    Raises ValueError, naming the offset, if the text is not JSON after all.
    """
    return _Scanner(text).run()


class LineIndex:
    """Offsets -> 1-based (line, column).

    Columns are counted in characters (str indices), not bytes.
    """

    __slots__ = ("_ends", "_starts", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        # "\r\n" is one break; a lone "\r" (old Mac) or "\n" is one too. A text ending in a
        # break has an empty last line, as editors show it.
        self._starts = [0]
        self._ends: list[int] = []
        for match in _LINE_BREAK.finditer(text):
            self._ends.append(match.start())
            self._starts.append(match.end())
        self._ends.append(len(text))

    def position(self, offset: int) -> tuple[int, int]:
        """Return the 1-based line and column of ``offset`` (``len(text)`` is allowed)."""
        if not 0 <= offset <= len(self._text):
            raise ValueError(f"offset {offset} is outside the text (0..{len(self._text)})")
        index = bisect_right(self._starts, offset) - 1
        return index + 1, offset - self._starts[index] + 1

    def line_text(self, line: int) -> str:
        """Return the text of the 1-based ``line`` without its line break."""
        if not 1 <= line <= len(self._starts):
            raise ValueError(f"line {line} is outside the text (1..{len(self._starts)})")
        return self._text[self._starts[line - 1] : self._ends[line - 1]]

    @property
    def line_count(self) -> int:
        """The number of lines (a final line break starts one more, empty line)."""
        return len(self._starts)
