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
from collections.abc import Collection, Sequence
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

from pytest_handoff.read.git import GitError, git_text, run_git

__all__ = ["Commit", "GitError", "Repository", "forget_repositories", "repository_for"]


class Commit(NamedTuple):
    sha: str
    time: int  # author time, seconds since the epoch
    paths: tuple[str, ...]
    offset: int = 0  # the author's time zone, seconds east of UTC
    position: int = 0  # its place in the history, newest first (0 is the newest)


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
        text = self._ask(
            "log",
            "--all",
            "--no-renames",
            "--date=format:%z",
            "--format=%x00//%H %at %ad %P",
            "--name-only",
            "-z",
        )
        commits: list[Commit] = []
        for block in text.split("\0//")[1:]:
            head, _, rest = block.partition("\0")  # with -z, the format line ends in NUL
            sha, when, zone, *parents = [*head.split(" "), "", ""]
            names = rest[1:] if rest.startswith("\n") else rest  # the line break after the format line
            # Where a shallow history is cut, git shows every file as added: no change it tells.
            cut = self.shallow and not any(parents)
            paths = () if cut else tuple(name for name in names.split("\0") if name)
            if sha and when.isdigit():
                commits.append(Commit(sha, int(when), paths, _offset(zone), len(commits)))
        return tuple(commits)

    @cached_property
    def _head_history(self) -> tuple[str, ...]:
        """The hashes of the commits HEAD reaches, HEAD first (none before the first commit)."""
        done = run_git(self._top(), ("rev-list", "HEAD"))
        return tuple(done.out.decode("ascii", "replace").split()) if done.code == 0 else ()

    @cached_property
    def on_head(self) -> frozenset[str]:
        """The hashes of the commits HEAD reaches (its own branch's history)."""
        return frozenset(self._head_history)

    @property
    def head(self) -> str:
        """HEAD's commit hash (empty before the first commit)."""
        return self._head_history[0] if self._head_history else ""

    @cached_property
    def _by_path(self) -> dict[str, list[Commit]]:
        """Path -> the reachable commits that touched it, newest first."""
        found: dict[str, list[Commit]] = {}
        for commit in self.history:
            for path in commit.paths:
                found.setdefault(path, []).append(commit)
        return found

    def last_change(self, path: str) -> Commit | None:
        """The newest commit of HEAD's history that touched ``path`` (where its committed text was written)."""
        head = self.on_head
        return next((commit for commit in self._by_path.get(path, ()) if commit.sha in head), None)

    def changed_after(self, path: str, commit: Commit) -> bool:
        """True when ``path`` may differ in the working tree from ``commit``'s: a newer commit (of
        any branch) touched it, or it has an uncommitted change."""
        touched = self._by_path.get(path, ())
        return bool(touched and touched[0].position < commit.position) or path in self.uncommitted

    def objects(self, specs: Sequence[str], *, content: bool, limit: int) -> dict[str, bytes | None]:
        """What each ``REV:PATH`` of ``specs`` holds: its bytes when ``content`` (b"" unread: larger than
        ``limit``), or b"" for a file that is there; None for no file. Two batched commands at most."""
        wanted = [spec for spec in dict.fromkeys(specs) if "\n" not in spec and "\r" not in spec]
        if not wanted:
            return {}
        found: dict[str, bytes | None] = {}
        sizes = git_text(self._top(), "cat-file", "--batch-check", stdin="".join(f"{s}\n" for s in wanted))
        readable: list[str] = []
        for spec, line in zip(wanted, sizes.splitlines(), strict=False):
            parts = line.split(" ")
            if len(parts) == 3 and parts[1] == "blob" and parts[2].isdigit():
                found[spec] = b""
                if content and int(parts[2]) <= limit:
                    readable.append(spec)
            else:
                found[spec] = None
        if readable:
            out = run_git(
                self._top(),
                ("cat-file", "--batch"),
                stdin="".join(f"{s}\n" for s in readable).encode("utf-8", "surrogateescape"),
            )
            found.update(_batch_contents(readable, out.out))
        return found

    def ignored(self, paths: Sequence[str]) -> set[str]:
        """Which of ``paths`` (as git names them) the repository's ignore rules ignore: one command."""
        wanted = [path for path in dict.fromkeys(paths) if "\0" not in path]
        if not wanted:
            return set()
        done = run_git(
            self._top(),
            ("check-ignore", "-z", "--stdin"),
            stdin="\0".join(wanted).encode("utf-8", "surrogateescape") + b"\0",
        )
        if done.code not in (0, 1):  # 1: none is ignored
            raise GitError(f"git check-ignore: {done.first_error_line()}")
        return {name for name in done.out.decode("utf-8", "surrogateescape").split("\0") if name}

    def _top(self) -> Path:
        if self.top is None:
            raise GitError(self.problem or "not a git repository")
        return self.top

    @property
    def ever(self) -> Collection[str]:
        """Every path any reachable commit touched."""
        return self._by_path.keys()

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
            (since is None or commit.time >= since) and (until is None or commit.time <= until)
            for commit in self._by_path.get(path, ())
        )

    def _ask(self, *args: str) -> str:
        return git_text(self._top(), *args)


def _offset(zone: str) -> int:
    """``+0130`` as seconds east of UTC (0 when unreadable)."""
    if len(zone) != 5 or zone[0] not in "+-" or not zone[1:].isdigit():
        return 0
    seconds = int(zone[1:3]) * 3600 + int(zone[3:]) * 60
    return -seconds if zone[0] == "-" else seconds


def _batch_contents(specs: Sequence[str], out: bytes) -> dict[str, bytes | None]:
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
