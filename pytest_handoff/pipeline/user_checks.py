"""A project's own checks (the ``pytest_handoff_check_chain`` hook): what they return, as findings.

A hook returns hits made with ``chain.hit(document, pointer, message)`` (reported as ``USER``),
findings, a list of them, or None; anything else is an :class:`ExtraCheckError` that says what
was returned.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from pytest_handoff.rules.core import USER_RULE
from pytest_handoff.rules.selection import severity_of
from pytest_handoff.values.boundary import inert
from pytest_handoff.values.documents import Document
from pytest_handoff.values.findings import Finding
from pytest_handoff.values.groups import Group
from pytest_handoff.values.rules import Hit, finding_of
from pytest_handoff.values.settings import Settings


class ExtraCheckError(TypeError):
    """A project's own check produced something other than a usable hit or finding.

    Its message says what was produced, e.g. ``a str ('our bar is 8')``.
    """


def describe_value(value: object) -> str:
    """``a str ('our bar is 8')``: a value's type, and the value itself when it is short text or a number."""
    kind = type(value).__name__
    article = "an" if kind[:1].lower() in "aeiou" else "a"
    if isinstance(value, (str, bytes, int, float)):
        shown = repr(value)
        return f"{article} {kind} ({inert(shown if len(shown) <= 60 else shown[:57] + '...')})"
    return f"{article} {kind}"


def hook_output(produced: object) -> Iterator[Hit | Finding]:
    """One hook implementation's result as hits and findings: None, one of them, or a list of them."""
    if produced is None:
        return
    if isinstance(produced, (Hit, Finding)):  # before Iterable: a Hit is a tuple
        yield produced
        return
    if isinstance(produced, (str, bytes, dict)) or not isinstance(produced, Iterable):
        raise ExtraCheckError(describe_value(produced))
    for item in produced:
        if not isinstance(item, (Hit, Finding)):
            container = describe_value(produced)
            raise ExtraCheckError(f"{container} holding {describe_value(item)}")
        yield item


def extra_finding(produced: object, settings: Settings, group: Group) -> Finding:
    """A finding from what a project's check produced: a Finding as it is, a Hit positioned as USER."""
    if isinstance(produced, Finding):
        return produced
    if not isinstance(produced, Hit):
        raise ExtraCheckError(describe_value(produced))
    if not isinstance(produced.document, Document):
        raise ExtraCheckError(f"a Hit whose document is {describe_value(produced.document)}, not a Document")
    for field in ("pointer", "message"):
        value = getattr(produced, field)
        if not isinstance(value, str):
            raise ExtraCheckError(f"a Hit whose {field} is {describe_value(value)}, not a str")
    severity = severity_of(USER_RULE.code, USER_RULE.severity, settings)
    return finding_of(USER_RULE, produced, severity, group.group_id)
