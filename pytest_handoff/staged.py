"""What the commit being made deletes, asked of git: for commit hooks.

pre-commit passes a hook only the files a commit adds or changes, so a deleted handoff would
leave its chain broken unchecked; ``handoff-lint --staged-deletions`` asks here.
"""

from __future__ import annotations

import os
from pathlib import Path


class GitError(Exception):
    """git could not be run or could not answer."""


def deleted_files() -> list[Path]:
    """The ``.json`` files the commit being made deletes, relative to the current folder.

    The index against ``HEAD``; under ``pre-commit run --from-ref A --to-ref B`` (which sets
    ``PRE_COMMIT_FROM_REF``/``PRE_COMMIT_TO_REF``), the range. Renames count as a deletion
    and an addition.
    """
    start, end = os.environ.get("PRE_COMMIT_FROM_REF"), os.environ.get("PRE_COMMIT_TO_REF")
    # As pre-commit compares a range: from the merge base, or the two ends when there is none.
    ranges = [[f"{start}...{end}"], [f"{start}..{end}"]] if start and end else [["--cached"]]
    command = ["git", "diff", "--name-only", "--no-ext-diff", "--no-renames", "--diff-filter=D", "-z"]
    for compared in ranges:
        code, out = run_git([*command, *compared, "--relative", "--", "*.json"])
        if code == 0:
            return [Path(os.fsdecode(name)) for name in out.split(b"\0") if name]
    raise GitError(f"git diff failed: {_git_error([*command, *ranges[-1]])}")


def run_git(argv: list[str]) -> tuple[int, bytes]:
    """git's exit code and output. Spawned without subprocess where the OS allows: importing it
    costs the hook, which runs on every commit, milliseconds each time."""
    if not hasattr(os, "posix_spawnp"):
        import subprocess

        try:
            done = subprocess.run(argv, capture_output=True, check=False)
        except OSError as error:
            raise GitError(f"cannot run git: {error.strerror or error}") from None
        return done.returncode, done.stdout
    read, write = os.pipe()
    try:
        pid = os.posix_spawnp(
            argv[0],
            argv,
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, write, 1),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),  # see _git_error
                (os.POSIX_SPAWN_CLOSE, read),
            ],
        )
    except OSError as error:
        os.close(read)
        raise GitError(f"cannot run git: {error.strerror or error}") from None
    finally:
        os.close(write)
    with open(read, "rb") as output:
        out = output.read()
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), out


def _git_error(argv: list[str]) -> str:
    """The first line git prints on stderr for ``argv`` (run again: failing is the rare case)."""
    import subprocess

    if subprocess.run(["git", "rev-parse", "--git-dir"], capture_output=True, check=False).returncode:
        return "not in a git repository"  # git diff would then compare files, and fail on --cached
    done = subprocess.run(argv, capture_output=True, check=False)
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[0] if lines else f"exit code {done.returncode}"
