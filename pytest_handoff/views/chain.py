"""``handoff-lint chain [CHAIN]``: one chain on one screen (or as Markdown for a PR, or JSON).

The task, each stage with its agent, time and tokens, the acceptance criteria with where each
is traced, every believed property with its classification and the matched text, the bugs,
the verdict and scores, and the chain's findings.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from pytest_handoff.values.view_model import ChainView
from pytest_handoff.values.wording import counted
from pytest_handoff.views.render import Section

if TYPE_CHECKING:
    from pytest_handoff.rules.modes import ModesOf
    from pytest_handoff.values.findings import Finding

#: Longest cell on a terminal (the JSON and the Markdown keep more).
TERMINAL_CELL = 160
MARKDOWN_CELL = 600


def select(views: list[ChainView], wanted: str | None) -> ChainView:
    """The chain named ``wanted`` (its id or a unique prefix), or the latest one."""
    from pytest_handoff.values.errors import UsageError

    if wanted is None:
        if not views:
            raise UsageError("no handoff chains found")
        return views[-1]  # oldest first
    exact = [view for view in views if view.group_id == wanted]
    found = exact or [view for view in views if view.group_id.startswith(wanted)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise UsageError(f"no chain {wanted!r}; 'handoff-lint report' lists them")
    names = ", ".join(view.group_id for view in found[:5])
    raise UsageError(f"{wanted!r} names {len(found)} chains ({names}); give more of the id")


def write(view: ChainView, format_name: str, modes_of: ModesOf) -> None:
    if format_name == "json":
        from pytest_handoff.reporters.json_format import dumps_safe

        sys.stdout.write(dumps_safe(view_data(view, modes_of)) + "\n")
    elif format_name == "markdown":
        from pytest_handoff.views.render import markdown_sections

        sys.stdout.write(markdown_sections(title(view), sections(view), MARKDOWN_CELL))
    else:
        from pytest_handoff.views.render import console_for, rich_sections

        rich_sections(console_for(sys.stdout), title(view), sections(view, compact=True), TERMINAL_CELL)


def title(view: ChainView) -> str:
    outcome = "fails its contracts" if view.failed else "passes its contracts"
    return f"Handoff chain {view.group_id} ({view.profile}): {outcome}"


def _number(value: float | int | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def sections(view: ChainView, compact: bool = False) -> list[Section]:
    """What the chain view shows, in order, for every format (``compact``: fewer columns, for a terminal)."""
    errors, warnings = view.count("error"), view.count("warning")
    head = [("Task", view.task or "(no task stated)")]
    if view.directory:
        head.append(("Folder", view.directory))
    head.append(("Started", view.started or "-"))
    head.append(("Findings", f"{counted(errors, 'error')}, {counted(warnings, 'warning')}"))
    broken = view.first_broken
    if broken is not None:
        said = ", ".join(part for part in (broken.agent, broken.timestamp or "") if part)
        head.append(("First broken", broken.file.rsplit("/", 1)[-1] + (f" ({said})" if said else "")))
    parts = [Section("", tuple(head))]
    parts.append(
        Section(
            "Stages",
            headers=("#", "File", "Agent", "Type", "Time", "Tokens"),
            rows=tuple(
                (
                    str(number),
                    stage.file.rsplit("/", 1)[-1],
                    stage.agent,
                    (stage.handoff_type or "?") + ("" if stage.valid else " (invalid)"),
                    stage.timestamp or "-",
                    _number(stage.tokens),
                )
                for number, stage in enumerate(view.stages, 1)
            ),
            empty="no files",
        )
    )
    if view.criteria:
        traced = sum(1 for c in view.criteria if c.traced)
        parts.append(
            Section(
                f"Acceptance criteria ({traced} of {len(view.criteria)} traced)",
                headers=("AC", "Criterion", "Traced", "Where", "Matched / looked for"),
                rows=tuple(
                    (c.label, c.text, "yes" if c.traced else "no", c.where or "-", c.evidence)
                    for c in view.criteria
                ),
            )
        )
    if view.properties:
        counts = {
            name: sum(1 for p in view.properties if p.classification == name)
            for name in ("confirmed", "falsified", "inconclusive")
        }
        tally = ", ".join(f"{n} {name}" for name, n in counts.items())
        parts.append(
            Section(
                f"Believed properties ({tally})",
                headers=("P", "Property", "Confidence", "Classified", "Matched by", "Where", "Test entry"),
                rows=tuple(
                    (
                        p.label,
                        p.text,
                        p.confidence or "-",
                        p.classification or "unclassified",
                        p.method or "-",
                        p.where or "-",
                        p.matched_text or "-",
                    )
                    for p in view.properties
                ),
                drop=(5,) if compact else (),
            )
        )
    if view.bugs or view.properties:
        parts.append(
            Section(
                f"Bugs ({len(view.bugs)})",
                headers=("Severity", "Description", "Location", "Counterexample"),
                rows=tuple((b.severity, b.description, b.location, b.counterexample) for b in view.bugs),
                empty="no bugs reported",
            )
        )
    if view.verdict is not None:
        low, high = view.score_range
        scale = f"/{_number(high)}" if low <= 1 else ""
        lines = [
            ("Verdict", view.verdict),
            ("Quality score", f"{_number(view.quality_score)}{scale}"),
        ]
        lines.extend((name, f"{_number(value)}{scale}") for name, value in view.scores)
        lines.append(("Total tokens", _number(view.total_tokens)))
        if view.rework_cycles:
            lines.append(("Rework cycles", str(view.rework_cycles)))
        if view.review_summary:
            lines.append(("Summary", view.review_summary))
        parts.append(Section("Review", tuple(lines)))
    parts.append(
        Section(
            f"Findings ({len(view.findings)})",
            headers=("Severity", "Location", "Rule", "Message"),
            rows=tuple(
                (
                    f.severity.label,
                    _location(f, compact),
                    f.code if compact or not f.rule or f.rule == f.code else f"{f.code} {f.rule}",
                    f.message + (f" (at {f.pointer})" if f.pointer else ""),
                )
                for f in view.findings
            ),
            empty="no findings: every contract holds",
        )
    )
    return parts


def _location(finding: Finding, compact: bool) -> str:
    """``path:line:col`` (only the file's name when compact: the folder is said above)."""
    where = finding.location if finding.line > 0 else finding.path
    return where.rsplit("/", 1)[-1] if compact else where


def view_data(view: ChainView, modes_of: ModesOf) -> dict[str, Any]:
    """The view as JSON-ready data (``--format json``), each finding with its rule's failure modes."""
    from pytest_handoff.reporters.json_format import finding_as_dict

    return {
        "profile": view.profile,
        "chain_id": view.group_id,
        "directory": view.directory,
        "started": view.started,
        "task": view.task,
        "stages": [stage._asdict() for stage in view.stages],
        "acceptance_criteria": [criterion._asdict() for criterion in view.criteria],
        "properties": [prop._asdict() for prop in view.properties],
        "bugs": [bug._asdict() for bug in view.bugs],
        "verdict": view.verdict,
        "quality_score": view.quality_score,
        "scores": dict(view.scores),
        "total_tokens": view.total_tokens,
        "rework_cycles": view.rework_cycles,
        "review_summary": view.review_summary,
        "passed": not view.failed,
        "first_broken": None if view.first_broken is None else view.first_broken._asdict(),
        "findings": [finding_as_dict(finding, modes_of(finding.code)) for finding in view.findings],
    }
