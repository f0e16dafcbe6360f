"""The values every layer shares: findings, places, rules and their hits, groups and their results.

Values only: nothing here reads a file, knows a format or registers anything. A group's
reference *names* its profile (``"craik"``); the registry turns the name into the profile.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

if TYPE_CHECKING:
    from pytest_handoff.read.document import Anchor, Document
    from pytest_handoff.values.settings import Settings


class Severity(enum.IntEnum):
    """How much a finding matters; ordered so that ``max()`` picks the worst."""

    INFO = 10
    WARNING = 20
    ERROR = 30

    @classmethod
    def parse(cls, text: str) -> Severity:
        """Read a severity name as written in configuration (``error``, ``warning``, ``info``)."""
        try:
            return cls[text.strip().upper()]
        except KeyError:
            names = ", ".join(s.name.lower() for s in cls)
            raise ValueError(f"unknown severity {text!r} (expected one of {names})") from None

    @property
    def label(self) -> str:
        return self.name.lower()


class _FindingFields(NamedTuple):
    path: str
    line: int
    column: int
    code: str
    severity: Severity
    message: str
    pointer: str = ""
    end_line: int = 0
    end_column: int = 0
    rule: str = ""
    chain: str = ""
    # Further locations, e.g. the first of two duplicate keys: (path, line, column, label).
    related: tuple[tuple[str, int, int, str], ...] = ()
    # A place with no text of its own, inside ``path`` (a record of a SQLite store):
    # ``handoffs/handoff_42``; the pointer goes on from there. Empty for places in text.
    logical: str = ""


class Finding(_FindingFields):
    """One broken contract at one place of one file.

    ``line`` and ``column`` are 1-based, columns counted in characters; 0 means
    the finding is about the file as a whole.  ``end_line``/``end_column``
    close the offending span (inclusive of its last character).

    Immutable. Two findings are equal, and sort, by where they are and what rule they
    break: path, line, column, code, pointer, end (not severity, message or labels).
    A named tuple rather than a dataclass: importing dataclasses costs every run of the
    pre-commit hook several milliseconds.
    """

    __slots__ = ()

    def _place(self) -> tuple[str, int, int, str, str, int, int, str]:
        return (
            self.path, self.line, self.column, self.code, self.pointer, self.end_line, self.end_column,
            self.logical,
        )  # fmt: skip

    def __eq__(self, other: object) -> bool:
        return self._place() == other._place() if isinstance(other, Finding) else NotImplemented

    def __ne__(self, other: object) -> bool:
        return self._place() != other._place() if isinstance(other, Finding) else NotImplemented

    def __lt__(self, other: object) -> bool:
        return self._place() < other._place() if isinstance(other, Finding) else NotImplemented

    def __le__(self, other: object) -> bool:
        return self._place() <= other._place() if isinstance(other, Finding) else NotImplemented

    def __gt__(self, other: object) -> bool:
        return self._place() > other._place() if isinstance(other, Finding) else NotImplemented

    def __ge__(self, other: object) -> bool:
        return self._place() >= other._place() if isinstance(other, Finding) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._place())

    def replace(self, **changes: Any) -> Finding:
        """A copy with ``changes`` applied."""
        return self._replace(**changes)

    @property
    def location(self) -> str:
        """``path:line:col`` as compilers print it; ``store.sqlite3#handoffs/ID/pointer`` for a logical place."""
        if self.logical:
            return f"{self.path}#{self.logical}{self.pointer}"
        if self.line <= 0:
            return self.path
        return f"{self.path}:{self.line}:{self.column}"

    def to_wire(self) -> dict[str, object]:
        """Plain data (for xdist reports and caches); :meth:`from_wire` reverses it."""
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "code": self.code,
            "severity": int(self.severity),
            "message": self.message,
            "pointer": self.pointer,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "rule": self.rule,
            "chain": self.chain,
            "related": [list(r) for r in self.related],
            "logical": self.logical,
        }

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Finding:
        fields = dict(data)
        fields["severity"] = Severity(fields["severity"])
        fields["related"] = tuple(tuple(r) for r in fields.get("related", ()))
        return cls(**fields)


#: The most findings of one rule in one file that are reported; one more finding counts the rest.
MAX_FINDINGS_PER_RULE = 100
#: How many findings of one rule in one file are counted past the cap before the rule stops
#: looking at that file: the work a file can cause stays bounded, whatever it holds.
MAX_COUNTED_PER_RULE = 10_000


