"""``handoff-lint claude-hook``: a Claude Code hook that keeps broken handoffs from landing unseen.

Claude Code runs the hook with one JSON payload on stdin and reads its answer on stdout. One
command serves every event it is registered for, chosen by ``hook_event_name``:

- ``PreToolUse``/``PostToolUse`` on ``Write``, ``Edit`` and ``MultiEdit`` (here);
- ``PostToolUse``/``PostToolUseFailure`` on ``Bash`` (:mod:`pytest_handoff.agents.bash`);
- ``Stop``/``SubagentStop`` (:mod:`pytest_handoff.agents.stop`).

For the file tools, the fields read are ``tool_name``, ``cwd`` (the project folder unless
``$CLAUDE_PROJECT_DIR`` names it: settings and display paths are relative to it) and
``tool_input``, whose fields depend on the tool:

- Write: ``file_path`` (absolute) and ``content``;
- Edit: ``file_path``, ``old_string``, ``new_string`` and ``replace_all`` (default false);
- MultiEdit: ``file_path`` and ``edits``, a list of ``{old_string, new_string, replace_all}``
  applied in order, each to the result of the one before.

PreToolUse checks what the file would hold after the tool ran, in its chain on disk, and
refuses the call when that has errors: ``hookSpecificOutput.permissionDecision: "deny"`` with
the reason (shown to the agent) on stdout, exit 0. PostToolUse checks the written file and
answers ``decision: "block"`` with the same reason, so the agent is told to fix it. Warnings
refuse nothing. Anything the hook cannot act on (another tool or event, a file no glob claims,
a payload that is not JSON, an edit the tool itself will reject) ends silently with exit 0;
nothing is ever written.

The hook fails open, as Claude Code treats any exit code but 0 and 2: a configuration error
exits 1 (its one line is shown to the user) and so does an internal error, never with a
traceback. With ``--fail-closed`` an internal error exits 2 instead, with one short line that
Claude Code hands to the agent, which refuses the tool call or keeps the agent working.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

from pytest_handoff.agents.common import (
    MAX_FINDINGS,
    MAX_HINT,
    MAX_REASON,
    ConfigProblem,
    contracts,
    hook_root,
    hook_run,
)

if TYPE_CHECKING:
    from pytest_handoff.values.findings import Finding
    from pytest_handoff.values.settings import Settings

__all__ = [
    "MAX_FINDINGS",
    "MAX_HINT",
    "MAX_REASON",
    "agent_reason",
    "hook_root",
    "main",
    "new_content",
    "respond",
]

TOOLS = frozenset({"Write", "Edit", "MultiEdit"})
#: Codex's file-writing tool: a patch envelope in ``tool_input.command`` (checked after the call).
PATCH_TOOL = "apply_patch"
EVENTS = frozenset({"PreToolUse", "PostToolUse"})
#: The shell tool's events: PostToolUse fires only when the command exits 0, PostToolUseFailure otherwise.
SHELL_EVENTS = frozenset({"PostToolUse", "PostToolUseFailure"})
STOP_EVENTS = frozenset({"Stop", "SubagentStop"})
FAIL_CLOSED = "--fail-closed"
#: A payload larger than this is not read (a Write's content is one file, under max-file-size).
MAX_PAYLOAD = 64 * 1024 * 1024


def main(
    argv: Sequence[str] = (),
    stdin: BinaryIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the hook on one payload: 0; 1 (shown to the user, not the agent) when the configuration
    is broken or the hook fails; 2 (refusing, shown to the agent) when it fails under ``--fail-closed``."""
    started = time.time()
    stdin = sys.stdin.buffer if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr
    if list(argv) not in ([], [FAIL_CLOSED]):
        print(f"handoff-lint claude-hook: takes only {FAIL_CLOSED} (got {' '.join(argv)}); "
              "it reads a Claude Code hook payload on stdin", file=stderr)  # fmt: skip
        return 1
    fail_closed = FAIL_CLOSED in argv
    try:
        raw = stdin.read(MAX_PAYLOAD + 1)
        if len(raw) > MAX_PAYLOAD:
            print(f"handoff-lint claude-hook: the payload is over {MAX_PAYLOAD // (1024 * 1024)} MiB: not checked",
                  file=stderr)  # fmt: skip
            return 0
        payload = json.loads(raw)
    except (ValueError, RecursionError, OSError):
        return 0  # not a payload we can read: nothing the agent could act on
    warnings: list[str] = []
    try:
        answer = respond(payload, started=started, warn=warnings.append)
    except ConfigProblem as problem:
        # Exit 1 shows the user (not the agent) the message and lets the tool call go on. Even
        # under --fail-closed: a refusal of every write would keep the agent from mending it.
        print(f"handoff-lint claude-hook: {problem}", file=stderr)
        return 1
    except Exception as error:  # never a traceback, never a refusal the agent cannot act on
        if fail_closed and not _continuing_after_a_stop_hook(payload):
            # Only the error's type: its message may quote a handoff, and this goes to the agent.
            print(f"handoff-lint claude-hook failed ({type(error).__name__}) and runs with {FAIL_CLOSED}, "
                  "so it refuses: tell the user the hook needs a look.", file=stderr)  # fmt: skip
            return 2
        # The type only: an exception's text may quote a handoff.
        print(f"handoff-lint claude-hook: internal error: {type(error).__name__}", file=stderr)
        return 1
    for warning in warnings:
        print(f"handoff-lint claude-hook: {warning}", file=stderr)
    if answer is not None:
        stdout.write(json.dumps(answer) + "\n")
    return 0


def _continuing_after_a_stop_hook(payload: object) -> bool:
    """True for a Stop payload whose agent already goes on because a Stop hook blocked: failing
    closed again could keep it from ever stopping."""
    return isinstance(payload, dict) and payload.get("stop_hook_active") is True


