"""Coverage-guided fuzzing (atheris) of the hooks' parsers, the evidence readers and the output boundary.

    python fuzz/fuzz_surface.py HARNESS [libFuzzer flags...]     (fuzz/run_surface.sh runs them all)

HARNESS is one of:

- ``bash``: the Bash hook's reading of a command line (``bash_writes.command_paths``, then
  ``placed``): only strings, no duplicate, no character the command does not hold (a ``/`` may
  join a folder), every placed path absolute and nameable;
- ``transcript``: ``agent_stop.read_transcript`` on the bytes of a transcript file: no exception
  but ``OSError``, written files as absolute paths, marks as (count, 12 hex digits) found in the
  text, a finite start or None;
- ``claims``: the evidence claim finders (``claims_of`` for every kind, ``locations_in``,
  ``NODE_ID``, ``COMMIT``) on the input as text and, when it parses, as a JSON handoff: every
  claim lies inside the value it was found in, and is of its kind's shape;
- ``junit``: ``junit.read_junit`` on the bytes of a report: a ``JUnitReport`` whose
  counts add up, or ``JUnitError`` with a one-line message; no file opened but the report, no
  socket, no program;
- ``boundary``: ``inert``, ``guarded_line``, ``GuardedStream`` (the text written in fuzzed
  chunks) and ``markdown_text``: no line break, control or bidi character where promised, no
  line a CI runner reads as a command, and nothing changed but the escapes.

Every harness fails an input that takes over :data:`SLOW` seconds twice in a row (once could be a
pause of the machine). Anything else but the promises above is a crash.
"""

from __future__ import annotations

import io
import math
import os
import re
import sys
import tempfile
import time
import unicodedata
import xml.parsers.expat  # noqa: F401 (junit imports it on first use: not while its file access is watched)
from collections.abc import Callable
from pathlib import Path
from typing import Any

import atheris

with atheris.instrument_imports():
    import shlex  # noqa: F401 (imported lazily by bash_writes: instrumented here, its states guide the fuzzer)

    from pytest_handoff.agents.bash import CommandPaths, command_paths, placed
    from pytest_handoff.agents.stop import read_transcript
    from pytest_handoff.places.pointers import unescape_pointer_token
    from pytest_handoff.read.files import nameable
    from pytest_handoff.read.strict_json import parse_json_bytes
    from pytest_handoff.reporters.markdown import markdown_text
    from pytest_handoff.rules.evidence import junit
    from pytest_handoff.rules.evidence.claims import (
        COMMIT,
        NODE_ID,
        Claim,
        claims_of,
        locations_in,
        looks_like_path,
    )
    from pytest_handoff.rules.evidence.declared import ClaimField, ClaimKind
    from pytest_handoff.values.boundary import GuardedStream, guarded_line, inert

#: Seconds an input may take (checked twice before it counts).
SLOW = 1.0
#: The files an input is written to: in $FUZZ_SCRATCH when given (run_surface.sh removes it afterwards).
WORK = Path(tempfile.mkdtemp(prefix="handoff-fuzz-surface-", dir=os.environ.get("FUZZ_SCRATCH") or None))
#: The folder a hook runs in: only joined to paths, never read.
HERE = Path("/fuzz/project")
STATS = {"inputs": 0, "slowest": 0.0}


def _fail(message: str, *shown: object) -> None:
    raise AssertionError(" ".join([message, *(repr(value) for value in shown)]))


#: Defects this fuzzer found in code outside the fuzz work's reach, reported and not fixed yet.
#: Each is said once on stderr and let pass (so that the campaign goes on), unless FUZZ_STRICT=1:
#: then it is a crash like any other. Remove an entry once its fix is in.
KNOWN: dict[str, str] = {}
STRICT = os.environ.get("FUZZ_STRICT") == "1"
SEEN: set[str] = set()


def _known(key: str, message: str, *shown: object) -> None:
    if STRICT or key not in KNOWN:
        _fail(message, *shown)
    if key not in SEEN:
        SEEN.add(key)
        print(f"known defect, let pass (FUZZ_STRICT=1 fails it): {KNOWN[key]}", file=sys.stderr)


# --- bash ---------------------------------------------------------------------------------------


