"""Helpers of the YOLO profile's tests: a project on disk, its groups checked, findings by code."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from pytest_handoff.pipeline import check as pipeline
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.values.findings import Finding
from pytest_handoff.values.groups import GroupRef
from pytest_handoff.values.settings import Settings

PROFILE = default_registry().profile("yolo")
REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "yolo"
CORPUS = REPO.parent / "shared" / "corpus" / "yolo"
PHASE = ".yolo-planning/phases/05-escalation"

Line = dict[str, Any] | str


def fixture_project(name: str, destination: Path) -> Path:
    """Our fixture project ``name`` (``clean``, ``broken``) copied to ``destination``.

    In the repository its planning folder is ``yolo-planning`` (no dot), so that linting the
    repository itself does not take the broken project for ours; the copy gets its real name.
    """
    shutil.copytree(FIXTURES / name, destination, dirs_exist_ok=True)
    (destination / "yolo-planning").rename(destination / ".yolo-planning")
    return destination


def jsonl(lines: Iterable[Line]) -> str:
    """JSONL text: dicts as one line each (``", "``/``": "`` separators), strings as they are."""
    return "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)


def write(root: Path, relative: str, content: str | bytes | Sequence[Line] | dict[str, Any]) -> Path:
    """A file of the project: text or bytes as given, a list as JSONL, a dict as JSON."""
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    elif isinstance(content, dict):
        path.write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")
    else:
        path.write_text(jsonl(content), encoding="utf-8")
    return path


def check_group(
    root: Path,
    paths: Sequence[Path],
    settings: Settings | None = None,
    contents: dict[Path, bytes] | None = None,
) -> list[Finding]:
    """Check one group with the engine (read, classify, validate, every YOLO rule).

    ``contents`` gives the bytes of files that need not exist (in-memory documents).
    """
    located = PROFILE.group_of(paths[0])
    ref = GroupRef(
        PROFILE.name, located[1] if located else paths[0].stem, located[0] if located else None, tuple(paths)
    )
    return list(
        pipeline.check_group(
            ref, settings or Settings(), root, overrides=contents or {}, registry=default_registry()
        ).findings
    )


def check_folder(root: Path, folder: str = PHASE, settings: Settings | None = None) -> list[Finding]:
    """Check the group of every YOLO file in ``folder`` (below ``root``)."""
    directory = root / folder
    paths = sorted(PROFILE.members(directory, "", None), key=PROFILE.sort_key)
    return check_group(root, paths, settings)


def check_file(root: Path, relative: str, settings: Settings | None = None) -> list[Finding]:
    return check_group(root, [root / relative], settings)


#: Where in-memory documents pretend to be: a project that is not on disk.
NOWHERE = Path("/nonexistent-yolo-project")


def check_lines(
    lines: Sequence[Line], name: str = "messages.jsonl", settings: Settings | None = None
) -> list[Finding]:
    """Check JSONL lines held in memory, as a file of a phase folder of a project not on disk."""
    path = NOWHERE / PHASE / name
    return check_group(NOWHERE, [path], settings, {path: jsonl(lines).encode()})


class Place(NamedTuple):
    path: str
    line: int
    column: int


def places(findings: Iterable[Finding], code: str) -> list[Place]:
    """Where the findings of ``code`` are."""
    return [Place(f.path.rsplit("/", 1)[-1], f.line, f.column) for f in findings if f.code == code]


def messages(findings: Iterable[Finding], code: str) -> list[str]:
    return [f.message for f in findings if f.code == code]


def codes(findings: Iterable[Finding]) -> list[str]:
    return sorted({f.code for f in findings})


def column_of(line: str, needle: str, after: bool = True) -> int:
    """1-based column of what follows ``needle`` in ``line`` (or of ``needle`` itself)."""
    index = line.index(needle)
    return index + (len(needle) if after else 0) + 1
