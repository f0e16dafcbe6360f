"""``handoff-lint schema export [DIR]``: our JSON Schemas on disk, and the editor settings that use them.

Writes every shipped schema (each with its stable ``$id``) to ``DIR/<profile>/<type>.schema.json``
and prints VS Code's ``json.schemas`` setting mapping each profile's handoff globs to them: once
with absolute file URLs (user settings), once as a ``.vscode/settings.json`` snippet with paths
relative to the workspace. Editors then validate and complete handoffs as they are opened.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_handoff.pipeline.run import Run

#: Where schemas go when no folder is given (relative to the working directory).
DEFAULT_DIR = Path(".handoff-schemas")
ID_BASE = "https://pytest-handoff.dev/schemas/"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="handoff-lint schema",
        description="'handoff-lint schema export [DIR]' writes the JSON Schemas and prints editor settings.",
    )
    sub = parser.add_subparsers(dest="action", required=True)
    export = sub.add_parser("export", help="write the JSON Schemas to DIR and print VS Code settings")
    export.add_argument(
        "dir", nargs="?", type=Path, default=DEFAULT_DIR, help=f"target folder (default: {DEFAULT_DIR})"
    )
    export.add_argument(
        "--config", type=Path, help="a pyproject.toml to read [tool.handoff] from (for configured agents)"
    )
    return parser


def main(argv: list[str]) -> int:
    from pytest_handoff.views.common import run_or_fail

    options = build_parser().parse_args(argv)  # --help and bad arguments: see run_command
    run = run_or_fail(options.config)
    written = export_schemas(options.dir)
    mapping = editor_mapping(run)
    user = vscode_schemas(mapping, options.dir.resolve(), relative_to=None)
    workspace = vscode_schemas(mapping, options.dir, relative_to=Path.cwd())
    print(f"wrote {len(written)} schemas to {options.dir}", file=sys.stderr)
    print("// VS Code user settings (settings.json): json.schemas")
    print(json.dumps({"json.schemas": user}, indent=2))
    print("// .vscode/settings.json (paths relative to this workspace)")
    print(json.dumps({"json.schemas": workspace}, indent=2))
    return 0


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
