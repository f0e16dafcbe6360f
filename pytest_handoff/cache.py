"""A content-addressed cache of chain results, so unchanged chains are not checked again.

The key hashes everything a result depends on: the bytes and names of every
file of the chain, the settings, the shipped schemas and the tool version.
Entries are written atomically (temporary file, then rename), so parallel
xdist workers and interrupted runs never leave a half-written entry; an entry
that cannot be read is a miss. Checks a cache cannot see (a project's own
hooks) switch it off.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from pytest_handoff.findings import Finding


@cache
def _schemas_digest() -> str:
    from pytest_handoff.schemas import available_schemas, load_schema

    digest = hashlib.sha256()
    for name in available_schemas():
        digest.update(name.encode())
        digest.update(json.dumps(load_schema(name), sort_keys=True).encode())
    return digest.hexdigest()


class ResultCache:
    """Chain results stored under ``directory``, one small JSON file per key."""

    def __init__(self, directory: Path, settings_fingerprint: str) -> None:
        from pytest_handoff import __version__

        self.directory = directory
        self.salt = f"{__version__}\0{_schemas_digest()}\0{settings_fingerprint}\0".encode()

    def key(self, members: Sequence[tuple[str, bytes]]) -> str:
        """The key of a chain given each member's display path and bytes."""
        digest = hashlib.sha256(self.salt)
        for name, raw in members:
            digest.update(f"{len(name)}:{name}:{len(raw)}:".encode())
            digest.update(raw)
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key[2:]}.json"

    def get(self, key: str) -> tuple[tuple[Finding, ...], tuple[str, ...], dict[str, tuple[str, ...]]] | None:
        try:
            entry: dict[str, Any] = json.loads(self._path(key).read_bytes())
            findings = tuple(Finding.from_wire(f) for f in entry["findings"])
            sources = {path: tuple(lines) for path, lines in entry["sources"].items()}
            return findings, tuple(entry["notes"]), sources
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(
        self,
        key: str,
        findings: Sequence[Finding],
        notes: Sequence[str],
        sources: dict[str, tuple[str, ...]],
    ) -> None:
        path = self._path(key)
        entry = {"findings": [f.to_wire() for f in findings], "notes": list(notes), "sources": sources}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(entry, stream, ensure_ascii=False)
            os.replace(temporary, path)
        except OSError:
            pass  # a cache that cannot be written only costs speed
