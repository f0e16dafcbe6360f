"""The reading views' summaries are made where each group is checked: on the process pool when the
groups are many, as the linter's own checks are, and the same as made in one process."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pytest_handoff.pipeline.parallel import PARALLEL_THRESHOLD
from pytest_handoff.pipeline.run import Run
from tests.conftest import EXAMPLES

pytestmark = pytest.mark.slow  # a project of hundreds of chains, checked twice


def test_summaries_made_on_the_process_pool_are_those_made_in_one_process(tmp_path: Path) -> None:
    handoffs = tmp_path / ".neuralrelay" / "handoffs"
    for project in ("clean", "broken"):
        source = next((EXAMPLES / "neuralrelay" / project / ".neuralrelay" / "handoffs").iterdir())
        for n in range(PARALLEL_THRESHOLD // 2 + 1):
            shutil.copytree(source, handoffs / f"{source.name[:-2]}{n:02d}-{project}")
    run = Run.in_project(tmp_path)
    refs = run.discover([]).groups
    assert len(refs) > PARALLEL_THRESHOLD
    alone = run.check(refs, summarise=True, jobs=1)
    pooled = run.check(refs, summarise=True, jobs=2)
    assert all(result.view is not None for result in pooled)
    assert [result.view for result in pooled] == [result.view for result in alone]
    assert [result.findings for result in pooled] == [result.findings for result in alone]
    assert run.check(refs[:3])[0].view is None  # only when asked for
