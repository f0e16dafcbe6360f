"""NeuralRelay rules on classifications (NR301-NR305): every property classified once, falsified ones with bugs.

Each cycle's believed properties (its dev handoff) are matched to the classification entries of
every test-to-review handoff of the cycle (a security agent's and a test agent's) by the
assignment of :mod:`~pytest_handoff.profiles.neuralrelay.matching`, one handoff at a time.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from pytest_handoff.profiles.neuralrelay.cycles import cycles
from pytest_handoff.profiles.neuralrelay.matching import (
    FLOOR,
    GENERIC_STEMS,
    GENERIC_WORDS,
    Properties,
    Score,
    assign,
    identifiers,
)
from pytest_handoff.rules.text import content_tokens, head, match_words, quote
from pytest_handoff.values.rules import Hit

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.settings import Settings

CATEGORIES = ("confirmed", "falsified", "inconclusive")


class Classification(NamedTuple):
    """One entry of a test handoff's ``property_verification``, and where the assignment put it."""

    test: Document
    category: str
    at: int
    text: str
    #: The property the assignment gave it (None: none could be given).
    property_index: int | None
    score: Score
    #: The property it scores best against, and that score (for entries left out).
    best_index: int | None
    best: Score

    @property
    def pointer(self) -> str:
        return f"/property_verification/{self.category}/{self.at}"

    @property
    def label(self) -> str:
        return f"{self.category}[{self.at}]"


class CycleClassifications(NamedTuple):
    """A cycle's dev handoff, its test-to-review handoffs and their classified entries."""

    dev: Document
    tests: list[Document]
    entries: list[Classification]


def _classify(test: Document, properties: Properties, notes: list[str]) -> list[Classification]:
    texts = [
        (category, index, text)
        for category in CATEGORIES
        for index, text in enumerate(test.data["property_verification"][category])
    ]
    scores = [properties.scores(text) for _, _, text in texts]
    assignment = assign([[score.value for score in row] for row in scores])
    entries = []
    for row, (category, index, text) in enumerate(texts):
        best_index = max(range(len(properties)), key=lambda p: scores[row][p].value, default=None)
        best = scores[row][best_index] if best_index is not None else Score(0.0, "no match")
        chosen = assignment.get(row)
        entry = Classification(
            test,
            category,
            index,
            text,
            chosen,
            scores[row][chosen] if chosen is not None else best,
            best_index,
            best,
        )
        entries.append(entry)
        others = sorted(
            (
                (scores[row][p].value, p)
                for p in range(len(properties))
                if p != chosen and scores[row][p].value > 0
            ),
            reverse=True,
        )[:2]
        runner_up = ", ".join(f"P{p + 1} {value:.2f}" for value, p in others) or "none"
        target = (
            f"P{chosen + 1} ({entry.score.method}) score {entry.score.value:.2f}"
            if chosen is not None
            else (
                f"nothing (best P{best_index + 1} {best.value:.2f}, floor {FLOOR})"
                if best_index is not None
                else "nothing"
            )
        )
        notes.append(f"property match: {test.name} {entry.label} -> {target}; next: {runner_up}")
    return entries


def classifications(chain: Group) -> list[CycleClassifications]:
    """Every cycle's classifications, matched to its dev handoff's properties (cached per chain)."""
    cached: list[CycleClassifications] | None = chain.memo.get("classifications")
    if cached is not None:
        return cached
    found = []
    for cycle in cycles(chain):
        dev, tests = cycle.last("dev_to_test"), cycle.valid("test_to_review")
        if dev is None or not tests:
            continue
        properties = Properties([p["property"] for p in dev.data["properties_believed"]])
        entries = [entry for test in tests for entry in _classify(test, properties, chain.notes)]
        found.append(CycleClassifications(dev, tests, entries))
    chain.memo["classifications"] = found
    return found


def _repeated(cycle: CycleClassifications, entry: Classification) -> Classification | None:
    """The entry of the same handoff given the property ``entry`` restates, when ``entry`` got none."""
    if entry.property_index is not None or entry.best_index is None or entry.best.value < FLOOR:
        return None
    return next(
        (e for e in cycle.entries if e.test is entry.test and e.property_index == entry.best_index), None
    )


def check_every_property_classified(chain: Group, settings: Settings) -> Iterator[Hit]:
    """Every believed property of the dev handoff is classified by a test handoff of its cycle.

    **What it does**: scores every (classification, property) pair — an explicit `[P2]` / `P2:`
    reference, the property restated, shared content words (lightly stemmed, rare words weighing
    more), shared identifiers — and chooses the one-to-one assignment with the best total score in
    each test-to-review handoff (a security agent's and a test agent's alike). A property no
    handoff of its cycle could be assigned (no entry scores above the floor) is reported at the
    property. The handoff trace shows the assignment and its scores.

    **Why is this bad?** The test agent's job is to try to falsify each believed property; one left
    out was silently never tested.

    **Example**: five believed properties, four classifications.

    **Use instead**: classify every property, restating it: `"<property> — tested with ..."`.
    """
    for cycle in classifications(chain):
        assigned = {entry.property_index for entry in cycle.entries}
        names = ", ".join(test.name for test in cycle.tests)
        for index, prop in enumerate(cycle.dev.data["properties_believed"]):
            if index not in assigned:
                yield Hit(
                    cycle.dev,
                    f"/properties_believed/{index}/property",
                    f"property P{index + 1} is not classified as confirmed, falsified or inconclusive "
                    f"in {names}: {quote(prop['property'])}",
                    related=tuple(
                        (test, "/property_verification", "classifications") for test in cycle.tests
                    ),
                )


