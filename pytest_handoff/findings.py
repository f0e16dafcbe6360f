"""Findings: the one value every check produces and every reporter consumes."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


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


@dataclass(frozen=True, slots=True, order=True)
class Finding:
    """One broken contract at one place of one file.

    ``line`` and ``column`` are 1-based, columns counted in characters; 0 means
    the finding is about the file as a whole.  ``end_line``/``end_column``
    close the offending span (inclusive of its last character).
    """

    path: str
    line: int
    column: int
    code: str
    severity: Severity = field(compare=False)
    message: str = field(compare=False)
    pointer: str = ""
    end_line: int = 0
    end_column: int = 0
    rule: str = field(default="", compare=False)
    chain: str = field(default="", compare=False)
    # Further locations, e.g. the first of two duplicate keys: (path, line, column, label).
    related: tuple[tuple[str, int, int, str], ...] = field(default=(), compare=False)

    @property
    def location(self) -> str:
        """``path:line:col`` as compilers print it."""
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
        }

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Finding:
        fields = dict(data)
        fields["severity"] = Severity(fields["severity"])
        fields["related"] = tuple(tuple(r) for r in fields.get("related", ()))
        return cls(**fields)