def fuzz_bash(raw: bytes) -> None:
    command = raw.decode("utf-8", "surrogateescape")  # lone surrogates, as JSON's \udc80 gives them
    named = command_paths(command)
    if not isinstance(named, CommandPaths):
        _fail("not a CommandPaths:", named)
    held = set(command) | {"/"}
    for entry in named.writes:
        folder, path = entry
        if not isinstance(path, str) or not (folder is None or isinstance(folder, str)):
            _fail("a write that is not (str | None, str):", entry)
        if not set(path) <= held or not set(folder or "") <= held:
            _fail("a write holds a character the command does not:", entry)
    for word in named.mentions:
        if not isinstance(word, str) or not word or word not in command:
            _fail("a mention that is not a word of the command:", word)
    if len(set(named.writes)) != len(named.writes) or len(set(named.mentions)) != len(named.mentions):
        _fail("a repeated path:", named)
    for path in placed([*named.writes, *(("", word) for word in named.mentions)], HERE):
        if not isinstance(path, Path) or not path.is_absolute() or not nameable(str(path)):
            _fail("a placed path that is not absolute and nameable:", path)


# --- transcript ---------------------------------------------------------------------------------

TRANSCRIPT = WORK / "transcript.jsonl"
DIGEST = re.compile(r"[0-9a-f]{12}")


def fuzz_transcript(raw: bytes) -> None:
    TRANSCRIPT.write_bytes(raw)
    try:
        found = read_transcript(TRANSCRIPT, HERE)
    except OSError:
        return  # its documented answer to a file it cannot read
    except ValueError as error:
        if "integer string conversion" not in str(error):
            raise
        _known("transcript-mark-digits", "read_transcript raised:", error)
        return
    text = raw.decode("utf-8", "replace")
    for path in found.written:
        if not isinstance(path, Path) or not path.is_absolute() or not nameable(str(path)):
            _fail("a written file that is not an absolute, nameable path:", path)
    if len(set(found.written)) != len(found.written):
        _fail("a written file repeated:", found.written)
    for mark in found.marks:
        if not (isinstance(mark, tuple) and len(mark) == 2 and isinstance(mark[0], int)):
            _fail("a mark that is not (int, str):", mark)
        if (
            mark[0] < 0
            or not isinstance(mark[1], str)
            or not DIGEST.fullmatch(mark[1])
            or mark[1] not in text
        ):
            _fail("a mark that is not a count and a digest of the transcript:", mark)
    if found.started is not None and not (isinstance(found.started, float) and math.isfinite(found.started)):
        _fail("a start that is not a finite float:", found.started)


# --- claims -------------------------------------------------------------------------------------

KINDS: tuple[ClaimKind, ...] = (
    "path",
    "commit",
    "location",
    "test_file",
    "test_name",
    "test_totals",
    "test_verdict",
)
#: Every kind at every depth up to three, with and without the sibling keys a format may name.
FIELDS = tuple(
    field
    for kind in KINDS
    for field in (
        ClaimField("", kind),
        ClaimField("/*", kind),
        ClaimField(
            "/*/*",
            kind,
            change="change",
            line="line",
            count_at="/count",
            totals=("total", "passed", "failed"),
        ),
        ClaimField("/*/*/*", kind, changed="modified", line="ln", count_at="/n/0", totals=("", "ps", "fl")),
    )
)
CHANGES = (None, "added", "modified", "deleted")


def _value_at(data: Any, pointer: str) -> Any:
    """The value at a pointer of one value (a key ``*`` is a key here, not every one)."""
    for token in pointer.split("/")[1:]:
        data = data[unescape_pointer_token(token)] if isinstance(data, dict) else data[int(token)]
    return data


def _check_claim(claim: Claim, data: Any) -> None:
    if not isinstance(claim, Claim) or claim.kind not in KINDS:
        _fail("not a claim of a known kind:", claim)
    value = _value_at(data, claim.pointer)
    if claim.change not in CHANGES:
        _fail("a change that is not one of the three:", claim)
    for number in (claim.line, claim.claimed_count, *claim.totals):
        if number is not None and not (isinstance(number, int) and not isinstance(number, bool)):
            _fail("a number that is not an int:", claim)
    if claim.kind == "test_totals":
        if not isinstance(value, dict) or claim.value:
            _fail("totals claimed of a value that is not an object:", claim)
        return
    if not isinstance(value, str) or not claim.value or claim.value not in value:
        _fail("a claim that is not inside the value it was found in:", claim, value)
    if claim.kind == "test_name" and (f"{claim.value}::" not in value or claim.test not in value):
        _fail("a node id that is not inside its value:", claim, value)
    if claim.kind not in ("test_verdict", "test_name", "location") and claim.value != value.strip():
        _fail("a claimed path or hash that is not its whole value:", claim, value)
    if claim.kind in ("path", "test_file", "test_name", "location") and not looks_like_path(claim.value):
        _fail("a claimed path that does not look like one:", claim)
    if claim.kind == "commit" and not COMMIT.fullmatch(claim.value):
        _fail("a claimed commit that is not a hash:", claim)
    if claim.kind == "location" and (claim.line is None or claim.line < 0):
        _fail("a location without a line:", claim)


