"""What the Claude Code hooks share: the project, its settings, which files are handoffs, what
git sees changed, and the reason text the agent reads.

Nothing here writes: git is asked with ``--no-optional-locks`` (no index refresh), and every
path is kept inside the project, symbolic links resolved.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_handoff.pipeline.matcher import Matcher
    from pytest_handoff.pipeline.run import Run
    from pytest_handoff.values.findings import Finding

#: At most this many findings are spelt out in a reason; the rest are counted.
MAX_FINDINGS = 8
#: A reason never grows past this many characters (the agent reads all of it every time).
MAX_REASON = 4000
#: A fix hint from the rule's docs is cut to this many characters.
MAX_HINT = 300
#: At most this many file names in a reason's first line; the rest are counted.
MAX_NAMED_FILES = 3


class ConfigProblem(Exception):
    """The project's configuration cannot be used."""


def hook_root(cwd: object) -> Path:
    """The project folder: ``$CLAUDE_PROJECT_DIR`` (which Claude Code sets for its hooks), else
    the project the payload's ``cwd`` is in, found as the CLI finds it.

    The session's ``cwd`` follows the agent's ``cd``; the project's settings stay at its root.
    """
    from pytest_handoff.pipeline.run import find_project
    from pytest_handoff.read.files import nameable

    project = os.environ.get("CLAUDE_PROJECT_DIR")
    if project and os.path.isabs(project) and nameable(project):
        return Path(project)
    usable = isinstance(cwd, str) and os.path.isabs(cwd) and nameable(cwd)  # a NUL names no folder
    return find_project(Path(cwd) if usable and isinstance(cwd, str) else Path.cwd())


def session_folder(cwd: object, root: Path) -> Path:
    """The folder the session is in (the payload's absolute ``cwd``), else the project folder."""
    from pytest_handoff.read.files import nameable

    if isinstance(cwd, str) and os.path.isabs(cwd) and nameable(cwd):
        return Path(cwd)
    return root


def hook_run(root: Path) -> Run:
    """The hook's run of the project (``ConfigProblem`` when its settings cannot be used)."""
    from pytest_handoff.pipeline.run import Run
    from pytest_handoff.values.errors import ConfigError

    try:
        return Run.in_project(root)
    except ConfigError as error:
        raise ConfigProblem(str(error)) from None


class Handoffs:
    """Which paths of one project are handoff files, by the profiles' globs (no engine imported)."""

    def __init__(self, run: Run) -> None:
        from pytest_handoff.pipeline.matcher import Matcher

        self.run = run
        self.root, self.settings, self.registry = run.root, run.settings, run.registry
        self.real_root = os.path.realpath(self.root)
        self.matcher: Matcher = Matcher(self.settings, self.registry, plugins=False)

    def claims(self, path: Path) -> bool:
        """True when ``path`` (absolute, normalised) lies in the project and a profile's globs match it."""
        if not path.is_relative_to(self.root):
            return False  # another project's file: its own settings and chain are not known here
        if not self.matcher.may_match(path.name):
            return False
        owner = self.matcher.first_owner(path.relative_to(self.root).as_posix())
        # As discovery decides: a glob's match the format does not keep (an app's logs/x.log, a
        # prd.json with no Ralph session beside it) is no handoff.
        return owner is not None and self.registry.profile(owner).keeps(path)

    def on_disk(self, path: Path) -> bool:
        """True when ``path`` is a regular file whose real place is inside the project too."""
        real = os.path.realpath(path)
        return Path(real).is_relative_to(self.real_root) and os.path.isfile(real)

    def pathspecs(self) -> list[str]:
        """The globs as git pathspecs (empty: git lists every file), so git walks only where they look."""
        specs = []
        for found in self.matcher.owners:
            for glob in found.globs:
                if any(c in glob for c in "[]\\:!^"):
                    return []  # a character git's globs read differently: filter afterwards instead
                body = glob.lstrip("/")
                specs.append(f":(glob){body}" if glob.startswith("/") else f":(glob)**/{body}")
        return specs


