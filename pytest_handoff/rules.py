"""The one table of rules: every code a finding can carry, with its name, severity and docs.

Built-in rules come in tables (rows made with :func:`listed` and :func:`reported`), registered
with :func:`register_table` when the engine or a profile loads; a user's own rules register
with :func:`rule` (and :func:`describe`).
A rule's check receives a document or a whole chain, and the settings, and yields :class:`Hit`
values; the engine turns hits into positioned :class:`~pytest_handoff.findings.Finding` s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeVar

from pytest_handoff.findings import Severity

if TYPE_CHECKING:
    from pytest_handoff.config import Settings
    from pytest_handoff.documents import Anchor, Document
    from pytest_handoff.engine import Chain

Scope = Literal["load", "document", "chain"]


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


DocumentCheck = Callable[["Document", "Settings"], Iterable[Hit]]
ChainCheck = Callable[["Chain", "Settings"], Iterable[Hit]]


class Rule(NamedTuple):
    """A registered rule: ``code`` is stable, ``name`` is kebab-case, ``doc`` explains it."""

    code: str
    name: str
    severity: Severity
    scope: Scope
    profile: str | None
    handoff_types: tuple[str, ...]
    check: Callable[[Any, Settings], Iterable[Hit]] | None
    doc: str

    @property
    def summary(self) -> str:
        """The first sentence of the docs."""
        return self.doc.split("\n", 1)[0].strip()


RULES: dict[str, Rule] = {}
# How many times the table changed: what the engine's per-settings rule lists are keyed by.
_changes = [0]


def table_version() -> int:
    """A number that changes whenever a rule is registered (or registered again)."""
    return _changes[0]


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


_F = TypeVar("_F", bound=Callable[..., Iterable[Hit]])


def register(rule_: Rule) -> Rule:
    """Add ``rule_`` to the table; codes are unique."""
    existing = RULES.get(rule_.code)
    # A module imported again (pytester, importlib.reload) re-registers its own rules.
    if existing is not None and (existing.name, _origin(existing)) != (rule_.name, _origin(rule_)):
        raise ValueError(f"rule code {rule_.code} is already registered as {existing.name!r}")
    RULES[rule_.code] = rule_
    _changes[0] += 1
    return rule_


def unregister(code: str) -> None:
    """Remove rule ``code`` from the table (for a project that unloads its rules, and tests)."""
    if RULES.pop(code, None) is not None:
        _changes[0] += 1


def _origin(rule_: Rule) -> str:
    check = rule_.check
    return f"{check.__module__}.{check.__qualname__}" if check is not None else ""


def rule(
    code: str,
    name: str,
    *,
    severity: Severity = Severity.ERROR,
    scope: Scope = "document",
    profile: str | None = None,
    handoff_types: tuple[str, ...] = (),
) -> Callable[[_F], _F]:
    """Register the decorated function as the check of rule ``code``.

    Document rules run on each document whose ``handoff_type`` is in
    ``handoff_types`` (all when empty); chain rules run once per chain.
    """

    def decorate(check: _F) -> _F:
        register(
            listed(
                code,
                name,
                check,
                severity=severity,
                scope=scope,
                profile=profile,
                handoff_types=handoff_types,
            )
        )
        return check

    return decorate


def listed(
    code: str,
    name: str,
    check: Callable[[Any, Settings], Iterable[Hit]],
    *,
    severity: Severity = Severity.ERROR,
    scope: Scope = "document",
    profile: str | None = None,
    handoff_types: tuple[str, ...] = (),
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
        doc=cleandoc(check.__doc__ or name),
    )


def reported(
    code: str, name: str, doc: str, *, severity: Severity = Severity.ERROR, profile: str | None = None
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
        doc=cleandoc(doc),
    )


def register_table(table: Iterable[Rule]) -> None:
    """Add a profile's whole rule table (the engine does, when it loads the profile)."""
    for rule_ in table:
        register(rule_)


def describe(
    code: str, name: str, doc: str, *, severity: Severity = Severity.ERROR, profile: str | None = None
) -> None:
    """Register a rule that the loader or schema validator reports itself (it has no check)."""
    register(reported(code, name, doc, severity=severity, profile=profile))


def rules_for(profile: str, scope: Scope) -> Iterator[Rule]:
    """Rules of ``scope`` that apply to ``profile`` (its own and the profile-independent ones)."""
    for rule_ in RULES.values():
        if rule_.scope == scope and rule_.check is not None and rule_.profile in (None, profile):
            yield rule_


def matches_code(code: str, patterns: Iterable[str]) -> bool:
    """True when ``code`` starts with one of ``patterns`` (``NR3`` selects NR301..NR399; ``ALL`` all)."""
    return any(pattern == "ALL" or code.startswith(pattern) for pattern in patterns)
