"""The built-in checks a contract's rules use, each under the user's own rule id.

Every finding names that id (``Finding.rule``, and ``[id]`` at the start of its message); the
code (UC201-UC205) names the check, so ``select``, ``ignore``, ``severity`` and ``explain`` work
on the check, and a rule is switched off by taking it out of its contract.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pytest_handoff.places.pointers import resolve
from pytest_handoff.profiles.contracts.fields import (
    canonical,
    contract_of,
    document_kind,
    has_wildcard,
    items_of,
    strings_below,
    uses_of,
)
from pytest_handoff.profiles.contracts.patterns import Finder, placeholder_finder
from pytest_handoff.read.times import parse_timestamp
from pytest_handoff.rules.text import quote
from pytest_handoff.values.rules import Hit

if TYPE_CHECKING:
    from pytest_handoff.profiles.contracts.config import Contract, RuleUse
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.settings import Settings

#: What ``no-placeholders`` looks for unless a rule lists its own (``re:`` starts a regex).
DEFAULT_PLACEHOLDERS = (
    "TODO", "TBD", "FIXME", "...", "…", "lorem ipsum", "<placeholder>", r"re:^\s*<[^<>\n]+>\s*$",
)  # fmt: skip


def _hit(document: Document, pointer: str, use: RuleUse, message: str, **kwargs: Any) -> Hit:
    return Hit(document, pointer, f"[{use.id}] {message}", rule=use.id, **kwargs)


def check_min_distinct_items(document: Document, settings: Settings) -> Iterator[Hit]:
    """An array holds at least a minimum number of distinct items.

    **What it does**: for each rule `check = "min-distinct-items"` of the document's contract,
    counts the distinct items of the array at `field` (compared as normalised text: case, spaces
    and edge punctuation do not count; with `by`, the items' field at that pointer is compared),
    and reports the array when it has fewer than `min`. A `field` without `*` that is missing
    counts as no items.

    **Why is this bad?** An agent that must list three acceptance criteria can satisfy a
    `minItems` schema with the same criterion written three times; distinct items is what the
    next agent needs.

    **Example**: `criteria: ["Login works", "login works.", "Login works"]` with `min = 2`.

    **Use instead**: `criteria: ["Login works", "Logout clears the session"]`.
    """
    for _, use in uses_of("min-distinct-items", document, settings):
        field, minimum, by = use.params["field"], use.params["min"], use.params.get("by", "")
        found = list(resolve(document.data, field))
        if not found and not has_wildcard(field):
            yield _hit(
                document, field, use, f"{field} is missing; at least {minimum} distinct item(s) required"
            )
        for pointer, value in found:
            if not isinstance(value, list):
                continue  # the schema says what the field must be
            keys = {canonical(v) for item in value for _, v in (resolve(item, by) if by else [("", item)])}
            if len(keys) < minimum:
                compared = f" (compared by {by})" if by else ""
                yield _hit(
                    document, pointer, use,
                    f"{pointer} has {len(keys)} distinct item(s){compared}; at least {minimum} required",
                )  # fmt: skip


def placeholder_finder_of(placeholders: tuple[str, ...]) -> Finder:
    """The finder of a rule's placeholders: words as whole words; ``re:`` entries as regexes, run
    by RE2 (our own defaults by Python's engine: they are written to run in linear time)."""
    words = tuple(entry for entry in placeholders if not entry.startswith("re:"))
    patterns = tuple(entry[3:] for entry in placeholders if entry.startswith("re:"))
    if placeholders is DEFAULT_PLACEHOLDERS:
        return placeholder_finder(words, (), patterns)
    return placeholder_finder(words, patterns, ())


def check_no_placeholders(document: Document, settings: Settings) -> Iterator[Hit]:
    """A field holds real content, not a placeholder.

    **What it does**: for each rule `check = "no-placeholders"` of the document's contract, looks
    in every string at or below its `fields` (every string of the document when none are given)
    for a placeholder: `TODO`, `TBD`, `FIXME`, `...`, `…`, `lorem ipsum`, `<placeholder>` (as
    whole words, in any case) or a whole value in angle brackets such as `<describe the fix>`.
    `placeholders` replaces that list (an entry starting with `re:` is a regular expression).

    **Why is this bad?** A template filled in halfway passes every schema: the next agent reads
    "TBD" where the decision should be.

    **Example**: `summary: "TODO: describe the change"`.

    **Use instead**: `summary: "Sessions now expire after 30 minutes of inactivity"`.
    """
    for _, use in uses_of("no-placeholders", document, settings):
        configured = use.params.get("placeholders")
        find = placeholder_finder_of(DEFAULT_PLACEHOLDERS if configured is None else tuple(configured))
        for field in use.params.get("fields", ("",)):
            for base, value in resolve(document.data, field):
                for pointer, text in strings_below(base, value):
                    found = find(text)
                    if found is not None:
                        shown = found.strip() or found
                        yield _hit(
                            document, pointer, use,
                            f"placeholder {quote(shown, 40)} in {pointer or 'the document'}: write the actual content",
                        )  # fmt: skip


def _groups(chain: Group, settings: Settings) -> Iterator[tuple[Contract, list[Document]]]:
    """The chain's schema-valid documents by contract, in the group's order."""
    by_contract: dict[str, tuple[Contract, list[Document]]] = {}
    for document in chain.valid():
        contract = contract_of(document, settings)
        if contract is not None:
            by_contract.setdefault(contract.name, (contract, []))[1].append(document)
    yield from by_contract.values()


def _applies(use: RuleUse, document: Document, types: tuple[str, ...] | None = None) -> bool:
    wanted = use.types if types is None else types
    return not wanted or document_kind(document) in wanted


def _name(document: Document) -> str:
    return document.display_path + (f" ({document.label})" if document.label else "")


def check_covered_by(chain: Group, settings: Settings) -> Iterator[Hit]:
    """Every item of a field is covered by a field of another document of the group.

    **What it does**: for each rule `check = "covered-by"` of a contract, takes every item of
    `field` in each document (of the rule's `types`) and looks for it among the values of
    `covered-by` in the group's other documents (of `in-types`, when given). Items match as
    normalised text (case, spaces and edge punctuation do not count); `match = "exact"` compares
    them as they are. Each item not found is reported where it stands, with the covering field
    as a related place.

    **Why is this bad?** A plan lists five properties and the test report classifies four: the
    fifth was never tested, and nothing says so.

    **Example**: a `plan` document lists `properties: [login, logout]`; the group's `report`
    classifies only `login`.

    **Use instead**: a classification for `logout` in the report, or `logout` taken out of the plan.
    """
    for contract, documents in _groups(chain, settings):
        for use in contract.rules:
            if use.check != "covered-by":
                continue
            field, covering, match = (
                use.params["field"],
                use.params["covered-by"],
                use.params.get("match", "normalised"),
            )
            in_types = tuple(use.params.get("in-types", ()))
            for document in documents:
                if not _applies(use, document):
                    continue
                targets = [d for d in documents if d is not document and _applies(use, d, in_types)]
                covered = {
                    canonical(v, match) for target in targets for _, v in items_of(target.data, covering)
                }
                related = tuple(
                    (
                        t,
                        next((p for p, _ in items_of(t.data, covering)), covering),
                        f"covering field in {_name(t)}",
                    )
                    for t in targets[:3]
                )
                for pointer, value in items_of(document.data, field):
                    if canonical(value, match) in covered:
                        continue
                    if not targets:
                        kinds = f" of type {', '.join(in_types)}" if in_types else ""
                        message = f"{pointer} has nothing to be covered by: no other schema-valid document{kinds} in its group"
                        yield _hit(document, pointer, use, message)
                        break
                    yield _hit(
                        document, pointer, use,
                        f"{quote(str(value), 60)} at {pointer} is not covered by {covering} of {_name(targets[0])}"
                        + (f" or {len(targets) - 1} other document(s)" if len(targets) > 1 else ""),
                        related=related,
                    )  # fmt: skip


def check_count_equals_sum(document: Document, settings: Settings) -> Iterator[Hit]:
    """A count equals the sum of the fields it counts.

    **What it does**: for each rule `check = "count-equals-sum"` of the document's contract,
    compares the number at `count` with the sum of the fields in `sum` (a number adds its value,
    an array its length, a `*` field all it reaches; a missing field adds 0), and reports the
    count when they differ.

    **Why is this bad?** "12 tests, 10 passed, 1 failed": one test is unaccounted for, and a
    reader cannot tell whether the total or a part is wrong.

    **Example**: `total: 12`, `passed: 10`, `failed: 1` with `sum = ["/passed", "/failed"]`.

    **Use instead**: `total: 11`, or the missing test listed where it belongs.
    """
    for _, use in uses_of("count-equals-sum", document, settings):
        terms = use.params["sum"]
        for pointer, count in resolve(document.data, use.params["count"]):
            if isinstance(count, bool) or not isinstance(count, (int, float)):
                continue  # the schema says what the count must be
            total: float = 0
            for term in terms:
                for _, value in resolve(document.data, term):
                    if isinstance(value, list):
                        total += len(value)
                    elif isinstance(value, (int, float)) and not isinstance(value, bool):
                        total += value
            if total != count:
                shown = int(total) if float(total).is_integer() else total
                yield _hit(document, pointer, use, f"{pointer} is {count}, but {' + '.join(terms)} = {shown}")


def check_timestamps_forward(chain: Group, settings: Settings) -> Iterator[Hit]:
    """Timestamps go forward across a group's documents.

    **What it does**: for each rule `check = "timestamps-forward"` of a contract, reads `field`
    (a `*` field gives several per document) in each document of the group, in the group's order
    (files by name, the documents of a file in order), and reports a timestamp earlier than the
    one before it (`strict = true`: also one equal to it), and a value that is not a date-time.
    Times without a zone are taken as UTC.

    **Why is this bad?** A handoff dated before the one it answers was written from a stale
    copy, or its timestamp was made up.

    **Example**: `01-plan.yaml` at `2026-03-22T14:30:00Z`, `02-review.yaml` at `2026-03-22T09:00:00Z`.

    **Use instead**: the time the document was actually written.
    """
    for contract, documents in _groups(chain, settings):
        for use in contract.rules:
            if use.check != "timestamps-forward":
                continue
            strict = use.params.get("strict", False)
            previous: tuple[Document, str, str, datetime] | None = None
            for document in documents:
                if not _applies(use, document):
                    continue
                for pointer, value in resolve(document.data, use.params["field"]):
                    moment = parse_timestamp(value)
                    if moment is None:
                        yield _hit(
                            document, pointer, use, f"{quote(str(value), 40)} at {pointer} is not a date-time"
                        )
                        continue
                    if previous is not None and (moment < previous[3] or (strict and moment == previous[3])):
                        before, where, shown, _ = previous
                        relation = "earlier than" if moment < previous[3] else "the same as"
                        yield _hit(
                            document, pointer, use,
                            f"{value} at {pointer} is {relation} {shown} before it ({_name(before)} {where})",
                            related=((before, where, "the timestamp before it"),),
                        )  # fmt: skip
                    previous = (document, pointer, str(value), moment)
