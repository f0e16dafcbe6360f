"""Helpers of the GSD profile's tests: a phase read from memory, a project on disk, findings by code."""

from __future__ import annotations

from pathlib import Path

from pytest_handoff.pipeline import check as pipeline
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.pipeline.run import check_paths
from pytest_handoff.values.findings import Finding
from pytest_handoff.values.groups import GroupRef
from pytest_handoff.values.settings import Settings

PROFILE = default_registry().profile("gsd")
#: Where in-memory files pretend to be: a project that is not on disk.
NOWHERE = Path("/nonexistent-gsd-project")
PHASE = ".planning/phases/01-setup"

Found = tuple[str, str, int, str]


def shown(findings: list[Finding]) -> list[Found]:
    """(code, file name, line, pointer) of each finding, in the order reported."""
    return [(f.code, f.path.rsplit("/", 1)[-1], f.line, f.pointer) for f in findings]


def check_phase(files: dict[str, str], folder: str = PHASE, settings: Settings | None = None) -> list[Found]:
    """Check the files of one phase folder, held in memory (name -> text)."""
    paths = sorted((NOWHERE / folder / name for name in files), key=PROFILE.sort_key)
    located = PROFILE.group_of(paths[0])
    assert located is not None, paths[0]
    ref = GroupRef(PROFILE.name, located[1], located[0], tuple(paths))
    contents = {NOWHERE / folder / name: text.encode() for name, text in files.items()}
    result = pipeline.check_group(
        ref, settings or Settings(), NOWHERE, overrides=contents, registry=default_registry()
    )
    return shown(list(result.findings))


def write_project(root: Path, files: dict[str, str]) -> Path:
    """The files (path below ``root`` -> text) of a project on disk."""
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def check_project(root: Path, settings: Settings | None = None) -> list[Found]:
    """Every finding of a whole project on disk (evidence off unless ``settings`` say)."""
    _, results = check_paths([], root, settings or Settings(), jobs=1, registry=default_registry())
    return shown([finding for result in results for finding in result.findings])


def summary(front: str = "", body: str = "") -> str:
    """A SUMMARY: its front matter lines (none when empty), then its body."""
    head = f"---\n{front}---\n\n" if front else ""
    return head + "# Phase 1 Plan 1: Setup Summary\n\n" + body


def plan(requirements: str = "[AUTH-01]", tasks: int = 2, checkpoints: int = 0) -> str:
    """A PLAN with ``tasks`` auto tasks, then ``checkpoints`` checkpoint tasks."""
    elements = "".join(
        f'<task type="auto">\n  <name>Task {n}</name>\n</task>\n\n' for n in range(1, tasks + 1)
    ) + "".join(
        '<task type="checkpoint:human-verify" gate="blocking">\n  <what-built>it</what-built>\n</task>\n\n'
        for _ in range(checkpoints)
    )
    return f"---\nphase: 01-setup\nplan: 01\nrequirements: {requirements}\n---\n\n<tasks>\n\n{elements}</tasks>\n"