def fuzz_claims(raw: bytes) -> None:
    text = raw.decode("utf-8", "replace")
    for path, line in locations_in(text):
        if path not in text or not looks_like_path(path) or not isinstance(line, int) or line < 0:
            _fail("a location that is not in the text:", path, line)
    for match in NODE_ID.finditer(text):
        looks_like_path(match.group("path"))
    COMMIT.fullmatch(text.strip())
    loaded = parse_json_bytes(raw, WORK / "h.json", "h.json")
    if loaded.document is None:
        return
    for claim in claims_of(loaded.document, FIELDS):
        _check_claim(claim, loaded.document.data)


# --- junit --------------------------------------------------------------------------------------

REPORT = WORK / "report.xml"
WATCHING: list[tuple[str, object]] = []  # the events the reader caused, while it runs
WATCH = [False]
PYTHON_HOMES = tuple({sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix})
REACHING = ("socket.", "urllib.", "http.", "ftplib.", "subprocess.", "os.system", "os.exec", "os.posix_spawn")


def _audit(event: str, arguments: tuple[Any, ...]) -> None:
    if WATCH[0] and (event == "open" or event.startswith(REACHING)):
        WATCHING.append((event, arguments[0] if arguments else None))


def _allowed(opened: str | bytes) -> bool:
    """The report itself, or a module of Python's own (a codec an encoding declaration names is imported)."""
    name = os.fsdecode(opened)
    return name == str(REPORT) or (name.endswith((".py", ".pyc", ".so")) and name.startswith(PYTHON_HOMES))


def fuzz_junit(raw: bytes) -> None:
    REPORT.write_bytes(raw)
    junit._READ.clear()  # the reader keeps a report per (path, mtime, size): a new input may match both
    WATCHING.clear()
    WATCH[0] = True
    try:
        report = junit.read_junit(str(REPORT))
    except junit.JUnitError as error:
        message = str(error)
        if not message.startswith(f"JUnit report {REPORT}: ") or "\n" in message or "\r" in message:
            _fail("a JUnitError that is not one line about the report:", message)
        report = None
    except (LookupError, UnicodeError, ValueError) as error:
        if b"encoding" not in raw.replace(b"\x00", b""):
            raise
        _known("junit-encoding", "read_junit raised:", error)
        report = None
    finally:
        WATCH[0] = False
    for event, target in WATCHING:
        if event != "open" or not (isinstance(target, int) or _allowed(os.fspath(target))):  # type: ignore[arg-type]
            _fail("reading the report reached outside it:", event, target)
    if report is None:
        return
    if not report.tests >= report.failures + report.skipped >= 0 or min(report.failures, report.skipped) < 0:
        _fail("counts that do not add up:", report)
    if len(report.failing) != report.failures or any(len(name) > junit.MAX_NAME for name in report.failing):
        _fail("failing tests that are not the failures, cut:", report)


# --- boundary -----------------------------------------------------------------------------------

#: Unicode's Bidi_Control characters (PropList.txt).
BIDI_CONTROL = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
#: Where a line's text starts for a CI runner: after white space and any ECMA-48 control sequence
#: (colour and style codes among them).
OPENING = re.compile(r"(?:\s|\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e])*")
#: The opening guarded_line skips itself (to tell its known defect from a new one).
SKIPPED = re.compile(r"(?:\s|\x1b\[[0-9;?]*[A-Za-z])*")
#: Lines as a CI runner reads them from a stream.
RUNNER_LINES = re.compile(r"\r\n|\r|\n")


def _opens_command(line: str, opening: re.Pattern[str] = OPENING) -> bool:
    return line.startswith("::", opening.match(line).end())  # type: ignore[union-attr]


def _guarded(line: str, what: str, *shown: object) -> None:
    """Fails when ``line`` (a line of output) holds ``##[`` or opens a runner command, its own or
    one after a CR."""
    if "##[" in line:
        _fail(f"{what} let ##[ through:", *shown)
    for number, piece in enumerate(RUNNER_LINES.split(line)):
        if not _opens_command(piece):
            continue
        if number:
            _known("guarded-cr", f"{what} let a runner command through after a CR:", *shown)
        elif _opens_command(piece, SKIPPED):
            _fail(f"{what} let a runner command through:", *shown)
        else:
            _known("guarded-csi", f"{what} let a runner command through after a style code:", *shown)


