"""Immutable values, one way: findings -> documents -> settings -> rules -> groups; and specs, view
models, errors and the boundary out. Nothing here reads a file or knows a format.

The names of the old ``pytest_handoff.model`` are found here too, each imported on first use.
"""

from __future__ import annotations

from typing import Any

_HOMES = {
    "findings": ("Severity", "Finding", "Tally", "Region", "MAX_FINDINGS_PER_RULE", "MAX_COUNTED_PER_RULE"),
    "rules": ("Hit", "Scope", "Rule", "finding_of"),
    "groups": ("UNCLAIMED", "GroupRef", "Group", "ExtraCheck", "Stamp", "GroupResult"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
