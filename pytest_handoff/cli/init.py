"""``handoff-lint init claude``: the hook's blocks written into the project's Claude Code settings,
merged with what the file holds, for those who do not install the plugin."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from pytest_handoff.values.errors import UsageError

#: A settings file larger than this is refused (bytes).
MAX_SETTINGS = 16 * 1024 * 1024

#: Each host's settings file under the project, and the file ``--local`` names instead.
HOSTS = {
    "claude": (".claude/settings.json", ".claude/settings.local.json"),
    "codex": (".codex/hooks.json", None),
}


def init_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="handoff-lint init",
        description="Write the hook's blocks into the project's Claude Code settings "
        "(.claude/settings.json) or Codex hooks (.codex/hooks.json), merged with what the file holds: "
        "the handlers init writes are replaced, everything else kept (an event where a command of "
        "your own runs 'handoff-lint claude-hook' keeps it and gets none of init's).",
    )
    parser.add_argument("host", choices=tuple(HOSTS), help="the agent host to set up")
    parser.add_argument(
        "--local",
        action="store_true",
        help="Claude Code: write .claude/settings.local.json (yours alone, not committed) instead",
    )
    parser.add_argument(
        "--no-if",
        dest="conditions",
        action="store_false",
        help="Claude Code: no 'if' conditions from the globs, so every Write and Edit starts the hook "
        "(for Claude Code before 2.1.176, whose 'if' never matched a file tool)",
    )
    parser.add_argument(
        "--fail-closed",
        action="store_true",
        help="run the hook with --fail-closed: an internal error refuses the write or keeps the agent working",
    )
    parser.add_argument(
        "--executable",
        default="handoff-lint",
        help="the command that runs handoff-lint, as shell words (default: handoff-lint, found on PATH)",
    )
    parser.add_argument("--config", type=Path, help="a pyproject.toml to read [tool.handoff] from")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--print", action="store_true", help="print the merged settings instead of writing them"
    )
    mode.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 when the file is not what init would write (globs changed since)",
    )
    return parser


def init(argv: list[str]) -> int:
    try:
        options = init_parser().parse_args(argv)
    except SystemExit as exit_:
        return 0 if exit_.code in (0, None) else 2
    from pytest_handoff.agents.common import Handoffs
    from pytest_handoff.agents.install import (
        SettingsShape,
        codex_blocks,
        conditions,
        guarded,
        hook_blocks,
        merged,
    )
    from pytest_handoff.pipeline.run import Run, find_project
    from pytest_handoff.values.errors import ConfigError

    root = find_project(Path.cwd())
    try:
        run = Run.in_project(root, config_file=options.config)
    except ConfigError as error:
        raise UsageError(str(error)) from None
    globs = [glob for owner in Handoffs(run).matcher.owners for glob in owner.globs]
    patterns = conditions(globs) if options.conditions else None
    try:
        command = guarded(options.executable, fail_closed=options.fail_closed)
    except ValueError as error:
        raise UsageError(f"--executable: {error}") from None

    shared, local = HOSTS[options.host]
    if options.local and local is None:
        raise UsageError(f"--local: {options.host} has no file of one's own settings")
    target = root / (local if options.local and local else shared)
    shown = os.path.relpath(target)
    before = _read_settings(target, root, shown)
    blocks = codex_blocks(command) if options.host == "codex" else hook_blocks(command, patterns)
    current = json.loads(before) if before else None
    try:
        after, kept_own = merged(current or {}, blocks)
    except SettingsShape as error:
        raise UsageError(f"{shown}: {error}; fix it by hand, then run init again") from None
    text = json.dumps(after, indent=2, ensure_ascii=False) + "\n"
    # The same settings, however the file is laid out: a file formatted by hand is not rewritten.
    up_to_date = current == after

    if options.print:  # the blocks only: the rest of the file may hold secrets (an env table)
        sys.stdout.write(json.dumps({"hooks": blocks}, indent=2, ensure_ascii=False) + "\n")
        return 0
    if kept_own:
        print(
            f"{shown}: kept your own command that runs the hook at {', '.join(kept_own)}; "
            "init's handlers are written at the other events"
        )
    if options.check:
        if up_to_date:
            print(f"{shown}: up to date")
            return 0
        print(f"{shown}: not what 'handoff-lint init {options.host}' writes now; run it again")
        return 1
    if up_to_date:
        print(f"{shown}: up to date, nothing written")
    else:
        _write(target, text)
        written = [event for event in blocks if event not in kept_own]
        print(f"{shown}: the hook runs on {', '.join(written)}{_conditions_said(options.host, patterns)}")
    if options.executable == "handoff-lint" and shutil.which("handoff-lint") is None:
        print(
            "handoff-lint: warning: handoff-lint is not on this PATH: the hook will say so in Claude Code "
            "until it is, or give --executable",
            file=sys.stderr,
        )
    return 0


def _conditions_said(host: str, patterns: list[str] | None) -> str:
    if host == "codex":
        return ""
    if patterns is None:
        return " (every Write and Edit starts it)"
    names = ", ".join(p.removeprefix("/**/") for p in patterns)
    return f" (Write and Edit start it only for files named {names})"


def _read_settings(target: Path, root: Path, shown: str) -> str:
    """The settings file's text ('' when there is none); refused when it is not a JSON object, is
    too large, or leads out of the project (the file or its folder a link)."""
    from pytest_handoff.read.files import read_bounded

    real_root = os.path.realpath(root)
    folder = target.parent
    if os.path.lexists(folder) and (
        not folder.is_dir() or not Path(os.path.realpath(folder)).is_relative_to(real_root)
    ):
        raise UsageError(
            f"{os.path.relpath(folder)} is not a folder of the project: init writes only inside it"
        )
    if not os.path.lexists(target):
        return ""
    if target.is_symlink() or not Path(os.path.realpath(target)).is_relative_to(real_root):
        raise UsageError(f"{shown} is a link: init writes only a plain file inside the project")
    try:
        text = read_bounded(target, MAX_SETTINGS).decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read {shown}: {error}") from None
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(
            f"{shown}:{error.lineno}:{error.colno}: not JSON ({error.msg}); nothing written"
        ) from None
    except RecursionError:
        raise UsageError(f"{shown}: nests too deep to be a settings file; nothing written") from None
    if not isinstance(data, dict):
        raise UsageError(f"{shown}: not a JSON object; nothing written")
    return text


def _write(target: Path, text: str) -> None:
    from pytest_handoff.read.files import replace_file

    target.parent.mkdir(parents=True, exist_ok=True)
    replace_file(target, text)
