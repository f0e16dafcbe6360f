"""``handoff-lint claude-hook``: a Claude Code hook that refuses a broken handoff before it lands.

Claude Code runs the hook with one JSON payload on stdin. The fields read here are the ones
every tool event carries: ``hook_event_name`` (``PreToolUse`` or ``PostToolUse``),
``tool_name`` (``Write``, ``Edit`` or ``MultiEdit``), ``cwd`` (the project folder unless
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
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

if TYPE_CHECKING:
    from pytest_handoff.config import Settings
    from pytest_handoff.model import Finding

TOOLS = frozenset({"Write", "Edit", "MultiEdit"})
EVENTS = frozenset({"PreToolUse", "PostToolUse"})
#: At most this many findings are spelt out in a reason; the rest are counted.
MAX_FINDINGS = 8
#: A reason never grows past this many characters (the agent reads all of it every time).
MAX_REASON = 4000
#: A fix hint from the rule's docs is cut to this many characters.
MAX_HINT = 300


def main(
    argv: Sequence[str] = (),
    stdin: BinaryIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the hook on one payload: 0, or 1 (shown to the user, not the agent) when the configuration is broken."""
    stdin = sys.stdin.buffer if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr
    if argv:
        print(f"handoff-lint claude-hook: takes no arguments (got {' '.join(argv)}); "
              "it reads a Claude Code hook payload on stdin", file=stderr)  # fmt: skip
        return 1
    try:
        payload = json.loads(stdin.read())
    except (ValueError, RecursionError, OSError):
        return 0  # not a payload we can read: nothing the agent could act on
    try:
        answer = respond(payload)
    except _ConfigProblem as problem:
        # Exit 1 shows the user (not the agent) the message and lets the tool call go on.
        print(f"handoff-lint claude-hook: {problem}", file=stderr)
        return 1
    except Exception as error:  # never a traceback, never a refusal the agent cannot act on
        print(f"handoff-lint claude-hook: internal error: {type(error).__name__}: {error}", file=stderr)
        return 1
    if answer is not None:
        stdout.write(json.dumps(answer) + "\n")
    return 0


class _ConfigProblem(Exception):
    """The project's configuration cannot be used."""


def respond(payload: object) -> dict[str, Any] | None:
    """The hook's JSON answer to ``payload``, or None to let the tool call go on silently."""
    if not isinstance(payload, dict):
        return None
    event, tool, tool_input = (payload.get(key) for key in ("hook_event_name", "tool_name", "tool_input"))
    if event not in EVENTS or tool not in TOOLS or not isinstance(tool_input, dict):
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
    settings = _settings(root)
    if not _claimed(path, root, settings):
        return None
    if event == "PreToolUse":
        content = new_content(tool, tool_input, path)
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


def hook_root(cwd: object) -> Path:
    """The project folder: ``$CLAUDE_PROJECT_DIR`` (which Claude Code sets for its hooks), else
    the project the payload's ``cwd`` is in, found as the CLI finds it.

    The session's ``cwd`` follows the agent's ``cd``; the project's settings stay at its root.
    """
    from pytest_handoff.config import project_root
    from pytest_handoff.registry import default_registry

    project = os.environ.get("CLAUDE_PROJECT_DIR")
    if project and os.path.isabs(project):
        return Path(project)
    start = Path(cwd) if isinstance(cwd, str) and os.path.isabs(cwd) else Path.cwd()
    return project_root(start, default_registry().project_markers())


def new_content(tool: str, tool_input: Mapping[str, Any], path: Path) -> str | None:
    """What the file holds after ``tool`` runs with ``tool_input``, or None when the tool would fail.

    Edits follow the tools' own rules: ``old_string`` must be found, and found once unless
    ``replace_all``; an empty ``old_string`` creates a file that does not exist yet.
    """
    if tool == "Write":
        content = tool_input.get("content")
        return content if isinstance(content, str) else None
    edits: object = [tool_input] if tool == "Edit" else tool_input.get("edits")
    if not isinstance(edits, list) or not edits:
        return None
    try:
        text: str | None = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        text = None
    except (OSError, UnicodeDecodeError):
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


def _settings(root: Path) -> Settings:
    from pytest_handoff.config import load_settings
    from pytest_handoff.errors import ConfigError
    from pytest_handoff.registry import default_registry

    try:
        return load_settings(root, tables=default_registry())
    except ConfigError as error:
        raise _ConfigProblem(str(error)) from None


def _claimed(path: Path, root: Path, settings: Settings) -> bool:
    """True when ``path`` is a handoff by some profile's globs (relative to ``root``).

    A name that the last part of no glob matches is turned away before the engine is imported:
    that keeps the hook as cheap as possible on the writes that are not handoffs.
    """
    if not path.is_relative_to(root):
        return False  # another project's file: its own settings and chain are not known here
    from pytest_handoff.pipeline.matcher import Matcher
    from pytest_handoff.registry import default_registry

    matcher = Matcher(settings, default_registry(), plugins=False)
    return matcher.may_match(path.name) and matcher.first_owner(path.relative_to(root).as_posix()) is not None


def _reason(
    path: Path, root: Path, settings: Settings, content: str | None, tool: str, *, before: bool
) -> str | None:
    """The text that tells the agent what to fix, or None when nothing is of error severity."""
    from pytest_handoff.api import check_file
    from pytest_handoff.model import Severity

    findings = check_file(path, content, root=root, settings=settings).findings
    errors = [f for f in findings if f.severity >= Severity.ERROR]
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
    from pytest_handoff.api import use_instead
    from pytest_handoff.boundary import inert
    from pytest_handoff.pipeline.masking import shown_path
    from pytest_handoff.read.files import display_path_for

    shown = shown_path(display_path_for(path, root))
    # Most important first: the file's own errors before those it causes elsewhere, then by place.
    ordered = sorted(errors, key=lambda f: (f.path != shown, -f.severity, f))
    count = len(ordered)
    broken = f"{count} handoff contract{'s' * (count != 1)}"
    lines = [
        f"handoff-lint refused this {tool}: {inert(shown)} would break {broken}, so it was not written. "
        f"Fix each one below in what you write, then try again:"
        if before
        else f"handoff-lint: after this {tool}, {inert(shown)} breaks {broken}. Fix each one below in the file:",
    ]
    size = len(lines[0])
    listed = 0
    for number, finding in enumerate(ordered[:MAX_FINDINGS], start=1):
        place = inert(finding.location + (f" {finding.pointer}" if finding.pointer else ""))
        entry = f"\n{number}. {place} [{finding.code} {inert(finding.rule)}] {inert(finding.message)}"
        hint = use_instead(finding.code)
        if hint:
            cut = hint if len(hint) <= MAX_HINT else hint[: MAX_HINT - 3].rstrip() + "..."
            entry += f"\n   Use instead: {cut}"
        if listed and size + len(entry) > MAX_REASON - 200:
            break
        lines.append(entry)
        size += len(entry)
        listed += 1
    if listed < count:
        lines.append(f"\n... and {count - listed} more: fix these, and the rest are listed on the next try.")
    lines.append("\n`handoff-lint explain CODE` prints a rule's documentation.")
    return "".join(lines)
