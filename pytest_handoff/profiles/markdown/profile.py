"""Markdown handoffs: the ``HANDOFF.md`` files agents write for each other, each a file on its own,
and an agent's last message read as one (the Stop hooks, ``handoff-lint claims -``).

Their structure is free; what they claim of work done (files, ``path:line``, commits, "all tests
pass") is read with its place and judged against git by the evidence rules. A claim is read only
where the handoff clearly claims it (:mod:`pytest_handoff.profiles.markdown.claims`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_handoff.profiles.base import Profile
from pytest_handoff.profiles.builtin import MARKDOWN as SPEC
from pytest_handoff.profiles.markdown.format import HANDOFF, MESSAGE, MESSAGE_NAME, NAME
from pytest_handoff.rules.evidence.declared import ClaimField
from pytest_handoff.values.documents import Document, Loaded
from pytest_handoff.values.settings import NO_SETTINGS, Settings

if TYPE_CHECKING:
    from pytest_handoff.values.rules import Hit, Rule

#: Where a Markdown handoff claims work done (see the reader).
CLAIMS = (
    ClaimField("/done/paths/*", "path"),
    ClaimField("/done/created/*", "path", changed="added"),
    ClaimField("/done/locations/*", "location"),
    ClaimField("/done/commits/*", "commit"),
    ClaimField("/done/verdicts/*", "test_verdict"),
)


class MarkdownProfile(Profile):
    """Markdown handoffs (``HANDOFF.md``, ``.claude/handoff.md``, ``docs/handoffs/*.md``)."""

    name = NAME
    default_globs = SPEC.default_globs
    spec = SPEC
    claim_fields = CLAIMS

    def claims(self, path: Path, settings: Settings = NO_SETTINGS) -> bool:
        name = path.name.lower()
        return path.suffix.lower() == ".md" and (
            name in ("handoff.md", MESSAGE_NAME) or "handoffs" in path.parts
        )

    def group_of(self, path: Path, settings: Settings = NO_SETTINGS) -> tuple[Path, str] | None:
        return None  # each handoff stands on its own

    def read(self, raw: bytes, path: Path, display_path: str, settings: Settings) -> Loaded:
        from pytest_handoff.profiles.markdown.reader import read_markdown_handoff

        return read_markdown_handoff(raw, path, display_path, message=path.name == MESSAGE_NAME)

    def rule_table(self) -> tuple[Rule, ...]:
        from pytest_handoff.profiles.markdown.rules import RULES

        return RULES

    def classify(self, document: Document, settings: Settings) -> tuple[str | None, Iterable[Hit]]:
        return (MESSAGE if document.path.name == MESSAGE_NAME else HANDOFF), ()

    def schema_name(self, handoff_type: str) -> str:
        return "markdown/handoff"


PROFILE = MarkdownProfile()
