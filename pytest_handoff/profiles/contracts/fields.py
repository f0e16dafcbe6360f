"""Fields of a contract's rules: JSON pointers in which ``*`` stands for every item or member."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pytest_handoff.places.pointers import escape_pointer_token, resolve
from pytest_handoff.rules.text import normalise

if TYPE_CHECKING:
    from pytest_handoff.profiles.contracts.config import Contract, RuleUse
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.settings import Settings


def items_of(data: Any, field: str) -> Iterator[tuple[str, Any]]:
    """Like :func:`resolve`, with a list value standing for its items."""
    for pointer, value in resolve(data, field):
        if isinstance(value, list):
            yield from ((f"{pointer}/{index}", item) for index, item in enumerate(value))
        else:
            yield pointer, value


def strings_below(pointer: str, value: Any) -> Iterator[tuple[str, str]]:
    """Every string at or below ``value`` with its pointer (no recursion)."""
    pending = [(pointer, value)]
    while pending:
        where, current = pending.pop()
        if isinstance(current, str):
            yield where, current
        elif isinstance(current, dict):
            pending.extend((f"{where}/{escape_pointer_token(k)}", v) for k, v in reversed(current.items()))
        elif isinstance(current, list):
            pending.extend((f"{where}/{i}", v) for i, v in reversed(list(enumerate(current))))


def canonical(value: Any, match: str = "normalised") -> str:
    """What two values must share to count as the same: normalised text (case, spaces, edge
    punctuation) by default, the exact JSON value with ``match = "exact"``."""
    if isinstance(value, str):
        return normalise(value) if match == "normalised" else value
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def uses_of(check: str, document: Document, settings: Settings) -> Iterator[tuple[Contract, RuleUse]]:
    """The contract of a classified document and its uses of ``check`` that apply to it."""
    contract = contract_of(document, settings)
    if contract is None:
        return
    kind = document_kind(document)
    for use in contract.rules:
        if use.check == check and (not use.types or kind in use.types):
            yield contract, use


def contract_of(document: Document, settings: Settings) -> Contract | None:
    from pytest_handoff.profiles.contracts.config import contracts_of

    if document.handoff_type is None:
        return None
    name = document.handoff_type.split("/", 1)[0]
    return next((c for c in contracts_of(settings) if c.name == name), None)


def document_kind(document: Document) -> str | None:
    """The discriminator value of a classified document (None when its contract has none)."""
    handoff_type = document.handoff_type or ""
    return handoff_type.split("/", 1)[1] if "/" in handoff_type else None


def has_wildcard(field: str) -> bool:
    return "*" in field.split("/")
