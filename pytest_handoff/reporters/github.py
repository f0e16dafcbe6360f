"""GitHub Actions workflow commands: one ``::error``/``::warning``/``::notice`` line per finding.

Escaping follows actions/toolkit (``escapeData``/``escapeProperty``), so the runner decodes
exactly the text we meant. Handoff text is untrusted: after escaping no line break is left,
so a message can never begin a workflow command of its own (``::add-mask::``,
``::stop-commands::`` ...); anything after our command's own ``::`` separator is data.
Other control and bidi characters are then made visible with :func:`inert`, as in every
other output of the tool.

GitHub keeps only 10 annotations of each kind per step, so everything is buffered and
written at the end: errors first, then warnings, then notes, then one notice that says
how many were left out and where the full list is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_handoff.reporters import Reporter, Summary, workspace_path
from pytest_handoff.values.boundary import inert
from pytest_handoff.values.findings import Severity
from pytest_handoff.values.wording import counted

if TYPE_CHECKING:
    from pytest_handoff.values.findings import Finding


def escape_data(text: str) -> str:
    """A command's message, escaped like actions/toolkit's ``escapeData`` (then made inert)."""
    escaped = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return inert(escaped, opens_line=False)  # it follows "::command ...::" on its line


def escape_property(text: str) -> str:
    """A property value, escaped like actions/toolkit's ``escapeProperty`` (then made inert)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(command: str, properties: dict[str, str], message: str) -> str:
    """``::command key=value,...::message`` with every part escaped; empty values left out."""
    props = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items() if value)
    return f"::{command}{' ' + props if props else ''}::{escape_data(message)}"


def _command_for(severity: Severity) -> str:
    if severity >= Severity.ERROR:
        return "error"
    return "warning" if severity >= Severity.WARNING else "notice"


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


class GithubReporter(Reporter):
    """Annotations for the GitHub Actions log, the job page and the pull request diff."""

    #: Annotations GitHub keeps per step, of each kind.
    max_errors = 10
    max_warnings = 10
    max_notices = 10

    def finish(self, summary: Summary) -> None:
        findings = summary.findings
        errors = [f for f in findings if f.severity >= Severity.ERROR]
        warnings = [f for f in findings if Severity.WARNING <= f.severity < Severity.ERROR]
        notes = [f for f in findings if f.severity < Severity.WARNING]
        shown_errors = errors[: self.max_errors]
        shown_warnings = warnings[: self.max_warnings]
        overflow = (
            len(errors) > self.max_errors
            or len(warnings) > self.max_warnings
            or len(notes) > self.max_notices
        )
        # Our own notice counts against the notice limit: keep room for it.
        shown_notes = notes[: self.max_notices - 1 if overflow else self.max_notices]
        for finding in [*shown_errors, *shown_warnings, *shown_notes]:
            self.stream.write(self.annotation(finding) + "\n")
        if overflow:
            counts = [
                (count, noun)
                for count, noun in (
                    (len(errors) - len(shown_errors), "error"),
                    (len(warnings) - len(shown_warnings), "warning"),
                    (len(notes) - len(shown_notes), "note"),
                )
                if count
            ]
            left_out = [counted(count, noun) for count, noun in counts]
            verb = "was" if len(counts) == 1 and counts[0][0] == 1 else "were"
            hint = self.context.summary_hint
            where = f"see {hint}" if hint else "run handoff-lint"
            message = (
                f"handoff-lint: {_join(left_out)} {verb} not shown as annotations "
                f"(GitHub shows at most {self.max_errors} errors and {self.max_warnings} warnings "
                f"per step); {where} for the full list."
            )
            self.stream.write(workflow_command("notice", {}, message) + "\n")

    def annotation(self, finding: Finding) -> str:
        """The workflow command for one finding."""
        properties = {"file": self.annotation_path(finding.path)}
        if finding.line > 0:
            properties["line"] = str(finding.line)
            single_line = finding.end_line in (0, finding.line)
            if finding.end_line >= finding.line:
                properties["endLine"] = str(finding.end_line)
            # GitHub accepts columns only for annotations on one line.
            if single_line and finding.column > 0:
                properties["col"] = str(finding.column)
                if finding.end_line == finding.line and finding.end_column >= finding.column:
                    properties["endColumn"] = str(finding.end_column)
        rule = finding.rule or finding.code
        properties["title"] = f"{finding.code} {rule}" if rule != finding.code else finding.code
        # A record with no text of its own is annotated on its store file, and named in the message.
        message = (
            f"{finding.logical}{finding.pointer}: {finding.message}" if finding.logical else finding.message
        )
        return workflow_command(_command_for(finding.severity), properties, message)

    def annotation_path(self, path: str) -> str:
        """``path`` (relative to the root) relative to the workspace, as GitHub resolves it."""
        return workspace_path(path, self.context)
