"""The boundary out: handoff text made inert before any output shows it.

Handoff text is untrusted: every piece of it that is printed (a value, a key, an id, a path)
goes through :func:`inert`. Afterwards it holds no line break (so it cannot start a line the
tool did not write), no control, escape or bidi character (each is shown as ``\\xNN`` or
``\\uNNNN``), and nothing a CI runner takes for a command of its own: the GitHub runner reads a
line as a workflow command when, after any white space (Unicode's too), it starts with ``::``,
and it looks for the older ``##[command]`` form anywhere in a line. So a piece that may open a
line has a leading ``::`` escaped, and every ``##[`` is. Secrets are masked before this, by the
pipeline, whatever rules ran.
"""

from __future__ import annotations

import io
import re
from functools import cache
from typing import TextIO


# Every C0 control (line breaks included) but the tab, C1 controls, DEL, line and paragraph
# separators, and the bidi marks and overrides.
@cache
def _control() -> re.Pattern[str]:
    """Compiled on first use: a run with nothing to report shows no handoff text."""
    return re.compile(
        r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]"
    )


def _show(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def inert(text: str, *, opens_line: bool = True) -> str:
    """``text`` on one line, with every control and bidi character shown as ``\\xNN``/``\\uNNNN``.

    Every ``##[`` gets its first ``#`` escaped; unless the caller places the text after text of
    its own on the line (``opens_line=False``), a ``::`` after leading white space does too.
    """
    shown = _control().sub(_show, text.replace("\t", " "))
    if "##[" in shown:
        shown = shown.replace("##[", "\\x23#[")
    body = shown.lstrip()  # every Unicode space, as the runner's TrimStart()
    if opens_line and body.startswith("::"):
        return shown[: len(shown) - len(body)] + "\\x3a" + body[1:]
    return shown


# A line's opening as the runner sees it: white space, and any control sequence (ECMA-48's CSI:
# parameters, intermediates, a final byte) before it.
@cache
def _line_opening() -> re.Pattern[str]:
    return re.compile(r"(?:\s|\x1b\[[0-?]*[ -/]*[@-~])*")


def guarded_line(line: str) -> str:
    """``line`` (one line of output, as drawn) unable to start a workflow command: a ``::`` it
    opens with is escaped, and every ``##[``. For output laid out by a library that wraps text:
    a wrap may open a line inside a value, where :func:`inert` could not know a line would start.
    A carriage return ends a line for a CI runner: each part after one is guarded as a line too."""
    if "\r" in line:
        return "\r".join(guarded_line(part) for part in line.split("\r"))
    if "##[" in line:
        line = line.replace("##[", "\\x23#[")
    start = _line_opening().match(line)
    at = start.end() if start else 0
    if line.startswith("::", at):
        return line[:at] + "\\x3a" + line[at + 1 :]
    return line


class GuardedStream(io.TextIOBase):
    """A text stream that passes whole lines on to ``stream``, each through :func:`guarded_line`.

    The views and the text reporter draw with rich, which wraps a long value at the console's
    width (80 in a pipe, or ``COLUMNS``): any word of a value may open a line.
    """

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream
        self._pending = ""

    def write(self, text: str) -> int:
        head, newline, self._pending = (self._pending + text).rpartition("\n")
        if newline:
            self.stream.write("".join(guarded_line(line) + "\n" for line in head.split("\n")))
        return len(text)

    def flush(self) -> None:
        if self._pending:  # a part of a line: what follows it is guarded as if it opened one
            self.stream.write(guarded_line(self._pending))
            self._pending = ""
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.stream, "encoding", None) or "utf-8"

    def writable(self) -> bool:
        return True
