"""Trinity's names: the format's name, its one handoff type, the ``handoff/`` folder and its options.

The profile and the rules both read these; this module imports nothing of the format but its row.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_handoff.profiles.builtin import TRINITY as SPEC

if TYPE_CHECKING:
    from pytest_handoff.values.settings import Settings

NAME = SPEC.name
#: The folder of a workspace that other agents write handoffs into.
HANDOFF_FOLDER = "handoff"
#: Trinity has one kind of handoff.
HANDOFF_TYPE = "handoff"


def workspaces(settings: Settings) -> dict[str, str]:
    """``[tool.handoff.trinity] workspaces``: agent -> workspace folder (POSIX, relative to the root).

    An agent not listed is judged by its folder's name.
    """
    configured: Mapping[str, str] = SPEC.option(settings, "workspaces")
    return {agent: normal_folder(folder) for agent, folder in configured.items()}


def normal_folder(folder: str) -> str:
    """A configured folder as the engine shows folders: POSIX separators, no ``./`` or trailing ``/``."""
    spelt = folder.strip().replace("\\", "/")
    if spelt.startswith("/") or (len(spelt) > 1 and spelt[1] == ":"):
        return spelt.rstrip("/") or "/"  # absolute: compared as a path on disk
    return posixpath.normpath(spelt)


def timestamp_tolerance_ms(settings: Settings) -> int:
    """``[tool.handoff.trinity] timestamp-tolerance-ms`` (a whole number >= 0), else the default."""
    value: int = SPEC.option(settings, "timestamp-tolerance-ms")
    return value


def in_handoff_folder(path: Path) -> bool:
    return path.parent.name == HANDOFF_FOLDER
