"""What git knows of the project a handoff describes, asked in a few batched commands.

One :class:`Repository` per project root and state of git (HEAD, the index) is kept for the
life of the process, and each question is asked at most once: the index (``git ls-files``,
which holds staged files, so that in a commit hook the index counts as the tree), uncommitted
changes (``git status``), and the history (one ``git log --all`` with each commit's hash, author
time and the paths it touched). Every command runs through :mod:`pytest_handoff.read.git`: nothing
is written, and no program the repository's configuration names is started.

Outside a git repository, without git, or in a shallow clone, :attr:`Repository.problem` or
:attr:`Repository.shallow` say what cannot be known; the rules then say so, never guess.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Collection
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

from pytest_handoff.read.git import GitError, git_text

__all__ = ["Commit", "GitError", "Repository", "forget_repositories", "repository_for"]


class Commit(NamedTuple):
    sha: str
    time: int  # author time, seconds since the epoch
    paths: tuple[str, ...]


class Repository:
    """The git repository holding a project root (or the lack of one), asked lazily."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.top: Path | None = None
        self.problem = ""  # why git cannot be asked (empty when it can)
        self.shallow = False
        try:
            lines = git_text(root, "rev-parse", "--show-toplevel", "--is-shallow-repository").splitlines()
        except GitError as error:
            self.problem = "not a git repository" if "not a git repository" in str(error) else str(error)
            return
        if len(lines) < 2:
            self.problem = "git rev-parse gave no top-level folder"
            return
        self.top = Path(lines[0])
        self.shallow = lines[1].strip() == "true"

    def relative(self, path: str) -> str | None:
        """``path`` (relative to the project root) as git names it, None when outside the repository."""
        if self.top is None:
            return None
        try:
            return (self.root / path).resolve().relative_to(self.top.resolve()).as_posix()
        except (ValueError, OSError):
            return None

    @cached_property
    def indexed(self) -> frozenset[str]:
        """Every path of the index (the last commit's files and staged ones)."""
        return frozenset(filter(None, self._ask("ls-files", "-z").split("\0")))

    @cached_property
    def uncommitted(self) -> frozenset[str]:
        """Paths with changes not committed: staged, unstaged or untracked (both sides of a rename)."""
        found: set[str] = set()
        entries = iter(self._ask("status", "--porcelain=v1", "-z", "--untracked-files=all").split("\0"))
        for entry in entries:
            if len(entry) < 4:
                continue
            found.add(entry[3:])
            if entry[0] in "RC":
                found.add(next(entries, ""))  # the source of a rename or copy follows
        found.discard("")
        return frozenset(found)

    @cached_property
    def history(self) -> tuple[Commit, ...]:
        """Every commit reachable from any ref, newest first, with the paths it touched."""
        # Each commit opens with NUL and "//": no path git records starts with "/", so no file name
        # can forge a record (a NUL never appears in one).
        text = self._ask("log", "--all", "--no-renames", "--format=%x00//%H %at", "--name-only", "-z")
        commits: list[Commit] = []
        for block in text.split("\0//")[1:]:
            head, _, rest = block.partition("\0")  # with -z, the format line ends in NUL
            sha, _, when = head.partition(" ")
            names = rest[1:] if rest.startswith("\n") else rest  # the line break after the format line
            paths = tuple(name for name in names.split("\0") if name)
            if sha and when.isdigit():
                commits.append(Commit(sha, int(when), paths))
        return tuple(commits)

    @cached_property
    def _times(self) -> dict[str, list[int]]:
        """Path -> the author times of the reachable commits that touched it."""
        times: dict[str, list[int]] = {}
        for commit in self.history:
            for path in commit.paths:
                times.setdefault(path, []).append(commit.time)
        return times

    @property
    def ever(self) -> Collection[str]:
        """Every path any reachable commit touched."""
        return self._times.keys()

    @cached_property
    def _shas(self) -> tuple[list[str], dict[str, Commit]]:
        by_sha = {commit.sha: commit for commit in self.history}
        return sorted(by_sha), by_sha

    def commit(self, prefix: str) -> Commit | None:
        """The reachable commit whose hash starts with ``prefix`` (None when none or ambiguous)."""
        ordered, by_sha = self._shas
        prefix = prefix.lower()
        at = bisect.bisect_left(ordered, prefix)
        found = [sha for sha in ordered[at : at + 2] if sha.startswith(prefix)]
        return by_sha[found[0]] if len(found) == 1 else None

    def existing(self, names: list[str]) -> set[str]:
        """Which of ``names`` (commit hashes) name an object of the repository, reachable or not:
        one ``git cat-file --batch-check`` for them all."""
        wanted = [name for name in names if name and all(c in "0123456789abcdefABCDEF" for c in name)]
        if not wanted:
            return set()
        answer = git_text(
            self.top or self.root, "cat-file", "--batch-check", stdin="".join(f"{n}\n" for n in wanted)
        )
        return {
            name
            for name, line in zip(wanted, answer.splitlines(), strict=False)
            if line.split(" ")[1:2] == ["commit"]
        }

    @cached_property
    def oldest(self) -> int | None:
        """The author time of the oldest reachable commit (where a shallow history starts)."""
        return min((commit.time for commit in self.history), default=None)

    def touched(self, path: str, since: int | None, until: int | None) -> bool:
        """True when a commit dated within [since, until] (open ends) touched ``path``."""
        return any(
            (since is None or time >= since) and (until is None or time <= until)
            for time in self._times.get(path, ())
        )

    def _ask(self, *args: str) -> str:
        if self.top is None:
            raise GitError(self.problem or "not a git repository")
        return git_text(self.top, *args)


_OPEN: dict[tuple[str, tuple[int, int], tuple[int, int], tuple[int, int]], Repository] = {}


def repository_for(root: Path) -> Repository:
    """The repository of ``root``, made once per state of its git folder (HEAD, the index, the
    reflog: a commit changes it)."""
    git = root / ".git"
    key = (str(root), _stamp(git / "HEAD"), _stamp(git / "index"), _stamp(git / "logs" / "HEAD"))
    found = _OPEN.get(key)
    if found is None:
        if len(_OPEN) > 64:  # a long-lived process (MCP) checks many states of few projects
            _OPEN.clear()
        found = _OPEN[key] = Repository(root)
    return found


def _stamp(path: Path) -> tuple[int, int]:
    try:
        info = os.stat(path)
    except OSError:
        return (0, 0)
    return (info.st_mtime_ns, info.st_size)


def forget_repositories() -> None:
    """Drop what git said (a long-lived process, the MCP server, asks again for each check)."""
    _OPEN.clear()
