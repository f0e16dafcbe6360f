"""Groups as values: a group's reference (the files of one chain, named by its profile), the group
read into documents, and its result.

A group's reference *names* its profile (``"craik"``); the registry turns the name into the profile.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from pytest_handoff.values.findings import Finding, Severity
from pytest_handoff.values.rules import Hit

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.rules import Hit
    from pytest_handoff.values.view_model import ChainView


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

    Group rules read documents through :meth:`valid`, which holds the documents that passed
    their schema (and, in a group made for it, those admitted though they did not). ``notes`` become the trace; ``memo`` holds
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
        admitted: Sequence[Document] = (),
    ) -> None:
        self.ref = ref
        self.documents = documents
        #: Documents that broke their schema but that :meth:`valid` gives the rules all the same
        #: (see :mod:`pytest_handoff.pipeline.malformed`); by identity.
        self._admitted = {id(document) for document in admitted}
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
        """Schema-valid (or admitted) documents, of ``handoff_type`` when given, in sequence order."""
        found = self._valid.get(handoff_type)
        if found is None:  # rules ask for the same types over and over
            found = self._valid[handoff_type] = [
                doc
                for doc in self.documents
                if (doc.schema_valid or id(doc) in self._admitted)
                and (handoff_type is None or doc.handoff_type == handoff_type)
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
    #: The group as the reading views show it, secrets masked (when the check was asked for it).
    view: ChainView | None = None
    #: How many of its handoffs' claims were judged against the repository (evidence).
    claims_judged: int = 0
    #: Test claims of its handoffs of the current tree, to reconcile with a pytest session
    #: (``SessionClaim`` values of :mod:`pytest_handoff.rules.evidence.runs`).
    session_claims: tuple[Any, ...] = ()
    #: How many of its findings a baseline knew, and left out of ``findings``.
    baselined: int = 0

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
