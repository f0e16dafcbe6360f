"""NeuralRelay cycles: a chain split at its rework files, and the rules on cycles (NR307-NR309).

A chain runs its stages once, and again after each review that asks for changes:
``01-ba 02-dev 03-test 04-review rework-1 05-dev 06-test 07-review``. Each run is a cycle;
rules about tokens, classifications and order read one cycle at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from pytest_handoff.profiles.builtin import NEURALRELAY as SPEC
from pytest_handoff.profiles.neuralrelay.format import REWORK_FILE
from pytest_handoff.values.rules import Hit

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.settings import Settings


class Cycle(NamedTuple):
    """One run of the stages: its number (from 1), the rework file that opened it, its handoffs."""

    number: int
    rework: Document | None
    documents: list[Document]

    def valid(self, handoff_type: str) -> list[Document]:
        """Schema-valid handoffs of ``handoff_type`` in this cycle, in order."""
        return [doc for doc in self.documents if doc.schema_valid and doc.handoff_type == handoff_type]

    def first(self, handoff_type: str) -> Document | None:
        found = self.valid(handoff_type)
        return found[0] if found else None

    def last(self, handoff_type: str) -> Document | None:
        found = self.valid(handoff_type)
        return found[-1] if found else None


def cycles(chain: Group) -> list[Cycle]:
    """The chain's cycles, in order (cached per chain).

    A rework file opens a new cycle; so does a numbered handoff after a review (a rework file
    that was never committed). Files of every cycle keep their place in the chain's order.
    """
    cached: list[Cycle] | None = chain.memo.get("cycles")
    if cached is not None:
        return cached
    found: list[Cycle] = [Cycle(1, None, [])]
    for document in chain.documents:
        current = found[-1]
        if REWORK_FILE.fullmatch(document.name):
            found.append(Cycle(len(found) + 1, document, []))
            continue
        reviewed = any(doc.handoff_type == "review_final" for doc in current.documents)
        if reviewed and document.handoff_type != "review_final":
            current = Cycle(len(found) + 1, None, [])
            found.append(current)
        current.documents.append(document)
    chain.memo["cycles"] = found
    return found


def check_token_total(chain: Group, settings: Settings) -> Iterator[Hit]:
    """The review's ``total_tokens`` is at least the sum of the agents' ``tokens_used``.

    **What it does**: adds `tokens_used` of every dev and test (and security) handoff of a cycle
    and compares it with the `total_tokens` of that cycle's review (each rework cycle on its own).

    **Why is this bad?** NeuralRelay reports pipeline cost from `total_tokens`; a total below its
    parts under-reports what the run cost.

    **Example**: dev 45,200 + test 28,400 tokens, review `"total_tokens": 50000`.

    **Use instead**: the sum of every agent's tokens, the review agent's own included.
    """
    for cycle in cycles(chain):
        yield from _check_cycle_tokens(cycle)


def _check_cycle_tokens(cycle: Cycle) -> Iterator[Hit]:
    review = cycle.first("review_final")
    if review is None:
        return
    parts = cycle.valid("dev_to_test") + cycle.valid("test_to_review")
    parts.sort(key=cycle.documents.index)
    spent = sum(doc.data["tokens_used"] for doc in parts)
    if parts and review.data["total_tokens"] < spent:
        breakdown = " + ".join(f"{doc.name} {doc.data['tokens_used']:,}" for doc in parts)
        yield Hit(
            review,
            "/total_tokens",
            f"total_tokens {review.data['total_tokens']:,} is less than the agents' own "
            f"{spent:,} ({breakdown})",
            related=tuple((doc, "/tokens_used", "tokens_used") for doc in parts),
        )


def check_rework_follows_request(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A rework file follows a review that asked for changes, and agrees with it.

    **What it does**: requires a review before the rework file (the latest one) whose verdict is
    `changes_requested` or `needs_rework`, that the rework's `verdict` is that review's verdict, and
    that `rework_cycle` is the `N` of `rework-{N}.json`.

    **Why is this bad?** Rework after an approval, or a rework that misstates the review, means the
    pipeline was re-run by hand on the wrong input.

    **Example**: `rework-1.json` in a chain whose review says `"verdict": "approved"`.

    **Use instead**: start rework only from a review that requested it.
    """
    review: Document | None = None  # the latest review before each rework file
    for cycle in cycles(chain):
        if cycle.rework is not None and cycle.rework.schema_valid:
            yield from _check_rework(cycle.rework, review)
        review = cycle.last("review_final") or review


def _check_rework(rework: Document, review: Document | None) -> Iterator[Hit]:
    named = REWORK_FILE.fullmatch(rework.name)
    if named and rework.data["rework_cycle"] != int(named.group("cycle")):
        yield Hit(
            rework,
            "/rework_cycle",
            f"rework_cycle {rework.data['rework_cycle']} does not match the file name {rework.name}",
        )
    if review is None:
        yield Hit(rework, "", "rework without a review handoff before it")
    elif review.data["verdict"] == "approved":
        yield Hit(
            rework,
            "",
            "rework after a review that approved the change",
            related=((review, "/verdict", "verdict"),),
        )
    elif rework.data["verdict"] != review.data["verdict"]:
        yield Hit(
            rework,
            "/verdict",
            f"rework says the review's verdict was {rework.data['verdict']!r}, "
            f"but {review.name} says {review.data['verdict']!r}",
            related=((review, "/verdict", "verdict"),),
        )


def check_rework_cycles(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A chain goes through at most ``max-rework-cycles`` rework cycles (default 2).

    **What it does**: counts `rework-{N}.json` files and reports each cycle over the limit.

    **Why is this bad?** NeuralRelay stops after two rework cycles and hands over to a human; a third
    cycle means the loop is not converging and tokens are being burnt.

    **Example**: `rework-1.json`, `rework-2.json`, `rework-3.json`.

    **Use instead**: escalate to a human after the second cycle.
    """
    limit: int = SPEC.option(settings, "max-rework-cycles")
    reworks = [doc for doc in chain.documents if REWORK_FILE.fullmatch(doc.name)]
    for count, rework in enumerate(reworks, start=1):
        if count > limit:
            yield Hit(rework, "", f"rework cycle {count} exceeds the limit of {limit}")
