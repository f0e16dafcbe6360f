"""The history as ``git log`` gives it: commits with their times and the paths they touched, the
questions asked of it (the whole history, or only what touched some paths), and their answers read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple


class Commit(NamedTuple):
    sha: str
    time: int  # author time, seconds since the epoch
    paths: tuple[str, ...]
    offset: int = 0  # the author's time zone, seconds east of UTC
    committed: int = 0  # committer time (a rebase changes it, not the author time)


# Each commit opens with NUL and "//": no path git records starts with "/", so no file name can
# forge a record (a NUL never appears in one).
FORMAT = "--format=%x00//%H %at %ct %ad %P"
LOG = ("log", "--all", "--no-renames", "--date=format:%z", FORMAT, "--name-only", "-z")
#: The commits of any branch that touched some paths (named after "--"), with those of their paths.
PATH_LOG = (
    "log",
    "--all",
    "--full-history",
    "--no-renames",
    "--date=format:%z",
    FORMAT,
    "--name-only",
    "-z",
)
#: The commits of HEAD's history that touched some handoffs, newest first, with which.
HEAD_LOG = ("log", "HEAD", "--full-history", "--no-renames", "--format=%x00//%H", "--name-only", "-z")
#: Named commits, each with every path it touched.
NAMED_LOG = ("log", "--no-walk=unsorted", "--no-renames", "--date=format:%z", FORMAT, "--name-only", "-z")


def commits_of(text: str, shallow: bool) -> tuple[Commit, ...]:
    """The commits of a ``git log`` in :data:`LOG`'s format, as git listed them (newest first)."""
    commits: list[Commit] = []
    for block in text.split("\0//")[1:]:
        head, _, rest = block.partition("\0")  # with -z, the format line ends in NUL
        sha, when, committed, zone, *parents = [*head.split(" "), "", "", ""]
        names = rest[1:] if rest.startswith("\n") else rest  # the line break after the format line
        # Where a shallow history is cut, git shows every file as added: no change it tells.
        cut = shallow and not any(parents)
        paths = () if cut else tuple(name for name in names.split("\0") if name)
        if sha and when.isdigit():
            commits.append(
                Commit(sha, int(when), paths, _offset(zone), int(committed) if committed.isdigit() else 0)
            )
    return tuple(commits)


def _offset(zone: str) -> int:
    """``+0130`` as seconds east of UTC (0 when unreadable)."""
    if len(zone) != 5 or zone[0] not in "+-" or not zone[1:].isdigit():
        return 0
    seconds = int(zone[1:3]) * 3600 + int(zone[3:]) * 60
    return -seconds if zone[0] == "-" else seconds


def batch_contents(specs: Sequence[str], out: bytes) -> dict[str, bytes | None]:
    """``git cat-file --batch``'s answer to ``specs``: each object's header line, its bytes, a line break."""
    found: dict[str, bytes | None] = {}
    at = 0
    for spec in specs:
        end = out.find(b"\n", at)
        if end < 0:
            break
        header = out[at:end].split(b" ")
        at = end + 1
        if len(header) == 3 and header[2].isdigit():
            size = int(header[2])
            found[spec] = out[at : at + size] if header[1] == b"blob" else None
            at += size + 1
        else:
            found[spec] = None  # "missing" or "ambiguous": no content follows
    return found
