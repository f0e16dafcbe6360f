"""The Claude Code hook before an agent (``Stop``) or a subagent (``SubagentStop``) finishes.

The handoffs checked are the ones the agent's work wrote or changed:

- what git sees new or changed in the work tree (``git status``: untracked files included,
  ignored ones not), restricted to the files the profiles' globs claim. For a subagent, only
  those changed since its transcript's first entry (the main agent's own changes are not its
  work);
- the files the agent's transcript shows written: ``file_path`` of its ``Write``, ``Edit`` and
  ``MultiEdit`` calls, and what its ``Bash`` commands write (:func:`bash_writes.command_paths`).
  The transcript is ``transcript_path`` for Stop and ``agent_transcript_path`` for SubagentStop.
  Its format is internal to Claude Code and changes between versions: it is read defensively,
  line by line, and a line that is not what is expected is skipped.

The same pipeline as ``handoff-lint FILE...`` checks them. Findings of severity error keep the
agent working: ``{"decision": "block", "reason": ...}``; the reason ends with a mark,
``(handoff-lint stop check N of 3, findings <digest>)``.

**It never loops.** With ``stop_hook_active: false`` (the agent is stopping of its own accord),
errors block. With ``stop_hook_active: true`` (it is going on because a Stop hook blocked), the
hook looks for its own marks in the transcript since the last prompt a person typed, and blocks
again only when it finds at least one, none with the same digest (the agent changed the
findings since it was told) and fewer than :data:`MAX_BLOCKS`. Otherwise it lets the agent stop
and tells the user with a ``systemMessage``. A block under ``stop_hook_active`` therefore needs a
mark of this hook in the transcript and a new digest; nothing is written anywhere to count.

Input it lacks is said on stderr and the agent is let stop (exit 0): no ``cwd`` (and no
``$CLAUDE_PROJECT_DIR``) checks nothing; an unreadable transcript leaves only what git sees; a
project outside git leaves only the transcript; with neither, the user is told as well.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from pytest_handoff.agents.bash import SLACK, command_paths, placed
from pytest_handoff.agents.common import (
    MESSAGE_BLOCKS,
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
    message_findings,
    named_files,
    session_folder,
)
from pytest_handoff.pipeline.run import MESSAGE_DISPLAY

if TYPE_CHECKING:
    from pytest_handoff.values.findings import Finding

#: The last line of a SubagentStop block: the subagent's next message replaces its report to its
#: parent, so a report cut to "fixed it" would reach the parent in place of the work's account.
RESTATE = (
    "After fixing, restate your final report in full: your parent agent receives only your next message."
)
#: At most this many blocks in a row, the first included (Claude Code itself stops at 8).
MAX_BLOCKS = 3
#: Of a longer transcript, only its last this many bytes are read.
TRANSCRIPT_TAIL = 64 * 1024 * 1024
WRITING_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})
#: The mark a block's reason ends with. Plain ASCII without quotes: it reads the same in JSON text.
MARK = "handoff-lint stop check {number} of {most}, findings {digest}"
_MARK = re.compile(r"handoff-lint stop check (\d{1,9}) of \d{1,9}, findings ([0-9a-f]{12})")
_TIMESTAMP = re.compile(r'"timestamp"\s*:\s*"([^"]{10,40})"')


class Transcript(NamedTuple):
    """What an agent's transcript tells the hook."""

    #: Absolute paths of the files its tool calls wrote, in order.
    written: tuple[Path, ...]
    #: (number, digest) of this hook's marks since the last prompt a person typed.
    marks: tuple[tuple[int, str], ...]
    #: When its first entry was written (seconds since the epoch), when read from its start.
    started: float | None