class Tally:
    """How many findings of each rule each file met, so that no more are made than are reported.

    A finding is costly to make (placing it reads its source); past the cap only a count is
    kept. The first ``limit`` + 1 of each are made: the extra one marks where the unreported
    ones start, and carries their count. Past ``counted`` more, a rule may stop looking (the
    count is then a lower bound).
    """

    __slots__ = ("counted", "limit", "met", "stopped")

    def __init__(self, limit: int = MAX_FINDINGS_PER_RULE, counted: int = MAX_COUNTED_PER_RULE) -> None:
        self.limit = limit
        self.counted = counted
        self.met: dict[tuple[str, str], int] = {}
        self.stopped: set[tuple[str, str]] = set()

    def admits(self, path: str, code: str) -> bool:
        """Count one finding of ``code`` in ``path``; True when it is still to be made."""
        key = (path, code)
        met = self.met.get(key, 0) + 1
        self.met[key] = met
        return met <= self.limit + 1

    def is_full(self, path: str, code: str) -> bool:
        """True when a finding of ``code`` in ``path`` would only be counted."""
        return self.met.get((path, code), 0) > self.limit

    def is_spent(self, path: str, code: str) -> bool:
        """True when enough findings of ``code`` in ``path`` were counted: looking for more may stop."""
        return self.met.get((path, code), 0) > self.limit + 1 + self.counted

    def unmade(self) -> dict[tuple[str, str], int]:
        """How many findings of each (path, code) were counted and never made."""
        return {key: met - self.limit - 1 for key, met in self.met.items() if met > self.limit + 1}


class Region(NamedTuple):
    """A resolved 1-based source region; ``end_column`` is inclusive."""

    line: int
    column: int
    end_line: int
    end_column: int


class Hit(NamedTuple):
    """A rule's report before it is positioned: which document, where, and what is wrong."""

    document: Document
    pointer: str
    message: str
    anchor: Anchor = "value"
    # Other places worth showing, as (document, pointer, label).
    related: tuple[tuple[Document, str, str], ...] = ()
    # The finding's rule name when not the rule's own: a user's id for one of a configured
    # rule's uses (user contracts: code UC201, rule "enough-criteria").
    rule: str = ""


Scope = Literal["load", "document", "chain"]


class Rule(NamedTuple):
    """A row of a rule table: ``code`` is stable, ``name`` is kebab-case, ``doc`` explains it.

    ``scope`` says what ``check`` receives: a document, a whole group (``chain``), or nothing
    (``load``: a reader or validator reports the code itself).
    """

    code: str
    name: str
    severity: Severity
    scope: Scope
    profile: str | None
    handoff_types: tuple[str, ...]
    check: Callable[[Any, Settings], Iterable[Hit]] | None
    doc: str
    #: The MAST failure modes its findings are evidence of (``FM-3.2``; see ``failure_modes``).
    modes: tuple[str, ...] = ()

    @property
    def summary(self) -> str:
        """The first sentence of the docs."""
        return self.doc.split("\n", 1)[0].strip()


#: The profile of a file named explicitly that no format claims (not a format: never listed).
UNCLAIMED = "unclaimed"


class GroupRef(NamedTuple):
    """A group before it is read: the name of its profile, its id, folder and member files in order.

    A group is what rules compare across: a NeuralRelay chain, a Craik folder or store, a Ralph
    session, a YOLO phase, a Trinity workspace, a contract file or folder.
    """

    profile: str
    group_id: str
    directory: Path | None
    paths: tuple[Path, ...]

    @property
    def standalone(self) -> bool:
        return self.directory is None


class Group:
    """A group being checked: its documents (parsed ones) and shared analysis.

    Group rules read documents through :meth:`valid`, which holds only documents that passed
    their schema, so rules can trust their shape. ``notes`` become the trace; ``memo`` holds
    what several rules of one group compute once.
    """

    def __init__(
        self,
        ref: GroupRef,
        documents: list[Document],
        *,
        root: Path | None = None,
        claim_fields: Sequence[Any] = (),
        claim_time: str = "",
    ) -> None:
        self.ref = ref
        self.documents = documents
        #: The project root (claimed paths are relative to it); None when not known.
        self.root = root
        #: Where the profile's documents make claims about the repository (evidence ClaimFields),
        #: and the pointer of a document's own time.
        self.claim_fields = claim_fields
        self.claim_time = claim_time
        self.notes: list[str] = []
        self.memo: dict[str, Any] = {}
        # valid() by handoff type; a group is made once its documents are classified and validated.
        self._valid: dict[str | None, list[Document]] = {}
        # document_at()'s index: of which list, of how many documents, by path.
        self._at: tuple[list[Document], int, dict[Path, Document]] | None = None

    def __repr__(self) -> str:
        return f"Group({self.ref.group_id!r}, {len(self.documents)} documents)"

    @property
    def group_id(self) -> str:
        return self.ref.group_id

    @property
    def chain_id(self) -> str:
        """The group's id, as a project hook knows it (NeuralRelay calls its groups chains)."""
        return self.ref.group_id

    def valid(self, handoff_type: str | None = None) -> list[Document]:
        """Schema-valid documents, of ``handoff_type`` when given, in sequence order."""
        found = self._valid.get(handoff_type)
        if found is None:  # rules ask for the same types over and over
            found = self._valid[handoff_type] = [
                doc
                for doc in self.documents
                if doc.schema_valid and (handoff_type is None or doc.handoff_type == handoff_type)
            ]
        return list(found)

    def document_at(self, path: Path) -> Document | None:
        """The parsed document of a member file (None when it did not parse): its first one.

        Rules ask it of every member file: the documents are indexed by path once (again
        should the list change), so that a group of many files costs no more than its size.
        """
        documents = self.documents
        if self._at is None or self._at[0] is not documents or self._at[1] != len(documents):
            index: dict[Path, Document] = {}
            for doc in documents:
                index.setdefault(doc.path, doc)
            self._at = (documents, len(documents), index)
        return self._at[2].get(path)

    def first(self, handoff_type: str) -> Document | None:
        found = self.valid(handoff_type)
        return found[0] if found else None

    def hit(self, document: Document, pointer: str, message: str, **kwargs: Any) -> Hit:
        """A hit at ``pointer`` of ``document`` (for user hooks)."""
        return Hit(document, pointer, message, **kwargs)


