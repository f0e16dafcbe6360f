"""Reading an agent's log: handoff phrases as documents, and the log's own findings.

The watchdog looks for ``HANDOFF\\s*:\\s*(pm|developer|qa)\\s*:\\s*(.+)`` (case-insensitive) in an
agent's output; the trimmed second group is the context, base64 of a UTF-8 JSON object by the
protocol (plain text is accepted too). A log may be large: it is scanned once, and only the
lines holding a marker (``HANDOFF``, ``RALPH_COMPLETE``, ``AGENT_READY``) are looked at closely.
Every other line is offered to the secret scan (HX001) when it may hold a secret.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from pytest_handoff.profiles.ralph.protocol import AGENTS
from pytest_handoff.read.files import read_head
from pytest_handoff.read.strict_json import parse_json_bytes
from pytest_handoff.rules.secrets import find_secrets, may_hold_secrets
from pytest_handoff.values.documents import Document, Loaded
from pytest_handoff.values.findings import Finding, Region, Severity
from pytest_handoff.values.wording import did_you_mean

_MARKER = re.compile(r"HANDOFF|RALPH_COMPLETE|AGENT_READY", re.IGNORECASE)
_BREAK = re.compile(r"[\r\n]")
#: The watchdog's regex (PowerShell ``-match`` ignores case).
_PHRASE = re.compile(r"HANDOFF\s*:\s*(pm|developer|qa)\s*:\s*(.+)", re.IGNORECASE)
#: A phrase naming any agent: what an agent meant, when the watchdog's regex misses it.
#: ASCII: a case-insensitive Unicode ``\w`` costs milliseconds to compile, on every run.
_ANY_AGENT = re.compile(r"HANDOFF\s*:\s*([A-Za-z][\w-]*)\s*:", re.IGNORECASE | re.ASCII)
_READY = re.compile(r"AGENT_READY_FOR_HANDOFF", re.IGNORECASE)
_PROMISE = re.compile(r"<promise>\s*RALPH_COMPLETE\s*</promise>", re.IGNORECASE)
#: A context meant as base64: nothing but its alphabet, and longer than a plain word.
_BASE64_LIKE = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
#: The base64 a context starts with: ``eyJ`` is how base64 of a JSON object (``{"``) begins.
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]*")
_UTF8_BOM = b"\xef\xbb\xbf"


#: What makes a file a Ralph agent's log wherever it is: a phrase, a readiness marker or a promise.
_RALPH_MARKS = re.compile(
    rb"HANDOFF[ \t]*:[ \t]*[A-Za-z][\w-]*[ \t]*:|AGENT_READY_FOR_HANDOFF|<promise>\s*RALPH_COMPLETE",
    re.IGNORECASE,
)
#: How much of a log named outside a session is read to find one (a log that starts with a
#: megabyte of other output before its first phrase is not recognised).
LOOK_BYTES = 1024 * 1024


def has_ralph_marks(path: Path) -> bool:
    """True when the first :data:`LOOK_BYTES` of the file at ``path`` hold a Ralph phrase or marker."""
    head = read_head(path, LOOK_BYTES)  # a regular file only: a FIFO named *.log must not hang the run
    return head is not None and _RALPH_MARKS.search(head) is not None


class _Line(NamedTuple):
    number: int
    start: int  # offset of the line in the text
    text: str


class Phrase(Document):
    """A handoff phrase of a log: its decoded context is the data, placed at the context's text."""

    def __init__(
        self, path: Path, display_path: str, data: Any, *, region: Region, source_text: str, target: str
    ) -> None:
        super().__init__(
            path, display_path, "", data, fixed=region, source_text=source_text, label=f"line {region.line}"
        )
        #: The agent the phrase hands over to (lower case).
        self.target = target
        #: The agent whose log holds the phrase (``developer.log``), None for another name.
        self.log_agent = log_agent(path)


class Promise(Document):
    """A ``<promise>RALPH_COMPLETE</promise>`` of a log (no data: where it stands is what counts)."""

    def __init__(self, path: Path, display_path: str, *, region: Region, source_text: str) -> None:
        super().__init__(
            path, display_path, "", {}, fixed=region, source_text=source_text, label=f"line {region.line}"
        )


