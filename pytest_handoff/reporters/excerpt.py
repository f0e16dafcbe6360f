"""Plain-text rendering of findings, shared by pytest failures and the CLI's plain output.

Handoff text is untrusted: every piece of it that is printed goes through
:func:`~pytest_handoff.values.boundary.inert` so that no control or escape sequence reaches a terminal or log.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import groupby

from pytest_handoff.values.boundary import inert
from pytest_handoff.values.findings import Finding, Severity
from pytest_handoff.values.wording import counted

#: Characters of a source line shown under a finding: a window, so a long value stays readable.
EXCERPT_WIDTH = 100
#: Characters shown before the marked span when the window has to scroll.
EXCERPT_LEAD = 20


def source_excerpt(text_lines: Sequence[str], finding: Finding, indent: str = "    ") -> list[str]:
    """The finding's source line with its span marked by carets, like a compiler error.

    A line longer than :data:`EXCERPT_WIDTH` is shown as a window around the span's start, with
    ``…`` where it was cut; the carets never run past what is shown, so a 2,000-character value
    gets a caret line as long as its excerpt, not as the value.
    """
    if finding.line <= 0 or finding.line > len(text_lines):
        return []
    raw = text_lines[finding.line - 1]
    shown = inert(raw)
    # Column counts characters of the raw line; escaping widens some, so map through the prefix.
    start = len(inert(raw[: finding.column - 1]))
    if finding.end_line == finding.line and finding.end_column >= finding.column:
        end = len(inert(raw[: finding.end_column]))
    else:
        end = len(shown)
    end = max(start + 1, min(end, len(shown)))
    if len(shown) > EXCERPT_WIDTH:
        # Keep the marked span's start in view; cut marks take a column each.
        offset = max(0, min(start - EXCERPT_LEAD, len(shown) - EXCERPT_WIDTH))
        window = shown[offset : offset + EXCERPT_WIDTH]
        lead = "…" if offset else ""
        tail = "…" if offset + EXCERPT_WIDTH < len(shown) else ""
        shown = lead + window + tail
        start, end = start - offset + len(lead), min(end - offset, EXCERPT_WIDTH) + len(lead)
    width = max(1, end - start)
    number = str(finding.line)
    gutter = " " * len(number)
    return [f"{indent}{number} | {shown}", f"{indent}{gutter} | {' ' * start}{'^' * width}"]


def format_finding(finding: Finding, text_lines: Sequence[str] | None = None) -> list[str]:
    """``path:line:col: CODE rule [severity] pointer`` then the message and the source excerpt."""
    pointer = f" at {inert(finding.pointer)}" if finding.pointer else ""
    lines = [
        f"{inert(finding.location)}: {finding.code} {finding.rule} [{finding.severity.label}]{pointer}",
        f"    {inert(finding.message)}",
    ]
    for path, line, column, label in finding.related:
        place = f"{path}:{line}:{column}" if line > 0 else path
        lines.append(f"    see {inert(place)} ({inert(label)})")
    if text_lines is not None:
        lines.extend(source_excerpt(text_lines, finding))
    return lines


def format_findings(
    findings: Iterable[Finding],
    sources: dict[str, Sequence[str]] | None = None,
) -> list[str]:
    """Findings grouped by file, each file under a header line."""
    out: list[str] = []
    for path, group in groupby(sorted(findings), key=lambda f: f.path):
        items = list(group)
        out.append(f"{inert(path)} ({summary_counts(items)})")
        for finding in items:
            out.extend("  " + line for line in format_finding(finding, (sources or {}).get(path)))
        out.append("")
    return out


def summary_counts(findings: Sequence[Finding]) -> str:
    """``2 errors, 1 warning`` for a list of findings."""
    errors = sum(1 for f in findings if f.severity >= Severity.ERROR)
    warnings = sum(1 for f in findings if f.severity == Severity.WARNING)
    parts = []
    if errors:
        parts.append(counted(errors, "error"))
    if warnings:
        parts.append(counted(warnings, "warning"))
    return ", ".join(parts) or counted(len(findings), "note")
