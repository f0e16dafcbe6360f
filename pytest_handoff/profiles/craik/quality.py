"""Quality scores: consistent in themselves, and with the handoff they score.

Craik derives a handoff's quality score (``runtime/work/quality_scores.py``): nine components,
each 1 or 0 by a condition on the handoff, with fixed weights; the score is their weighted mean
rounded to 4 places, and the band follows from the score. These rules recompute what can be
recomputed and report what disagrees (within :data:`TOLERANCE`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from pytest_handoff.profiles.craik.format import HANDOFF, HANDOFF_DOCS, QUALITY_SCORE
from pytest_handoff.values.rules import Hit
from pytest_handoff.values.wording import counted

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.settings import Settings

#: How far a stated number may be from the recomputed one (scores are rounded to 4 places).
TOLERANCE = 1e-4

AUDIT_BOXES = (
    "schema_validated",
    "redaction_reviewed",
    "receipts_reviewed",
    "assumptions_reviewed",
    "validation_recorded",
    "policy_exceptions_disclosed",
)


def band_of(score: float) -> str:
    """Craik's band for a score: excellent from 0.85, adequate from 0.60, else poor."""
    if score >= 0.85:
        return "excellent"
    if score >= 0.60:
        return "adequate"
    return "poor"


def weighted_mean(components: list[dict[str, Any]]) -> float:
    """Craik's score of a list of components: the weighted mean of their scores, to 4 places."""
    total = sum(float(c["weight"]) for c in components)
    return round(sum(float(c["score"]) * float(c["weight"]) for c in components) / total, 4)


class Component(NamedTuple):
    """One of Craik's score components: its weight, where in the handoff it looks, and its test."""

    weight: float
    pointer: str
    test: Callable[[dict[str, Any]], tuple[bool, str]]


def _list(data: dict[str, Any], key: str) -> list[Any]:
    value = data.get(key)
    return value if isinstance(value, list) else []


def _box(data: dict[str, Any], box: str) -> bool:
    audit = data.get("self_audit")
    return isinstance(audit, dict) and audit.get(box) is True


def _summary(data: dict[str, Any]) -> tuple[bool, str]:
    summary = data.get("summary")
    filled = isinstance(summary, str) and bool(summary.strip())
    return filled, "summary is not blank" if filled else "summary is blank"


def _filled(key: str) -> Callable[[dict[str, Any]], tuple[bool, str]]:
    def test(data: dict[str, Any]) -> tuple[bool, str]:
        count = len(_list(data, key))
        return count > 0, f"{key} has {counted(count, 'entry', 'entries')}" if count else f"{key} is empty"

    return test


def _empty(key: str) -> Callable[[dict[str, Any]], tuple[bool, str]]:
    def test(data: dict[str, Any]) -> tuple[bool, str]:
        count = len(_list(data, key))
        return count == 0, f"{key} has {counted(count, 'entry', 'entries')}" if count else f"{key} is empty"

    return test


def _validation(data: dict[str, Any]) -> tuple[bool, str]:
    tests, box = len(_list(data, "tests_run")), _box(data, "validation_recorded")
    why = f"tests_run has {counted(tests, 'entry', 'entries')}" if tests else "tests_run is empty"
    return tests > 0 and box, f"{why} and validation_recorded is {'true' if box else 'not true'}"


def _receipts(data: dict[str, Any]) -> tuple[bool, str]:
    receipts, box = len(_list(data, "receipt_ids")), _box(data, "receipts_reviewed")
    why = f"receipt_ids has {counted(receipts, 'entry', 'entries')}" if receipts else "receipt_ids is empty"
    return receipts > 0 and box, f"{why} and receipts_reviewed is {'true' if box else 'not true'}"


def _evidence(data: dict[str, Any]) -> tuple[bool, str]:
    linked = [key for key in ("artifacts", "adjudication_ids", "receipt_ids") if _list(data, key)]
    if linked:
        return True, f"{linked[0]} is not empty"
    return False, "artifacts, adjudication_ids and receipt_ids are empty"


def _risks(data: dict[str, Any]) -> tuple[bool, str]:
    open_ = [key for key in ("risks", "unresolved_disagreements") if _list(data, key)]
    if open_:
        return False, f"{open_[0]} is not empty"
    return True, "risks and unresolved_disagreements are empty"


def _self_audit(data: dict[str, Any]) -> tuple[bool, str]:
    unchecked = [box for box in AUDIT_BOXES if not _box(data, box)]
    if unchecked:
        return False, f"self_audit.{unchecked[0]} is not true"
    return True, "all six self_audit booleans are true"


