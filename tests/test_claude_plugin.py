"""The Claude Code plugin this repository ships (``plugins/handoff-lint/``) and its marketplace
(``.claude-plugin/marketplace.json``), held to what Claude Code documents (code.claude.com/docs:
plugins-reference, plugin-marketplaces, hooks; Claude Code 2.1.240) and to the settings blocks the
Claude Code page shows."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import REPO

PLUGIN = REPO / "plugins" / "handoff-lint"
KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_marketplace_names_its_owner_and_a_plugin_whose_source_is_in_the_repository() -> None:
    market = load(REPO / ".claude-plugin" / "marketplace.json")
    assert KEBAB.fullmatch(market["name"])  # kebab-case, required
    assert market["owner"]["name"]  # owner.name is required
    (entry,) = market["plugins"]
    assert set(entry) >= {"name", "source"}
    assert (REPO / entry["source"]).resolve() == PLUGIN.resolve()
    assert load(PLUGIN / ".claude-plugin" / "plugin.json")["name"] == entry["name"]


def test_the_plugin_manifest_has_its_required_name_and_only_documented_fields() -> None:
    manifest = load(PLUGIN / ".claude-plugin" / "plugin.json")
    assert KEBAB.fullmatch(manifest["name"])
    documented = {
        "$schema", "name", "displayName", "version", "description", "author", "homepage", "repository",
        "license", "keywords", "metadata", "hooks", "commands", "agents", "skills", "mcpServers",
    }  # fmt: skip
    assert set(manifest) <= documented
    assert not (PLUGIN / ".claude-plugin" / "hooks").exists()  # hooks/ sits at the plugin's root


def settings_blocks() -> dict[str, list[str | None]]:
    """The events and matchers of the settings the Claude Code page tells users to copy."""
    page = (REPO / "docs" / "claude-code.md").read_text(encoding="utf-8")
    block = json.loads(page.split("```json\n", 1)[1].split("```", 1)[0])
    return {event: [entry.get("matcher") for entry in entries] for event, entries in block["hooks"].items()}


def test_the_plugin_hooks_are_the_blocks_init_writes_without_conditions() -> None:
    from pytest_handoff.agents.install import guarded, hook_blocks

    assert load(PLUGIN / "hooks" / "hooks.json")["hooks"] == hook_blocks(guarded(), None)


def test_the_pages_blocks_are_the_ones_init_writes_for_each_host() -> None:
    from pytest_handoff.agents.install import HOOK_COMMAND, codex_blocks, hook_blocks

    for page, blocks in (
        ("claude-code.md", hook_blocks(HOOK_COMMAND)),
        ("codex.md", codex_blocks(HOOK_COMMAND)),
    ):
        text = (REPO / "docs" / page).read_text(encoding="utf-8")
        assert json.loads(text.split("```json\n", 1)[1].split("```", 1)[0])["hooks"] == blocks, page


#: The fields Claude Code documents for a command hook (hooks reference, "Common fields" and
#: "Command hook fields", 2.1.240): ``continueOnBlock`` is a prompt hook's, ``onFailure`` none.
COMMAND_HOOK_FIELDS = {
    "type",
    "if",
    "timeout",
    "statusMessage",
    "once",
    "command",
    "args",
    "async",
    "asyncRewake",
    "shell",
}


def test_every_handler_uses_only_fields_claude_code_documents_for_a_command_hook() -> None:
    from pytest_handoff.agents.install import HOOK_COMMAND, hook_blocks

    for blocks in (load(PLUGIN / "hooks" / "hooks.json")["hooks"], hook_blocks(HOOK_COMMAND, ["/**/*.md"])):
        for groups in blocks.values():
            for group in groups:
                assert set(group) <= {"matcher", "hooks"}
                for handler in group["hooks"]:
                    assert set(handler) <= COMMAND_HOOK_FIELDS


def test_the_plugin_hooks_are_the_documented_settings_blocks_with_a_guarded_command() -> None:
    hooks = load(PLUGIN / "hooks" / "hooks.json")["hooks"]
    assert {
        event: [entry.get("matcher") for entry in entries] for event, entries in hooks.items()
    } == settings_blocks()
    for entries in hooks.values():
        for entry in entries:
            (command,) = entry["hooks"]
            assert command["type"] == "command"
            assert isinstance(command["timeout"], int)
            assert "handoff-lint claude-hook" in command["command"]


def run_command(path: str, payload: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    command = load(PLUGIN / "hooks" / "hooks.json")["hooks"]["Stop"][0]["hooks"][0]["command"]
    return subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": path},
        check=False,
    )


def test_without_handoff_lint_on_path_the_hook_says_so_rather_than_pass_silently(
    tmp_path: Path,
) -> None:
    done = run_command(str(tmp_path), {"hook_event_name": "Stop"})
    assert done.returncode == 1  # an error Claude Code shows the user; no write refused
    assert "handoff-lint is not on PATH" in done.stderr


def test_with_handoff_lint_on_path_the_hook_runs_it(tmp_path: Path) -> None:
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    shim = bin_folder / "handoff-lint"
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} -m pytest_handoff "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    done = run_command(f"{bin_folder}:/usr/bin:/bin", {"hook_event_name": "Stop"})
    assert (done.returncode, done.stdout) == (0, "")
    assert "names no cwd" in done.stderr
