"""The boundary out: handoff text made inert before any output shows it.

Handoff text is untrusted: every piece of it that is printed (a value, a key, an id, a path)
goes through :func:`inert`. Afterwards it holds no line break (so it cannot start a line the
tool did not write), no control, escape or bidi character (each is shown as ``\\xNN`` or
``\\uNNNN``), and nothing a CI runner takes for a command of its own: the GitHub runner reads a
line as a workflow command when, after any blanks, it starts with ``::`` (or the older
``##[``), so a piece that may open a line has that first character escaped. Secrets are masked
before this, by the pipeline, whatever rules ran.
"""

from __future__ import annotations

import re

# Every C0 control (line breaks included) but the tab, C1 controls, DEL, line and paragraph
# separators, and the bidi marks and overrides.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _show(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def inert(text: str, *, opens_line: bool = True) -> str:
    """``text`` on one line, with every control and bidi character shown as ``\\xNN``/``\\uNNNN``.

    Unless the caller places it after text of its own on the line (``opens_line=False``), a
    leading ``::`` or ``##[`` gets its first character escaped: it can start no runner command.
    """
    shown = _CONTROL.sub(_show, text.replace("\t", " "))
    body = shown.lstrip(" ")
    if opens_line and body.startswith(("::", "##[")):
        return shown[: len(shown) - len(body)] + ("\\x3a" if body[0] == ":" else "\\x23") + body[1:]
    return shown
