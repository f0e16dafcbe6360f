"""Terminal output: findings grouped by file with source excerpts, then a summary table.

Rich is imported only when there is something to print. Handoff text never
reaches rich as markup: every untrusted string is passed through
:func:`~pytest_handoff.excerpt.inert` and wrapped in ``Text`` objects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO, cast

from pytest_handoff.reporters import ReportContext, Reporter, Summary
from pytest_handoff.reporters.excerpt import format_finding
from pytest_handoff.values.boundary import GuardedStream, inert
from pytest_handoff.values.findings import Severity

if TYPE_CHECKING:
    from rich.console import Console

    from pytest_handoff.values.groups import GroupResult

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def closed_pipe() -> None:
    """For rich's ``Console.on_broken_pipe``: raise, so that the CLI exits quietly as a closed pipe wants."""
    raise BrokenPipeError(32, "the reader of the output went away")


class TextReporter(Reporter):
    """Human-readable output; colour only on a terminal, ``NO_COLOR`` honoured."""

    def __init__(self, stream: TextIO, context: ReportContext) -> None:
        super().__init__(stream, context)
        self._console: Console | None = None

    def _rich(self) -> Console:
        if self._console is None:
            from rich.console import Console

            self._console = Console(
                file=cast(TextIO, GuardedStream(self.stream)),  # no line of it opens a workflow command
                color_system="auto" if self.context.color else None,
                no_color=not self.context.color,
                highlight=False,
                markup=False,
                emoji=False,
                soft_wrap=True,
            )
            # Rich exits with status 1 on a closed pipe; the CLI's own handling decides instead.
            self._console.on_broken_pipe = closed_pipe  # type: ignore[method-assign]
        return self._console

    def handle(self, result: GroupResult) -> None:
        if not result.findings:
            return
        from rich.text import Text

        console = self._rich()
        broken = result.first_broken
        if broken is not None:
            console.print(
                Text(f"{inert(result.shown_id)}: first broken handoff {inert(broken.label())}", style="bold")
            )
        current = None
        for finding in result.findings:
            if finding.path != current:
                current = finding.path
                console.print(Text(inert(finding.path), style="bold underline"))
            head, message, *rest = format_finding(finding, result.sources.get(finding.path))
            console.print(Text(head.strip(), style=_STYLE[finding.severity]))
            console.print(Text(message))
            for line in rest:
                style = "bold" if line.lstrip().startswith(("|", "^")) or "| " in line[:12] else "dim"
                console.print(Text(line, style=style))
        console.print()

    def finish(self, summary: Summary) -> None:
        # Plain text: a clean pre-commit run should not pay for importing rich.
        header = ("chains", "files", "errors", "warnings")
        values = (summary.chains, summary.files, summary.errors, summary.warnings)
        widths = [max(len(h), len(str(v))) for h, v in zip(header, values, strict=True)]
        self.stream.write("  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True)) + "\n")
        self.stream.write("  ".join(str(v).rjust(w) for v, w in zip(values, widths, strict=True)) + "\n")
        verdict = "no broken contracts" if summary.errors == 0 else "contracts broken"
        if summary.evidence:
            verdict += f"; {summary.evidence}"
        if summary.baselined:
            from pytest_handoff.reporters import baselined_note

            verdict += f"; {baselined_note(summary.baselined)}"
        if self._console is not None:
            self._console.print(verdict, style="bold green" if summary.errors == 0 else "bold red")
        else:
            self.stream.write(verdict + "\n")