class LogLine(Document):
    """A line of a log that findings or documents are placed at, as text (its data).

    Reports show these lines; as documents, the engine looks for secrets in them (HX001) and
    masks what it finds, as it does in a JSON file's strings. ``at``: where a finding on the line
    is placed, when not the whole line (a secret of a line scanned for secrets only).
    """

    def __init__(
        self,
        path: Path,
        display_path: str,
        line: _Line,
        source_text: str,
        decoded: Region | None = None,
        *,
        at: Region | None = None,
    ) -> None:
        region = at or Region(line.number, 1, line.number, max(len(line.text), 1))
        #: The line of the log this document is.
        self.line = line
        text = line.text
        if decoded is not None:
            # The base64 a phrase document decoded holds no secret as text (and its "eyJ" would
            # send every run through the secret patterns): the rest of the line may.
            text = f"{text[: decoded.column - 1]}…{text[decoded.end_column :]}"
        super().__init__(
            path,
            display_path,
            "",
            text,
            fixed=region,
            source_text=source_text,
            label=f"line {line.number}",
        )


def log_agent(path: Path) -> str | None:
    """The agent a log belongs to by its name (``qa.log``), None when the name is no agent's."""
    stem = path.name[:-4].lower() if path.name.lower().endswith(".log") else ""
    return stem if stem in AGENTS else None


_MARKERS = ("handoff", "ralph_complete", "agent_ready")
_CHUNK = 1 << 20


def _marker_starts(text: str) -> Iterator[int]:
    """Where a marker starts, in order, in any case. An ASCII log is searched a slice at a time,
    lower-cased, for the literal markers (a case-insensitive regex over 100 MB costs seconds;
    lower-casing the whole log would copy it)."""
    if not text.isascii():  # lower-casing may change lengths: the regex keeps the offsets true
        yield from (match.start() for match in _MARKER.finditer(text))
        return
    overlap = max(map(len, _MARKERS)) - 1
    for begin in range(0, len(text), _CHUNK):
        piece = text[begin : begin + _CHUNK + overlap].lower()
        found = []
        for marker in _MARKERS:
            at = piece.find(marker)
            while 0 <= at < _CHUNK:  # one that starts in the overlap is the next slice's
                found.append(begin + at)
                at = piece.find(marker, at + 1)
        yield from sorted(found)


def _marked_lines(text: str) -> list[_Line]:
    """The lines holding a marker, with their numbers: one pass over the text, no line split.

    Line breaks are counted between one marked line and the next only, so the work is linear
    in the size of the log however many markers it has.
    """
    found: list[_Line] = []
    cursor = 0  # start of a line whose number is ``number``
    number = 1
    size = len(text)
    for position in _marker_starts(text):
        if position < cursor:
            continue  # on a line already taken
        number += (
            text.count("\n", cursor, position)
            + text.count("\r", cursor, position)
            - text.count("\r\n", cursor, position)
        )
        last_break = max(text.rfind("\n", cursor, position), text.rfind("\r", cursor, position))
        start = last_break + 1 if last_break >= 0 else cursor
        ending = _BREAK.search(text, position)
        end = ending.start() if ending else size
        found.append(_Line(number, start, text[start:end]))
        if end >= size:
            break
        cursor = end + (2 if text.startswith("\r\n", end) else 1)
        number += 1
    return found