def read_transcript(path: Path, here: Path) -> Transcript:
    """The files written, this hook's marks and the start of the transcript at ``path``.

    ``here`` is the folder relative paths are taken from when an entry names no ``cwd`` of its
    own. ``OSError`` when the file cannot be read or is no regular file (a FIFO, ``/dev/zero``).
    """
    written: list[Path] = []
    marks: list[tuple[int, str]] = []
    started: float | None = None
    whole = True
    from pytest_handoff.read.files import open_regular

    # A regular file only, opened without blocking (a FIFO would hang the hook), its tail at most.
    with open(open_regular(path), "rb") as stream:
        size = os.fstat(stream.fileno()).st_size
        if size > TRANSCRIPT_TAIL:
            stream.seek(size - TRANSCRIPT_TAIL)
            stream.readline(TRANSCRIPT_TAIL)  # the rest of a cut line
            whole = False
        lines = stream.read(TRANSCRIPT_TAIL).decode("utf-8", "replace").splitlines()
    for number, line in enumerate(lines):
        if whole and started is None and number < 50:
            started = _timestamp(line)
        found = _MARK.findall(line)
        marks.extend((int(count), digest) for count, digest in found)
        if '"tool_use"' in line:
            written.extend(_written(line, here))
        elif not found and '"user"' in line and '"tool_result"' not in line and _is_prompt(line):
            marks.clear()  # a person asked again: the blocks before it are not in a row with these
    return Transcript(tuple(dict.fromkeys(written)), tuple(marks), started)


def _entry(line: str) -> dict[str, Any] | None:
    try:
        entry = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return entry if isinstance(entry, dict) else None


def _blocks(entry: Mapping[str, Any]) -> list[Any]:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def _written(line: str, here: Path) -> Iterator[Path]:
    """The files the tool calls of one assistant entry write."""
    entry = _entry(line)
    if entry is None or entry.get("type") != "assistant":
        return
    cwd = entry.get("cwd")
    folder = Path(cwd) if isinstance(cwd, str) and os.path.isabs(cwd) else here
    for block in _blocks(entry):
        if not isinstance(block, dict) or block.get("type") != "tool_use":
            continue
        given = block.get("input")
        if not isinstance(given, dict):
            continue
        if block.get("name") in WRITING_TOOLS and isinstance(given.get("file_path"), str):
            yield from placed([("", given["file_path"])], folder)
        elif block.get("name") == "Bash" and isinstance(given.get("command"), str):
            yield from placed(command_paths(given["command"]).writes, folder)


def _is_prompt(line: str) -> bool:
    """True for an entry a person typed: a user message of text, not a tool result or meta entry."""
    entry = _entry(line)
    if entry is None or entry.get("type") != "user" or entry.get("isMeta") or entry.get("isSidechain"):
        return False
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return bool(content.strip())
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "text" for block in content
    )


def _timestamp(line: str) -> float | None:
    from datetime import datetime

    match = _TIMESTAMP.search(line)
    if match is None:
        return None
    text = match.group(1)
    try:
        when = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        return None
    return when.timestamp() if when.tzinfo is not None else None


def respond_to_stop(payload: Mapping[str, Any], warn: Callable[[str], None]) -> dict[str, Any] | None:
    """The answer before an agent or subagent stops: None to let it stop silently."""
    cwd = payload.get("cwd")
    if not (isinstance(cwd, str) and os.path.isabs(cwd)) and not os.path.isabs(
        os.environ.get("CLAUDE_PROJECT_DIR", "")
    ):
        warn("the payload names no cwd (and $CLAUDE_PROJECT_DIR is not set): no handoff was checked")
        return None
    root = hook_root(cwd)
    handoffs = Handoffs(hook_run(root))
    subagent = payload.get("hook_event_name") == "SubagentStop"
    transcript = _transcript(payload, subagent, session_folder(cwd, root), warn)
    changed = changed_in_git(handoffs)
    if changed is None:
        warn(f"{root} is not in a git work tree: only the handoffs the transcript shows written are checked")
    elif subagent:
        if transcript is None or transcript.started is None:
            warn("the subagent's start is not known: what git sees changed is not checked")
            changed = []
        else:
            changed = changed_since(changed, transcript.started - SLACK)
    if transcript is None and changed is None:
        return {"systemMessage": "handoff-lint: neither the transcript nor git could be read, so the "
                                 "handoffs this agent wrote were not checked (see the hook's stderr)."}  # fmt: skip
    files = [
        path
        for path in dict.fromkeys([*(transcript.written if transcript else ()), *(changed or ())])
        if handoffs.claims(path) and handoffs.on_disk(path)
    ]
    errors = errors_of(check_handoffs(files, handoffs.run)) if files else []
    message = payload.get("last_assistant_message")
    if isinstance(message, str) and message.strip():
        said = [f for f in errors_of(message_findings(message, handoffs.run)) if f.code in MESSAGE_BLOCKS]
        errors += said
        files += [handoffs.root / MESSAGE_DISPLAY] if said else []  # a name only: no file
    if not errors:
        return None
    answer = _answer(errors, files, root, payload.get("stop_hook_active") is True, transcript)
    if subagent and "reason" in answer:  # before the mark, which stays the reason's last line
        told, mark = answer["reason"].rsplit("\n", 1)
        answer["reason"] = f"{told}\n{RESTATE}\n{mark}"
    return answer


