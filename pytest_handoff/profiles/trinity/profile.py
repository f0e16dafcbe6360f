"""Trinity (jlchatha/trinity-framework-core): ``{workspace}/handoff/{from}-{ISO timestamp}.json``.

A handoff sits in the *receiving* agent's workspace, named after the *sending* agent and the
moment it was written. A group, the unit of checking, is one workspace's ``handoff/`` folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_handoff.profiles.base import Profile
from pytest_handoff.profiles.builtin import TRINITY as SPEC
from pytest_handoff.profiles.trinity.format import HANDOFF_FOLDER, HANDOFF_TYPE, NAME, in_handoff_folder
from pytest_handoff.profiles.trinity.names import looks_like_handoff, parse_file_name
from pytest_handoff.rules.evidence.declared import ClaimField
from pytest_handoff.values.settings import NO_SETTINGS, Settings

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.rules import Hit, Rule
    from pytest_handoff.values.settings import Settings
    from pytest_handoff.values.view_model import ChainView


def _holds_handoffs(folder: Path) -> bool:
    """True when ``folder`` holds a file named like a Trinity handoff (looks at 1,000 names at most)."""
    try:
        with os.scandir(folder) as entries:
            for count, entry in enumerate(entries):
                if count >= 1000:
                    return False
                if looks_like_handoff(entry.name):
                    return True
    except OSError:
        return False
    return False


def sender_in_name(path: Path) -> str:
    """The agent a file name names as the sender; the name without ``.json`` when it does not read."""
    named = parse_file_name(path.name)
    return path.stem if isinstance(named, str) else named.agent


class TrinityProfile(Profile):
    """Trinity's file-based handoffs between agents' workspaces."""

    name = NAME
    default_globs = SPEC.default_globs
    spec = SPEC
    # The context is prose: the lines it cites (`src/api.py:42`) are its claims.
    claim_fields = (ClaimField("/context", "location", handoff_types=(HANDOFF_TYPE,)),)
    claim_time = "/timestamp"

    def claims(self, path: Path, settings: Settings = NO_SETTINGS) -> bool:
        # Named like a handoff ({agent}-{ISO time}.json): another project's handoff/ folder
        # (translations, templates) holds files of other names.
        name = path.name
        if not name.endswith(".json"):
            return False
        # A misnamed file (handoff/notes.json) is Trinity's when its folder holds Trinity's handoffs:
        # named, it is reported (TR101) rather than left to no format.
        return looks_like_handoff(name) or (in_handoff_folder(path) and _holds_handoffs(path.parent))

    def group_of(self, path: Path, settings: Settings = NO_SETTINGS) -> tuple[Path, str] | None:
        """Every ``.json`` file of a ``handoff/`` folder belongs to its workspace's group.

        A file there named otherwise is a member too, so that TR101 reports its name.
        """
        if not path.name.endswith(".json") or not in_handoff_folder(path):
            return None
        folder = path.parent
        return folder, folder.parent.name or HANDOFF_FOLDER

    def sort_key(self, path: Path) -> tuple[int, str]:
        """In the order written (the timestamp of the name); names that do not read go last."""
        named = parse_file_name(path.name)
        if isinstance(named, str):
            return (2**80, path.name)
        return (named.instant.seconds * 10**12 + named.instant.picoseconds, path.name)

    def keywords(self, paths: Iterable[Path], settings: Settings) -> list[str]:
        """The senders named by the files (the workspace is the group's id already)."""
        return sorted(
            {sender_in_name(path) for path in paths if not isinstance(parse_file_name(path.name), str)}
        )

    def classify(self, document: Document, settings: Settings) -> tuple[str | None, Iterable[Hit]]:
        # One kind of handoff: the schema says what is wrong with any document, an array included.
        return HANDOFF_TYPE, ()

    def schema_name(self, handoff_type: str) -> str:
        return f"{NAME}/{handoff_type}"

    def rule_table(self) -> tuple[Rule, ...]:
        from pytest_handoff.profiles.trinity.rules import RULES

        return RULES

    def summarise(self, chain: Group) -> ChainView:
        """The files of a workspace's ``handoff/`` folder, each by its sender (from the file name)."""
        from pytest_handoff.values.view_model import generic_view

        view = generic_view(self.name, chain)
        senders = (sender_in_name(path) for path in chain.ref.paths)
        return view._replace(
            stages=tuple(
                stage._replace(agent=sender) for stage, sender in zip(view.stages, senders, strict=True)
            )
        )

    def editor_schemas(self, settings: Settings) -> list[tuple[str, list[str]]]:
        return [(self.schema_name(HANDOFF_TYPE), ["**/handoff/*-*-*-*T*.json"])]


PROFILE = TrinityProfile()