#: Craik's components, their weights and conditions (``score_handoff_quality``).
COMPONENTS: dict[str, Component] = {
    "summary": Component(0.12, "/summary", _summary),
    "completed_actions": Component(0.12, "/completed_actions", _filled("completed_actions")),
    "validation_records": Component(0.18, "/tests_run", _validation),
    "receipt_links": Component(0.14, "/receipt_ids", _receipts),
    "evidence_links": Component(0.10, "/artifacts", _evidence),
    "context_debt": Component(0.12, "/context_debt", _empty("context_debt")),
    "unresolved_risks": Component(0.12, "/risks", _risks),
    "next_steps": Component(0.04, "/next_steps", _filled("next_steps")),
    "self_audit": Component(0.16, "/self_audit", _self_audit),
}


def expected_score(handoff: dict[str, Any]) -> float:
    """The score Craik computes for ``handoff`` (all nine components)."""
    return weighted_mean(
        [{"score": float(c.test(handoff)[0]), "weight": c.weight} for c in COMPONENTS.values()]
    )


def check_band(document: Document, settings: Settings) -> Iterator[Hit]:
    """A quality score's band is the one its score falls in.

    **What it does**: reports a `band` other than Craik's for the `score`: `excellent` from
    0.85, `adequate` from 0.60 up to 0.85, `poor` below 0.60.

    **Why is this bad?** Readers sort and filter handoffs by band; a band that contradicts the
    number sends a weak handoff on as a good one (or the reverse). Craik refuses to load such a
    record.

    **Example**: `"score": 0.58, "band": "adequate"`.

    **Use instead**: `"score": 0.58, "band": "poor"` (with its `blocking_reasons`).
    """
    data = document.data
    expected = band_of(float(data["score"]))
    if data["band"] != expected:
        yield Hit(
            document,
            "/band",
            f"band {data['band']!r} does not fit score {data['score']}: Craik's band is {expected!r}",
        )


def check_poor_has_reasons(document: Document, settings: Settings) -> Iterator[Hit]:
    """A `poor` quality score says what blocks the handoff, in `blocking_reasons`.

    **What it does**: reports a score whose band is `poor` and whose `blocking_reasons` is
    missing or empty.

    **Why is this bad?** A poor score warns the next agent off the handoff; without the reasons
    it cannot tell what to repair first. Craik refuses to load such a record.

    **Example**: `"band": "poor", "blocking_reasons": []`.

    **Use instead**: `"blocking_reasons": ["Validation records are missing or not self-audited."]`.
    """
    data = document.data
    if data["band"] == "poor" and not data.get("blocking_reasons"):
        where = "/blocking_reasons" if "blocking_reasons" in data else "/band"
        yield Hit(document, where, "a poor quality score needs blocking_reasons, and has none")


def check_weighted_mean(document: Document, settings: Settings) -> Iterator[Hit]:
    """A quality score is the weighted mean of its components, rounded to 4 places.

    **What it does**: recomputes `sum(score * weight) / sum(weight)` over `components`, rounds it
    to 4 decimal places as Craik does, and reports a `score` more than 0.0001 away from it.

    **Why is this bad?** The total is what readers see; if it does not follow from the components
    listed, it was edited by hand or computed by different rules, and neither can be trusted.

    **Example**: components `summary` 1.0 * 0.12 and `next_steps` 0.0 * 0.04 with `"score": 1.0`
    (their mean is 0.75).

    **Use instead**: `"score": 0.75`, or the components that give 1.0.
    """
    data = document.data
    computed = weighted_mean(data["components"])
    if abs(float(data["score"]) - computed) > TOLERANCE:
        yield Hit(
            document,
            "/score",
            f"score {data['score']} is not the weighted mean of its components ({computed})",
        )


