"""What every view shares: the project and its settings, the chains checked and summarised, secrets
masked in what a view shows."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from pytest_handoff.pipeline.parallel import Progress
    from pytest_handoff.pipeline.run import Run
    from pytest_handoff.values.groups import GroupRef, GroupResult
    from pytest_handoff.values.view_model import ChainView


def project() -> Path:
    """The project root, as the linter finds it: any folder inside the project gives the same chains."""
    from pytest_handoff.pipeline.run import find_project

    return find_project(Path.cwd())


def absolute(paths: Sequence[Path]) -> list[Path]:
    """Named paths, relative to the working directory as typed, made absolute."""
    return [Path(os.path.abspath(path)) for path in paths]


def run_or_fail(config: Path | None) -> Run:
    """The view's run of the project it is in (a usage error when its configuration cannot be used)."""
    from pytest_handoff.pipeline.run import Run
    from pytest_handoff.values.errors import ConfigError, UsageError

    try:
        return Run.in_project(project(), config_file=config)
    except ConfigError as error:
        raise UsageError(str(error)) from None


def load_views(
    run: Run,
    paths: Sequence[Path],
    progress: Progress | None = None,
    wanted: Callable[[GroupRef], bool] | None = None,
) -> list[ChainView]:
    """Every chain under ``paths`` (``root`` when none), checked and summarised, oldest first.

    ``wanted`` picks the chains to check (all by default).
    """
    from pytest_handoff.values.errors import UsageError

    discovery = run.discover(paths)
    if discovery.missing:
        raise UsageError(f"no such file or folder: {', '.join(discovery.missing)}")
    refs = [ref for ref in discovery.groups if wanted is None or wanted(ref)]
    # Each group is summarised where it is checked: on the process pool when there are many.
    results = run.check(refs, progress=progress, summarise=True)
    views = [_with_result(result.view, result, run.root) for result in results if result.view is not None]
    return sorted(views, key=lambda view: (view.started or "", view.group_id))


_T = TypeVar("_T")


def _with_result(view: ChainView, result: GroupResult, root: Path) -> ChainView:
    from pytest_handoff.pipeline.masking import shown_path
    from pytest_handoff.read.files import display_path_for

    directory = result.ref.directory
    shown = display_path_for(directory, root) if directory is not None else view.directory
    return view._replace(findings=result.findings, directory=shown_path(shown), group_id=result.shown_id)


def stdout_is_terminal() -> bool:
    return hasattr(sys.stdout, "isatty") and sys.stdout.isatty()
