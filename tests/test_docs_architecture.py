"""The worked examples of docs/architecture.md run: a seventh format added as one module and one
row, the same format as a plugin, and a reporter."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

ARCHITECTURE = REPO / "docs" / "architecture.md"
_EXAMPLE = re.compile(r"<!-- example: (?P<target>\S+) -->\n```python\n(?P<code>.*?)```", re.S)


def examples() -> list[tuple[str, str]]:
    return [(found["target"], found["code"]) for found in _EXAMPLE.finditer(ARCHITECTURE.read_text("utf-8"))]


def test_the_architecture_page_has_its_worked_examples() -> None:
    assert [target for target, _ in examples()] == ["memo_format.py", "run", "run", "run"]


def test_the_worked_examples_run_a_seventh_format_and_a_reporter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    modules = tmp_path / "modules"
    modules.mkdir()
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    monkeypatch.syspath_prepend(str(modules))
    monkeypatch.delitem(sys.modules, "memo_format", raising=False)
    namespace: dict[str, object] = {"project": project}
    for target, code in examples():
        if target == "run":
            exec(compile(code, f"{ARCHITECTURE}:{target}", "exec"), namespace)
        else:
            (modules / target).write_text(code, encoding="utf-8")
    assert "CodesReporter" in namespace  # the last example ran to its end
    sys.modules.pop("memo_format", None)