def respond(
    payload: object, *, started: float | None = None, warn: Callable[[str], None] | None = None
) -> dict[str, Any] | None:
    """The hook's JSON answer to ``payload``, or None to let the agent go on silently.

    ``started``: when the hook started (seconds since the epoch; default now), which dates the
    files a shell command wrote. ``warn`` receives what the hook could not check and why.
    """
    if not isinstance(payload, dict):
        return None
    event, tool = payload.get("hook_event_name"), payload.get("tool_name")
    if event in STOP_EVENTS:
        from pytest_handoff.agents.stop import respond_to_stop

        return respond_to_stop(payload, warn or (lambda _: None))
    if event in SHELL_EVENTS and tool == "Bash":
        from pytest_handoff.agents.bash import respond_to_bash

        return respond_to_bash(payload, time.time() if started is None else started)
    if event == "PostToolUse" and tool == PATCH_TOOL:
        from pytest_handoff.agents.bash import respond_to_patch

        return respond_to_patch(payload)
    if event in EVENTS and tool in TOOLS:
        return _respond_to_file_tool(payload)
    return None


def _respond_to_file_tool(payload: Mapping[str, Any]) -> dict[str, Any] | None:
    event, tool, tool_input = (payload.get(key) for key in ("hook_event_name", "tool_name", "tool_input"))
    if not isinstance(tool_input, dict) or not isinstance(tool, str):
        return None
    file_path, cwd = tool_input.get("file_path"), payload.get("cwd")
    from pytest_handoff.read.files import nameable

    if not isinstance(file_path, str) or not file_path or not nameable(file_path):
        return None  # no file the tool can write: nothing to check
    if isinstance(cwd, str) and not nameable(cwd):
        cwd = None
    root = hook_root(cwd)
    # Claude Code sends absolute paths; a relative one is taken from the session's folder.
    path = Path(
        os.path.normpath(Path(cwd if isinstance(cwd, str) and os.path.isabs(cwd) else root) / file_path)
    )
    run = hook_run(root)
    settings = run.settings
    from pytest_handoff.agents.common import Handoffs

    if not Handoffs(run).claims(path):
        return None
    if event == "PreToolUse":
        content = new_content(tool, tool_input, path, root, settings.max_file_size)
        if content is None:
            return None  # the tool itself will refuse this edit, and say why
        reason = _reason(path, root, settings, content, tool, before=True)
        if reason is None:
            return None
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }
    reason = _reason(path, root, settings, None, tool, before=False)
    return None if reason is None else {"decision": "block", "reason": reason}


def new_content(
    tool: str, tool_input: Mapping[str, Any], path: Path, root: Path, max_size: int
) -> str | None:
    """What the file holds after ``tool`` runs with ``tool_input``, or None when the tool would fail
    or the file now at ``path`` is not one the hook reads: a regular file inside ``root``, no
    link leading out of it, at most ``max_size`` bytes.

    Edits follow the tools' own rules: ``old_string`` must be found, and found once unless
    ``replace_all``; an empty ``old_string`` creates a file that does not exist yet.
    """
    if tool == "Write":
        content = tool_input.get("content")
        return content if isinstance(content, str) else None
    edits: object = [tool_input] if tool == "Edit" else tool_input.get("edits")
    if not isinstance(edits, list) or not edits:
        return None
    from pytest_handoff.read.files import read_bounded

    try:
        text: str | None = read_bounded(path, max_size, root=root).decode("utf-8")
    except FileNotFoundError:
        text = None
    except (OSError, UnicodeDecodeError):  # a FIFO, a device, a link out, too large: not ours to edit
        return None
    for edit in edits:
        if not isinstance(edit, dict):
            return None
        old, new, every = edit.get("old_string"), edit.get("new_string"), edit.get("replace_all", False)
        if not isinstance(old, str) or not isinstance(new, str) or old == new:
            return None
        if text is None:  # a new file: only an edit of nothing creates it
            if old:
                return None
            text = new
            continue
        found = text.count(old) if old else 0
        if found == 0 or (found > 1 and every is not True):
            return None
        text = text.replace(old, new) if every is True else text.replace(old, new, 1)
    return text


def _reason(
    path: Path, root: Path, settings: Settings, content: str | None, tool: str, *, before: bool
) -> str | None:
    """The text that tells the agent what to fix, or None when nothing is of error severity."""
    from pytest_handoff.agents.common import errors_of
    from pytest_handoff.api import check_file

    errors = errors_of(check_file(path, content, root=root, settings=settings).findings)
    if errors and before:
        # Refuse only what the write brings about: an agent repairing a broken file one edit at
        # a time, or writing next to a broken sibling, must be let through (the rest is for
        # PostToolUse to report). Findings are the same one when rule, file and place agree.
        was = check_file(path, None, root=root, settings=settings, whole_chain=True).findings
        known = {(f.code, f.path, f.pointer) for f in was}
        errors = [f for f in errors if (f.code, f.path, f.pointer) not in known]
    if not errors:
        return None
    return agent_reason(errors, path, root, tool, before=before)


def agent_reason(errors: Sequence[Finding], path: Path, root: Path, tool: str, *, before: bool) -> str:
    """Findings as the agent reads them: place, pointer, message and fix, most important first."""
    from pytest_handoff.agents.common import findings_reason, masked_display, shown

    name, broken = shown(path, root), contracts(len(errors))
    first = (
        f"handoff-lint refused this {tool}: {name} would break {broken}, so it was not written. "
        f"Fix each one below in what you write, then try again:"
        if before
        else f"handoff-lint: after this {tool}, {name} breaks {broken}. Fix each one below in the file:"
    )
    return findings_reason(errors, first, [masked_display(path, root)])