#: The default of ``sources``: shared, and read-only through its ``Mapping`` type.
_EMPTY: Mapping[str, tuple[str, ...]] = {}
_NO_PATHS: Mapping[str, str] = {}


#: A project's own check of a whole group (the ``pytest_handoff_check_chain`` hook's answers).
ExtraCheck = Callable[[Group], Iterable[Hit | Finding]]


class Stamp(NamedTuple):
    """A handoff of a group, as the first broken one is named: its file, where it starts, who
    wrote it and when (empty when the format does not say)."""

    path: str
    line: int
    agent: str
    time: str

    def label(self) -> str:
        """``02-dev-agent.json`` (dev-agent, 2026-11-03T09:52:41Z)"""
        said = ", ".join(part for part in (self.agent, self.time) if part)
        where = self.path if self.line <= 1 else f"{self.path}:{self.line}"
        return f"{where} ({said})" if said else where


class GroupResult(NamedTuple):
    """Everything one group produced."""

    ref: GroupRef
    findings: tuple[Finding, ...]
    notes: tuple[str, ...]
    # Source lines of the files that have findings, for excerpts.
    sources: Mapping[str, tuple[str, ...]] = _EMPTY
    # Set when the result can be cached: its key, and whether it came from the cache.
    cache_key: str | None = None
    from_cache: bool = False
    #: Codes whose findings are about the group as a whole (its profile's ``group_wide_codes``).
    group_wide: frozenset[str] = frozenset()
    #: Display paths of files whose names hold a secret, and how findings show them (masked).
    shown_paths: Mapping[str, str] = _NO_PATHS
    #: The group's id as outputs show it, when it holds a secret (a folder or file name).
    masked_id: str = ""
    #: Its handoffs in order, each with its writer and time (see :attr:`first_broken`).
    stamps: tuple[Stamp, ...] = ()

    @property
    def first_broken(self) -> Stamp | None:
        """The first handoff, in the group's order, holding an error: where a contract first broke.

        A handoff holds the errors of its file from its line up to the line of the next handoff
        of that file in the group's order (to the end of the file for the last one), and those
        about the file as a whole (line 0). One pass over the stamps, a binary search each:
        a group of many handoffs (a long log, a big store) costs no more than its size.
        """
        from bisect import bisect_left  # not on the import path of every run

        lines: dict[str, list[int]] = {}  # the lines of each file's errors, sorted
        whole: set[str] = set()  # files with an error about the file as a whole (line 0)
        for f in self.findings:
            if f.severity >= Severity.ERROR:
                lines.setdefault(f.path, []).append(f.line)
                if f.line == 0:
                    whole.add(f.path)
        if not lines:
            return None
        for each in lines.values():
            each.sort()
        # The line of the next stamp of the same file, for each stamp (None for its file's last).
        following: list[int | None] = [None] * len(self.stamps)
        next_line: dict[str, int] = {}
        for index in range(len(self.stamps) - 1, -1, -1):
            stamp = self.stamps[index]
            following[index] = next_line.get(stamp.path)
            next_line[stamp.path] = stamp.line
        for stamp, until in zip(self.stamps, following, strict=True):
            found = lines.get(stamp.path)
            if found is None:
                continue
            if stamp.path in whole and (until is None or until > 0):
                return stamp
            at = bisect_left(found, stamp.line)  # its file's first error at or after its line
            if at < len(found) and (until is None or found[at] < until):
                return stamp
        return None

    @property
    def shown_id(self) -> str:
        """The group's id as every output shows it."""
        return self.masked_id or self.ref.group_id

    @property
    def failed(self) -> bool:
        return any(f.severity >= Severity.ERROR for f in self.findings)

    def narrowed_to(self, display_paths: Iterable[str]) -> GroupResult:
        """Only the findings that belong to ``display_paths``, named files of this group.

        A finding belongs to a file when its place or one of its related places is in it
        (a property the test handoff left out is reported on the dev handoff, and points at
        the test handoff's classifications); a finding about the group as a whole (a missing
        stage, a gap in the numbering) belongs to every file of the group.
        """
        wanted = {self.shown_paths.get(path, path) for path in display_paths}
        if not wanted:
            return self._replace(findings=())
        kept = tuple(
            f
            for f in self.findings
            if f.path in wanted or f.code in self.group_wide or any(place[0] in wanted for place in f.related)
        )
        return self._replace(findings=kept)
