"""Rules as values: a row of a rule table, the hits its check returns, and a hit placed as a finding."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from pytest_handoff.values.findings import Finding, Severity

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Anchor, Document
    from pytest_handoff.values.settings import Settings


class Hit(NamedTuple):
    """A rule's report before it is positioned: which document, where, and what is wrong."""

    document: Document
    pointer: str
    message: str
    anchor: Anchor = "value"
    # Other places worth showing, as (document, pointer, label).
    related: tuple[tuple[Document, str, str], ...] = ()
    # The finding's rule name when not the rule's own: a user's id for one of a configured
    # rule's uses (user contracts: code UC201, rule "enough-criteria").
    rule: str = ""


Scope = Literal["load", "document", "chain"]


class Rule(NamedTuple):
    """A row of a rule table: ``code`` is stable, ``name`` is kebab-case, ``doc`` explains it.

    ``scope`` says what ``check`` receives: a document, a whole group (``chain``), or nothing
    (``load``: a reader or validator reports the code itself).
    """

    code: str
    name: str
    severity: Severity
    scope: Scope
    profile: str | None
    handoff_types: tuple[str, ...]
    check: Callable[[Any, Settings], Iterable[Hit]] | None
    doc: str
    #: The MAST failure modes its findings are evidence of (``FM-3.2``; see ``failure_modes``).
    modes: tuple[str, ...] = ()

    @property
    def summary(self) -> str:
        """The first sentence of the docs."""
        return self.doc.split("\n", 1)[0].strip()


def finding_of(rule: Rule, hit: Hit, severity: Severity, group_id: str) -> Finding:
    """A rule's hit placed in its document's source, as a finding of ``severity``.

    A pointer that does not exist is shown at its nearest existing ancestor, and the message says so.
    """
    region, found = hit.document.locate(hit.pointer, hit.anchor)
    message = hit.message
    if found != hit.pointer:
        message = f"{message} ({hit.document.missing_pointer_note(hit.pointer, found)})"
    related = tuple(
        (doc.display_path, *_line_col(doc, pointer), label) for doc, pointer, label in hit.related
    )
    return Finding(
        path=hit.document.display_path,
        line=region.line,
        column=region.column,
        end_line=region.end_line,
        end_column=region.end_column,
        code=rule.code,
        severity=severity,
        message=message,
        pointer=hit.pointer,
        rule=hit.rule or rule.name,
        chain=group_id,
        related=related,
        logical=hit.document.logical,
    )


def _line_col(document: Document, pointer: str) -> tuple[int, int]:
    region = document.region(pointer)
    return region.line, region.column