def _escaped_only(given: str, shown: str) -> bool:
    """True when ``shown`` is the line ``given`` with every ``##[`` and at most its opening ``::`` escaped
    (a carriage return ends a line for a CI runner: each part after one counts as a line)."""
    if "\r" in given:
        parts, shown_parts = given.split("\r"), shown.split("\r")
        return len(parts) == len(shown_parts) and all(map(_escaped_only, parts, shown_parts))
    hashes = given.replace("##[", "\\x23#[")
    if shown == hashes:
        return True
    at = OPENING.match(hashes).end()  # type: ignore[union-attr]
    return hashes.startswith("::", at) and shown == hashes[:at] + "\\x3a" + hashes[at + 1 :]


def _split(raw: bytes) -> tuple[list[int], int | None, str]:
    """The input as: its first byte (how many cuts, 0 to 7, and a cell's width for Markdown),
    the cuts' lengths (a byte each), then the text."""
    head = raw[0] if raw else 0
    cuts = list(raw[1 : 1 + (head & 7)])
    width = (head >> 3) * 4 or None
    return cuts, width, raw[1 + len(cuts) :].decode("utf-8", "surrogateescape")


def _uncontrolled(shown: str, text: str, what: str) -> None:
    """Fails when ``shown`` holds a control, a line or paragraph separator or a bidi control."""
    for char in shown:
        if unicodedata.category(char) in ("Cc", "Zl", "Zp") or char in BIDI_CONTROL:
            if char == "\u061c":
                _known("bidi-alm", f"{what} let U+061C through:", text, shown)
            else:
                _fail(f"{what} let a line break, control or bidi character through:", text, shown)


def fuzz_boundary(raw: bytes) -> None:
    cuts, width, text = _split(raw)
    for opens_line in (True, False):
        shown = inert(text, opens_line=opens_line)
        _uncontrolled(shown, text, "inert")
        if "##[" in shown or (opens_line and shown.lstrip().startswith("::")):
            _fail("inert let a runner command through:", text, shown)
    for line in text.split("\n"):
        guarded = guarded_line(line)
        _guarded(guarded, "guarded_line", line, guarded)
        if not _escaped_only(line, guarded):
            _fail("guarded_line changed more than the escapes:", line, guarded)
    sink = io.StringIO()
    stream = GuardedStream(sink)
    start = 0
    for cut in [*cuts, len(text)]:
        chunk = text[start : start + cut]
        start += cut
        if stream.write(chunk) != len(chunk):
            _fail("GuardedStream.write did not count its text:", chunk)
    stream.flush()
    out = sink.getvalue()
    for line in out.split("\n"):
        _guarded(line, "GuardedStream", text, cuts, line)
    given, shown = text.split("\n"), out.split("\n")
    if len(given) != len(shown) or not all(map(_escaped_only, given, shown)):
        _fail("GuardedStream changed more than the escapes:", text, cuts, out)
    cell = markdown_text(text, width)
    _uncontrolled(cell, text, "markdown_text")
    if "<" in cell or re.search(r"@[^\W_]", cell) or re.search(r"(?<!\\)(?:\\\\)*\|", cell):
        _fail("markdown_text let HTML, a mention or a cell's end through:", text, cell)


HARNESSES: dict[str, Callable[[bytes], None]] = {
    "bash": fuzz_bash,
    "transcript": fuzz_transcript,
    "claims": fuzz_claims,
    "junit": fuzz_junit,
    "boundary": fuzz_boundary,
}


def main() -> None:
    # libFuzzer runs this file again for -merge=1 (through the shell, with its own flags only): the
    # harness then comes from the environment, and the command names this Python.
    given = os.environ.get("FUZZ_HARNESS")
    name, flags = (given, sys.argv[1:]) if given else (sys.argv[1], sys.argv[2:])
    os.environ["FUZZ_HARNESS"] = name
    harness = HARNESSES[name]
    report = os.environ.get("FUZZ_REPORT")
    if name == "junit":
        sys.addaudithook(_audit)

    def one_input(raw: bytes) -> None:
        started = time.perf_counter()
        harness(raw)
        spent = time.perf_counter() - started
        if spent > SLOW:  # again, to tell a slow input from a pause of the machine
            started = time.perf_counter()
            harness(raw)
            spent = time.perf_counter() - started
            if spent > SLOW:
                _fail(f"slow input: {spent:.2f} s for {len(raw)} bytes")
        STATS["inputs"] += 1
        slower = spent > STATS["slowest"]
        if slower:
            STATS["slowest"] = spent
        if report and (slower or STATS["inputs"] % 10_000 == 0):
            Path(report).write_text(f"{STATS['inputs']} {STATS['slowest']:.4f}\n", encoding="utf-8")

    atheris.Setup([f"{sys.executable} {os.path.abspath(__file__)}", *flags], one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
