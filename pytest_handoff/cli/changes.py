"""``handoff-lint --changed-since BASE``: only the handoffs a branch added, changed or deleted since
``BASE`` (a pull request's base commit), each checked in its chain as it stands."""

from __future__ import annotations

import os
from pathlib import Path

from pytest_handoff.pipeline.run import Run
from pytest_handoff.values.errors import UsageError


def changed_handoffs(base: str, run: Run) -> tuple[dict[Path, str], list[Path]]:
    """The handoff files changed since ``base`` (absolute path -> as git names it) and those
    deleted. Files no glob claims are left out: a pull request's source code is not a handoff."""
    from pytest_handoff.agents.common import Handoffs
    from pytest_handoff.pipeline.staged import GitError, changed_since

    try:
        changed, deleted = changed_since(base)
    except GitError as error:
        from pytest_handoff.read.git import run_git

        try:
            asked = run_git(run.root, ["rev-parse", "--is-shallow-repository"])  # worktrees too
            shallow = asked.code == 0 and asked.out.strip() == b"true"
        except GitError:
            shallow = False
        hint = " (this clone is shallow: fetch the history, e.g. fetch-depth: 0)" if shallow else ""
        raise UsageError(f"--changed-since {base}: {error}{hint}") from None
    handoffs = Handoffs(run)
    named = {}
    for given in changed:
        path = Path(os.path.abspath(given))
        if handoffs.claims(path) and handoffs.on_disk(path):
            named[path] = str(given)
    return named, [Path(os.path.abspath(given)) for given in deleted]