def check_agrees_with_handoff(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A quality score agrees with the handoff it scores, component by component.

    **What it does**: finds the handoff a score names (`handoff_id`) among the records of its
    group (the JSON files of its folder, or the rows of its store), recomputes each component
    the score lists by Craik's rules, and reports a component score or weight that differs, then
    a total that differs from Craik's score of the handoff (over all nine components). Craik's
    weights and conditions: `summary` 0.12 (not blank), `completed_actions` 0.12 (not empty),
    `validation_records` 0.18 (`tests_run` not empty and `validation_recorded`), `receipt_links`
    0.14 (`receipt_ids` not empty and `receipts_reviewed`), `evidence_links` 0.10 (any of
    `artifacts`, `adjudication_ids`, `receipt_ids`), `context_debt` 0.12 (empty),
    `unresolved_risks` 0.12 (no `risks`, no `unresolved_disagreements`), `next_steps` 0.04 (not
    empty), `self_audit` 0.16 (all six booleans true). A score may list fewer than nine
    components; those it leaves out are not reported. Its `task_id` and `project_id` must be the
    handoff's. A handoff of the docs' shape is not recomputed (Craik scores only its own shape).

    **Why is this bad?** A score that does not follow from its handoff was made for another
    version of it (the handoff changed after scoring) or by hand; readers who trust it are misled
    about the handoff's quality.

    **Example**: `{"name": "receipt_links", "score": 1.0}` for a handoff whose `receipt_ids` is
    empty.

    **Use instead**: score the handoff again (`craik` does when the handoff is written), or fix
    the handoff the score was made for.
    """
    handoffs = _handoffs_by_id(chain)
    for score in chain.valid(QUALITY_SCORE):
        handoff = handoffs.get(score.data["handoff_id"])
        if handoff is None or handoff.handoff_type != HANDOFF or not handoff.schema_valid:
            continue  # absent: CK205; of the docs' shape: Craik's scoring does not apply; invalid: HS001
        yield from _disagreements(score, handoff)


def _disagreements(score: Document, handoff: Document) -> Iterator[Hit]:
    data = handoff.data
    for field in ("task_id", "project_id"):
        if score.data[field] != data[field]:
            yield Hit(
                score,
                f"/{field}",
                f"{field} {score.data[field]!r} is not the scored handoff's ({data[field]!r})",
                related=((handoff, f"/{field}", f"{data['id']}'s {field}"),),
            )
    for index, component in enumerate(score.data["components"]):
        known = COMPONENTS[component["name"]]
        passed, why = known.test(data)
        at = f"/components/{index}"
        related = ((handoff, known.pointer, f"{handoff.label or data['id']}: {why}"),)
        if abs(float(component["score"]) - float(passed)) > TOLERANCE:
            yield Hit(
                score,
                f"{at}/score",
                f"component {component['name']!r} scores {component['score']}, but the handoff "
                f"{data['id']!r} gives {float(passed)} ({why})",
                related=related,
            )
        if abs(float(component["weight"]) - known.weight) > TOLERANCE:
            yield Hit(
                score,
                f"{at}/weight",
                f"component {component['name']!r} weighs {component['weight']}; Craik weighs it {known.weight}",
            )
    expected = expected_score(data)
    if abs(float(score.data["score"]) - expected) > TOLERANCE:
        yield Hit(
            score,
            "/score",
            f"score {score.data['score']} disagrees with Craik's score of the handoff {data['id']!r} ({expected})",
            related=((handoff, "", "the handoff scored"),),
        )


def check_handoff_present(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A quality score's handoff is in its group.

    **What it does**: reports a score whose `handoff_id` names no handoff among the records of
    its group (the JSON files of its folder, or the rows of its store), so that it cannot be
    checked against it.

    **Why is this bad?** In a store, a score whose handoff is gone is a dangling record; in a
    folder of exports, the score is shared without what it judges, and nobody can verify it.

    **Example**: `quality.craik.json` with `"handoff_id": "handoff_42"` in a folder with no
    record whose `id` is `handoff_42`.

    **Use instead**: export the handoff beside its score (`craik handoff show handoff_42 >
    handoff_42.craik.json`), or correct `handoff_id`.
    """
    handoffs = _handoffs_by_id(chain)
    for score in chain.valid(QUALITY_SCORE):
        if score.data["handoff_id"] not in handoffs:
            yield Hit(
                score,
                "/handoff_id",
                f"no handoff with id {score.data['handoff_id']!r} in this group: the score cannot be checked",
            )


def _handoffs_by_id(chain: Group) -> dict[str, Document]:
    """The group's handoffs (of either shape, parsed) by their ``id``; the first of an id wins."""
    found: dict[str, Document] = chain.memo.get("craik_handoffs") or {}
    if "craik_handoffs" in chain.memo:
        return found
    for document in chain.documents:
        if document.handoff_type in (HANDOFF, HANDOFF_DOCS) and isinstance(document.data.get("id"), str):
            found.setdefault(document.data["id"], document)
    chain.memo["craik_handoffs"] = found
    return found
