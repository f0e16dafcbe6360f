"""What a commit or a pull request changes, asked of git.

pre-commit passes a hook only the files a commit adds or changes, so a deleted handoff would
leave its chain broken unchecked; ``handoff-lint --staged-deletions`` asks here. A pull
request's gate (``--changed-since BASE``) asks what the branch added, changed and deleted.
"""

from __future__ import annotations

import os
from pathlib import Path

from pytest_handoff.read.git import GitError, run_git

__all__ = ["GitError", "changed_since", "deleted_files"]


def deleted_files() -> list[Path]:
    """The files the commit being made deletes, relative to the current folder (discovery keeps
    those the globs claim).

    The index against ``HEAD``; under ``pre-commit run --from-ref A --to-ref B`` (which sets
    ``PRE_COMMIT_FROM_REF``/``PRE_COMMIT_TO_REF``), the range. Renames count as a deletion
    and an addition.
    """
    start, end = os.environ.get("PRE_COMMIT_FROM_REF"), os.environ.get("PRE_COMMIT_TO_REF")
    # As pre-commit compares a range: from the merge base, or the two ends when there is none.
    ranges = [[f"{start}...{end}"], [f"{start}..{end}"]] if start and end else [["--cached"]]
    return [path for _, path in _diff(ranges, "D")]


def changed_since(base: str) -> tuple[list[Path], list[Path]]:
    """The files added or changed, and those deleted, from ``base`` to ``HEAD`` (from their merge
    base, as a pull request compares; the two ends when there is none) and in the working tree
    since ``HEAD``, relative to the current folder."""
    if base.startswith("-") or not base.strip():
        raise GitError(f"not a revision: {base!r}")
    ranges = [[f"{base}...HEAD"], [f"{base}..HEAD"]]
    # And what is not committed yet (staged, changed in the tree, or new): a run before a commit.
    found = [*_diff(ranges, "ACDMRT"), *_diff([["HEAD"]], "ACDMRT")]
    changed = [*(path for status, path in found if status != "D"), *_untracked()]
    deleted = [path for status, path in found if status == "D"]
    return list(dict.fromkeys(changed)), [p for p in dict.fromkeys(deleted) if p not in changed]


def _untracked() -> list[Path]:
    done = run_git(Path.cwd(), ["ls-files", "-z", "--others", "--exclude-standard"])
    return [Path(os.fsdecode(name)) for name in done.out.split(b"\0") if name] if done.code == 0 else []


def _diff(ranges: list[list[str]], kinds: str) -> list[tuple[str, Path]]:
    """Each file the first range git can compare changed, of the ``kinds`` asked, with its status letter."""
    command = ["diff", "--name-status", "--no-renames", f"--diff-filter={kinds}", "-z"]
    here = Path.cwd()
    for compared in ranges:
        done = run_git(here, [*command, *compared, "--relative", "--"])
        if done.code == 0:
            fields = done.out.split(b"\0")
            return [
                (os.fsdecode(status), Path(os.fsdecode(name)))
                for status, name in zip(fields[::2], fields[1::2], strict=False)
                if name
            ]
    if run_git(here, ["rev-parse", "--git-dir"]).code:
        raise GitError("git diff failed: not in a git repository")  # git diff would compare files instead
    raise GitError(f"git diff failed: {done.first_error_line()}")
