"""A content-addressed cache of chain results, so unchanged chains are not checked again.

The key hashes everything a result depends on: the bytes and names of every
file of the chain, the settings, the shipped schemas, the tool version and its code
(an edited or reinstalled rule module must not replay old results), so
a cached result is exactly what checking again would give. Checks the cache
cannot see (a project's own hooks) switch it off.

Entries live in "packs": each run reads the packs it finds once, and at the
end writes one new pack with the entries it used or made, then removes the
packs it read. A pack is written to a temporary name and renamed, so parallel
xdist workers and interrupted runs never leave a half-written pack; a pack that
cannot be read is simply a miss. One file per run instead of one per chain
keeps a cold run with the cache about as fast as one without.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from pytest_handoff.read.files import read_bounded
from pytest_handoff.values.findings import Finding
from pytest_handoff.values.groups import Stamp

PACK_SUFFIX = ".pack.json"
#: A pack larger than this is not read (and is replaced by this run's).
MAX_PACK = 256 * 1024 * 1024
Entry = dict[str, Any]


@cache
def _schemas_digest() -> str:
    from pytest_handoff.validation.schemas import available_schemas, load_schema

    digest = hashlib.sha256()
    for name in available_schemas():
        digest.update(name.encode())
        digest.update(json.dumps(load_schema(name), sort_keys=True).encode())
    return digest.hexdigest()


@cache
def _code_digest(package: Path = Path(__file__).parents[1]) -> str:
    """The name, size and modification time of every module of ``package`` (stat only, no reads)."""
    digest = hashlib.sha256()
    for folder, _, names in sorted(os.walk(package)):
        for name in sorted(names):
            if name.endswith(".py"):
                stat = os.stat(os.path.join(folder, name))
                digest.update(f"{folder}/{name}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    return digest.hexdigest()


@cache
def _plugins_digest() -> str:
    """Names and versions of third-party profiles: upgrading one must not reuse old results."""
    from importlib.metadata import entry_points

    found = sorted(
        f"{entry.name}={entry.value}@{entry.dist.version if entry.dist else '?'}"
        for entry in entry_points(group="pytest_handoff.profiles")
    )
    return ",".join(found)


class ResultCache:
    """Chain results stored under ``directory``; call :meth:`flush` once at the end of a run."""

    def __init__(self, directory: Path, settings_fingerprint: str, *, keep_notes: bool = True) -> None:
        """``keep_notes=False`` stores results without their trace notes (the CLI never shows them)."""
        from pytest_handoff.version import __version__

        self.directory = directory
        self.keep_notes = keep_notes
        self.salt = (
            f"{__version__}\0{_code_digest()}\0{_schemas_digest()}\0{_plugins_digest()}\0{settings_fingerprint}\0"
            f"{'notes' if keep_notes else 'no notes'}\0"
        ).encode()
        self._read_packs: list[Path] = []
        self._known: dict[str, Entry] = {}
        self._kept: dict[str, Entry] = {}
        self._added = 0
        self._carry_over = False
        self._load()

    def carry_over(self) -> None:
        """Keep every entry read, used or not, in the pack this run writes.

        For a process that checks only part of the groups (an xdist worker its share): the packs it
        removes also hold the other parts' entries, which it never asks for.
        """
        self._carry_over = True

    def _load(self) -> None:
        try:
            packs = sorted(self.directory.glob(f"*{PACK_SUFFIX}"))
        except OSError:
            return
        for pack in packs:
            try:
                entries = json.loads(read_bounded(pack, MAX_PACK))  # a FIFO planted here must not hang
            except (OSError, ValueError):
                self._read_packs.append(pack)  # unreadable: replaced by this run's pack
                continue
            if isinstance(entries, dict) and entries.get("salt") == self.salt.hex():
                self._known.update(entries.get("entries", {}))
                self._read_packs.append(pack)
            # Packs made with other settings or versions stay for the runs that use them.

    @property
    def empty(self) -> bool:
        """True when no result can be found here (nothing was stored yet under these settings)."""
        return not self._known and not self._kept

    def key(self, members: Sequence[tuple[str, bytes]]) -> str:
        """The key of a chain given each member's display path and bytes."""
        digest = hashlib.sha256(self.salt)
        for name, raw in members:
            digest.update(f"{len(name)}:{name}:{len(raw)}:".encode())
            digest.update(raw)
        return digest.hexdigest()

    def get(
        self, key: str
    ) -> tuple[tuple[Finding, ...], tuple[str, ...], dict[str, tuple[str, ...]], tuple[Stamp, ...]] | None:
        entry = self._kept.get(key) or self._known.get(key)
        if entry is None:
            return None
        try:
            findings = tuple(Finding.from_wire(f) for f in entry["findings"])
            sources = {path: tuple(lines) for path, lines in entry["sources"].items()}
            notes = tuple(entry["notes"])
            stamps = tuple(Stamp(str(p), int(n), str(a), str(t)) for p, n, a, t in entry.get("stamps", ()))
        except (KeyError, TypeError, ValueError, AttributeError):
            return None
        self._kept[key] = entry
        return findings, notes, sources, stamps

    def put(
        self,
        key: str,
        findings: Sequence[Finding],
        notes: Sequence[str],
        sources: Mapping[str, tuple[str, ...]],
        stamps: Sequence[Stamp] = (),
    ) -> None:
        self._kept[key] = {
            "findings": [f.to_wire() for f in findings],
            "notes": list(notes) if self.keep_notes else [],
            "sources": dict(sources),
            "stamps": [list(stamp) for stamp in stamps],
        }
        self._added += 1

    def flush(self) -> str | None:
        """Write this run's entries as one pack and drop the packs read at the start; returns why
        the cache could not be written, if it could not.

        A run that added nothing leaves the packs as they are (a warm run writes nothing).
        """
        if not self._added:
            return None
        pack = self.directory / f"{os.urandom(16).hex()}{PACK_SUFFIX}"
        temporary = pack.with_name(f".{pack.name}.tmp")
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            with temporary.open("w", encoding="utf-8") as stream:
                json.dump(
                    {
                        "salt": self.salt.hex(),
                        "entries": {**self._known, **self._kept} if self._carry_over else self._kept,
                    },
                    stream,
                    ensure_ascii=False,
                    separators=(",", ":"),
                )
            os.replace(temporary, pack)
        except OSError as error:
            # A cache that cannot be written only costs speed; the caller says so, once.
            with contextlib.suppress(OSError):
                temporary.unlink()
            return f"cannot write the cache in {self.directory} ({error.strerror or error}): results are not kept"
        for old in self._read_packs:
            # Another process (an xdist worker) may have removed it already.
            with contextlib.suppress(OSError):
                old.unlink()
        self._read_packs = []
        self._added = 0
        return None
