"""The one way a git command is run: read-only, and no program named by the repository's config.

The repository is untrusted: an agent with a shell, or write access to ``.git/``, sets its
configuration, and several keys there name a program that git starts on its own. Every command
therefore runs with those keys neutralised:

- ``core.fsmonitor`` (run by every command that looks at the work tree), ``core.hooksPath``,
  ``core.pager`` (and ``--no-pager``), ``diff.external`` (and ``--no-ext-diff``),
  ``log.showSignature`` (which runs ``gpg.program`` on a signed commit), and the transports a
  lazy fetch of a partial clone would use (``protocol.allow=never``, ``GIT_NO_LAZY_FETCH``);
- for a command that reads file contents of the work tree (``status``, ``diff``), the
  ``clean``, ``smudge`` and ``process`` programs and the ``textconv`` and ``command`` of every
  ``filter.<driver>`` and ``diff.<driver>`` the configuration names, found first with
  ``git config``; submodules are not entered.

Overrides go on the command line (``-c``), but for a driver whose name holds ``=`` (which ``-c``
would split there): its keys go through ``GIT_CONFIG_COUNT``, where keys and values stand apart.

Nothing is written: ``--no-optional-locks`` keeps ``git status`` from refreshing the index.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

#: A command's output past this many bytes is refused (a history too large to hold).
MAX_OUTPUT = 256 * 1024 * 1024
#: Seconds a git command may take.
TIMEOUT = 60

#: Configuration that turns off every program a command we run could start on its own.
SAFE_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.pager", ""),
    ("diff.external", ""),
    ("log.showSignature", "false"),
    ("log.showRoot", "true"),  # not a program, an answer: a root commit's files are changes too
    ("protocol.allow", "never"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
)
#: Subcommands that read the work tree's file contents, where attributes select drivers.
_READS_CONTENT = frozenset({"status", "diff"})
#: Per-driver keys naming a program.
_DRIVER_PROGRAMS = {"filter": ("clean", "smudge", "process"), "diff": ("textconv", "command")}
#: Variables of the caller's environment that name a program git would start.
_PROGRAM_VARIABLES = ("GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_SSH",
                      "GIT_SSH_COMMAND", "GIT_EDITOR", "GIT_PROXY_COMMAND")  # fmt: skip


class GitError(Exception):
    """git could not be run or could not answer; the message says which and why, in one line."""


class GitOutput(NamedTuple):
    code: int
    out: bytes
    err: bytes

    def text(self, command: str) -> str:
        """The output of a command that must succeed, as text (undecodable bytes kept as
        surrogates); :class:`GitError` naming ``command`` when it failed."""
        if self.code != 0:
            raise GitError(f"git {command}: {self.first_error_line()}")
        return self.out.decode("utf-8", "surrogateescape")

    def first_error_line(self) -> str:
        lines = self.err.decode("utf-8", "replace").strip().splitlines()
        return lines[0][:200] if lines else f"exit code {self.code}"


def run_git(folder: Path, args: Sequence[str], *, stdin: bytes | None = None) -> GitOutput:
    """Run ``git -C folder ARGS`` with every program-running key neutralised; its exit code and output.

    :class:`GitError` when git is not installed, takes longer than :data:`TIMEOUT` or prints more
    than :data:`MAX_OUTPUT`; a non-zero exit code is the caller's to judge.
    """
    return run_gits(folder, [args], stdin=stdin)[0]


def run_gits(
    folder: Path, commands: Sequence[Sequence[str]], *, stdin: bytes | None = None
) -> list[GitOutput]:
    """Run several git commands at once (as :func:`run_git` runs one; ``stdin`` goes to each): they
    start together, so a process that asks git several questions waits for the slowest, not the sum."""
    return start_gits(folder, commands, stdin=stdin).outputs()


class Started:
    """Git commands started and not waited for (:func:`start_gits`): :meth:`outputs` waits."""

    def __init__(self, started: list[tuple[Sequence[str], Any]], stdin: bytes | None) -> None:
        self._started = started
        self._stdin = stdin

    def outputs(self) -> list[GitOutput]:
        """Each command's exit code and output, in order (:class:`GitError` as :func:`run_git` raises)."""
        import subprocess

        try:
            done = []
            for args, process in self._started:
                try:
                    out, err = process.communicate(self._stdin, timeout=TIMEOUT)
                except subprocess.TimeoutExpired:
                    raise GitError(f"git {args[0]} took more than {TIMEOUT} s") from None
                if len(out) > MAX_OUTPUT:
                    raise GitError(f"git {args[0]}: more output than {MAX_OUTPUT // (1024 * 1024)} MB")
                done.append(GitOutput(process.returncode, out, err))
            return done
        finally:
            self.stop()

    def stop(self) -> None:
        """End every command still running (its output is not wanted)."""
        for _, process in self._started:
            if process.poll() is None:
                process.kill()
                process.wait()