def read_log(raw: bytes, path: Path, display_path: str) -> Loaded:
    """A log's phrases and promises as documents, and the findings about its phrases."""
    if raw.startswith(_UTF8_BOM):
        raw = raw[3:]  # PowerShell writes one; it is no character of the first line
    # Agents print what they like: a stray byte must not hide the phrases around it.
    text = raw.decode("utf-8", errors="replace")
    documents: list[Document] = []
    findings: list[Finding] = []

    def finding(code: str, severity: Severity, message: str, line: int, column: int, end: int) -> None:
        findings.append(
            Finding(
                path=display_path,
                line=line,
                column=column,
                end_line=line,
                end_column=end,
                code=code,
                severity=severity,
                message=message,
            )
        )

    ready_since = False  # an AGENT_READY_FOR_HANDOFF since the last phrase
    previous: _Line | None = None
    placed = 0  # documents and findings placed before ``previous``
    decoded: Region | None = None  # the context of ``previous`` that a phrase document holds
    for line in _marked_lines(text):
        if previous is not None and len(documents) + len(findings) > placed:
            documents.append(LogLine(path, display_path, previous, text, decoded))
        previous, placed, decoded = line, len(documents) + len(findings), None
        ready = _READY.search(line.text)
        phrase = _PHRASE.search(line.text)
        if phrase is None:
            other = _ANY_AGENT.search(line.text)
            if other is not None and other.group(1).lower() in AGENTS:
                finding(
                    "RL002",
                    Severity.ERROR,
                    f"handoff to {other.group(1).lower()} with no context: the watchdog's pattern needs "
                    "one, so it ignores this phrase",
                    line.number,
                    other.start() + 1,
                    other.end(),
                )
            elif other is not None:
                finding(
                    "RL001",
                    Severity.ERROR,
                    f"handoff to unknown agent {other.group(1)!r}: the watchdog hands over only to "
                    f"{', '.join(AGENTS)}, so it ignores this phrase{did_you_mean(other.group(1).lower(), AGENTS)}",
                    line.number,
                    other.start(1) + 1,
                    other.end(1),
                )
            if _PROMISE.search(line.text) is not None:
                documents.append(_promise(path, display_path, line, text))
            ready_since = ready_since or ready is not None
            continue
        if ready is not None and ready.start() < phrase.start():
            ready_since = True
        target = phrase.group(1).lower()
        context = phrase.group(2).strip()
        column = phrase.start(2) + 1 + (len(phrase.group(2)) - len(phrase.group(2).lstrip()))
        region = Region(line.number, column, line.number, column + max(len(context), 1) - 1)
        if not ready_since:
            finding(
                "RL004",
                Severity.ERROR,
                f"handoff to {target} without AGENT_READY_FOR_HANDOFF before it in this log "
                "(since the previous handoff): the watchdog waits 30 seconds, then stops the agent by force",
                line.number,
                phrase.start() + 1,
                phrase.end(1),
            )
        ready_since = ready is not None and ready.start() > phrase.start()
        data, problem = decode_context(context)
        if problem is None:
            documents.append(Phrase(path, display_path, data, region=region, source_text=text, target=target))
            decoded = region
        elif problem == "":
            finding(
                "RL003",
                Severity.WARNING,
                f"handoff to {target} with a plain-text context: the protocol asks for base64 of a JSON "
                "object (from, reason, timestamp, task), which the next agent and this linter can read",
                *region[:2],
                region.end_column,
            )
        else:
            finding("RL002", Severity.ERROR, f"handoff context {problem}", *region[:2], region.end_column)
        if _PROMISE.search(line.text) is not None:
            documents.append(_promise(path, display_path, line, text))
    if previous is not None and len(documents) + len(findings) > placed:
        documents.append(LogLine(path, display_path, previous, text, decoded))
    taken = [document.line for document in documents if isinstance(document, LogLine)]
    scanned = _secret_lines(path, display_path, text, taken)
    return Loaded(tuple(documents), tuple(findings), secrets_only=tuple(scanned))


