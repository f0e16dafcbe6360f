"""NeuralRelay rules on a property's counterexample (NR2xx): present, concrete, minimal."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING

from pytest_handoff.profiles.builtin import NEURALRELAY as SPEC
from pytest_handoff.profiles.neuralrelay.handoff import is_placeholder
from pytest_handoff.rules.text import quote
from pytest_handoff.values.rules import Hit

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.settings import Settings


_QUOTED = r"(?<!\w)'[^']+'(?!\w)|\"[^\"]+\"|`[^`]+`|\u2018[^\u2019]+\u2019|\u201c[^\u201d]+\u201d"
_OUTCOME = (
    r"returns?|returned|raises?|raised|throws?|threw|gives?|gave|yields?|produces?|produced|responds?|"
    r"responded|prints?|printed|logs?|logged|shows?|showed|shown|displays?|displayed|stores?|stored|"
    r"becomes?|became|evaluates?|results?|creates?|created|deletes?|deleted|saves?|saved|writes?|wrote|"
    r"crash(?:es|ed)?|hangs?|times? out|status|exception|error"
)
_JUDGED = 2000


@cache
def concrete_markers() -> tuple[re.Pattern[str], ...]:
    """What makes a counterexample reproducible: a call, an Expected/Actual pair, a comparison or
    mapping, an HTTP request, a quoted input with an outcome, or an outcome with a value. Matched
    on lower-cased text: IGNORECASE makes the outcome alternation slow to compile. Compiled on
    first use: most chains have no bug, so no counterexample to judge."""
    return (
        re.compile(r"[a-z_][\w.]*\([^()\n]*\)"),  # a call: parse('x'), f()
        re.compile(
            r"\bexpected\b[\s\S]*\b(?:actual|got|but|received|returns?|returned)\b|"
            r"\b(?:actual|got)\b[\s\S]*\bexpected\b|\binstead of\b|\brather than\b",
        ),
        re.compile(r"==|!=|=>|->|\u2192|\w=\S"),  # a comparison, mapping or key=value
        re.compile(rf"\b(?:{_OUTCOME})\b\W{{0,3}}(?:\w+\W+){{0,3}}?\d"),  # "returns 500"
    )


@cache
def _quoted_outcome() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """An HTTP request as written, a quoted input, an outcome word (compiled on first use)."""
    return (
        re.compile(r"\b(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+/"),
        re.compile(_QUOTED),
        re.compile(rf"\b(?:{_OUTCOME})\b"),
    )


def is_concrete(counterexample: str) -> bool:
    """True when a counterexample gives something to replay (see :func:`concrete_markers`)."""
    # What makes one concrete shows early: a long one (NR206's concern) is judged by its start,
    # which also keeps the backtracking markers linear.
    counterexample = counterexample[:_JUDGED]
    text = counterexample.lower()
    http_request, quotes, outcome_word = _quoted_outcome()
    if http_request.search(counterexample) or any(marker.search(text) for marker in concrete_markers()):
        return True
    # A quoted input with an outcome outside the quotes ("'2024-02-30' raises ValueError").
    outside = quotes.sub("\0", text)
    return outside != text and outcome_word.search(outside) is not None


def check_counterexample_present(document: Document, settings: Settings) -> Iterator[Hit]:
    """Every bug in ``bugs_found`` has a counterexample that is not empty or a placeholder.

    **What it does**: flags counterexamples that are empty or say "N/A", "see above", "TBD" and the like.

    **Why is this bad?** A bug without a reproduction cannot be confirmed by the reviewer or turned
    into a regression test by the developer.

    **Example**: `"counterexample": "see above"`.

    **Use instead**: `"counterexample": "decryptToken('not-a-valid-ciphertext') returns '' instead of throwing"`.
    """
    for index, bug in enumerate(document.data.get("bugs_found", [])):
        if is_placeholder(bug["counterexample"]):
            yield Hit(
                document,
                f"/bugs_found/{index}/counterexample",
                f"bug {index} has no counterexample ({quote(bug['counterexample'])})",
            )


def check_counterexample_concrete(document: Document, settings: Settings) -> Iterator[Hit]:
    """A counterexample is concrete: it gives an input, a call or a value, or an Expected/Actual pair.

    **What it does**: looks for what a reviewer can replay: a call like `f(x)`, an Expected/Actual
    pair ("instead of"), a comparison or mapping (`==`, `->`, `key=value`), an HTTP request
    (`POST /api/x`), a quoted input with its outcome ("returns", "throws", "creates"), or an
    outcome with a value ("responds 500"). A number or a quote alone is not enough: "fails on
    iOS 17 keyboards" names no input and no result.

    **Why is this bad?** "Fails on some inputs" does not let anybody reproduce the bug.

    **Example**: `"The function breaks with bad data"`.

    **Use instead**: `"parse_date('2024-02-30') returns March 1 instead of raising ValueError"`.
    """
    for index, bug in enumerate(document.data.get("bugs_found", [])):
        text = bug["counterexample"]
        if is_placeholder(text):
            continue  # NR204's business
        if not is_concrete(text):
            yield Hit(
                document,
                f"/bugs_found/{index}/counterexample",
                "counterexample is not concrete: give the input, call or value that triggers the "
                "bug, or an Expected/Actual pair",
            )


def check_counterexample_minimal(document: Document, settings: Settings) -> Iterator[Hit]:
    """A counterexample is minimal: at most ``max-counterexample-length`` characters (default 600).

    **What it does**: measures each counterexample in characters.

    **Why is this bad?** The protocol asks for the smallest reproduction; a long one usually mixes
    several bugs or pastes a log.

    **Example**: a counterexample holding a 3 kB stack trace.

    **Use instead**: the shortest input that still fails, and the failure in one sentence.
    """
    limit: int = SPEC.option(settings, "max-counterexample-length")
    for index, bug in enumerate(document.data.get("bugs_found", [])):
        length = len(bug["counterexample"])
        if length > limit:
            yield Hit(
                document,
                f"/bugs_found/{index}/counterexample",
                f"counterexample is {length} characters long; keep it under {limit} (minimal reproduction)",
            )
