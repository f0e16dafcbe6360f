"""The pre-commit hooks run on every built-in format's files: the hook for all and one per format."""

from __future__ import annotations

import re

import pytest
import yaml

from pytest_handoff.profiles.builtin import BUILTIN_SPECS
from tests.conftest import REPO

HOOKS = {hook["id"]: hook for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}


def example_path(glob: str) -> str:
    """A path the glob matches: ``**/`` becomes a folder, ``*`` a word (with the T of a timestamp)."""
    path = glob.lstrip("/").replace("**/", "deep/").replace("**", "deep")
    return path.replace("*", "2026-04-02T10-00-00Z")


DEFAULT_GLOBS = [(spec.name, glob) for spec in BUILTIN_SPECS for glob in spec.default_globs]


#: Globs the hook for all leaves to a format's own hook: any project's logs/ folder holds logs,
#: and only a project with a Ralph session makes them Ralph's (the Ralph hook takes them).
LEFT_TO_THEIR_HOOK = {("ralph", "logs/**/*.log")}


@pytest.mark.parametrize(
    ("profile", "glob"), [pair for pair in DEFAULT_GLOBS if pair not in LEFT_TO_THEIR_HOOK]
)
def test_every_default_glob_of_every_format_is_seen_by_the_hook_for_all(profile: str, glob: str) -> None:
    assert re.search(HOOKS["handoff-lint"]["files"], example_path(glob)), glob


@pytest.mark.parametrize(("profile", "glob"), DEFAULT_GLOBS)
def test_every_default_glob_is_seen_by_its_formats_own_hook(profile: str, glob: str) -> None:
    assert re.search(HOOKS[f"handoff-lint-{profile}"]["files"], example_path(glob)), glob


@pytest.mark.parametrize(
    "path",
    [
        "package.json",
        "src/config.json",
        ".claude/settings.json",
        ".neuralrelay/config.json",
        "docs/handoff.md",
    ],
)
def test_the_hook_for_all_leaves_other_files_alone(path: str) -> None:
    assert not re.search(HOOKS["handoff-lint"]["files"], path)


def test_each_format_hook_forces_its_profile_or_walks_deletions() -> None:
    for spec in BUILTIN_SPECS:
        hook = HOOKS.get(f"handoff-lint-{spec.name}")
        if spec.name == "contracts":
            assert hook is None  # its files are wherever the user's globs say
            continue
        assert hook is not None, spec.name
        assert hook["entry"].startswith("handoff-lint")
        assert f"--profile {spec.name}" in hook["entry"] or "--staged-deletions" in hook["entry"]
