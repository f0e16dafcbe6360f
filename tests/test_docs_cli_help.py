"""The command line page's copy of `handoff-lint --help` (docs/cli.md) is what the command prints (80 columns)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO


# argparse lays help out differently before 3.11 ("optional arguments") and from 3.13 on.
@pytest.mark.skipif(sys.version_info[:2] not in ((3, 11), (3, 12)), reason="another argparse layout")
def test_the_command_line_page_shows_the_help_the_command_prints() -> None:
    text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    start = text.index("`handoff-lint --help` prints:\n\n```\n") + len(
        "`handoff-lint --help` prints:\n\n```\n"
    )
    shown = text[start : text.index("\n```", start)]
    env = {**os.environ, "COLUMNS": "80", "PYTHONPATH": str(REPO)}
    printed = subprocess.run(
        [sys.executable, "-m", "pytest_handoff", "--help"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout.rstrip("\n")
    assert shown == printed