def _secret_lines(path: Path, display_path: str, text: str, taken: list[_Line]) -> list[LogLine]:
    """The lines of a log outside ``taken`` (lines that are documents already) that hold a secret,
    each placed at its first secret, for the pipeline's secret scan (HX001) alone.

    The taken lines are blanked for the quick look: a phrase's base64 (``eyJ``) would send every
    log through the closer one. One quick look at the rest usually clears the whole log.
    """
    rest = text
    if taken:
        pieces, cursor = [], 0
        for line in taken:  # in order; blanked to their length, so every offset stays the text's
            pieces.append(text[cursor : line.start])
            pieces.append(" " * len(line.text))
            cursor = line.start + len(line.text)
        pieces.append(text[cursor:])
        rest = "".join(pieces)
    found: list[LogLine] = []
    number, position = 1, 0  # the number of the line starting at ``position``
    for begin, end in _suspect_spans(rest, 0, len(rest)):
        number += _breaks(rest, position, begin)
        parts = _LINE_SPLIT.split(rest[begin:end])  # lines and the breaks between them
        start = begin
        for index in range(0, len(parts), 2):
            line = _Line(number + index // 2, start, parts[index])
            at = _first_secret(line)
            if at is not None:
                found.append(LogLine(path, display_path, line, text, at=at))
            start += len(line.text) + (len(parts[index + 1]) if index + 1 < len(parts) else 0)
        number += _breaks(rest, begin, end)
        position = end
    return found


#: A span of a log this short is looked at line by line once it may hold a secret.
_FEW_CHARACTERS = 4096
_LINE_SPLIT = re.compile(r"(\r\n|\r|\n)")


def _suspect_spans(text: str, begin: int, end: int) -> Iterator[tuple[int, int]]:
    """Spans of whole lines of ``text[begin:end]`` that may hold a secret, in order, each short or
    a single line: halved while the quick look finds something, so that a secret in a large log
    costs a few looks at its halves, not one at each of its lines. What the look finds in a span
    it finds in any text holding it, so a half it clears holds no secret."""
    if not may_hold_secrets(text[begin:end]):
        return
    if end - begin <= _FEW_CHARACTERS:
        yield begin, end
        return
    middle = (begin + end) // 2
    cut = text.find("\n", middle, end - 1) + 1 or text.rfind("\n", begin, middle) + 1
    if cut <= begin:  # one long line
        yield begin, end
        return
    yield from _suspect_spans(text, begin, cut)
    yield from _suspect_spans(text, cut, end)


def _breaks(text: str, begin: int, end: int) -> int:
    """How many lines end in ``text[begin:end]`` (``\\r\\n``, ``\\r`` or ``\\n``; a span never
    splits a ``\\r\\n``: spans are cut after a ``\\n``)."""
    return text.count("\n", begin, end) + text.count("\r", begin, end) - text.count("\r\n", begin, end)


def _first_secret(line: _Line) -> Region | None:
    """Where the first secret of ``line`` stands, None when it holds none (HX001 names the same
    one first: it looks with the same function)."""
    if not line.text or not may_hold_secrets(line.text):
        return None
    for _, secret in find_secrets(line.text):
        column = line.text.find(secret) + 1
        if column > 0:
            return Region(line.number, column, line.number, column + len(secret) - 1)
    return None


def _promise(path: Path, display_path: str, line: _Line, text: str) -> Promise:
    match = _PROMISE.search(line.text)
    assert match is not None
    region = Region(line.number, match.start() + 1, line.number, match.end())
    return Promise(path, display_path, region=region, source_text=text)


def decode_context(context: str) -> tuple[Any, str | None]:
    """A phrase's context decoded: (object, None); (None, "") for plain text; else (None, what is wrong).

    A context of nothing but base64's alphabet (16 characters or more) is taken as meant for
    base64, and so is one that starts as base64 of a JSON object (``eyJ``) and breaks off;
    anything else is plain text, which the watchdog passes on as it is.
    """
    if _BASE64_LIKE.fullmatch(context) is None:
        run = _BASE64_RUN.match(context)
        end = run.end() if run is not None else 0
        if context.startswith("eyJ") and end >= 8:
            if end == len(context):  # all base64, but too short to hold a whole object
                return None, f"starts as base64 of a JSON object but is cut short ({end} characters)"
            return None, (
                f"starts as base64 of a JSON object but breaks off at character {end + 1} "
                f"({context[end]!r} is not base64): the context is corrupted"
            )
        return None, ""
    import binascii

    padded = context + "=" * (-len(context) % 4) if "=" not in context else context
    try:
        raw = binascii.a2b_base64(padded)
    except binascii.Error as error:
        return None, f"is not valid base64 ({error})"
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return (
            None,
            f"decodes from base64 to bytes that are not UTF-8 (byte 0x{raw[error.start]:02x} at {error.start})",
        )
    # As strict as a JSON file: no NaN, no duplicate keys, no absurd nesting or numbers.
    parsed = parse_json_bytes(raw, Path("context"), "context")
    if parsed.findings:
        message = parsed.findings[0].message
        return None, f"decodes from base64 to text that is not strict JSON: {message} (in the decoded text)"
    assert parsed.document is not None
    data = parsed.document.data
    if not isinstance(data, dict):
        kind = "null" if data is None else type(data).__name__
        return None, f"decodes from base64 to JSON {kind}, not an object"
    return data, None
