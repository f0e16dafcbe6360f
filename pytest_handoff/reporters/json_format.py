"""Machine-readable JSON: every finding with its position, plus the run's counts.

Values are written as they are (no lossy escaping), but characters a terminal could act on
(C1 controls, bidi overrides, line/paragraph separators) are written as ``\\uXXXX`` escapes,
which JSON readers decode back to the same text; so ``cat report.json`` is safe too.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, TextIO

from pytest_handoff.reporters import ReportContext, Reporter, Summary
from pytest_handoff.rules.modes import mode_counts

if TYPE_CHECKING:
    from pytest_handoff.values.findings import Finding
    from pytest_handoff.values.groups import GroupResult

#: Version of the JSON layout; raised when a field changes meaning or disappears.
FORMAT_VERSION = 1

# ``json.dumps`` escapes C0 controls itself; with ``ensure_ascii=False`` it leaves these raw.
_UNSAFE = re.compile("[\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def dumps_safe(data: Any, indent: int | None = 2) -> str:
    """``data`` as JSON text (UTF-8 friendly) with terminal-active characters escaped.

    Outside strings, JSON text is plain ASCII, so the escaped characters can only sit
    inside strings, where ``\\uXXXX`` means exactly the same character. So does a ``##[``, which
    the GitHub runner takes for a command anywhere in a line: its second ``#`` is escaped.
    """
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text).replace("##[", "#\\u0023[")


def finding_as_dict(finding: Finding, modes: tuple[str, ...] = ()) -> dict[str, Any]:
    """One finding in the JSON layout, with the failure modes its rule declares."""
    return {
        "path": finding.path,
        "line": finding.line,
        "column": finding.column,
        "end_line": finding.end_line,
        "end_column": finding.end_column,
        "code": finding.code,
        "rule": finding.rule,
        "severity": finding.severity.label,
        "message": finding.message,
        "pointer": finding.pointer,
        "chain": finding.chain,
        "related": [
            {"path": path, "line": line, "column": column, "label": label}
            for path, line, column, label in finding.related
        ],
        # A record with no text of its own (a store's row): ``handoffs/ID``, and the whole place.
        "logical": finding.logical,
        "location": finding.location,
        # The MAST failure modes the rule's findings are evidence of.
        "modes": list(modes),
    }


class JsonReporter(Reporter):
    """Writes one JSON document at the end of the run."""

    def __init__(self, stream: TextIO, context: ReportContext) -> None:
        super().__init__(stream, context)
        self._broken: dict[str, dict[str, Any]] = {}

    def handle(self, result: GroupResult) -> None:
        broken = result.first_broken
        if broken is not None:
            self._broken[result.shown_id] = broken._asdict()

    def finish(self, summary: Summary) -> None:
        document = {
            "version": FORMAT_VERSION,
            "findings": [finding_as_dict(f, self.context.modes_of(f.code)) for f in summary.findings],
            "summary": {
                "files": summary.files,
                "chains": summary.chains,
                "errors": summary.errors,
                "warnings": summary.warnings,
                # Only when claims were checked against git (evidence on): how many.
                **({"claims_judged": summary.claims} if summary.judging else {}),
                # Only when a baseline was given and knew some: how many it left out.
                **({"baselined": summary.baselined} if summary.baselined else {}),
            },
            # Findings and chains per MAST failure mode, most chains first.
            "modes": mode_counts(summary.findings, self.context.modes_of),
            # Each failing group's first handoff (in its order) holding an error: path, line, agent, time.
            "first_broken": self._broken,
        }
        self.stream.write(dumps_safe(document) + "\n")
