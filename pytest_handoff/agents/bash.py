"""The Claude Code hook after a ``Bash`` command: the handoffs it wrote, checked.

A handoff written through the shell (``cat > f <<EOF``, ``tee``, ``echo >``, ``cp``, ``mv``,
``python -c ...``) passes the ``Write``/``Edit`` hook unseen. Shell cannot be parsed reliably,
so the files a command wrote are taken from two sources, both kept inside the project:

1. the paths the command names (:func:`command_paths`): the targets of ``>``, ``>>``, ``>|``,
   ``&>``; the files of ``tee``, ``touch``, ``truncate``, ``sed -i``, ``perl -i`` and ``dd of=``;
   the destination of ``cp``, ``mv``, ``install``, ``ln`` and ``rsync`` (in it, when it is a
   folder). A handoff among them is checked whenever it is a file after the command. Any other
   word of the command that a profile's globs claim (a path inside ``python -c '...'``) counts
   when its file changed while the command ran (below);
2. the handoff files git sees new or changed (``git status``, untracked files included,
   ignored ones not) that changed while the command ran.

"Changed while the command ran" is deterministic: the later of the file's modification and
status-change times is at or after the hook's start minus the command's ``duration_ms`` minus
:data:`SLACK` seconds. Without ``duration_ms`` (Claude Code before 2.1.119), the command's
``timeout`` stands in for it, else Bash's default of two minutes.

PostToolUse (the command exited 0) answers a broken handoff with ``{"decision": "block",
"reason": ...}``; PostToolUseFailure (it exited non-zero, which PostToolUse never sees) with
``{"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": ...}}``.
A command that touches no handoff costs a file-name test per word and one ``git status``
limited to the globs; the checks are imported only when a handoff changed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from pytest_handoff.agents.common import (
    Handoffs,
    changed_in_git,
    changed_since,
    check_handoffs,
    contracts,
    errors_of,
    findings_reason,
    hook_root,
    hook_run,
    masked_display,
    named_files,
    session_folder,
)
from pytest_handoff.agents.patches import patch_paths

#: Seconds allowed between a command's end and the hook's start, and for coarse file clocks.
SLACK = 3.0
#: Bash's own default timeout, in seconds: the longest a command without ``timeout`` runs.
DEFAULT_DURATION = 120.0

#: Commands longer than this (characters) are not split into words: their files are found by git
#: and by the path-like words they hold.
MAX_SPLIT = 64 * 1024

_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", ">&"})
_SEPARATORS = frozenset({";", "&&", "||", "|", "|&", "&", "(", ")", ";;", "{", "}", "!"})
_WRAPPERS = frozenset({"sudo", "env", "command", "builtin", "exec", "nohup", "time", "nice", "stdbuf"})
#: Commands whose every file argument is written.
_WRITE_ALL = frozenset({"tee", "touch", "truncate"})
#: Commands that write every file argument with ``-i``.
_IN_PLACE = frozenset({"sed", "perl", "gsed"})
#: Commands that copy or move their sources to the last argument (or into ``-t DIR``).
_COPIES = frozenset({"cp", "mv", "install", "ln", "rsync", "gcp", "gmv"})
#: Options whose value is the next word, by command (``-t DIR`` is read apart).
_VALUED: Mapping[str, frozenset[str]] = {
    "truncate": frozenset({"-s", "--size", "-r", "--reference"}),
    "install": frozenset({"-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix"}),
    "cp": frozenset({"-S", "--suffix"}),
    "mv": frozenset({"-S", "--suffix"}),
    "ln": frozenset({"-S", "--suffix"}),
    "sed": frozenset({"-e", "--expression", "-f", "--file"}),
    "perl": frozenset({"-e", "-E"}),
}
# A here-document: ``<<EOF``, ``<<-'EOF'``, ``<< "EOF"``; its body runs up to a line holding the word.
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
# What a word may follow (a ``#`` opening one starts a comment): white space and the operators.
_WORD_STARTS = frozenset(" \t\r;&|()<>")
# Words that may be paths, wherever they stand (inside a quoted program, after ``--out=``).
_PATHLIKE = re.compile(r"[^\s'\"`<>|;&(){}=,$\\]+")


class CommandPaths(NamedTuple):
    """What a shell command names: files it writes, and every word that may be a path.

    Each is (folder the command ran in, or None when a ``cd`` made it unknown; the path as written).
    """

    writes: tuple[tuple[str | None, str], ...]
    mentions: tuple[str, ...]
    #: The folder of each ``apply_patch`` the command runs (its envelope's paths are relative to it).
    patches: tuple[str | None, ...] = ()


def command_paths(command: str) -> CommandPaths:
    """The files ``command`` writes and the words it holds that may be paths (no shell is run).

    Folders are relative to the folder the command starts in (``""``) and follow ``cd DIR``.
    A command this cannot split (unbalanced quotes) names only its path-like words.
    """
    import shlex

    mentions = tuple(dict.fromkeys(_PATHLIKE.findall(command)))
    if len(command) > MAX_SPLIT:  # shlex builds a word a character at a time: quadratic on one long word
        return CommandPaths((), mentions)
    lexer = shlex.shlex(_lines_joined(_without_heredocs(command)), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""  # comments are gone already: shlex would take a ``#`` inside a word for one
    try:
        words = list(lexer)
    except ValueError:
        return CommandPaths((), mentions)
    writes: list[tuple[str | None, str]] = []
    patches: list[str | None] = []
    folder: str | None = ""
    for simple in _simple_commands(words):
        arguments, targets = _redirections(simple)
        writes.extend((folder, target) for target in targets)
        program, arguments = _program(arguments)
        if program in ("cd", "pushd"):
            folder = _moved(folder, arguments)
            continue
        if program in ("apply_patch", "applypatch"):
            patches.append(folder)
        writes.extend((folder, path) for path in _written_by(program, arguments))
    return CommandPaths(tuple(dict.fromkeys(writes)), mentions, tuple(patches))


def _without_heredocs(command: str) -> str:
    """``command`` without the bodies of its here-documents (text, not shell words)."""
    lines = command.split("\n")
    kept: list[str] = []
    ends: list[str] = []
    for line in lines:
        if ends:
            if line.strip() == ends[0]:
                ends.pop(0)
            continue
        kept.append(line)
        ends.extend(match.group(2) for match in _HEREDOC.finditer(line))
    return "\n".join(kept)


def _lines_joined(command: str) -> str:
    """``command`` on one line for :mod:`shlex`: a line break outside quotes becomes `` ; ``, a
    comment (``#`` opening a word, up to the line's end) and an escaped line break go; quoted text stays."""
    kept: list[str] = []
    quote = ""
    opens = True  # the next character would open a word
    index = 0
    while index < len(command):
        char = command[index]
        if char == "\\" and quote != "'":
            if not command.startswith("\n", index + 1):
                kept.append(command[index : index + 2])
                opens = False
            index += 2  # an escaped character, or a line continued
            continue
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "\n":
            char = " ; "
        elif char == "#" and opens:
            end = command.find("\n", index)
            index = len(command) if end < 0 else end
            continue
        kept.append(char)
        opens = not quote and char[-1] in _WORD_STARTS
        index += 1
    return "".join(kept)


def _simple_commands(words: list[str]) -> Iterator[list[str]]:
    current: list[str] = []
    for word in words:
        if word in _SEPARATORS:
            if current:
                yield current
            current = []
        else:
            current.append(word)
    if current:
        yield current


def _redirections(words: list[str]) -> tuple[list[str], list[str]]:
    """A simple command's words without its redirections, and the files it redirects output to."""
    kept: list[str] = []
    targets: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        if word in _REDIRECTS or word in ("<", "<<", "<<<", "<>", "<&"):
            if kept and kept[-1].isdigit():
                kept.pop()  # the descriptor of ``2>``, split from it
            target = words[index + 1] if index + 1 < len(words) else ""
            if word in _REDIRECTS and target and not target.isdigit() and target != "-":
                targets.append(target)
            index += 2
            continue
        kept.append(word)
        index += 1
    return kept, targets


def _program(words: list[str]) -> tuple[str, list[str]]:
    """The program a simple command runs (its base name) and its arguments."""
    index = 0
    while index < len(words) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[index]):
        index += 1  # VAR=value before the command
    while index < len(words) and os.path.basename(words[index]) in _WRAPPERS:
        index += 1
        while index < len(words) and (words[index].startswith("-") or "=" in words[index]):
            index += 1
    if index >= len(words):
        return "", []
    return os.path.basename(words[index]), words[index + 1 :]


