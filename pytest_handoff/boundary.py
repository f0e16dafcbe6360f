"""The boundary out: handoff text made inert before any output shows it.

Handoff text is untrusted: every piece of it that is printed (a value, a key, an id, a path)
goes through :func:`inert`, so that no control, escape or bidi character reaches a terminal
or a log as anything but visible text.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def inert(text: str) -> str:
    """``text`` with control, escape and bidi characters made visible as ``\\xNN``/``\\uNNNN``."""

    def show(match: re.Match[str]) -> str:
        code = ord(match.group(0))
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return _CONTROL.sub(show, text.replace("\t", " "))
