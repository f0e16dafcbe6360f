"""The rules every format shares, and how a code is decided: rows, core (HF/HS/HX), secrets, selection,
modes (the failure-mode taxonomy), text, evidence/."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    # ``pytest_handoff.rules.listed`` was a module's function before the rules had a folder.
    if name in ("listed", "reported"):
        from pytest_handoff.rules import rows

        return getattr(rows, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
