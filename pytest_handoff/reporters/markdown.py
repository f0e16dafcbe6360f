"""A Markdown summary for ``$GITHUB_STEP_SUMMARY`` and pull request comments.

A heading, the totals, then one table per chain with findings and a short list of the
clean chains. Broken chains come first and, in each table, errors before warnings and
notes, so that what a size limit cuts is the least important. Handoff text is untrusted: every piece of it goes through
:func:`markdown_text`, which keeps it on one line and inside its table cell and turns
HTML and Markdown syntax into literal characters. GitHub refuses a step summary over
1 MiB, so rows stop before the limit and a last line says how many were left out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO
from urllib.parse import quote

from pytest_handoff.reporters import ReportContext, Reporter, Summary, workspace_path
from pytest_handoff.rules.modes import ModesOf, counted_modes, mode_label
from pytest_handoff.values.boundary import inert
from pytest_handoff.values.findings import Finding, Severity
from pytest_handoff.values.wording import counted

if TYPE_CHECKING:
    from pytest_handoff.values.findings import Finding
    from pytest_handoff.values.groups import GroupResult

_LINE_BREAKS = re.compile(r"\r\n|[\r\n\x0b\x0c\x85\u2028\u2029]")
# Markdown punctuation that could start emphasis, code, links, tables, strike-through or
# headings, and the characters that could start HTML or an entity.
_SPECIAL = re.compile(r"[\\`*_\[\]|~#<>&]")
_REPLACEMENTS = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
# An @ before a name: a mention of a user or team once GitHub renders it.
_MENTION = re.compile(r"@(?=\w)")

_SEVERITY_LABELS = {
    Severity.ERROR: "\u274c error",
    Severity.WARNING: "\u26a0\ufe0f warning",
    Severity.INFO: "\u2139\ufe0f info",
}


def markdown_text(text: str, max_chars: int | None = None) -> str:
    """``text`` as literal Markdown inline text: one line, no HTML, no syntax, no controls, no mentions."""
    flat = inert(_LINE_BREAKS.sub(" ", text))
    if max_chars is not None and len(flat) > max_chars:
        flat = flat[: max_chars - 1] + "…"
    escaped = _SPECIAL.sub(lambda m: _REPLACEMENTS.get(m.group(0), "\\" + m.group(0)), flat)
    # A zero-width space after each @ (written as an entity): GitHub notifies no one of "@name".
    return _MENTION.sub("@&#8203;", escaped) if "@" in escaped else escaped


def _join(parts: list[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _size_name(limit: int) -> str:
    if limit % (1024 * 1024) == 0:
        return f"{limit // (1024 * 1024)} MiB"
    if limit % 1024 == 0:
        return f"{limit // 1024} KiB"
    return f"{limit:,} bytes"


def _modes_list(findings: Sequence[Finding], modes_of: ModesOf) -> str:
    """The failure modes (MAST) the findings are evidence of, with counts across chains."""
    modes = counted_modes(findings, modes_of)
    if not modes:
        return ""
    items = "".join(
        f"- {markdown_text(mode_label(count.mode))}: {counted(count.findings, 'finding')} in "
        f"{counted(count.groups, 'chain')}\n"
        for count in modes
    )
    return f"Failure modes (MAST):\n\n{items}\n"


def _severity_label(severity: Severity) -> str:
    if severity >= Severity.ERROR:
        return _SEVERITY_LABELS[Severity.ERROR]
    return _SEVERITY_LABELS[Severity.WARNING if severity >= Severity.WARNING else Severity.INFO]


class MarkdownReporter(Reporter):
    """Writes the whole summary at the end, at most ``max_bytes`` bytes of UTF-8."""

    #: GitHub's limit for one step summary.
    max_bytes = 1_048_576
    #: Longest message shown in a cell, so that one huge message cannot crowd out the rest.
    max_message_chars = 1_000

    TABLE_HEADER = "| Severity | Location | Rule | Message |\n| --- | --- | --- | --- |\n"

    def __init__(self, stream: TextIO, context: ReportContext, *, max_bytes: int | None = None) -> None:
        super().__init__(stream, context)
        if max_bytes is not None:
            self.max_bytes = max_bytes
        self._results: list[GroupResult] = []

    def handle(self, result: GroupResult) -> None:
        self._results.append(result)

    def finish(self, summary: Summary) -> None:
        self.stream.write(self.render(summary))

    # --- rendering ---------------------------------------------------------------------------

    def render(self, summary: Summary) -> str:
        """The whole summary; rows and clean chains stop before ``max_bytes``."""
        # Broken chains first (stable: otherwise in checking order).
        with_findings = sorted(
            (r for r in self._results if r.findings),
            key=lambda r: not any(f.severity >= Severity.ERROR for f in r.findings),
        )
        clean = [r for r in self._results if not r.findings]
        total_findings = sum(len(r.findings) for r in with_findings)

        parts: list[str] = [self._head(summary) + _modes_list(summary.findings, self.context.modes_of)]
        size = len(parts[0].encode("utf-8"))
        # Room kept for the closing blank line of a table and the worst-case last line.
        worst_footer = self._footer(max(total_findings, 10), max(len(clean), 10))
        reserve = 1 + len(worst_footer.encode("utf-8"))

        def add(piece: str) -> bool:
            nonlocal size
            cost = len(piece.encode("utf-8"))
            if size + cost + reserve > self.max_bytes:
                return False
            parts.append(piece)
            size += cost
            return True

        shown = 0
        full = False
        for result in with_findings:
            ordered = sorted(result.findings, key=lambda f: -f.severity)  # stable: by position within
            rows = [self._row(finding) for finding in ordered]
            broken = result.first_broken
            first = f"First broken handoff: {markdown_text(broken.label())}\n\n" if broken else ""
            if not add(f"### {markdown_text(result.shown_id)}\n\n{first}{self.TABLE_HEADER}{rows[0]}"):
                full = True
                break
            shown += 1
            for row in rows[1:]:
                if not add(row):
                    full = True
                    break
                shown += 1
            parts.append("\n")
            size += 1
            if full:
                break

        listed = 0
        if not full and clean:
            for result in clean:
                if not add(f"- ✅ {markdown_text(result.shown_id)}: no findings\n"):
                    break
                listed += 1
            if listed:
                parts.append("\n")
                size += 1

        left_out_findings = total_findings - shown
        left_out_clean = len(clean) - listed
        if left_out_findings or left_out_clean:
            parts.append(self._footer(left_out_findings, left_out_clean))
        return "".join(parts)

    def _head(self, summary: Summary) -> str:
        counts = []
        if summary.errors:
            counts.append(f"**{counted(summary.errors, 'error')}**")
        if summary.warnings:
            counts.append(counted(summary.warnings, "warning"))
        if summary.infos:
            counts.append(counted(summary.infos, "note"))
        scope = f"{counted(summary.files, 'file')} of {counted(summary.chains, 'chain')}"
        totals = f"{_join(counts)} in {scope}." if counts else f"✅ No findings in {scope}."
        if summary.evidence:
            totals += f" {summary.evidence[0].upper()}{summary.evidence[1:]}."
        if summary.baselined:
            from pytest_handoff.reporters import baselined_note

            note = baselined_note(summary.baselined)
            totals += f" {note[0].upper()}{note[1:]}."
        return f"## handoff-lint\n\n{totals}\n\n"

    def _row(self, finding: Finding) -> str:
        link = quote(finding.path, safe="/")
        if self.context.blob_url:  # the file of the checked commit on GitHub
            in_workspace = workspace_path(finding.path, self.context)
            if not Path(in_workspace).is_absolute():
                link = self.context.blob_url + quote(in_workspace, safe="/")
        if finding.line > 0:
            location = f"[{markdown_text(finding.location)}]({link}#L{finding.line})"
        else:
            location = f"[{markdown_text(finding.location)}]({link})"
        rule = finding.code
        if finding.rule and finding.rule != finding.code:
            rule += f" {finding.rule}"
        message = markdown_text(finding.message, self.max_message_chars)
        if finding.pointer:
            message += f" (at {markdown_text(finding.pointer, self.max_message_chars)})"
        severity = _severity_label(finding.severity)
        return f"| {severity} | {location} | {markdown_text(rule)} | {message} |\n"

    def _footer(self, findings: int, clean_chains: int) -> str:
        left_out = []
        if findings:
            left_out.append(counted(findings, "finding"))
        if clean_chains:
            left_out.append(counted(clean_chains, "chain") + " without findings")
        verb = "was" if len(left_out) == 1 and (findings or clean_chains) == 1 else "were"
        hint = self.context.summary_hint
        where = f" See {markdown_text(hint)} for the full list." if hint else ""
        return (
            f"> ⚠️ {_join(left_out)} {verb} left out to keep this summary under "
            f"{_size_name(self.max_bytes)}.{where}\n"
        )
