"""The changelog keeps a section for the package's version, Keep a Changelog style."""

from __future__ import annotations

import re

from pytest_handoff.version import __version__
from tests.conftest import REPO


def test_the_changelog_has_unreleased_changes_and_the_current_version() -> None:
    headings = re.findall(r"^## \[([^\]]+)\]", (REPO / "CHANGELOG.md").read_text(encoding="utf-8"), re.M)
    assert headings[0] == "Unreleased"
    assert __version__ in headings
