"""GSD: the ``.planning/`` tree of gsd-build/get-shit-done and its forks, grouped by phase folder.

GSD's agents hand work to each other in files: the planner writes ``NN-MM-PLAN.md``, the
executor a ``NN-MM-SUMMARY.md`` per plan (files created and modified, a commit per task, a
self-check), the verifier ``NN-VERIFICATION.md`` with a status, the human UAT ``NN-UAT.md``;
``STATE.md``, ``ROADMAP.md``, ``REQUIREMENTS.md``, ``config.json`` and ``HANDOFF.json`` carry the
project between sessions. Every key and section is optional: the templates changed often (see
:data:`~pytest_handoff.profiles.gsd.format.GENERATIONS`), and real files drift from them.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_handoff.profiles.base import Profile, folder_files
from pytest_handoff.profiles.builtin import GSD as SPEC
from pytest_handoff.profiles.gsd.format import (
    CONFIG,
    HANDOFF,
    MARKDOWN_TYPES,
    NAME,
    PLAN,
    SUMMARY,
)
from pytest_handoff.profiles.gsd.layout import PROJECT, group_of, kind_of
from pytest_handoff.profiles.gsd.reader import read_gsd
from pytest_handoff.rules.evidence.declared import ClaimField
from pytest_handoff.values.documents import Document, Loaded
from pytest_handoff.values.settings import NO_SETTINGS, Settings

if TYPE_CHECKING:
    from pytest_handoff.values.groups import Group, GroupRef
    from pytest_handoff.values.rules import Hit, Rule
    from pytest_handoff.values.view_model import ChainView

_SUMMARIES = (SUMMARY,)
#: Where GSD's files claim work done: a summary's files and commits, HANDOFF.json's task commits.
CLAIMS = (
    ClaimField("/files_created/*", "path", changed="added", handoff_types=_SUMMARIES),
    ClaimField("/files_modified/*", "path", changed="modified", handoff_types=_SUMMARIES),
    ClaimField("/commits/*", "commit", handoff_types=_SUMMARIES),
    ClaimField("/plan_metadata/*", "commit", tentative=True, handoff_types=_SUMMARIES),
    ClaimField("/self_check", "attestation", handoff_types=_SUMMARIES),
    ClaimField("/completed_tasks/*/commit", "commit", handoff_types=(HANDOFF,)),
)
#: Order in a phase folder: plans and summaries by their key, then the verification and UAT.
_ORDER = {PLAN: 0, SUMMARY: 0}


class GsdProfile(Profile):
    """GSD (github.com/gsd-build/get-shit-done): plans, summaries and verifications under ``.planning/``."""

    name = NAME
    default_globs = SPEC.default_globs
    spec = SPEC
    claim_fields = CLAIMS
    claim_time = "/front_matter/completed"

    def claims(self, path: Path, settings: Settings = NO_SETTINGS) -> bool:
        return kind_of(path) is not None

    def keeps(self, path: Path) -> bool:
        return kind_of(path) is not None

    def claims_declared(self, ref: GroupRef, settings: Settings) -> tuple[tuple[ClaimField, ...], str]:
        """A summary's time is its ``completed`` date; the project's, HANDOFF.json's ``timestamp``."""
        return self.claim_fields, ("/timestamp" if ref.group_id == PROJECT else self.claim_time)

    def group_of(self, path: Path, settings: Settings = NO_SETTINGS) -> tuple[Path, str] | None:
        return group_of(path)

    def members(
        self, directory: Path, group_id: str, listing: list[Path] | None, settings: Settings = NO_SETTINGS
    ) -> list[Path]:
        return [path for path in folder_files(directory, listing) if kind_of(path) is not None]

    def read(self, raw: bytes, path: Path, display_path: str, settings: Settings) -> Loaded:
        kind = kind_of(path)
        if kind is None:  # a file named on the command line that is no GSD handoff
            from pytest_handoff.read.strict_json import parse_json_bytes

            return Loaded.of(parse_json_bytes(raw, path, display_path))
        return read_gsd(raw, path, display_path, kind)

    def rule_table(self) -> tuple[Rule, ...]:
        from pytest_handoff.profiles.gsd.rules import RULES

        return RULES

    def cache_inputs(self, ref: GroupRef, settings: Settings) -> list[Path]:
        """The project's rules read the phases' plans and summaries: a result holds while they do."""
        if ref.group_id != PROJECT or ref.directory is None:
            return []
        from pytest_handoff.profiles.gsd.project import phase_files

        return [path for path in phase_files(ref.directory) if path.suffix == ".md"]

    def classify(self, document: Document, settings: Settings) -> tuple[str | None, Iterable[Hit]]:
        kind = kind_of(document.path)
        if kind is None:
            return None, ()
        if kind.type in MARKDOWN_TYPES or kind.type in (CONFIG, HANDOFF):
            return kind.type, ()
        return None, ()

    def schema_name(self, handoff_type: str) -> str:
        return f"gsd/{handoff_type}"

    def sort_key(self, path: Path) -> tuple[int, str]:
        kind = kind_of(path)
        order = _ORDER.get(kind.type, 1) if kind else 2
        return (order, f"{kind.key}-{kind.type}" if kind and kind.key else path.name)

    def keywords(self, paths: Iterable[Path], settings: Settings) -> list[str]:
        """The file types of the group (``summary``, ``verification``) for ``pytest -k``."""
        return sorted({kind.type for kind in map(kind_of, paths) if kind is not None})

    def summarise(self, chain: Group) -> ChainView:
        from pytest_handoff.profiles.gsd.views import summarise

        return summarise(chain)


PROFILE = GsdProfile()
