"""Sections of plain text and tables, rendered as GitHub Markdown or with rich on a terminal.

The chain and report views build their content once, as :class:`Section` values, and each
format renders the same sections; so the terminal and the pull-request comment never disagree.
Every cell is untrusted text: Markdown escapes it (:func:`markdown_text`), rich gets it as
``Text`` (never markup) after :func:`~pytest_handoff.excerpt.inert`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, TextIO, cast

from pytest_handoff.reporters.markdown import markdown_text
from pytest_handoff.values.boundary import GuardedStream, inert

if TYPE_CHECKING:
    from rich.console import Console


class Section(NamedTuple):
    """A titled block: lines of text (``label: value`` pairs or sentences), then a table."""

    title: str
    lines: tuple[tuple[str, str], ...] = ()  # (label, text); an empty label makes a sentence
    headers: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    empty: str = ""  # said instead of an empty table
    drop: tuple[int, ...] = ()  # columns left out (on a narrow terminal)

    def columns(self) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
        """The headers and rows without the dropped columns."""
        keep = [i for i in range(len(self.headers)) if i not in self.drop]
        return tuple(self.headers[i] for i in keep), tuple(tuple(row[i] for i in keep) for row in self.rows)


def shorten(text: str, max_chars: int | None) -> str:
    flat = " ".join(text.split())
    if max_chars is not None and len(flat) > max_chars:
        return flat[: max_chars - 1] + "…"
    return flat


def markdown_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], max_chars: int | None = None
) -> str:
    """A GitHub table; every cell escaped and kept on one line."""
    lines = [
        "| " + " | ".join(markdown_text(h) for h in headers) + " |",
        "|" + "|".join(" --- " for _ in headers) + "|",
    ]
    lines.extend(
        "| " + " | ".join(markdown_text(cell, max_chars) or " " for cell in row) + " |" for row in rows
    )
    return "\n".join(lines) + "\n"


def markdown_sections(title: str, sections: Sequence[Section], max_chars: int | None = None) -> str:
    """The sections as GitHub-flavoured Markdown under a level-2 heading."""
    parts = [f"## {markdown_text(title)}\n"]
    for section in sections:
        if section.title:
            parts.append(f"### {markdown_text(section.title)}\n")
        if section.lines:
            parts.append(
                "\n".join(
                    f"**{markdown_text(label)}:** {markdown_text(text)}" if label else markdown_text(text)
                    for label, text in section.lines
                ).replace("\n", "  \n")
                + "\n"
            )
        if section.headers and section.rows:
            parts.append(markdown_table(section.headers, section.rows, max_chars))
        elif section.headers and section.empty:
            parts.append(f"_{markdown_text(section.empty)}_\n")
    return "\n".join(parts)


def console_for(stream: TextIO, width: int | None = None) -> Console:
    """A rich console on ``stream``: colour on a terminal only, no markup or emoji codes in output."""
    from rich.console import Console

    from pytest_handoff.reporters.text import closed_pipe

    # Rich wraps values at the width: every line it writes is guarded, wherever a value breaks.
    guarded = cast(TextIO, GuardedStream(stream))
    console = Console(file=guarded, width=width, highlight=False, emoji=False, soft_wrap=False)
    # Rich exits with status 1 on a closed pipe; the CLI's own handling makes it quiet, status 141.
    console.on_broken_pipe = closed_pipe  # type: ignore[method-assign]
    return console


def rich_sections(console: Console, title: str, sections: Sequence[Section], max_chars: int | None) -> None:
    """The sections on a terminal: a rule with the title, then text and tables."""
    from rich.table import Table
    from rich.text import Text

    if not console.is_terminal:  # a file or a pipe: as wide as the content, nothing cut
        console.width = max(80, *(_natural_width(section, max_chars) for section in sections))
    console.rule(Text(inert(title), style="bold"))
    for section in sections:
        if section.title:
            console.print(Text(inert(section.title), style="bold underline"))
        for label, text in section.lines:
            line = Text()
            if label:
                line.append(inert(label) + ": ", style="bold")
            line.append(inert(text))
            console.print(line)
        if section.headers and section.rows:
            # One line a row, cut to the terminal's width: the whole chain fits on one screen
            # (the Markdown and JSON formats keep the full text).
            headers, rows = section.columns()
            widths = [
                max(len(header), *(len(shorten(row[i], max_chars)) for row in rows))
                for i, header in enumerate(headers)
            ]
            # Spread over the whole width only when the content is wider than the terminal.
            expand = sum(widths) + 3 * len(widths) > console.width
            table = Table(show_edge=False, pad_edge=False, expand=expand, header_style="bold")
            for header, width in zip(headers, widths, strict=True):
                short = width <= 24 or not expand  # labels, counts, verdicts: kept whole
                table.add_column(
                    Text(inert(header)),
                    no_wrap=True,
                    overflow="ellipsis",
                    min_width=width if short else 8,
                    ratio=None if short else min(width, 50),  # long columns share the rest evenly
                )
            for row in rows:
                table.add_row(*(Text(inert(shorten(cell, max_chars)), style=_style(cell)) for cell in row))
            console.print(table)
        elif section.headers and section.empty:
            console.print(Text(inert(section.empty), style="dim"))
        console.print()


def _natural_width(section: Section, max_chars: int | None) -> int:
    """The width a section's lines and table take without cutting anything."""
    widest = max((len(label) + 2 + len(text) for label, text in section.lines), default=0)
    if section.headers and section.rows:
        headers, rows = section.columns()
        widths = [
            max(len(h), *(len(shorten(row[i], max_chars)) for row in rows)) for i, h in enumerate(headers)
        ]
        widest = max(widest, sum(widths) + 3 * len(widths))
    return widest


_STYLES = {
    "confirmed": "green",
    "approved": "green",
    "yes": "green",
    "falsified": "red",
    "error": "red",
    "critical": "red",
    "high": "red",
    "needs_rework": "red",
    "no": "red",
    "inconclusive": "yellow",
    "warning": "yellow",
    "medium": "yellow",
    "changes_requested": "yellow",
    "unclassified": "red",
}


def _style(cell: str) -> str:
    return _STYLES.get(cell, "")
