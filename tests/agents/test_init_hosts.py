"""``handoff-lint init claude|codex``: the hook's blocks merged into a host's settings file, and
the ``if`` conditions drawn from the formats' globs."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.agents.install import (
    HOOK_COMMAND,
    codex_blocks,
    conditions,
    guarded,
    hook_blocks,
    merged,
    rule_pattern,
)
from pytest_handoff.cli import main
from pytest_handoff.read.globs import glob_regex

BUILT_IN_GLOBS = [
    ".neuralrelay/handoffs/**/*.json",
    "**/handoff/*-*-*-*T*.json",
    ".craik/state/craik.sqlite3",
    "logs/**/*.log",
    "prd.json",
    ".yolo-planning/**/*-PLAN.md",
    ".planning/**/*.md",
    "HANDOFF.md",
    "handovers/*.yaml",
]


def settings(project: Path) -> Any:
    return json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))


def handlers(data: Any, event: str) -> list[dict[str, Any]]:
    return [handler for group in data["hooks"][event] for handler in group["hooks"]]


def gitignore_match(rule: str, path: str) -> bool:
    """Whether an anchored ``/**/NAME`` rule matches a project-relative path, as gitignore reads it."""
    return glob_regex(rule).fullmatch(path) is not None


# --- the conditions ----------------------------------------------------------------------


def test_a_condition_is_the_literal_ending_of_the_globs_file_names_at_any_depth() -> None:
    assert rule_pattern(".planning/**/*.md") == "/**/*.md"
    assert rule_pattern("HANDOFF.md") == "/**/HANDOFF.md"
    assert rule_pattern("**/handoff/*-*-*-*T*.json") == "/**/*.json"


@pytest.mark.parametrize(
    "path",
    [
        ".neuralrelay/handoffs/20261103-091500/03-test-agent.json",
        "service/handoff/task-1-x-2026-11-03T09.json",
        ".craik/state/craik.sqlite3",
        "logs/run/agent.log",
        "prd.json",
        ".yolo-planning/phases/01/01-01-PLAN.md",
        ".planning/phases/01-setup/01-01-SUMMARY.md",
        "HANDOFF.md",
        "handovers/today.yaml",
    ],
)
def test_every_file_a_glob_claims_is_matched_by_a_condition(path: str) -> None:
    rules = conditions(BUILT_IN_GLOBS)
    assert rules is not None
    assert any(glob_regex(glob).fullmatch(path) for glob in BUILT_IN_GLOBS)
    assert any(gitignore_match(rule, path) for rule in rules)


def test_conditions_keep_one_rule_for_names_another_rule_already_covers() -> None:
    assert conditions(BUILT_IN_GLOBS) == [
        "/**/*.json",
        "/**/craik.sqlite3",
        "/**/*.log",
        "/**/*.md",
        "/**/*.yaml",
    ]


def test_a_glob_without_a_literal_ending_leaves_every_write_to_the_hook() -> None:
    assert conditions(["handoffs/*", *BUILT_IN_GLOBS]) is None
    assert conditions(["handoffs/**"]) is None
    assert conditions(["notes/*.(md)"]) is None  # parentheses would end the rule


# --- the blocks --------------------------------------------------------------------------


def test_with_conditions_each_file_tool_has_its_own_group_and_each_handler_one_rule() -> None:
    blocks = hook_blocks(HOOK_COMMAND, ["/**/*.json", "/**/*.md"])
    assert [group["matcher"] for group in blocks["PreToolUse"]] == ["Write", "Edit", "MultiEdit"]
    assert [h["if"] for h in blocks["PreToolUse"][0]["hooks"]] == ["Write(/**/*.json)", "Write(/**/*.md)"]
    assert [group["matcher"] for group in blocks["PostToolUse"]] == ["Write", "Edit", "MultiEdit", "Bash"]
    # ``if`` is honoured on tool events only: a Stop handler with one would never run.
    for event in ("PostToolUseFailure", "Stop", "SubagentStop"):
        assert all("if" not in handler for group in blocks[event] for handler in group["hooks"])
    assert "if" not in blocks["PostToolUse"][-1]["hooks"][0]  # Bash: what it writes is in its command


def test_the_guarded_command_refuses_a_quote_that_would_end_its_message() -> None:
    with pytest.raises(ValueError, match="single quote"):
        guarded("it's/handoff-lint")
    assert "claude-hook --fail-closed ||" in guarded(fail_closed=True)


# --- the merge ---------------------------------------------------------------------------


def test_a_merge_keeps_every_other_key_event_group_and_handler_in_place() -> None:
    mine = {"type": "command", "command": "./guard.sh"}
    existing = {
        "permissions": {"allow": ["Bash(npm test)"]},
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [mine]}],
            "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
        },
        "model": "opus",
    }
    result = merged(existing, hook_blocks(HOOK_COMMAND)).settings
    assert list(result) == ["permissions", "hooks", "model"]
    assert result["hooks"]["PreToolUse"][0] == {"matcher": "Bash", "hooks": [mine]}
    assert result["hooks"]["Notification"] == existing["hooks"]["Notification"]
    assert list(result["hooks"]) == [
        "PreToolUse",
        "Notification",
        "PostToolUse",
        "PostToolUseFailure",
        "Stop",
        "SubagentStop",
    ]


def test_a_merge_replaces_our_own_handlers_so_merging_twice_is_merging_once() -> None:
    once = merged({}, hook_blocks(guarded(), ["/**/*.md"])).settings
    twice = merged(once, hook_blocks(guarded(), ["/**/*.md"])).settings
    assert twice == once
    plain = merged(twice, hook_blocks(HOOK_COMMAND)).settings  # without conditions now
    assert plain == merged({}, hook_blocks(HOOK_COMMAND)).settings


@pytest.mark.parametrize(
    "written",
    [
        guarded("uv run handoff-lint"),
        guarded("/opt/tools/venv/bin/handoff-lint", fail_closed=True),
        "handoff-lint claude-hook --fail-closed",
    ],
)
def test_a_merge_replaces_every_command_init_writes_whatever_its_executable(written: str) -> None:
    once = merged({}, hook_blocks(written)).settings
    again = merged(once, hook_blocks(guarded()))
    assert again == (merged({}, hook_blocks(guarded())).settings, [])


WRAPPER = 'cd "$CLAUDE_PROJECT_DIR" && uv run handoff-lint claude-hook 2>>.claude/hook.log'


@pytest.mark.parametrize(
    ("command", "own"),
    [
        ("uv run handoff-lint claude-hook 2>>hook.log", True),
        ("python3 -m pytest_handoff.cli claude-hook", True),
        ("tail -n1 ~/.cache/handoff-lint/claude-hook.log", False),  # a file named after it
        (guarded("uv run handoff-lint"), False),  # ours
    ],
)
def test_a_users_own_command_is_one_that_runs_the_hook_by_its_words(command: str, own: bool) -> None:
    existing = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command}]}]}}
    assert merged(existing, hook_blocks(guarded())).kept_own == (["Stop"] if own else [])


def test_a_merge_keeps_a_users_own_command_that_runs_the_hook_and_adds_none_of_ours_beside_it() -> None:
    own_stop = {"hooks": [{"type": "command", "command": WRAPPER, "timeout": 90}]}
    existing = merged({}, hook_blocks(guarded())).settings
    existing["hooks"]["Stop"] = [own_stop]
    result = merged(existing, hook_blocks(guarded()))
    assert result.kept_own == ["Stop"]
    assert result.settings["hooks"]["Stop"] == [own_stop]  # as written, and once
    assert handlers(result.settings, "SubagentStop")[0]["command"] == guarded()  # ours elsewhere
    assert merged(result.settings, hook_blocks(guarded())) == result  # merging twice is merging once


def test_a_group_of_ours_that_also_holds_another_handler_keeps_the_other() -> None:
    other = {"type": "command", "command": "prettier --check"}
    existing = {
        "hooks": {
            "PostToolUse": [
                {"matcher": "Write", "hooks": [{"type": "command", "command": HOOK_COMMAND}, other]}
            ]
        }
    }
    result = merged(existing, hook_blocks(HOOK_COMMAND)).settings
    assert result["hooks"]["PostToolUse"][0] == {"matcher": "Write", "hooks": [other]}


# --- the command -------------------------------------------------------------------------


def test_init_claude_on_a_project_without_settings_writes_the_blocks_with_conditions(
    git_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "claude"]) == 0
    data = settings(git_project)
    assert list(data) == ["hooks"]
    assert set(data["hooks"]) == {"PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop"}
    rules = {handler["if"] for handler in handlers(data, "PreToolUse")}
    assert {"Write(/**/*.json)", "Edit(/**/*.md)"} <= rules
    assert all(HOOK_COMMAND in handler["command"] for handler in handlers(data, "Stop"))
    assert "only for files named *.json" in capsys.readouterr().out


def test_init_claude_merges_into_an_existing_settings_file_and_a_second_run_writes_nothing(
    git_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (git_project / ".claude").mkdir()
    existing = {
        "permissions": {"deny": ["Read(.env)"]},
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}]
        },
    }
    path = git_project / ".claude" / "settings.json"
    path.write_text(json.dumps(existing), encoding="utf-8")
    os.chmod(path, 0o600)
    assert main(["init", "claude"]) == 0
    data = settings(git_project)
    assert data["permissions"] == existing["permissions"]
    assert data["hooks"]["PreToolUse"][0] == existing["hooks"]["PreToolUse"][0]
    assert os.stat(path).st_mode & 0o777 == 0o600
    written = path.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["init", "claude"]) == 0
    assert "up to date, nothing written" in capsys.readouterr().out
    assert path.read_text(encoding="utf-8") == written
    assert main(["init", "claude", "--check"]) == 0


def test_init_claude_check_says_when_the_globs_changed_since(
    git_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "claude"]) == 0
    (git_project / "pyproject.toml").write_text(
        '[tool.handoff.neuralrelay]\nglobs = ["relay/*"]\n', encoding="utf-8"
    )
    before = (git_project / ".claude" / "settings.json").read_text(encoding="utf-8")
    assert main(["init", "claude", "--check"]) == 1
    assert "run it again" in capsys.readouterr().out
    assert (git_project / ".claude" / "settings.json").read_text(encoding="utf-8") == before


def test_init_claude_keeps_a_users_own_command_that_runs_the_hook_and_says_so(
    git_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "claude"]) == 0
    path = git_project / ".claude" / "settings.json"
    data = settings(git_project)
    data["hooks"]["PreToolUse"] = [
        {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": WRAPPER}]}
    ]
    path.write_text(json.dumps(data), encoding="utf-8")
    capsys.readouterr()
    assert main(["init", "claude"]) == 0
    out = capsys.readouterr().out
    assert "kept your own command that runs the hook at PreToolUse;" in out
    assert WRAPPER not in out  # a command may hold a token: it is never shown
    assert [h["command"] for h in handlers(settings(git_project), "PreToolUse")] == [WRAPPER]
    assert main(["init", "claude", "--check"]) == 0


def test_init_claude_takes_a_settings_file_formatted_by_hand_as_up_to_date(
    git_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "claude"]) == 0
    path = git_project / ".claude" / "settings.json"
    compact = json.dumps(json.loads(path.read_text(encoding="utf-8")), separators=(",", ":"))
    path.write_text(compact, encoding="utf-8")
    capsys.readouterr()
    assert main(["init", "claude", "--check"]) == 0
    assert "up to date" in capsys.readouterr().out
    assert main(["init", "claude"]) == 0
    assert "up to date, nothing written" in capsys.readouterr().out
    assert path.read_text(encoding="utf-8") == compact  # its layout is the user's


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"hooks": ', "settings.json:1:11: not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"hooks": {"Stop": 3}}', "'hooks.Stop' is not a list of objects"),
    ],
)
def test_init_claude_leaves_a_settings_file_it_cannot_read_as_it_is(
    git_project: Path, capsys: pytest.CaptureFixture[str], text: str, said: str
) -> None:
    (git_project / ".claude").mkdir()
    (git_project / ".claude" / "settings.json").write_text(text, encoding="utf-8")
    assert main(["init", "claude"]) == 2
    assert said in capsys.readouterr().err
    assert (git_project / ".claude" / "settings.json").read_text(encoding="utf-8") == text


def test_init_claude_follows_no_link(
    git_project: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path_factory.mktemp("elsewhere") / "settings.json"
    outside.write_text("{}", encoding="utf-8")
    (git_project / ".claude").mkdir()
    (git_project / ".claude" / "settings.json").symlink_to(outside)
    assert main(["init", "claude"]) == 2
    assert "is a link" in capsys.readouterr().err
    assert outside.read_text(encoding="utf-8") == "{}"


def test_init_claude_local_no_if_and_fail_closed(git_project: Path) -> None:
    assert main(["init", "claude", "--local", "--no-if", "--fail-closed"]) == 0
    data = json.loads((git_project / ".claude" / "settings.local.json").read_text(encoding="utf-8"))
    assert [group["matcher"] for group in data["hooks"]["PreToolUse"]] == ["Write|Edit|MultiEdit"]
    assert all("--fail-closed" in handler["command"] for handler in handlers(data, "PostToolUse"))
    assert not (git_project / ".claude" / "settings.json").exists()


def test_init_codex_writes_its_hooks_json(git_project: Path) -> None:
    assert main(["init", "codex"]) == 0
    data = json.loads((git_project / ".codex" / "hooks.json").read_text(encoding="utf-8"))
    assert data == {"hooks": codex_blocks(guarded())}
    assert main(["init", "codex", "--local"]) == 2


def test_init_print_writes_nothing(git_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", "claude", "--print"]) == 0
    assert json.loads(capsys.readouterr().out)["hooks"]["Stop"]
    assert not (git_project / ".claude").exists()


def test_init_claude_writes_through_no_linked_folder_and_into_no_file_named_like_one(
    git_project: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (git_project / ".claude").symlink_to(outside, target_is_directory=True)
    assert main(["init", "claude"]) == 2
    assert "is not a folder of the project" in capsys.readouterr().err
    assert list(outside.iterdir()) == []
    (git_project / ".claude").unlink()
    (git_project / ".claude").write_text("not a folder\n", encoding="utf-8")
    assert main(["init", "claude"]) == 2
    assert "is not a folder of the project" in capsys.readouterr().err


def test_init_print_shows_the_blocks_and_nothing_else_of_the_file(
    git_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token = "ghp_" + "x1Y2z3" * 6
    (git_project / ".claude").mkdir()
    (git_project / ".claude" / "settings.local.json").write_text(
        json.dumps({"env": {"GITHUB_TOKEN": token}}), encoding="utf-8"
    )
    assert main(["init", "claude", "--local", "--print"]) == 0
    out = capsys.readouterr().out
    assert token not in out
    assert list(json.loads(out)) == ["hooks"]


def test_init_codex_check_names_its_own_host(git_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (git_project / ".codex").mkdir()
    (git_project / ".codex" / "hooks.json").write_text("{}", encoding="utf-8")
    assert main(["init", "codex", "--check"]) == 1
    assert "'handoff-lint init codex'" in capsys.readouterr().out
