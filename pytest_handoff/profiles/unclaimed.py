"""A file named explicitly that no format claims: one finding (HF005) saying so, never a guess.

Reading such a file as some format's would report what it lacks as that format's handoff (a
missing ``handoff_type``) or fail to parse a JSONL file as one document: findings about a
contract the file never meant to keep. The engine checks it with this profile instead, which
reads nothing of it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pytest_handoff.profiles.base import Profile
from pytest_handoff.read.files import file_finding
from pytest_handoff.values.documents import Document, Loaded
from pytest_handoff.values.groups import UNCLAIMED
from pytest_handoff.values.rules import Hit
from pytest_handoff.values.settings import NO_SETTINGS, Settings

#: The code of its one finding (the core's rule table documents it).
UNCLAIMED_CODE = "HF005"


class UnclaimedProfile(Profile):
    """Checks a file no format claims: reports that, and which formats were tried."""

    name = UNCLAIMED
    default_globs = ()

    def __init__(self, tried: Iterable[str]) -> None:
        self.tried = tuple(tried)

    def claims(self, path: Path, settings: Settings = NO_SETTINGS) -> bool:
        return False

    def group_of(self, path: Path, settings: Settings = NO_SETTINGS) -> tuple[Path, str] | None:
        return None  # a file on its own

    def read(self, raw: bytes, path: Path, display_path: str, settings: Settings) -> Loaded:
        message = (
            f"no format claims this file (tried {', '.join(self.tried)}): put it where a format keeps "
            "its handoffs, name it as one, or choose a profile"
        )
        return Loaded((), (file_finding(display_path)(UNCLAIMED_CODE, message),))

    def classify(self, document: Document, settings: Settings) -> tuple[str | None, Iterable[Hit]]:
        return None, ()

    def schema_name(self, handoff_type: str) -> str:
        raise KeyError(handoff_type)  # it has no documents, so no schema is ever asked for
