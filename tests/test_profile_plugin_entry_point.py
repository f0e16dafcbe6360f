"""A package adds a whole profile through the ``pytest_handoff.profiles`` entry point.

A tiny profile package is written to a temporary folder and announced by an entry point (the
installed distributions' entry points are stood in for with ``importlib.metadata.entry_points``):
its files are found by a walk through its default globs, its rule runs, and ``handoff-lint
rules`` and ``explain`` know it.
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_handoff.cli import main
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.pipeline.run import check_paths
from pytest_handoff.values.settings import Settings

TINY_PACKAGE = '''
"""A tiny handoff format: ``greetings/**/*.greeting.json``, one rule."""

from pytest_handoff.profile_api import Hit, Loaded, Profile, listed, parse_json_bytes


def check_polite(document, settings):
    """A greeting says please.

    **What it does**: reports a `text` without "please".

    **Why is this bad?** Rude agents are hard to work with.

    **Example**: `{"text": "give me the report"}`.

    **Use instead**: `{"text": "please give me the report"}`.
    """
    text = document.data.get("text", "") if isinstance(document.data, dict) else ""
    if "please" not in text.lower():
        yield Hit(document, "/text", "no please in this greeting")


class GreetingProfile(Profile):
    name = "greeting"
    default_globs = ("greetings/**/*.greeting.json",)

    def claims(self, path, settings=None):
        return path.name.endswith(".greeting.json")

    def group_of(self, path, settings=None):
        return None

    def classify(self, document, settings):
        return "greeting", ()

    def schema_name(self, handoff_type):
        return "greeting"

    def validate(self, document, settings):
        return []

    def rule_table(self):
        return (listed("GR101", "polite-greeting", check_polite, profile=self.name),)
'''


def announce(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    """Stand in for an installed distribution whose ``pytest_handoff.profiles`` entry point is ``value``."""
    entry = importlib.metadata.EntryPoint(name=name, value=value, group="pytest_handoff.profiles")
    real = importlib.metadata.entry_points

    def entry_points(**selection: str) -> object:
        if selection.get("group") == "pytest_handoff.profiles":
            return importlib.metadata.EntryPoints([entry])
        return real(**selection)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    default_registry.cache_clear()  # the process's registry reads entry points once


@pytest.fixture
def greeting_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project folder, with the package ``tiny_greeting`` importable and announced by an entry point."""
    package = tmp_path / "site" / "tiny_greeting"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(TINY_PACKAGE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    announce(monkeypatch, "greeting", "tiny_greeting:GreetingProfile")
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "greetings" / "monday").mkdir(parents=True)
    (root / "greetings" / "monday" / "a.greeting.json").write_text(
        '{\n  "text": "give me the report"\n}\n', encoding="utf-8"
    )
    (root / "greetings" / "monday" / "b.greeting.json").write_text(
        '{"text": "Please review"}\n', encoding="utf-8"
    )
    monkeypatch.chdir(root)
    yield root
    default_registry.cache_clear()
    sys.modules.pop("tiny_greeting", None)


def test_a_walk_finds_the_plugins_files_by_its_default_globs_and_runs_its_rule(greeting_plugin: Path) -> None:
    discovery, results = check_paths([], greeting_plugin, Settings(), registry=default_registry())
    assert sorted(str(ref.paths[0].relative_to(greeting_plugin)) for ref in discovery.groups) == [
        "greetings/monday/a.greeting.json",
        "greetings/monday/b.greeting.json",
    ]
    (finding,) = (f for result in results for f in result.findings)
    assert (finding.path, finding.line, finding.column, finding.code, finding.rule) == (
        "greetings/monday/a.greeting.json", 2, 11, "GR101", "polite-greeting",
    )  # fmt: skip


def test_the_cli_reports_the_plugins_finding(
    greeting_plugin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--format", "json"]) == 1
    (finding,) = json.loads(capsys.readouterr().out)["findings"]
    assert (finding["code"], finding["line"]) == ("GR101", 2)


def test_handoff_lint_rules_lists_the_plugins_rule_and_explain_prints_its_docs(
    greeting_plugin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rules"]) == 0
    listed = capsys.readouterr().out
    assert "GR101" in listed
    assert "polite-greeting" in listed
    assert main(["explain", "GR101"]) == 0
    explained = capsys.readouterr().out
    assert "A greeting says please." in explained
    assert "**Use instead**" in explained


def test_without_the_entry_point_the_files_are_nobodys(tmp_path: Path) -> None:
    (tmp_path / "greetings").mkdir()
    (tmp_path / "greetings" / "a.greeting.json").write_text('{"text": "hi"}\n', encoding="utf-8")
    discovery, _ = check_paths([], tmp_path, Settings(), registry=default_registry())
    assert discovery.groups == ()
    assert "GR101" not in default_registry().all_rules()


def test_a_broken_plugin_is_skipped_with_a_warning_and_the_other_formats_are_still_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    announce(monkeypatch, "broken", "no_such_module_anywhere:Profile")
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    try:
        assert main([]) == 0
    finally:
        default_registry.cache_clear()
    assert "profile plugin 'broken' skipped: ModuleNotFoundError" in capsys.readouterr().err


def test_a_plugin_written_before_groups_had_their_name_still_loads_and_groups(tmp_path: Path) -> None:
    """``chain_of(path)`` and ``claims(path)`` without settings, as plugins were first written."""
    from pytest_handoff.pipeline.registry import Registry
    from pytest_handoff.profiles.base import Profile
    from pytest_handoff.rules.rows import listed
    from pytest_handoff.values.rules import Hit

    class Older(Profile):
        name = "older"
        default_globs = ("older/*.older.json",)

        def claims(self, path):  # type: ignore[no-untyped-def,override]
            return path.name.endswith(".older.json")

        def chain_of(self, path):  # type: ignore[no-untyped-def]
            return path.parent, "older"

        def classify(self, document, settings):  # type: ignore[no-untyped-def,override]
            return "older", ()

        def schema_name(self, handoff_type):  # type: ignore[no-untyped-def,override]
            return "older"

        def validate(self, document, settings):  # type: ignore[no-untyped-def,override]
            return []

        def rule_table(self):  # type: ignore[no-untyped-def,override]
            def check(document, settings):  # type: ignore[no-untyped-def]
                """A check. **What it does** x **Why is this bad?** y **Example** z **Use instead** w"""
                yield Hit(document, "", "an older finding")

            return (listed("OL101", "older-rule", check, profile="older"),)

    (tmp_path / ".git").mkdir()
    (tmp_path / "older").mkdir()
    (tmp_path / "older" / "a.older.json").write_text("{}", encoding="utf-8")
    registry = Registry(extra=(Older(),), entry_points=False)
    discovery, results = check_paths([], tmp_path, Settings(), registry=registry)
    assert [(ref.profile, ref.group_id) for ref in discovery.groups] == [("older", "older")]
    assert [f.code for f in results[0].findings] == ["OL101"]


def test_the_old_findings_module_still_imports_with_a_deprecation_warning() -> None:
    sys.modules.pop("pytest_handoff.findings", None)
    with pytest.warns(
        DeprecationWarning, match="pytest_handoff.findings is now pytest_handoff.values.findings"
    ):
        from pytest_handoff.findings import Finding, Severity  # noqa: F401
    sys.modules.pop("pytest_handoff.findings", None)


def test_the_tiny_plugin_imports_nothing_of_the_package_but_the_profile_api() -> None:
    import ast

    imported = {
        node.module
        for node in ast.walk(ast.parse(TINY_PACKAGE))
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pytest_handoff")
    }
    assert imported == {"pytest_handoff.profile_api"}
