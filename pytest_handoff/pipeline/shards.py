"""``--shard K/N``: a run split over N machines, each checking the groups a stable hash gives it.

A group is never split across shards (its cross-file rules need all of it), the same group lands in
the same shard on every machine and every run (the hash of its place in the project, not Python's
randomised ``hash``), and the N shards together check exactly the groups of the whole run.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from pytest_handoff.read.files import display_path_for
from pytest_handoff.values.errors import ConfigError
from pytest_handoff.values.groups import GroupRef

#: Shards at the most (a matrix of GitHub Actions jobs is limited to 256).
MAX_SHARDS = 256


def parse_shard(text: object, where: str) -> tuple[int, int]:
    """``"K/N"`` as (K, N), 1 <= K <= N; a ``ConfigError`` naming ``where`` otherwise."""
    index, slash, count = str(text).strip().partition("/")
    digits = slash and index.isascii() and index.isdigit() and count.isascii() and count.isdigit()
    shard = (int(index), int(count)) if digits else None
    if shard is None or not 1 <= shard[0] <= shard[1] <= MAX_SHARDS:
        raise ConfigError(f"{where}: shard must be K/N with 1 <= K <= N <= {MAX_SHARDS}, got {text!r}")
    return shard


def shard_of(ref: GroupRef, root: Path, count: int) -> int:
    """The shard (1 to ``count``) of a group: by its format and the place of its folder (or its
    file, for a group of one) in the project."""
    place = (
        display_path_for(ref.directory or ref.paths[0], root) if ref.paths or ref.directory else ref.group_id
    )
    digest = hashlib.blake2b(
        f"{ref.profile}\0{place}".encode("utf-8", "surrogatepass"), digest_size=8
    ).digest()
    return int.from_bytes(digest, "big") % count + 1
