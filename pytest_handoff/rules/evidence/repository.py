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
import posixpath
import re
from collections.abc import Collection, Sequence
from functools import cached_property
from pathlib import Path

from pytest_handoff.read.git import GitError, GitOutput, Started, git_text, run_git, start_gits
from pytest_handoff.rules.evidence.gitlog import (
    HEAD_LOG,
    LOG,
    NAMED_LOG,
    PATH_LOG,
    Commit,
    batch_contents,
    commits_of,
)

__all__ = ["Commit", "GitError", "Repository", "forget_repositories", "repository_for"]


class Repository:
    """The git repository holding a project root (or the lack of one), asked lazily."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.top: Path | None = None
        self.problem = ""  # why git cannot be asked (empty when it can)
        self.shallow = False
        self._folders: dict[str, str | None] = {}  # folder -> its git name (see name_of)
        self._reals: dict[str, str] = {}  # folder -> its real path (see _real)
        self._asked: dict[tuple[str, ...], GitOutput] = {}  # answers asked together (see ask_all)
        self._pending: tuple[list[tuple[str, ...]], Started] | None = None  # see start
        # The history: read whole (_whole), or of the paths and commits groups asked about (load).
        self._whole = False
        self._partial_loads = 0
        self._known_paths: set[str] = set()
        self._partial_by_path: dict[str, list[Commit]] = {}
        self._named: dict[str, Commit | None] = {}  # a commit's name as written (lower case) -> it
        self._last: dict[str, str | None] = {}  # a handoff's git name -> its last change on HEAD
        self._head: str | None = None  # HEAD's hash, asked once (see head)
        self._names: dict[str, str | None] = {}  # a claimed path -> its git name (see relative)
        #: What the evidence rules read of files unchanged since the last commit, by claimed path:
        #: their bytes (or why not), their test cases. Kept for the life of this state of git.
        self.contents: dict[str, bytes | str | None] = {}
        self.test_cases: dict[str, int | None] = {}
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

    @cached_property
    def _prefix(self) -> str | None:
        """The project root as git names it ("" at the top of the repository; None when outside)."""
        if self.top is None:
            return None
        found = os.path.relpath(os.path.realpath(self.root), os.path.realpath(self.top))
        if found == os.curdir:
            return ""
        return (
            None if found == os.pardir or found.startswith(os.pardir + os.sep) else found.replace(os.sep, "/")
        )

    def relative(self, path: str) -> str | None:
        """``path`` (relative to the project root) as git names it, None when outside the repository.
        Named as written (a claim names the path, not a link's target: git tracks the link)."""
        if path in self._names:
            return self._names[path]
        prefix = self._prefix
        name: str | None = None
        if prefix is not None:
            name = posixpath.normpath(posixpath.join(prefix, path.replace(os.sep, "/")))
            if name in (".", "..") or name.startswith(("../", "/")):
                name = None
        self._names[path] = name
        return name

    def name_of(self, path: Path) -> str | None:
        """A file's path (absolute or relative to the working folder) as git names it (None when
        outside the repository): its folder resolved once per folder."""
        if self.top is None:
            return None
        folder, name = os.path.split(os.path.abspath(path))
        if folder not in self._folders:
            real, top = self._real(folder), self._real_top
            inside = real == top or real.startswith(top.rstrip(os.sep) + os.sep)
            self._folders[folder] = real[len(top) :].strip(os.sep).replace(os.sep, "/") if inside else None
        prefix = self._folders[folder]
        if prefix is None:
            return None
        return f"{prefix}/{name}" if prefix else name

    def _real(self, folder: str) -> str:
        """``folder``'s real path: its parent's (kept) and one look at whether it is a link, where
        ``os.path.realpath`` looks at every folder on the way each time."""
        real = self._reals.get(folder)
        if real is None:
            parent = os.path.dirname(folder)
            if parent == folder or os.path.islink(folder):
                real = os.path.realpath(folder)
            else:
                real = os.path.join(self._real(parent), os.path.basename(folder))
            self._reals[folder] = real
        return real

    @cached_property
    def _real_top(self) -> str:
        return os.path.realpath(self.top or self.root)

    @cached_property
    def _index(self) -> tuple[frozenset[str], frozenset[str]]:
        """Every path of the index, and those of its regular files git looks at on disk (not links or
        submodules, not marked assume-unchanged or skip-worktree: git would not see them change)."""
        every: list[str] = []
        regular: list[str] = []
        for entry in self._ask(*_INDEX).split("\0"):
            tag, _, rest = entry.partition(" ")
            mode, _, rest = rest.partition(" ")
            name = rest.partition("\t")[2]
            if name:
                every.append(name)
                if tag == "H" and mode in ("100644", "100755"):
                    regular.append(name)
        return frozenset(every), frozenset(regular)

    @property
    def indexed(self) -> frozenset[str]:
        """Every path of the index (the last commit's files and staged ones)."""
        return self._index[0]

    def unchanged_file(self, name: str) -> bool:
        """True when ``name`` is a regular file of the index with no change in the work tree: it is on
        disk as committed, and no symbolic link is on its way (git would list the change)."""
        return name in self._index[1] and name not in self.uncommitted

    @cached_property
    def uncommitted(self) -> frozenset[str]:
        """Paths with changes not committed: staged, unstaged or untracked (both sides of a rename)."""
        found: set[str] = set()
        entries = iter(self._ask(*_STATUS).split("\0"))
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
        return commits_of(self._ask(*LOG), self.shallow)

    @cached_property
    def _head_history(self) -> tuple[str, ...]:
        """The hashes of the commits HEAD reaches, HEAD first (none before the first commit)."""
        done = self._asked.pop(_HEAD, None) or run_git(self._top(), _HEAD)
        return tuple(done.out.decode("ascii", "replace").split()) if done.code == 0 else ()

    def start(self, *, whole: bool = False) -> None:
        """Start asking git the questions every handoff's claims need (the index, the changes; and
        once the whole history is wanted, it and HEAD's), all at once, without waiting:
        :meth:`ask_all` collects them."""
        self._whole = self._whole or whole
        if self.top is None or self._pending is not None:
            return
        questions = _QUESTIONS if self._whole else _QUESTIONS[:2]
        wanted: list[tuple[str, ...]] = [
            args for args, name in questions if name not in self.__dict__ and args not in self._asked
        ]
        if len(wanted) > 1:
            self._pending = (wanted, start_gits(self.top, wanted))

    def ask_all(self) -> None:
        """The answers to :meth:`start`'s questions (asked now if they were not): started together,
        a check waits for the slowest, not for their sum."""
        self.start()
        if self._pending is not None:
            wanted, started = self._pending
            self._pending = None
            self._asked.update(zip(wanted, started.outputs(), strict=True))

    def prepare(self) -> None:
        """Everything the claims of any handoff need, read now (before a process pool forks: the
        workers inherit it, and none asks git again)."""
        if self.top is None:
            return
        self._whole = True
        try:
            self.ask_all()
            self._index, self.uncommitted, self._full_by_path, self.on_head  # noqa: B018 (read to be kept)
        except GitError:
            pass  # asked again, and said, where a claim needs it

    def read_whole(self) -> None:
        """From now on, the whole history answers (read once, on first need)."""
        self._whole = True

    def close(self) -> None:
        """End the git commands started and not collected (a run whose groups made no claim)."""
        if self._pending is not None:
            self._pending[1].stop()
            self._pending = None

    def asks_by_path(self) -> bool:
        """True while groups ask git about their own paths (:meth:`load`), False once the whole
        history is read."""
        return not (self._whole or self.shallow or self._partial_loads >= PARTIAL_LOADS)

    def load(self, paths: Collection[str], commits: Collection[str], handoffs: Collection[str]) -> None:
        """Learn what a group's claims need of the history: the commits that touched ``paths``, the
        commits ``commits`` name, and the last change on HEAD of each of ``handoffs`` (git names).

        The first few groups of a run ask about their own paths only (``git log -- PATHS``: a hook
        checking one handoff in a history of 50,000 commits waits for a fraction of the whole); a
        run of more groups reads the whole history once."""
        if self._whole or self.shallow or self._partial_loads >= PARTIAL_LOADS or len(paths) > PARTIAL_PATHS:
            self._whole = True
            return
        self._partial_loads += 1
        top = self._top()
        new = sorted(set(paths) - self._known_paths)
        names = sorted({name.lower() for name in commits} - self._named.keys())
        heads = sorted(set(handoffs) - self._last.keys())
        questions: list[tuple[str, ...]] = []
        if new:
            questions.append((*PATH_LOG, "--", *(f":(literal){path}" for path in new)))
        if heads:
            questions.append((*HEAD_LOG, "--", *(f":(literal){path}" for path in heads)))
        if names:
            questions.append(_RESOLVE)
        stdin = _resolve_input(names) if names else None
        answers = dict(
            zip(
                (q[0] + q[1] for q in questions),
                start_gits(top, questions, stdin=stdin).outputs(),
                strict=True,
            )
        )
        if new:
            for commit in commits_of(answers["log--all"].text("log"), False):
                for path in commit.paths:
                    self._partial_by_path.setdefault(path, []).append(commit)
            self._known_paths.update(new)
        if heads:
            head_log = answers["logHEAD"]  # before the first commit there is no HEAD: no last change
            for block in (head_log.text("log") if head_log.code == 0 else "").split("\0//")[1:]:
                sha, _, rest = block.partition("\0")
                for path in (rest[1:] if rest.startswith("\n") else rest).split("\0"):
                    if path:
                        self._last.setdefault(path, sha.strip())
            self._last.update((path, None) for path in heads if path not in self._last)
        if names:
            self._named.update(self._resolved(names, answers["cat-file--batch-check=%(objectname)"]))

    @cached_property
    def on_head(self) -> frozenset[str]:
        """The hashes of the commits HEAD reaches (its own branch's history)."""
        return frozenset(self._head_history)

    @property
    def head(self) -> str:
        """HEAD's commit hash (empty before the first commit)."""
        if not self._whole:
            if self._head is None:
                done = run_git(self._top(), ("rev-parse", "-q", "--verify", "HEAD^{commit}"))
                self._head = done.out.decode("ascii", "replace").strip() if done.code == 0 else ""
            return self._head
        return self._head_history[0] if self._head_history else ""

    @cached_property
    def _full_by_path(self) -> dict[str, list[Commit]]:
        """Path -> the reachable commits that touched it, newest first."""
        found: dict[str, list[Commit]] = {}
        for commit in self.history:
            for path in commit.paths:
                found.setdefault(path, []).append(commit)
        return found

    @property
    def _by_path(self) -> dict[str, list[Commit]]:
        """Path -> the reachable commits that touched it, newest first: of every path once the whole
        history is read, else of the paths :meth:`load` asked about."""
        return self._full_by_path if self._whole else self._partial_by_path

    def last_change(self, path: str) -> Commit | None:
        """The newest commit of HEAD's history that touched ``path`` (where its committed text was written)."""
        if not self._whole:
            sha = self._last.get(path)
            return next((commit for commit in self._by_path.get(path, ()) if commit.sha == sha), None)
        head = self.on_head
        return next((commit for commit in self._by_path.get(path, ()) if commit.sha in head), None)

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
            if not content and len(parts) == 3 and parts[1] in ("blob", "tree", "commit"):
                found[spec] = b""  # there: a file, a folder or a submodule
            elif len(parts) == 3 and parts[1] == "blob" and parts[2].isdigit():
                if not content:
                    found[spec] = b""
                elif int(parts[2]) <= limit:
                    readable.append(spec)  # a larger one is left out: not judged
            else:
                found[spec] = None
        if readable:
            out = run_git(
                self._top(),
                ("cat-file", "--batch"),
                stdin="".join(f"{s}\n" for s in readable).encode("utf-8", "surrogateescape"),
            )
            found.update(batch_contents(readable, out.out))
        return found

    def ignored(self, paths: Sequence[str]) -> set[str]:
        """Which of ``paths`` (as git names them) the repository's ignore rules ignore: one command
        for them all (one each if git refuses one of them: beyond a link, in a submodule)."""
        # A leading ":" would be pathspec magic to check-ignore: such a path is not asked.
        wanted = [path for path in dict.fromkeys(paths) if "\0" not in path and not path.startswith(":")]
        found = self._ignored(wanted) if wanted else set()
        if found is None:
            found = {path for path in wanted if self._ignored([path])}
        return found

    def _ignored(self, paths: list[str]) -> set[str] | None:
        stdin = "\0".join(paths).encode("utf-8", "surrogateescape") + b"\0"
        done = run_git(self._top(), ("check-ignore", "-z", "--stdin"), stdin=stdin)
        if done.code not in (0, 1):  # 1: none is ignored
            return None
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
        if not self._whole:
            return self._named.get(prefix.lower())
        ordered, by_sha = self._shas
        prefix = prefix.lower()
        at = bisect.bisect_left(ordered, prefix)
        found = [sha for sha in ordered[at : at + 2] if sha.startswith(prefix)]
        return by_sha[found[0]] if len(found) == 1 else None

    def resolve(self, names: Sequence[str]) -> dict[str, Commit | None]:
        """The commit each of ``names`` (hashes as a handoff writes them) names, reachable from a ref
        or not (None when it names none): one ``cat-file`` and one ``log --no-walk``, by lower-case name."""
        wanted = sorted({name.lower() for name in names})
        if not wanted:
            return {}
        return self._resolved(wanted, run_git(self._top(), _RESOLVE, stdin=_resolve_input(wanted)))

    def _resolved(self, names: list[str], answer: GitOutput) -> dict[str, Commit | None]:
        lines = answer.text("cat-file").splitlines()
        shas = {
            name: line.strip()
            for name, line in zip(names, lines, strict=False)
            if _FULL_HASH.fullmatch(line.strip())
        }
        named = (
            commits_of(git_text(self._top(), *NAMED_LOG, *sorted(set(shas.values()))), False) if shas else ()
        )
        by_sha = {commit.sha: commit for commit in named}
        return {name: by_sha.get(shas.get(name, "")) for name in names}

    @cached_property
    def oldest(self) -> int | None:
        """The author time of the oldest reachable commit (where a shallow history starts)."""
        return min((commit.time for commit in self.history), default=None)

    def touched_under(self, folder: str, since: int | None, until: int | None) -> bool:
        """True when a commit dated within [since, until] touched a file in ``folder``, or one has
        an uncommitted change."""
        inside = folder.rstrip("/") + "/"
        if any(path.startswith(inside) for path in self.uncommitted):
            return True
        return any(self.touched(path, since, until) for path in self._by_path if path.startswith(inside))

    def touched(self, path: str, since: int | None, until: int | None) -> bool:
        """True when a commit dated within [since, until] (open ends) touched ``path``."""
        return any(
            (since is None or commit.time >= since) and (until is None or commit.time <= until)
            for commit in self._by_path.get(path, ())
        )

    def _ask(self, *args: str) -> str:
        done = self._asked.pop(args, None)
        return git_text(self._top(), *args) if done is None else done.text(args[0])


#: The questions every check with claims asks git, and the property each answers.
_INDEX = ("ls-files", "-s", "-v", "-z")
_STATUS = ("status", "--porcelain=v1", "-z", "--untracked-files=all")
_HEAD = ("rev-list", "HEAD")
_QUESTIONS = ((_INDEX, "_index"), (_STATUS, "uncommitted"), (LOG, "history"), (_HEAD, "_head_history"))


#: What ``cat-file`` is asked of named commits (each on its line, ``NAME^{commit}``): their full hash.
_RESOLVE = ("cat-file", "--batch-check=%(objectname)")
#: A full commit hash (SHA-1 or SHA-256).
_FULL_HASH = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def _resolve_input(names: Sequence[str]) -> bytes:
    return "".join(f"{name}^{{commit}}\n" for name in names).encode("ascii", "replace")


#: How many groups of a run ask git about their own paths before the whole history is read once.
PARTIAL_LOADS = 8
#: A group naming more paths than this reads the whole history.
PARTIAL_PATHS = 300


_OPEN: dict[tuple[str, tuple[int, int], tuple[int, int], tuple[int, int]], Repository] = {}


def repository_for(root: Path) -> Repository:
    """The repository of ``root``, made once per state of its git folder (HEAD, the index, the
    reflog: a commit changes it)."""
    git = root / ".git"
    key = (str(root), _stamp(git / "HEAD"), _stamp(git / "index"), _stamp(git / "logs" / "HEAD"))
    found = _OPEN.get(key)
    if found is None:
        if len(_OPEN) > 64:  # a long-lived process (MCP) checks many states of few projects
            forget_repositories()
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
    for repository in _OPEN.values():
        repository.close()
    _OPEN.clear()