def _transcript(
    payload: Mapping[str, Any], subagent: bool, here: Path, warn: Callable[[str], None]
) -> Transcript | None:
    """The agent's own transcript read, or None (said through ``warn``)."""
    from pytest_handoff.read.files import nameable

    field = "agent_transcript_path" if subagent else "transcript_path"
    given = payload.get(field)
    if not isinstance(given, str) or not given or not nameable(given):
        warn(f"the payload has no {field}: only what git sees changed is checked")
        return None
    try:
        return read_transcript(Path(os.path.expanduser(given)), here)
    except OSError as error:
        warn(f"cannot read the {field} ({error.strerror or error}): only what git sees changed is checked")
        return None


def _answer(
    errors: Sequence[Finding], files: Sequence[Path], root: Path, active: bool, transcript: Transcript | None
) -> dict[str, Any]:
    digest = fingerprint(errors)
    number, why = block_number(active, transcript.marks if transcript else (), digest)
    names, broken, several = named_files(files, root), contracts(len(errors)), len(files) != 1
    if number is None:
        return {
            "systemMessage": f"handoff-lint: {names} still break{'s' * (not several)} {broken}, but {why}, "
            f"so the agent was let stop. `handoff-lint` on the file{'s' * several} lists the findings."
        }
    if [path.name for path in files] == [MESSAGE_DISPLAY]:  # only the message's claims are false
        first = (
            f"handoff-lint: do not finish yet: your last message claims work that the working tree and git "
            f"do not show ({broken}). Correct each claim below, or do the work, then finish:"
        )
    else:
        first = (
            f"handoff-lint: do not finish yet: {names}, written or changed in this work, "
            f"break{'s' * (not several)} {broken}. Fix each one below in the file{'s' * several}, then finish:"
        )
    last = f"({MARK.format(number=number, most=MAX_BLOCKS, digest=digest)})"
    return {
        "decision": "block",
        "reason": findings_reason(errors, first, [masked_display(path, root) for path in files], last),
    }


def fingerprint(errors: Iterable[Finding]) -> str:
    """A digest of the findings (rule, file, place, message): the same findings, the same digest."""
    import hashlib

    text = "\n".join(sorted(f"{f.code}\0{f.path}\0{f.pointer}\0{f.line}\0{f.message}" for f in errors))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def block_number(active: bool, marks: Sequence[tuple[int, str]], digest: str) -> tuple[int | None, str]:
    """The number of this block in a row, or None and why the agent is let stop instead."""
    if not active:
        return 1, ""
    if not marks:
        return (
            None,
            "the agent goes on after a Stop hook's block that the transcript does not show as this hook's",
        )
    if digest in {seen for _, seen in marks}:
        return None, "the agent was told exactly these findings before and did not change them"
    told = max(max(number for number, _ in marks), len({seen for _, seen in marks}))
    if told >= MAX_BLOCKS:
        return None, f"the agent was told {told} times in a row"
    return told + 1, ""