def check_property_classified_once(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A believed property is classified once per test handoff.

    **What it does**: reports a classification entry the assignment could not give a property of
    its own while it restates one (scores above the floor) that another entry of the same handoff
    was given, naming both.

    **Why is this bad?** A property both confirmed and falsified (or listed twice) leaves the
    reviewer with no verdict on it.

    **Example**: the same property under `confirmed` and under `inconclusive`.

    **Use instead**: one entry per property, in the one list that fits.
    """
    for cycle in classifications(chain):
        for entry in cycle.entries:
            other = _repeated(cycle, entry)
            if other is None or entry.best_index is None:
                continue
            yield Hit(
                entry.test,
                entry.pointer,
                f"property P{entry.best_index + 1} is classified again as {entry.category} "
                f"(already {other.label}; scores {entry.best.value:.2f} here, {other.score.value:.2f} there)",
                related=(
                    (entry.test, other.pointer, "other classification"),
                    (cycle.dev, f"/properties_believed/{entry.best_index}/property", "property"),
                ),
            )


def check_classifications_have_properties(chain: Group, settings: Settings) -> Iterator[Hit]:
    """Every classification entry refers to a believed property of the dev handoff.

    **What it does**: reports entries of `property_verification` that restate no property well
    enough to be assigned one (every pair scores below the floor), with the closest property.

    **Why is this bad?** The test agent verified something the developer never claimed, or reworded
    a property beyond recognition, so the chain loses track of what was tested.

    **Example**: `"confirmed": ["Login is secure"]` when no property mentions login.

    **Use instead**: restate the property first, or reference it explicitly: `"[P3] ..."`.
    """
    for cycle in classifications(chain):
        for entry in cycle.entries:
            if entry.property_index is not None or (
                entry.best_index is not None and entry.best.value >= FLOOR
            ):
                continue
            closest = (
                f" (closest: P{entry.best_index + 1}, score {entry.best.value:.2f} below {FLOOR})"
                if entry.best_index is not None and entry.best.value > 0
                else ""
            )
            yield Hit(
                entry.test,
                entry.pointer,
                f"{entry.category} entry matches no believed property of {cycle.dev.name}{closest}: "
                f"{quote(entry.text)}",
            )


class _Subject(NamedTuple):
    """What an entry is about: its identifiers and words (those of its restated head count double)."""

    identifiers: frozenset[str]
    head: frozenset[str]
    words: frozenset[str]


def _subject(entry: str, prop: str | None) -> _Subject:
    lead = head(entry) + (" " + prop if prop else "")
    return _Subject(
        identifiers(lead) | identifiers(entry),
        _content(lead),
        _content(entry),
    )


_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@lru_cache(maxsize=4096)
def _content(text: str) -> frozenset[str]:
    # Digits are incidental (a line number, a count), as are generic words. A camelCase name
    # (retryAfterSeconds) also counts by its words, as a bug's prose would spell them.
    words = set(match_words(text))
    if _CAMEL_BOUNDARY.search(text):
        words.update(match_words(_CAMEL_BOUNDARY.sub(" ", text)))
    return frozenset(word for word in words if not word.isdigit() and word not in GENERIC_STEMS)


def _pair(
    subject: _Subject, candidates: list[str], domain: Counter[str] | None = None
) -> tuple[int | None, float, list[str]]:
    """The candidate text that is most about ``subject``, its weight of evidence and what was shared.

    An identifier counts 2, a word of the restated property 1, another word of the entry 1/2;
    each divided by the number of candidates that have it (a word every bug has tells none apart)
    and by the number of believed properties that use it (``domain``: the feature's own words,
    "slot" in a booking chain, say what every property is about, not which one). When both name
    identifiers and share none, they are about different code: the weight is halved.
    """
    domain = domain or Counter()
    words = [_content(text) for text in candidates]
    found_ids = [identifiers(text) for text in candidates]
    frequency = Counter(w for ws in words for w in ws)
    id_frequency = Counter(i for ids in found_ids for i in ids)
    best: tuple[float, int, list[str]] | None = None
    for index, (ws, ids) in enumerate(zip(words, found_ids, strict=True)):
        shared_ids = subject.identifiers & ids
        shared_words = subject.words & ws
        weight = sum(2.0 / id_frequency[i] for i in shared_ids)
        weight += sum(
            (1.0 if w in subject.head else 0.5) / frequency[w] / max(1, domain[w]) for w in shared_words
        )
        if subject.identifiers and ids and not shared_ids and not _mentions(candidates[index], subject):
            weight /= 2  # both name the code they are about, and not the same code
        if best is None or weight > best[0]:
            best = (
                weight,
                index,
                sorted(shared_ids) + sorted(shared_words - {w for i in shared_ids for w in match_words(i)}),
            )
    if best is None or best[0] < 2.0:
        return None, best[0] if best else 0.0, best[2] if best else []
    return best[1], best[0], best[2]


def _mentions(text: str, subject: _Subject) -> bool:
    """True when ``text`` spells one of the subject's identifiers, also inside a longer name."""
    folded = text.casefold()
    return any(identifier.casefold() in folded for identifier in subject.identifiers)


def _domain_words(chain: Group, test: Document) -> Counter[str]:
    """How many believed properties of ``test``'s cycle use each word."""
    for cycle in classifications(chain):
        if test in cycle.tests:
            return Counter(w for p in cycle.dev.data["properties_believed"] for w in _content(p["property"]))
    return Counter()


def _entries_of(test: Document, category: str, chain: Group) -> Iterator[tuple[int, str, str | None]]:
    """(index, text, the assigned property's text) of each entry of ``category`` in ``test``."""
    assigned: dict[int, str] = {}
    for cycle in classifications(chain):
        props = cycle.dev.data["properties_believed"]
        for entry in cycle.entries:
            if entry.test is test and entry.category == category and entry.property_index is not None:
                assigned[entry.at] = props[entry.property_index]["property"]
    for index, text in enumerate(test.data["property_verification"][category]):
        yield index, text, assigned.get(index)


def check_falsified_properties_have_bugs(chain: Group, settings: Settings) -> Iterator[Hit]:
    """Every falsified property has a bug in ``bugs_found`` with a counterexample.

    **What it does**: for each `falsified` entry of each test-to-review handoff, looks for a bug
    (description, location, counterexample) about the same subject: shared identifiers weigh 2,
    shared words of the property 1, other shared words 1/2, each divided by how many bugs share
    it and by how many believed properties use it (the feature's own words tell nothing apart);
    numbers and words every handoff uses ("line", "test", "value") do not count, and a bug that
    names other identifiers than the property counts half. A bug needs a weight of 2.

    **Why is this bad?** A falsified property is a real bug; without a bug entry it has no severity,
    no counterexample and no suggested fix, and the reviewer may never see it.

    **Example**: `"falsified": ["retry is idempotent — FALSIFIED"]` with `"bugs_found": []`.

    **Use instead**: add a bug with a minimal counterexample for it.
    """
    for test in chain.valid("test_to_review"):
        bugs = [
            " ".join((b["description"], b["location"], b["counterexample"])) for b in test.data["bugs_found"]
        ]
        domain = _domain_words(chain, test)
        for index, entry, prop in _entries_of(test, "falsified", chain):
            subject = _subject(entry, prop)
            matched, weight, shared = _pair(subject, bugs, domain)
            pointer = f"/property_verification/falsified/{index}"
            if matched is None:
                shown = sorted(content_tokens(head(entry)) - GENERIC_WORDS - subject.identifiers)
                words = ", ".join(sorted(subject.identifiers) + shown[:8])
                yield Hit(
                    test,
                    pointer,
                    f"falsified property has no matching bug in bugs_found (looked for a bug about: {words})",
                )
            else:
                chain.notes.append(
                    f"{test.name} falsified[{index}] -> bugs_found[{matched}] (weight {weight:.1f}; "
                    f"shared: {', '.join(shared[:6])})"
                )


def check_inconclusive_properties_explained(chain: Group, settings: Settings) -> Iterator[Hit]:
    """Every inconclusive property is explained in ``remaining_risks``.

    **What it does**: for each `inconclusive` entry of each test-to-review handoff, looks for a
    `remaining_risks` entry about the same subject (weighed as NR304 weighs bugs).

    **Why is this bad?** An inconclusive property is an open risk; if it is not carried into the
    remaining risks, the reviewer treats the feature as tested.

    **Example**: `"inconclusive": ["state is single-use — needs an HTTP server"]`, no risk mentions it.

    **Use instead**: `"remaining_risks": ["State replay within the 5-minute window is untested"]`.
    """
    for test in chain.valid("test_to_review"):
        risks = test.data["remaining_risks"]
        for index, entry, prop in _entries_of(test, "inconclusive", chain):
            matched, weight, shared = _pair(_subject(entry, prop), risks)
            if matched is None:
                yield Hit(
                    test,
                    f"/property_verification/inconclusive/{index}",
                    "inconclusive property is not explained in remaining_risks",
                )
            else:
                chain.notes.append(
                    f"{test.name} inconclusive[{index}] -> remaining_risks[{matched}] (weight {weight:.1f}; "
                    f"shared: {', '.join(shared[:6])})"
                )
