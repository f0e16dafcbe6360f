"""Helpers for the Trinity tests: handoffs written in memory, and our fixture workspaces on disk."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_handoff.pipeline.check import check_group
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.profiles.trinity.profile import PROFILE
from pytest_handoff.values.findings import Finding
from pytest_handoff.values.groups import GroupRef
from pytest_handoff.values.settings import Settings

FIXTURES = Path(__file__).parent / "fixtures" / "trinity"
#: A project root that does not exist: in-memory files are checked as if they lay below it.
ROOT = Path("/nonexistent-project")
#: Where the values of :func:`body` stand (line, column), as ``json.dumps(indent=2)`` writes them.
AT = {
    "/": (1, 1),
    "/from": (2, 11),
    "/to": (3, 9),
    "/timestamp": (4, 16),
    "/context": (5, 14),
    "/status": (6, 13),
}

_STAMP_TIME = re.compile(r"T(\d{2})_(\d{2})_(\d{2})")


#: A field value that leaves the field out of :func:`body`.
OMIT: Any = object()


def body(**fields: Any) -> str:
    """A Trinity handoff, one field a line, sound unless ``fields`` say otherwise (:data:`OMIT` leaves one out)."""
    data: dict[str, Any] = {
        "from": "developer",
        "to": "tester",
        "timestamp": "2026-04-02T10:00:00.000Z",
        "context": "export recipes as PDF",
        "status": "pending",
    }
    data.update(fields)
    return json.dumps({key: value for key, value in data.items() if value is not OMIT}, indent=2)


def check(files: Mapping[str, str], settings: Settings | None = None, root: Path = ROOT) -> list[Finding]:
    """Findings of ``files`` (path below ``root`` -> text) checked in memory, group by group."""
    paths = {root / name: text.encode() for name, text in files.items()}
    groups: dict[str, list[Path]] = {}
    refs: list[GroupRef] = []
    for path in paths:
        located = PROFILE.group_of(path)
        if located is None:
            refs.append(GroupRef(PROFILE.name, path.stem, None, (path,)))
        else:
            groups.setdefault(str(located[0]), []).append(path)
    for members in groups.values():
        directory, group_id = PROFILE.group_of(members[0]) or (members[0].parent, "")
        refs.append(GroupRef(PROFILE.name, group_id, directory, tuple(sorted(members, key=PROFILE.sort_key))))
    found: list[Finding] = []
    for ref in refs:
        found.extend(
            check_group(
                ref, settings or Settings(), root, overrides=paths, registry=default_registry()
            ).findings
        )
    return sorted(found)


def places(findings: list[Finding], code: str) -> list[tuple[str, int, int]]:
    """Where the findings of ``code`` are: (path, line, column)."""
    return [(f.path, f.line, f.column) for f in findings if f.code == code]


def with_colons(name: str) -> str:
    """A fixture's file name with the colons of its timestamp restored (``T10_00_00`` -> ``T10:00:00``)."""
    return _STAMP_TIME.sub(r"T\1:\2:\3", name)


def trinity_workspaces(fixture_set: str, target: Path, *, colons: bool = True) -> list[Path]:
    """Copy each workspace of a fixture set to ``target/{workspace}/handoff/``; the files copied."""
    copied = []
    for workspace in sorted(p for p in (FIXTURES / fixture_set).iterdir() if p.is_dir()):
        folder = target / workspace.name / "handoff"
        folder.mkdir(parents=True, exist_ok=True)
        for source in sorted(workspace.iterdir()):
            destination = folder / (with_colons(source.name) if colons else source.name)
            shutil.copyfile(source, destination)
            copied.append(destination)
    return copied
