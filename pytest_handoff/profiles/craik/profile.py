"""Craik: handoff records (``craik.handoff``) and their quality scores, as JSON exports or store rows.

Craik keeps handoffs as rows of its SQLite store (``$CRAIK_HOME/state/craik.sqlite3``); ``craik
handoff show ID`` exports one as JSON. Both are checked: a JSON export under the globs (or named),
and a store named on the command line, in ``[tool.handoff.craik] stores``, or found by default with
``--profile craik``. The JSON files of one folder form a group, and so do the rows of one store:
a quality score is checked against the handoff it scores within its group.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_handoff.profiles.base import Profile, folder_files
from pytest_handoff.profiles.builtin import CRAIK as SPEC
from pytest_handoff.profiles.craik.format import (
    DOCS_ONLY_FIELDS,
    DOCS_ONLY_STATUSES,
    HANDOFF,
    HANDOFF_DOCS,
    NAME,
    QUALITY_SCORE,
    SCHEMA_IDS,
    STORE_KINDS,
)
from pytest_handoff.read.files import read_head
from pytest_handoff.rules.evidence.declared import ClaimField
from pytest_handoff.values.documents import Document, Loaded
from pytest_handoff.values.rules import Hit
from pytest_handoff.values.settings import NO_SETTINGS, Settings
from pytest_handoff.values.wording import did_you_mean

if TYPE_CHECKING:
    from pytest_handoff.values.rules import Rule
    from pytest_handoff.values.settings import Settings

STORE_SUFFIXES = (".sqlite3", ".sqlite", ".db")
#: A named JSON file is Craik's when its name says so or its head declares a Craik record.
NAMED_SUFFIX = ".craik.json"
#: How much of a named file is read to recognise it (a store row's JSON has sorted keys, so
#: ``schema`` may come after long lists).
HEAD_BYTES = 64 * 1024
# Compiled by re on first use (only a named .json file without a Craik name needs it).
_SCHEMA_DECLARED = rb'"schema"\s*:\s*"craik\.handoff(?:_quality_score)?"'
_SQLITE_HEADER = b"SQLite format 3\x00"


def default_store(environ: Mapping[str, str]) -> Path:
    """Where Craik keeps its store: ``$CRAIK_HOME/state/craik.sqlite3``, else ``~/.craik/state/...``.

    As Craik resolves it (``runtime/paths.py``), without creating anything.
    """
    home = environ.get("CRAIK_HOME")
    if home:
        return Path(home).expanduser() / "state" / "craik.sqlite3"
    user_home = environ.get("HOME")
    base = Path(user_home) if user_home else Path.home()
    return base / ".craik" / "state" / "craik.sqlite3"


def is_store_name(path: Path) -> bool:
    """True for a file named like an SQLite database."""
    return path.name.endswith(STORE_SUFFIXES)


def docs_shaped(data: Mapping[str, object]) -> bool:
    """True when a handoff follows the docs page's shape (a docs-only field or status)."""
    return any(field in data for field in DOCS_ONLY_FIELDS) or data.get("status") in DOCS_ONLY_STATUSES


def record_type(data: object, kind: str = "", schema: str = "") -> str | None:
    """The handoff type of a record: by a store row's ``schema`` column when it names one, else by
    its store ``kind``, else by its content.

    The ``schema`` column says what contract a row claims, whatever its kind; a row of Craik's
    kind for handoffs or scores that claims another contract is still read as its kind says (so
    Craik reads it back). A record with Craik's ``schema`` value is that record; one without a
    ``schema`` field (an agent writing what the docs describe) is a handoff when it has a
    ``self_audit`` and a score when it has ``handoff_id`` and ``components``. A handoff with any
    docs-only field or status is of the docs' shape (``handoff_docs``).
    """
    if not isinstance(data, dict):
        return None
    found = SCHEMA_IDS.get(schema) or STORE_KINDS.get(kind)
    if found is None:
        declared = data.get("schema")
        if declared is not None:
            found = SCHEMA_IDS.get(declared) if isinstance(declared, str) else None
        elif "self_audit" in data:
            found = HANDOFF
        elif "handoff_id" in data and "components" in data:
            found = QUALITY_SCORE
    if found == HANDOFF and docs_shaped(data):
        return HANDOFF_DOCS
    return found


