"""``handoff-lint schema export [DIR]``: our JSON Schemas on disk, and the editor settings that use them.

Writes every shipped schema (each with its stable ``$id``) to ``DIR/<profile>/<type>.schema.json``
and prints VS Code's ``json.schemas`` setting mapping each profile's handoff globs to them: once
with absolute file URLs (user settings), once as a ``.vscode/settings.json`` snippet with paths
relative to the workspace. Editors then validate and complete handoffs as they are opened.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_handoff.pipeline.run import Run

#: Where schemas go when no folder is given (relative to the working directory).
DEFAULT_DIR = Path(".handoff-schemas")
ID_BASE = "https://pytest-handoff.dev/schemas/"


def export_schemas(target: Path) -> list[Path]:
    """Write every shipped schema below ``target``; returns the files written."""
    from pytest_handoff.validation.schemas import available_schemas, load_schema
    from pytest_handoff.values.errors import UsageError

    written = []
    for name in available_schemas():
        schema = load_schema(name)
        expected = f"{ID_BASE}{name}.schema.json"
        if schema.get("$id") != expected:  # the $id is the schema's public name: never silently another
            raise UsageError(f"schema {name} has $id {schema.get('$id')!r}, expected {expected!r}")
        path = target / f"{name}.schema.json"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(schema, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        except OSError as error:
            raise UsageError(f"cannot write {path}: {error.strerror or error}") from None
        written.append(path)
    return written


def editor_mapping(run: Run) -> list[tuple[str, list[str]]]:
    """(schema name, file globs) of every profile of the run."""
    return [pair for profile in run.registry.all_profiles() for pair in profile.editor_schemas(run.settings)]


def vscode_schemas(
    mapping: list[tuple[str, list[str]]], folder: Path, relative_to: Path | None
) -> list[dict[str, Any]]:
    """VS Code ``json.schemas`` entries: ``fileMatch`` globs and the schema's ``url``."""
    entries = []
    for name, globs in mapping:
        path = folder / f"{name}.schema.json"
        if relative_to is None:
            url = path.resolve().as_uri()
        else:
            shown = Path(os.path.relpath(path.resolve(), relative_to.resolve())).as_posix()
            url = shown if shown.startswith("../") else f"./{shown}"
        entries.append({"fileMatch": globs, "url": url})
    return entries
