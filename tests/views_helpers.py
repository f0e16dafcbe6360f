"""Helpers shared by the tests of the reading views (chain, report, show, schema export)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from pytest_handoff.cli import main
from tests.conftest import module_at

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
CLEAN = EXAMPLES / "neuralrelay" / "clean" / ".neuralrelay" / "handoffs" / "20261103-091500"
BROKEN = EXAMPLES / "neuralrelay" / "broken" / ".neuralrelay" / "handoffs" / "20261104-132000"
CORPUS_SAMPLE = REPO.parent / "shared" / "corpus" / "neuralrelay" / "examples" / "sample-handoffs"

CI_VARIABLES = ("CI", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "FORCE_COLOR", "NO_COLOR")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``handoff-lint ARGS`` in this process: exit code, stdout, stderr."""
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any]:
    code, out, err = run(capsys, *args, "--format", "json")
    assert not err, err
    return code, json.loads(out)


@pytest.fixture
def outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in CI_VARIABLES:
        monkeypatch.delenv(variable, raising=False)


@pytest.fixture
def in_examples(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A project of the two NeuralRelay example chains (clean and broken) as the working directory.

    A copy: in examples/ itself the views would find the project at the repository's root, with
    every format's examples.
    """
    for project in ("clean", "broken"):
        source = EXAMPLES / "neuralrelay" / project / ".neuralrelay"
        shutil.copytree(source, tmp_path / ".neuralrelay", dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def copy_chain(source: Path, root: Path, group_id: str | None = None) -> Path:
    """A copy of a chain folder under ``root/.neuralrelay/handoffs/``."""
    target = root / ".neuralrelay" / "handoffs" / (group_id or source.name)
    shutil.copytree(source, target)
    return target


def generator() -> ModuleType:
    """``benchmarks/generate.py``, which writes realistic chains (clean, or broken on purpose)."""
    return module_at(REPO / "benchmarks" / "generate.py", "handoff_generate")


# --- GitHub tables, parsed back ------------------------------------------------------------------

_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_ESCAPED = re.compile(r"\\([\\`*_\[\]|~#<>&])")
_ENTITIES = {"&lt;": "<", "&gt;": ">", "&amp;": "&"}


def unescape(cell: str) -> str:
    """The literal text of an escaped Markdown cell (what GitHub displays)."""
    text = _ESCAPED.sub(lambda m: m.group(1), cell)
    return re.sub(r"&(?:lt|gt|amp);", lambda m: _ENTITIES[m.group(0)], text)


def parse_tables(markdown: str) -> list[list[list[str]]]:
    """Every GitHub table of ``markdown``: header row then body rows, cells unescaped.

    Fails when a table is malformed: a separator row that does not follow the header, or a
    row with another number of cells than the header (an unescaped ``|`` in a cell would do it).
    """
    tables: list[list[list[str]]] = []
    lines = markdown.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if (
            line.startswith("|")
            and index + 1 < len(lines)
            and re.fullmatch(r"\|( ?-{3,} ?\|)+", lines[index + 1])
        ):
            header = _cells(line)
            assert len(_cells(lines[index + 1])) == len(header), lines[index + 1]
            rows = [header]
            index += 2
            while index < len(lines) and lines[index].startswith("|"):
                row = _cells(lines[index])
                assert len(row) == len(header), (
                    f"row has {len(row)} cells, header {len(header)}: {lines[index]}"
                )
                rows.append(row)
                index += 1
            tables.append(rows)
        else:
            assert not line.startswith("| "), f"table row outside a table: {line}"
            index += 1
    return tables


def _cells(line: str) -> list[str]:
    assert line.startswith("|"), line
    assert line.endswith("|"), line
    return [unescape(cell.strip()) for cell in _CELL_SPLIT.split(line[1:-1])]


def table_with(tables: list[list[list[str]]], *headers: str) -> list[dict[str, str]]:
    """The rows (as header -> cell) of the one table whose header starts with ``headers``."""
    found = [table for table in tables if tuple(table[0][: len(headers)]) == headers]
    assert len(found) == 1, [table[0] for table in tables]
    header = found[0][0]
    return [dict(zip(header, row, strict=True)) for row in found[0][1:]]