def _moved(folder: str | None, arguments: list[str]) -> str | None:
    """The folder after ``cd ARGUMENTS``: None when it cannot be told (``cd``, ``cd -``, ``~``, ``$``)."""
    given = [word for word in arguments if not word.startswith("-")]
    if folder is None or len(given) != 1 or given[0].startswith("~") or "$" in given[0]:
        return None
    return given[0] if os.path.isabs(given[0]) else os.path.join(folder, given[0])


def _written_by(program: str, arguments: list[str]) -> list[str]:
    files = _operands(arguments, _VALUED.get(program, frozenset()))
    if program in _WRITE_ALL:
        return files
    if program in _IN_PLACE and any(w.startswith("-i") or w == "--in-place" for w in arguments):
        return files
    if program == "dd":
        return [word[3:] for word in arguments if word.startswith("of=")]
    if program in _COPIES:
        for index, word in enumerate(arguments):
            if word in ("-t", "--target-directory") and index + 1 < len(arguments):
                into = arguments[index + 1]
                return [os.path.join(into, os.path.basename(s.rstrip("/"))) for s in files if s != into]
            if word.startswith("--target-directory="):
                into = word.partition("=")[2]
                return [os.path.join(into, os.path.basename(s.rstrip("/"))) for s in files]
        if len(files) < 2:
            return []
        *sources, destination = files
        # Into the destination when it is a folder (decided once the paths are placed).
        return [destination, *(os.path.join(destination, os.path.basename(s.rstrip("/"))) for s in sources)]
    return []