def start_gits(folder: Path, commands: Sequence[Sequence[str]], *, stdin: bytes | None = None) -> Started:
    """Start git commands (each as :func:`run_git` runs it) and return without waiting for them."""
    import subprocess  # imported here: a run that never asks git does not pay for it

    started: list[tuple[Sequence[str], Any]] = []
    try:
        for args in commands:
            argv, env = _command(folder, args)
            process = subprocess.Popen(
                argv, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
            )  # fmt: skip
            started.append((args, process))
    except OSError as error:
        Started(started, None).stop()
        why = "it is not on PATH" if isinstance(error, FileNotFoundError) else error.strerror or str(error)
        raise GitError(f"cannot run git: {why}") from None
    return Started(started, stdin)


def _command(folder: Path, args: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """The argv and environment of ``git -C folder ARGS``, every program-running key neutralised."""
    overrides = list(SAFE_CONFIG)
    if args and args[0] in _READS_CONTENT:
        overrides += driver_overrides(folder)
    options = [option for key, value in overrides if "=" not in key for option in ("-c", f"{key}={value}")]
    argv = ["git", "--no-pager", "--no-optional-locks", *options, "-C", str(folder), *_armoured(args)]
    return argv, git_environment([(key, value) for key, value in overrides if "=" in key])


def git_text(folder: Path, *args: str, stdin: str | None = None) -> str:
    """The output of a git command that must succeed, as text (undecodable bytes kept as surrogates)."""
    done = run_git(folder, args, stdin=None if stdin is None else stdin.encode("utf-8", "surrogateescape"))
    return done.text(args[0])


def _armoured(args: Sequence[str]) -> list[str]:
    """``args`` with the options that keep a subcommand from starting a configured program."""
    command, rest = args[0], list(args[1:])
    if command == "log":
        return [command, "--no-show-signature", "--no-ext-diff", "--no-textconv", *rest]
    if command == "diff":
        return [command, "--no-ext-diff", "--no-textconv", "--ignore-submodules=all", *rest]
    if command == "status":
        return [command, "--ignore-submodules=all", *rest]
    return [command, *rest]


def driver_overrides(folder: Path) -> list[tuple[str, str]]:
    """An empty program for every filter and diff driver any configuration git reads names."""
    import subprocess

    try:
        done = subprocess.run(
            ["git", "--no-pager", "-C", str(folder), "config", "--null", "--name-only", "--get-regexp",
             r"^(filter|diff)\..+\."],
            capture_output=True, timeout=TIMEOUT, env=git_environment(), check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return []  # the command itself will fail the same way
    overrides: list[tuple[str, str]] = []
    drivers = {os.fsdecode(name).rpartition(".")[0] for name in done.stdout.split(b"\0") if name}
    for driver in sorted(drivers):
        kind = driver.partition(".")[0].lower()
        overrides += [(f"{driver}.{key}", "") for key in _DRIVER_PROGRAMS.get(kind, ())]
        if kind == "filter":
            overrides.append((f"{driver}.required", "false"))  # else an empty clean program fails the command
    return overrides


def git_environment(overrides: Sequence[tuple[str, str]] = ()) -> dict[str, str]:
    """The environment a git command runs in: no program named by a variable, no prompt, messages
    in English, and ``overrides`` after any configuration the caller's environment passes."""
    env = {key: value for key, value in os.environ.items() if key not in _PROGRAM_VARIABLES}
    # GIT_ALLOW_PROTOCOL empty allows no transport at all, whatever protocol.<name>.allow the
    # repository sets (a lazy fetch of a "partial clone" would run its upload-pack or ssh).
    env.update(
        GIT_OPTIONAL_LOCKS="0",
        GIT_TERMINAL_PROMPT="0",
        GIT_NO_LAZY_FETCH="1",
        GIT_ALLOW_PROTOCOL="",
        LC_ALL="C",
    )
    if overrides:
        given = env.get("GIT_CONFIG_COUNT", "0")
        start = int(given) if given.isdigit() else 0
        for index, (key, value) in enumerate(overrides, start):
            env[f"GIT_CONFIG_KEY_{index}"] = key
            env[f"GIT_CONFIG_VALUE_{index}"] = value
        env["GIT_CONFIG_COUNT"] = str(start + len(overrides))
    return env
