"""Findings: what a rule found and where, how much it matters, and how many a rule may report.

Values only, the bottom of the package: nothing here reads a file, knows a format or imports
anything of the package.
"""

from __future__ import annotations

import enum
from typing import Any, NamedTuple


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
