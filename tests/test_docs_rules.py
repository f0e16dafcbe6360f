"""The README's rules table lists every rule of every built-in profile, as the rule tables say."""

from __future__ import annotations

import re

from pytest_handoff.registry import default_registry
from tests.conftest import REPO


def readme_rows() -> dict[str, tuple[str, str]]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    table = text[text.index("## Rules\n") :]
    return {
        match.group(1): (match.group(2), match.group(3))
        for match in re.finditer(r"^\| ([A-Z]{2}\d{3}) \| ([a-z0-9-]+) \| (error|warning|info) \|", table, re.M)
    }


def test_the_readme_rules_table_has_every_built_in_rule_with_its_name_and_severity() -> None:

    profiles = {profile.name for profile in default_registry().builtin_profiles()}
    expected = {
        code: (rule.name, rule.severity.label)
        for code, rule in default_registry().all_rules().items()
        if (rule.profile is None and code[:2] in ("HF", "HS", "HX", "EV")) or rule.profile in profiles
    }
    assert readme_rows() == expected