class CraikProfile(Profile):
    """Craik's handoff records (github.com/Eidetic-Labs/Craik)."""

    name = NAME
    default_globs = SPEC.default_globs
    spec = SPEC
    # A score's handoff is looked up in the whole group.
    group_wide_codes = frozenset()
    claim_fields = (
        ClaimField("/files_changed/*", "path", handoff_types=(HANDOFF,)),
        ClaimField("/tests_run/*", "test_name", handoff_types=(HANDOFF,)),
    )
    claim_time = "/created_at"

    def claims(self, path: Path, settings: Settings = NO_SETTINGS) -> bool:
        if is_store_name(path) or path.name.endswith(NAMED_SUFFIX):
            return True
        if path.suffix != ".json":
            return False
        head = read_head(path, HEAD_BYTES)  # a FIFO named *.json must not hang discovery
        return head is not None and re.search(_SCHEMA_DECLARED, head) is not None

    def group_of(self, path: Path, settings: Settings = NO_SETTINGS) -> tuple[Path, str] | None:
        if is_store_name(path):
            return None  # a store is a group of its own
        parent = path.parent
        return parent, parent.name or "craik"

    def members(
        self, directory: Path, group_id: str, listing: list[Path] | None, settings: Settings = NO_SETTINGS
    ) -> list[Path]:
        """The Craik JSON files of a folder: named ``*.craik.json``, or declaring a Craik record."""
        listing = folder_files(directory, listing)
        return [
            path
            for path in listing
            if path.name.endswith(NAMED_SUFFIX) or (path.suffix == ".json" and self.claims(path, settings))
        ]

    def default_sources(self, settings: Settings) -> list[Path]:
        """The stores of ``[tool.handoff.craik] stores``, else Craik's own store: ``$CRAIK_HOME``'s
        even if absent (the finding then says where it was looked for), ``~/.craik``'s when present
        (a machine without Craik, a CI runner, still checks the project's exports)."""
        configured = stores(settings)
        if configured:
            return configured
        store = default_store(os.environ)
        return [store] if os.environ.get("CRAIK_HOME") or store.exists() else []

    def configured_sources(self, settings: Settings) -> list[Path]:
        """The stores of ``[tool.handoff.craik] stores`` (missing ones are reported)."""
        return stores(settings)

    def opens_itself(self, path: Path) -> bool:
        return is_store_name(path)

    def open(self, path: Path, display_path: str, settings: Settings) -> Loaded:
        from pytest_handoff.profiles.craik.store import read_store

        return read_store(path, display_path)

    def classify(self, document: Document, settings: Settings) -> tuple[str | None, Iterable[Hit]]:
        kind, schema = "", ""
        if document.logical:  # only a store's rows have one: JSON files need not import the reader
            from pytest_handoff.profiles.craik.store import StoreRow

            if isinstance(document, StoreRow):
                kind, schema = document.kind, document.schema
        data = document.data
        found = record_type(data, kind, schema)
        if found is not None:
            return found, ()
        if not (document.logical or document.name.endswith(NAMED_SUFFIX)):
            # Anything else under .craik/ (configuration, other Craik contracts) is not ours to judge.
            return None, ()
        if not isinstance(data, dict):
            what = type(data).__name__ if data is not None else "null"
            return None, (Hit(document, "", f"a Craik record must be a JSON object, got {what}"),)
        declared = data.get("schema")
        if isinstance(declared, str) and declared.startswith("craik."):
            return None, ()  # another Craik contract, exported beside the handoffs: not checked
        known = ", ".join(SCHEMA_IDS)
        where = "/schema" if "schema" in data else ""
        hint = did_you_mean(declared, SCHEMA_IDS)
        return None, (
            Hit(document, where, f"not a Craik handoff record: 'schema' must be one of {known}{hint}"),
        )

    def schema_name(self, handoff_type: str) -> str:
        return f"craik/{handoff_type}"

    def keywords(self, paths: Iterable[Path], settings: Settings) -> list[str]:
        return ["craik", *(["store"] if any(is_store_name(path) for path in paths) else [])]

    def rule_table(self) -> tuple[Rule, ...]:
        from pytest_handoff.profiles.craik.rules import RULES

        return RULES


def stores(settings: Settings) -> list[Path]:
    """``[tool.handoff.craik] stores`` as paths (``~`` expanded)."""
    configured: tuple[str, ...] = SPEC.option(settings, "stores")
    return [Path(entry).expanduser() for entry in configured]


PROFILE = CraikProfile()
