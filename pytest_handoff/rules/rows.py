"""Rows of a rule table: a check with its code, name, severity and docs.

A profile's rules are one table (``Profile.rule_table()``) of rows made with :func:`listed`
(a rule with a check) and :func:`reported` (a code a reader or validator reports itself).
Nothing here registers anything: the registry reads the tables it is given. A rule's check
receives a document or a whole group, and the settings, and yields :class:`Hit` values; the
pipeline places hits in their documents as findings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from pytest_handoff.rules.modes import mode_label
from pytest_handoff.values.findings import Severity
from pytest_handoff.values.rules import Hit, Rule, Scope

if TYPE_CHECKING:
    from pytest_handoff.values.settings import Settings


def cleandoc(text: str) -> str:
    """A docstring without its common indentation (``inspect.cleandoc``, without importing inspect)."""
    lines = text.expandtabs().strip("\n").splitlines()
    rest = [line for line in lines[1:] if line.strip()]
    margin = min((len(line) - len(line.lstrip()) for line in rest), default=0)
    return (
        "\n".join([lines[0].strip(), *(line[margin:].rstrip() for line in lines[1:])]).strip()
        if lines
        else ""
    )


def listed(
    code: str,
    name: str,
    check: Callable[[Any, Settings], Iterable[Hit]],
    *,
    severity: Severity = Severity.ERROR,
    scope: Scope = "document",
    profile: str | None = None,
    handoff_types: tuple[str, ...] = (),
    modes: tuple[str, ...] = (),
) -> Rule:
    """A row of a profile's rule table: ``check`` with its docs (its docstring). Registers nothing.

    Document rules run on each document whose ``handoff_type`` is in ``handoff_types`` (all
    when empty); chain rules run once per chain (group of documents).
    """
    return Rule(
        code=code,
        name=name,
        severity=severity,
        scope=scope,
        profile=profile,
        handoff_types=handoff_types,
        check=check,
        doc=with_modes(cleandoc(check.__doc__ or name), modes),
        modes=modes,
    )


def reported(
    code: str,
    name: str,
    doc: str,
    *,
    severity: Severity = Severity.ERROR,
    profile: str | None = None,
    modes: tuple[str, ...] = (),
) -> Rule:
    """A row of a rule table for a rule a reader or validator reports itself (it has no check)."""
    return Rule(
        code=code,
        name=name,
        severity=severity,
        scope="load",
        profile=profile,
        handoff_types=(),
        check=None,
        doc=with_modes(cleandoc(doc), modes),
        modes=modes,
    )


def with_modes(doc: str, modes: tuple[str, ...]) -> str:
    """A rule's docs with the failure modes its findings are evidence of, as a last paragraph."""
    if not modes:
        return doc
    return f"{doc}\n\n**Failure modes** (MAST): {'; '.join(mode_label(mode) for mode in modes)}."
