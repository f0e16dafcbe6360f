"""The Claude Code settings blocks that run ``handoff-lint claude-hook``, and their merge into a
settings file that holds other things.

The same blocks serve the plugin (``plugins/handoff-lint/hooks/hooks.json``, without ``if``
conditions: a plugin cannot know a project's globs) and ``handoff-lint init claude``, which
knows them and may give each file-tool handler an ``if`` condition (Claude Code's permission-rule
syntax, one rule per handler) so that a write no glob claims starts no process at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

#: The hook's plain command, as the documented blocks show it.
HOOK_COMMAND = "handoff-lint claude-hook"

#: The tools that write a file by its ``file_path``, each matched by its own name in an ``if`` rule.
FILE_TOOLS = ("Write", "Edit", "MultiEdit")

#: Seconds each event's handler may take: a tool call's check, and the whole work's at a stop.
TOOL_TIMEOUT = 30
STOP_TIMEOUT = 60

# What a file name's literal ending may hold to be written into a gitignore-style rule unchanged:
# Claude Code's rules read ``[``, ``!``, ``\\`` and parentheses otherwise than our globs do.
_PLAIN_ENDING = re.compile(r"[A-Za-z0-9._\-]+")


def rule_pattern(glob: str) -> str | None:
    """A Claude Code rule path (anchored at the project's ``/``, at any depth below it) that matches
    every file ``glob`` matches: the name's literal ending (``.planning/**/*.md``: ``/**/*.md``;
    ``HANDOFF.md``: ``/**/HANDOFF.md``). None when the name has no literal ending to keep.

    Wider than the glob on purpose: a rule only saves starting the hook, which decides itself.
    """
    name = glob.rsplit("/", 1)[-1]
    cut = max(name.rfind(c) for c in "*?[]")
    ending = name[cut + 1 :]
    if not ending or "**" in name or not _PLAIN_ENDING.fullmatch(ending):
        return None
    return f"/**/{name}" if cut < 0 else f"/**/*{ending}"


def conditions(globs: Iterable[str]) -> list[str] | None:
    """The fewest rule paths that together match every file of ``globs`` (in the globs' order), or
    None when a glob has none: then every write must start the hook, as without ``if``."""
    patterns: list[str] = []
    for glob in globs:
        pattern = rule_pattern(glob)
        if pattern is None:
            return None
        if pattern not in patterns:
            patterns.append(pattern)
    wildcards = [p[len("/**/*") :] for p in patterns if p.startswith("/**/*")]

    def covered(pattern: str) -> bool:
        name = pattern[len("/**/") :]
        return any(name != "*" + ending and name.endswith(ending) for ending in wildcards)

    return [p for p in patterns if not covered(p)] or None


def guarded(executable: str = "handoff-lint", *, fail_closed: bool = False) -> str:
    """The shell command of a handler: ``EXECUTABLE claude-hook`` when it can be found, else a line
    saying it is not on PATH, which Claude Code shows the user as the hook's error: exit 1, so
    that a missing install refuses no write and keeps no agent from stopping; exit 2 (refuse)
    with ``fail_closed``. ``executable`` is shell text, as typed."""
    if "'" in executable:
        raise ValueError("the executable may not hold a single quote")
    flag = " --fail-closed" if fail_closed else ""
    missing = "is not on PATH" if executable == "handoff-lint" else f"is not found at {executable}"
    return (
        f"command -v {executable} >/dev/null 2>&1 && exec {executable} claude-hook{flag} || "
        f"{{ echo 'handoff-lint {missing}: install it (pipx install pytest-handoff) to have "
        f"handoffs checked' >&2; exit {2 if fail_closed else 1}; }}"
    )


def _handler(command: str, timeout: int, condition: str | None = None) -> dict[str, Any]:
    handler: dict[str, Any] = {"type": "command", "command": command, "timeout": timeout}
    if condition is not None:
        handler["if"] = condition
    return handler


def hook_blocks(command: str, patterns: Sequence[str] | None = None) -> dict[str, list[dict[str, Any]]]:
    """The ``hooks`` table of a Claude Code settings file (or a plugin's ``hooks/hooks.json``).

    With ``patterns`` (from :func:`conditions`), each file tool has its own group whose handlers
    run only for a path one pattern matches; ``if`` is only honoured on tool events, so Bash,
    Stop and SubagentStop keep their plain entries.
    """

    def file_tool_groups() -> list[dict[str, Any]]:
        if patterns is None:
            return [{"matcher": "|".join(FILE_TOOLS), "hooks": [_handler(command, TOOL_TIMEOUT)]}]
        return [
            {"matcher": tool, "hooks": [_handler(command, TOOL_TIMEOUT, f"{tool}({p})") for p in patterns]}
            for tool in FILE_TOOLS
        ]

    bash_after = [{"matcher": "Bash", "hooks": [_handler(command, TOOL_TIMEOUT)]}]
    if patterns is None:  # one group, as the documented blocks show
        after = [{"matcher": "|".join((*FILE_TOOLS, "Bash")), "hooks": [_handler(command, TOOL_TIMEOUT)]}]
    else:
        after = [*file_tool_groups(), *bash_after]
    return {
        "PreToolUse": file_tool_groups(),
        "PostToolUse": after,
        "PostToolUseFailure": bash_after,
        "Stop": [{"hooks": [_handler(command, STOP_TIMEOUT)]}],
        "SubagentStop": [{"hooks": [_handler(command, STOP_TIMEOUT)]}],
    }


def codex_blocks(command: str) -> dict[str, list[dict[str, Any]]]:
    """The ``hooks`` table of a Codex ``hooks.json``: after ``apply_patch`` and Bash (Codex's
    PreToolUse sees no file's content before a patch applies), and at Stop and SubagentStop."""
    return {
        "PostToolUse": [{"matcher": "apply_patch|Bash", "hooks": [_handler(command, STOP_TIMEOUT)]}],
        "Stop": [{"hooks": [_handler(command, STOP_TIMEOUT)]}],
        "SubagentStop": [{"hooks": [_handler(command, STOP_TIMEOUT)]}],
    }


class SettingsShape(ValueError):
    """A settings file whose ``hooks`` are not laid out as Claude Code reads them: left alone."""


#: A command init or the plugin writes, or the documented blocks show: replaced on merge.
_WRITTEN = re.compile(
    r"handoff-lint claude-hook(?: --fail-closed)?"
    r"|command -v (?P<exe>[^']+?) >/dev/null 2>&1 && exec (?P=exe) claude-hook(?: --fail-closed)? \|\| "
    r"\{ echo 'handoff-lint [^']*: install it \(pipx install pytest-handoff\) to have handoffs checked' "
    r">&2; exit [12]; \}"
)


#: A shell command that runs the hook: ``claude-hook`` as the word after the ``handoff-lint``
#: command (any path to it) or ``python -m pytest_handoff[.cli]``; not a file named after it.
_RUNS_HOOK = re.compile(
    r"(?:^|[\s;&|(`'\"])(?:\S*/)?(?:handoff-lint|\S*python\S*\s+-m\s+pytest_handoff(?:\.cli)?)"
    r"\s+claude-hook(?=$|[\s;&|)`'\"])"
)


def _command(handler: object) -> str:
    """A handler's shell command ('' when it has none, or one that is not text)."""
    command = handler.get("command") if isinstance(handler, dict) else None
    return command if isinstance(command, str) else ""


def _is_ours(handler: object) -> bool:
    return _WRITTEN.fullmatch(_command(handler).strip()) is not None


def _is_own_wrapper(handler: object) -> bool:
    """A user's own command that runs the hook (``uv run handoff-lint claude-hook``, with a log):
    kept as written, and ours is not added beside it, where it would check every call twice."""
    return _RUNS_HOOK.search(_command(handler)) is not None and not _is_ours(handler)


class Merged(NamedTuple):
    """A settings file with our blocks merged in, and the events left to the user's own command."""

    settings: dict[str, Any]
    kept_own: list[str]


def merged(settings: Mapping[str, Any], blocks: Mapping[str, list[dict[str, Any]]]) -> Merged:
    """``settings`` with ``blocks`` in its ``hooks``: every other key, event, group and handler kept
    in its place, ours (a handler whose command is one we write) replaced, so that merging twice
    gives what merging once does. A group left with no handler is dropped. An event where the
    user runs the hook by a command of their own keeps it and gets none of ours.
    """
    result = dict(settings)
    hooks = result.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsShape("its 'hooks' is not an object")
    new_hooks: dict[str, Any] = {}
    kept_own: list[str] = []
    for event, groups in hooks.items():
        if event not in blocks:
            new_hooks[event] = groups
            continue
        if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
            raise SettingsShape(f"its 'hooks.{event}' is not a list of objects")
        kept = []
        for group in groups:
            handlers = group.get("hooks")
            if not isinstance(handlers, list):
                kept.append(group)
                continue
            others = [h for h in handlers if not _is_ours(h)]
            if any(_is_own_wrapper(h) for h in others) and event not in kept_own:
                kept_own.append(event)
            if others:
                kept.append({**group, "hooks": others})
        new_hooks[event] = kept
    for event, groups in blocks.items():
        if event not in kept_own:
            new_hooks[event] = [*new_hooks.get(event, []), *groups]
    result["hooks"] = new_hooks
    return Merged(result, kept_own)
