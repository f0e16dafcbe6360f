"""Line and column of an offset in a text, as editors count them (characters, any line break)."""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class LineIndex:
    """Offsets -> 1-based (line, column).

    Columns are counted in characters (str indices), not bytes. "\\r\\n" is one line break; a
    lone "\\r" (old Mac) or "\\n" is one too. A text ending in a break has an empty last line,
    as editors show it. The first few lookups count line breaks with C-speed ``str.count``; a
    table of line starts (8 bytes a line) is only built for many lookups.
    """

    __slots__ = ("_counted", "_lookups", "_starts", "_text")

    def __init__(self, text: str, *, counted_lookups: int = 16) -> None:
        self._text = text
        self._starts: array[int] | None = None
        self._lookups = 0
        # Lookups answered by counting before the table of line starts is built.
        self._counted = counted_lookups

    def _table(self) -> array[int]:
        if self._starts is None:
            starts = array("q", [0])
            starts.extend(match.end() for match in _LINE_BREAK.finditer(self._text))
            self._starts = starts
        return self._starts

    def position(self, offset: int) -> tuple[int, int]:
        """Return the 1-based line and column of ``offset`` (``len(text)`` is allowed)."""
        text = self._text
        if not 0 <= offset <= len(text):
            raise ValueError(f"offset {offset} is outside the text (0..{len(text)})")
        if self._starts is None and self._lookups < self._counted:
            self._lookups += 1
            # The "\n" of a "\r\n" still belongs to the line the "\r" ends.
            end = (
                offset - 1
                if offset and text[offset - 1] == "\r" and text.startswith("\n", offset)
                else offset
            )
            line = text.count("\n", 0, end) + text.count("\r", 0, end) - text.count("\r\n", 0, end) + 1
            start = max(text.rfind("\n", 0, end), text.rfind("\r", 0, end)) + 1
            return line, offset - start + 1
        starts = self._table()
        index = bisect_right(starts, offset) - 1
        return index + 1, offset - starts[index] + 1

    def line_text(self, line: int) -> str:
        """Return the text of the 1-based ``line`` without its line break."""
        starts = self._table()
        if not 1 <= line <= len(starts):
            raise ValueError(f"line {line} is outside the text (1..{len(starts)})")
        start = starts[line - 1]
        if line == len(starts):
            return self._text[start:]
        end = starts[line]
        # Take the line break off: "\r\n" or a single "\r" or "\n".
        end -= 2 if self._text.startswith("\r\n", end - 2) else 1
        return self._text[start:end]

    @property
    def line_count(self) -> int:
        """The number of lines (a final line break starts one more, empty line)."""
        if self._starts is not None:
            return len(self._starts)
        text = self._text
        return text.count("\n") + text.count("\r") - text.count("\r\n") + 1


def byte_position(raw: bytes, offset: int) -> tuple[int, int]:
    """1-based line and character column of a byte offset in possibly invalid UTF-8."""
    prefix = raw[:offset]
    line_start = max(prefix.rfind(b"\n"), prefix.rfind(b"\r")) + 1
    line = prefix.count(b"\n") + prefix.count(b"\r") - prefix.count(b"\r\n") + 1
    column = len(prefix[line_start:].decode("utf-8", errors="replace")) + 1
    return line, column
