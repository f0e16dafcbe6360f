"""Contract tests for the JSON handoffs AI agents write for each other."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_handoff.version import __version__ as __version__

if TYPE_CHECKING:
    from pytest_handoff.api import check as check

__all__ = ["__version__", "check"]


def __getattr__(name: str) -> Any:
    # Imported on first use: importing the package (as the pytest plugin and the CLI do) stays cheap.
    if name == "check":
        from pytest_handoff.api import check

        return check
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
