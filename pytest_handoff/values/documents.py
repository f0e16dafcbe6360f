"""Documents: a handoff's data and text, and where every value stands in its file.

A file becomes documents (parsed data plus lazily built positions) and load findings;
reading never raises for bad input (see :mod:`~pytest_handoff.read.strict_json`).
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from pytest_handoff.values.findings import Finding, Region

if TYPE_CHECKING:
    from pytest_handoff.places.lines import LineIndex
    from pytest_handoff.places.positions import PositionMap


def line_index(text: str) -> LineIndex:
    from pytest_handoff.places.lines import LineIndex

    return LineIndex(text)


Anchor = Literal["value", "key"]

#: Deepest nesting of arrays and objects accepted. Real handoffs nest a few levels; a fixed
#: limit keeps the verdict independent of how deep the caller's stack already is, and keeps
#: recursive code further down (schema validation, reporting) far from Python's limit.
MAX_DEPTH = 256


class Document:
    """One handoff read from a source: its data, its text, and positions built on first use.

    A file may hold many documents. Where a document stands in its file is one of:

    - its own text, starting at ``origin`` (line, column) of the file: a whole JSON file starts at
      (1, 1), a JSONL line ``n`` at (n, 1); positions inside the text are shifted by the origin;
    - a ``fixed`` region every pointer resolves to, when the data was decoded from something the
      file shows as a whole (a base64 phrase in a log line): ``text`` is then empty;
    - a ``logical`` place with no text at all (``handoffs/handoff_42``, a row of a SQLite store):
      findings carry it, with line 0, and reporters show ``path#logical/pointer``.

    ``source_text`` is the whole file's text, for excerpts (the document's own text by default).
    ``label`` tells documents of one file apart in messages and pytest ids (``line 3``, a record id).
    """

    def __init__(
        self,
        path: Path,
        display_path: str,
        text: str,
        data: Any,
        *,
        origin: tuple[int, int] = (1, 1),
        fixed: Region | None = None,
        logical: str = "",
        source_text: str | None = None,
        label: str = "",
    ) -> None:
        self.path = path
        self.display_path = display_path
        self.text = text
        self.data = data
        self.origin = origin
        self.fixed = fixed
        self.logical = logical
        self.source_text = text if source_text is None else source_text
        self.label = label
        # Set by the engine once the profile has classified and validated the document.
        self.handoff_type: str | None = None
        self.schema_valid = False
        # Set by a reader that knows no object of the text repeats a key.
        self.unique_keys = False
        #: What a profile works out once per document and several rules ask for.
        self.memo: dict[str, Any] = {}

    def __repr__(self) -> str:
        where = f" {self.label}" if self.label else ""
        return f"Document({self.display_path!r}{where}, handoff_type={self.handoff_type!r})"

    @property
    def has_text(self) -> bool:
        """True when positions come from the document's own text (not a fixed or logical place)."""
        return self.fixed is None and not self.logical

    @cached_property
    def name(self) -> str:  # rules ask for it often, and pathlib computes it on every call
        return self.path.name

    @cached_property
    def positions(self) -> PositionMap:
        # json.loads has read the text already: skip the scanner's own validation pass.
        from pytest_handoff.places.positions import scan_positions

        return scan_positions(self.text, trusted=True, unique_keys=self.unique_keys)

    @cached_property
    def lines(self) -> LineIndex:
        return line_index(self.text)

    def region(self, pointer: str, anchor: Anchor = "value") -> Region:
        """Where ``pointer`` stands: its key (for ``anchor="key"``) or its value.

        A pointer that does not exist falls back to its nearest ancestor.
        """
        return self.locate(pointer, anchor)[0]

    def locate(self, pointer: str, anchor: Anchor = "value") -> tuple[Region, str]:
        """:meth:`region` and the pointer found there: ``pointer`` or its nearest existing ancestor."""
        if not self.has_text:
            found = nearest_in_data(self.data, pointer)
            return (self.fixed or Region(0, 0, 0, 0)), found
        found, spans = self.positions.nearest(pointer)
        if anchor == "key" and spans.key is not None and found == pointer:
            return self.region_of_offsets(spans.key.start, spans.key.end), found
        start, end = spans.value.start, spans.value.end
        if self.text[start] in "{[":
            # Marking a whole object would bury the message; its bracket points at it as well.
            end = start + 1
        return self.region_of_offsets(start, end), found

    def missing_pointer_note(self, pointer: str, found: str) -> str:
        """Why a finding about ``pointer`` is shown at ``found`` (its nearest existing ancestor)."""
        shown = f"shown at {found}" if found else "shown at the document root"
        if pointer.startswith("/"):
            return f"pointer {pointer} does not exist: {shown}"
        guess = "/" + pointer
        exists = (
            self.positions.spans(guess) is not None
            if self.has_text
            else nearest_in_data(self.data, guess) == guess
        )
        hint = f" did you mean {guess!r}?" if exists else ""
        return f"{pointer!r} is not a JSON pointer, which starts with '/':{hint} {shown}"

    def region_of_offsets(self, start: int, end: int) -> Region:
        line, column = self._shifted(*self.lines.position(start))
        end_line, end_column = self._shifted(*self.lines.position(max(start, end - 1)))
        return Region(line, column, end_line, end_column)

    def _shifted(self, line: int, column: int) -> tuple[int, int]:
        """A position in the document's text as a position in its file."""
        return shift(line, column, self.origin)


def nearest_in_data(data: Any, pointer: str) -> str:
    """``pointer`` when it exists in ``data``, else its nearest existing ancestor ("" at worst)."""
    if not pointer.startswith("/"):
        return ""
    found = ""
    node = data
    for raw in pointer[1:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return found
        found = f"{found}/{raw}"
    return found


class LoadResult(NamedTuple):
    """What reading a file gave: a document (when it parsed) and any load findings."""

    document: Document | None
    findings: tuple[Finding, ...]
    #: A file the format keeps beside its handoffs but does not check as one (a stray file): its
    #: content, when it may hold a secret, for the pipeline's secret scan (HX001) alone.
    secrets_only: Document | None = None


class Loaded(NamedTuple):
    """What reading a source gave: its documents (a file or store may hold many) and load findings."""

    documents: tuple[Document, ...]
    findings: tuple[Finding, ...]
    # Findings past the cap that were counted, not made, as (path, code, how many).
    unmade: tuple[tuple[str, str, int], ...] = ()
    #: Documents scanned for secrets only (see :attr:`LoadResult.secrets_only`).
    secrets_only: tuple[Document, ...] = ()

    @classmethod
    def of(cls, result: LoadResult) -> Loaded:
        """A one-document source's result."""
        scanned = () if result.secrets_only is None else (result.secrets_only,)
        return cls(() if result.document is None else (result.document,), result.findings, (), scanned)


def shift(line: int, column: int, origin: tuple[int, int]) -> tuple[int, int]:
    """A position in text that starts at ``origin`` of a file, as a position in the file."""
    if line <= 0:
        return line, column
    first_line, first_column = origin
    return line + first_line - 1, column + (first_column - 1 if line == 1 else 0)


def shifted(finding: Finding, origin: tuple[int, int]) -> Finding:
    """``finding`` (placed in text that starts at ``origin`` of its file) placed in the file."""
    line, column = shift(finding.line, finding.column, origin)
    end_line, end_column = shift(finding.end_line, finding.end_column, origin)
    related = tuple(
        (path, *shift(r_line, r_column, origin), label) for path, r_line, r_column, label in finding.related
    )
    return finding.replace(
        line=line, column=column, end_line=end_line, end_column=end_column, related=related
    )
