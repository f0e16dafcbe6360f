"""A progress bar on stderr while many handoffs are checked, only where a person watches.

Shown when more than :data:`THRESHOLD` files are checked and both stdout and stderr are a
terminal (so never in piped output, nor under pytest's output capture, which replaces them),
outside CI, and for human formats (never ``json``, ``sarif`` or ``github``). Rich is imported
only when the bar is shown.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from pytest_handoff.pipeline.parallel import Progress
    from pytest_handoff.values.groups import GroupRef

#: Fewer files than this are checked before a bar could be read.
THRESHOLD = 300
MACHINE_FORMATS = frozenset({"json", "sarif", "github"})
#: Set by CI services (``CI`` by nearly all of them).
CI_VARIABLES = (
    "CI",
    "GITHUB_ACTIONS",
    "GITLAB_CI",
    "BUILDKITE",
    "JENKINS_URL",
    "TF_BUILD",
    "TEAMCITY_VERSION",
)


def wants_progress(
    format_name: str,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    environ: Mapping[str, str] | None = None,
) -> bool:
    """True where a bar helps: a person at a terminal, a human format, not CI."""
    environ = os.environ if environ is None else environ
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr
    if format_name in MACHINE_FORMATS:
        return False
    if any(environ.get(name) for name in CI_VARIABLES) or environ.get("TERM") == "dumb":
        return False
    return all(_is_terminal(stream) for stream in (stdout, stderr))


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def progress_bar(
    format_name: str,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    environ: Mapping[str, str] | None = None,
    threshold: int = THRESHOLD,
) -> Progress | None:
    """A callback for :func:`~pytest_handoff.engine.check_chains`, or None where no bar is wanted."""
    if not wants_progress(format_name, stdout, stderr, environ):
        return None
    return FileProgress(sys.stderr if stderr is None else stderr, threshold)


class FileProgress:
    """Counts the files of the chains checked; a rich bar appears once the total passes the threshold."""

    def __init__(self, stream: TextIO, threshold: int = THRESHOLD) -> None:
        self.stream = stream
        self.threshold = threshold
        self.done = 0
        self.total = 0
        self._bar: Any = None
        self._task: Any = None

    def __call__(self, refs: Sequence[GroupRef], checked: GroupRef | None) -> None:
        if checked is None:
            self.total = sum(len(ref.paths) for ref in refs)
            self.done = 0
            if self.total > self.threshold and self._bar is None:
                self._start()
            return
        self.done += len(checked.paths)
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done)
            if self.done >= self.total:
                self.close()

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        console = Console(file=self.stream, force_terminal=True)
        self._bar = Progress(
            TextColumn("checking handoffs"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("files"),
            TimeRemainingColumn(),
            console=console,
            transient=True,  # gone when done: the report is what stays on screen
        )
        self._task = self._bar.add_task("check", total=self.total)
        self._bar.start()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