def _operands(arguments: list[str], valued: frozenset[str]) -> list[str]:
    """The arguments that are not options, nor the value of an option in ``valued`` (``-s 0``)."""
    kept: list[str] = []
    skip = False
    for word in arguments:
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = word in valued
        else:
            kept.append(word)
    return kept


def placed(paths: Iterable[tuple[str | None, str]], here: Path) -> Iterator[Path]:
    """Absolute, normalised paths: each relative to ``here`` joined with its folder (skipped when
    unknown, or when no file can have that name: a NUL or a lone surrogate in it)."""
    from pytest_handoff.read.files import nameable

    for folder, written in paths:
        if folder is None and not os.path.isabs(written):
            continue
        if not written or written.startswith("~") or "$" in written:
            continue
        base = here / folder if folder else here
        path = os.path.normpath(base / written)
        if nameable(path):  # the folder of a ``cd`` may hold a NUL or a lone surrogate too
            yield Path(path)


def respond_to_bash(payload: Mapping[str, Any], started: float) -> dict[str, Any] | None:
    """The answer after a Bash command (PostToolUse or PostToolUseFailure): None when it wrote
    no handoff that has errors."""
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if not isinstance(command, str) or not command.strip():
        return None
    cwd = payload.get("cwd")
    root = hook_root(cwd)
    here = session_folder(cwd, root)
    handoffs = Handoffs(hook_run(root))
    files = written_handoffs(command, here, handoffs, started - ran_for(payload) - SLACK)
    reason = _reason_after(files, handoffs, root, "this Bash command")
    if reason is None:
        return None
    if payload.get("hook_event_name") == "PostToolUseFailure":
        return {"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": reason}}
    return {"decision": "block", "reason": reason}


def ran_for(payload: Mapping[str, Any]) -> float:
    """How long the command may have run, in seconds: ``duration_ms``, else its ``timeout``, else two minutes."""
    tool_input = payload.get("tool_input")
    for given in (
        payload.get("duration_ms"),
        tool_input.get("timeout") if isinstance(tool_input, dict) else None,
    ):
        milliseconds = _milliseconds(given)
        if milliseconds is not None:
            return milliseconds / 1000
    return DEFAULT_DURATION


def _milliseconds(value: object) -> float | None:
    """A number of milliseconds as JSON gives it (not a boolean, not negative, not NaN), or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
        return None
    return float(value)


def written_handoffs(command: str, here: Path, handoffs: Handoffs, since: float) -> list[Path]:
    """The handoff files ``command`` (run in ``here``) wrote, in the order found (see the module's doc)."""
    named = command_paths(command)
    patched: tuple[tuple[str, str], ...] = ()
    folders = set(named.patches)
    # Codex's `apply_patch <<'EOF'` through the shell, its paths relative to where it ran (an
    # envelope only written to a file, or after a `cd` that cannot be followed, is left to git).
    if "*** Begin Patch" in command and len(folders) == 1 and None not in folders:
        (folder,) = folders
        patched = tuple((folder or "", path) for path in patch_paths(command).written)
    wanted = [
        p for p in placed((*named.writes, *patched), here) if handoffs.claims(p) and handoffs.on_disk(p)
    ]
    maybe = [p for p in placed((("", word) for word in named.mentions), here) if handoffs.claims(p)]
    maybe.extend(changed_in_git(handoffs) or ())
    fresh = changed_since((p for p in dict.fromkeys(maybe) if p not in wanted and handoffs.on_disk(p)), since)
    return list(dict.fromkeys([*wanted, *fresh]))


def respond_to_patch(payload: Mapping[str, Any]) -> dict[str, Any] | None:
    """The answer after Codex's ``apply_patch`` (PostToolUse; ``tool_input`` is ``{"command": PATCH}``):
    None when the envelope wrote no handoff that has errors. The files are taken from the
    envelope's headers and checked as they are on disk after the call, as after a ``Write``."""
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if not isinstance(command, str) or "*** " not in command:
        return None
    cwd = payload.get("cwd")
    root = hook_root(cwd)
    handoffs = Handoffs(hook_run(root))
    written = placed((("", path) for path in patch_paths(command).written), session_folder(cwd, root))
    files = list(dict.fromkeys(path for path in written if handoffs.claims(path) and handoffs.on_disk(path)))
    reason = _reason_after(files, handoffs, root, "this patch")
    return None if reason is None else {"decision": "block", "reason": reason}


def _reason_after(files: list[Path], handoffs: Handoffs, root: Path, what: str) -> str | None:
    """What the agent is told after ``what`` wrote ``files``: their errors, or None when none has any."""
    if not files:
        return None
    errors = errors_of(check_handoffs(files, handoffs.run))
    if not errors:
        return None
    several = len(files) != 1
    return findings_reason(
        errors,
        f"handoff-lint: after {what}, {named_files(files, root)} break{'s' * (not several)} "
        f"{contracts(len(errors))}. Fix each one below in the file{'s' * several}:",
        [masked_display(path, root) for path in files],
    )
