"""A project with the clean example chain on disk, for the tests of the agent-loop entry points.

Those entry points (the Python API, ``--stdin-filename``, the Claude Code hook, the MCP server)
check content that is not on disk yet against a chain that is: :class:`Project` builds the chain
and tells whether anything on disk changed.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import EXAMPLES

CHAIN_ID = "20261103-091500"
CLEAN_CHAIN = EXAMPLES / "clean" / ".neuralrelay" / "handoffs" / CHAIN_ID
DEV, TEST, REVIEW, BA = "02-dev-agent.json", "03-test-agent.json", "04-review-agent.json", "01-ba-agent.json"


class Project:
    """A project folder holding a copy of the clean example chain."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.chain = root / ".neuralrelay" / "handoffs" / CHAIN_ID
        shutil.copytree(CLEAN_CHAIN, self.chain)
        (root / "README.md").write_text("# a project\n", encoding="utf-8")
        self._before = self.snapshot()

    def path(self, name: str) -> Path:
        return self.chain / name

    def relative(self, name: str) -> str:
        return f".neuralrelay/handoffs/{CHAIN_ID}/{name}"

    def text(self, name: str) -> str:
        return self.path(name).read_text(encoding="utf-8")

    def changed(self, name: str, change: Callable[[Any], object]) -> str:
        """The text of ``name`` with ``change`` applied to its data (the file is not touched)."""
        data = json.loads(self.text(name))
        change(data)
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"

    def replace(self, name: str, text: str) -> None:
        """Put ``text`` on disk as ``name`` (a test's setup; counted as the new starting point)."""
        self.path(name).write_text(text, encoding="utf-8")
        self._before = self.snapshot()

    def remove(self, name: str) -> None:
        self.path(name).unlink()
        self._before = self.snapshot()

    def snapshot(self) -> dict[str, tuple[bytes, int]]:
        return {
            str(path.relative_to(self.root)): (path.read_bytes(), path.stat().st_mtime_ns)
            for path in sorted(self.root.rglob("*"))
            if path.is_file()
        }

    def unchanged(self) -> bool:
        """True when no file below the project was added, removed or changed since it was set up."""
        return self.snapshot() == self._before