def git_top(root: Path) -> Path | None:
    """The work tree ``root`` is in: the nearest folder from it upwards holding ``.git``, or None."""
    for folder in (root, *root.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return None


def changed_in_git(handoffs: Handoffs) -> list[Path] | None:
    """The handoff files git sees new (untracked) or changed against ``HEAD``, or None when the
    project is not in a git work tree (or git cannot run).

    Files git ignores are not listed. git runs as :mod:`pytest_handoff.read.git` runs it: it writes
    nothing and starts no program the repository's configuration names.
    """
    from pytest_handoff.read.git import GitError, run_git

    top = git_top(handoffs.root)
    if top is None:
        return None
    command = [
        "status",
        "--porcelain=v1",
        "-z",
        "--untracked-files=all",
        "--no-renames",
        "--",
        *handoffs.pathspecs(),
    ]
    try:
        code, out, _ = run_git(handoffs.root, command)
    except GitError:
        return None
    if code != 0:
        return None
    found = []
    for entry in out.split(b"\0"):
        if len(entry) < 4 or entry[:2] in (b" D", b"D ", b"DD"):
            continue  # empty, or deleted: nothing on disk to check
        # Porcelain paths are relative to the top of the work tree, whatever folder git ran in.
        path = Path(os.path.normpath(top / os.fsdecode(entry[3:])))
        if handoffs.claims(path):
            found.append(path)
    return found


def changed_since(paths: Iterable[Path], since: float) -> list[Path]:
    """The ``paths`` whose content or entry changed at or after ``since`` (seconds since the epoch).

    Changed means the later of the modification time and the status change time (``st_ctime``:
    a rename or ``cp -p`` keeps the modification time but sets this one).
    """
    kept = []
    for path in paths:
        try:
            status = path.stat()
        except OSError:
            continue
        if max(status.st_mtime, status.st_ctime) >= since:
            kept.append(path)
    return kept


def check_handoffs(paths: Sequence[Path], run: Run) -> list[Finding]:
    """Every finding ``handoff-lint PATHS`` reports for these files, sorted (the same pipeline)."""
    results = run.check_paths(list(paths), jobs=1)[1]
    return sorted(f for result in results for f in result.findings)


#: The findings on an agent's message that keep it from stopping: a file, a place, a commit or a
#: test run that is not what the message says was done (test runs: only with a JUnit report).
MESSAGE_BLOCKS = frozenset({"EV101", "EV201", "EV301", "EV501"})


def message_findings(text: str, run: Run) -> list[Finding]:
    """Every finding on an agent's message read as a handoff of its own (sorted; none when no
    format reads messages): its claims of work done judged against the tree and git."""
    result = run.check_message(text)
    return [] if result is None else sorted(result.findings)


def errors_of(findings: Iterable[Finding]) -> list[Finding]:
    from pytest_handoff.values.findings import Severity

    return [f for f in findings if f.severity >= Severity.ERROR]


def masked_display(path: Path, root: Path) -> str:
    """A path as findings name it: relative to the project, secrets masked."""
    from pytest_handoff.pipeline.masking import shown_path
    from pytest_handoff.read.files import display_path_for

    return shown_path(display_path_for(path, root))


def shown(path: Path, root: Path) -> str:
    """A path as the agent reads it: relative to the project, secrets masked, on one line."""
    from pytest_handoff.values.boundary import inert

    return inert(masked_display(path, root))


def named_files(paths: Sequence[Path], root: Path) -> str:
    """``a``, ``a and b``, ``a, b, c and 2 more files``: the files a reason is about."""
    names = [shown(path, root) for path in paths[:MAX_NAMED_FILES]]
    left = len(paths) - len(names)
    if left:
        names.append(f"{left} more file{'s' * (left != 1)}")
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def findings_reason(
    errors: Sequence[Finding], first_line: str, own: Iterable[str], last_line: str = ""
) -> str:
    """Findings as the agent reads them: place, pointer, message and fix, most important first.

    ``own`` are the display paths (masked) of the files the reason is about: their findings come
    before those they cause elsewhere. Every text from a handoff goes through ``inert``, so none
    starts a line of its own; the reason stays under ``MAX_REASON`` characters.
    """
    from pytest_handoff.api import use_instead
    from pytest_handoff.values.boundary import inert

    mine = set(own)
    ordered = sorted(errors, key=lambda f: (f.path not in mine, -f.severity, f))
    count = len(ordered)
    lines = [first_line]
    size = len(first_line) + len(last_line)
    listed = 0
    for number, finding in enumerate(ordered[:MAX_FINDINGS], start=1):
        place = inert(finding.location + (f" {finding.pointer}" if finding.pointer else ""))
        entry = f"\n{number}. {place} [{finding.code} {inert(finding.rule)}] {inert(finding.message)}"
        hint = use_instead(finding.code)
        if hint:
            cut = hint if len(hint) <= MAX_HINT else hint[: MAX_HINT - 3].rstrip() + "..."
            entry += f"\n   Use instead: {cut}"
        if listed and size + len(entry) > MAX_REASON - 200:
            break
        lines.append(entry)
        size += len(entry)
        listed += 1
    if listed < count:
        lines.append(f"\n... and {count - listed} more: fix these, and the rest are listed on the next try.")
    lines.append("\n`handoff-lint explain CODE` prints a rule's documentation.")
    if last_line:
        lines.append(f"\n{last_line}")
    return "".join(lines)


def contracts(count: int) -> str:
    return f"{count} handoff contract{'s' * (count != 1)}"
