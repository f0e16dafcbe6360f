"""Contract rules on a document that broke its schema: what they can still judge there.

A schema error used to hide every contract finding of its file until it was fixed, so an agent in
the hook loop learnt of them a round later. Now a document of a known type is given to the
contract rules too. A rule that cannot judge it (it raises on a value of the wrong shape) says
nothing about it, and a finding at or under a place the schema already reported is dropped: that
place is malformed, and the schema's finding says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from pytest_handoff.values.documents import Document
from pytest_handoff.values.findings import Finding
from pytest_handoff.values.rules import Hit

#: Per file (display path), the pointers its schema findings name (the document's root excluded:
#: a property missing at the top leaves every other property judgeable).
BrokenPlaces = Mapping[str, Sequence[str]]


def broken_places(schema_findings: Iterable[Finding]) -> dict[str, list[str]]:
    places: dict[str, list[str]] = {}
    for finding in schema_findings:
        if finding.pointer:
            places.setdefault(finding.path, []).append(finding.pointer)
    return places


def is_malformed_at(pointer: str, places: Sequence[str]) -> bool:
    """True when ``pointer`` is one of ``places`` or lies under one."""
    return any(pointer == place or pointer.startswith(place + "/") for place in places)


def judgeable(document: Document) -> bool:
    """A document the contract rules may read though its schema failed: typed, and a container."""
    return document.handoff_type is not None and isinstance(document.data, (dict, list))


def judged(check: Callable[[], Iterable[Hit]], broken: BrokenPlaces) -> list[Hit] | None:
    """The hits of ``check`` not at a malformed place, or None when it could not judge (raised)."""
    try:
        hits = list(check())
    except Exception:  # a value of another shape than the schema promised: no judgement
        return None
    return [
        hit for hit in hits if not is_malformed_at(hit.pointer, broken.get(hit.document.display_path, ()))
    ]
