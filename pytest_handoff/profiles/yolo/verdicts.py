"""What YOLO's reviewing agents hand on in a phase folder: QA's and the Senior's verdicts, the
critic's findings and the tester's plan, held to what the next agent relies on.

Their lines are typed by file and place (see :mod:`artifacts`) and checked against the schemas
``yolo-artifacts/*``, which require what the next agent reads; these rules still read every line
defensively (a line of another shape is skipped, never an error of theirs). Learnt from YOLO's
artifact-formats and execute-protocol references (2026-02-13 to 2026-02-19).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pytest_handoff.profiles.yolo.layout import EXECUTION_STATE, phase_of, plan_file
from pytest_handoff.values.rules import Hit

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.settings import Settings

#: The most review cycles YOLO's format allows (code-review ``cycle``, 1-3).
MAX_REVIEW_CYCLES = 3


def _lines(chain: Group, name: str) -> list[Document]:
    """The objects of the folder's file ``name``, in line order."""
    return [doc for doc in chain.documents if doc.name == name and isinstance(doc.data, dict)]


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def check_verdicts(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A passing verdict agrees with the findings and counts written under it.

    **What it does**: in a phase folder, reports
    - `verification.jsonl` whose first line says `r: "PASS"` with `fl` (checks failed) above 0,
      or with a check line whose `r` is `fail`, unless that line explains them (a non-empty
      `gaps` or `notes`, as YOLO's own phase 05 does);
    - `qa-code.jsonl` whose first line says `r: "PASS"` with failed tests (`tests.fl` above 0)
      that neither that line nor a finding line each explains, or with a `critical` or `major`
      finding line (QA's PASS "requires zero critical/major findings");
    - `code-review.jsonl` whose first line says `r: "approve"` with a `critical` finding line,
      or a review `cycle` beyond 3 (the format allows 1-3).

    **Why is this bad?** The next agent reads the first line: a PASS or an approval over failures
    sends unfinished work on to security review, sign-off and the user.

    **Example**: `{"tier": "standard", "r": "PASS", "ps": 30, "fl": 2, "tt": 32, ...}`.

    **Use instead**: `"r": "PARTIAL"` (or `FAIL`) with the failures in `gaps.jsonl`; for a review,
    `"r": "changes_requested"`.
    """
    yield from _verification(_lines(chain, "verification.jsonl"))
    yield from _qa_code(_lines(chain, "qa-code.jsonl"))
    yield from _code_review(_lines(chain, "code-review.jsonl"))


def _explained(data: dict[str, Any]) -> bool:
    """True when a verdict's line says why it passes anyway (a non-empty ``gaps`` or ``notes``)."""
    return any(isinstance(data.get(key), (str, list)) and data[key] for key in ("gaps", "notes"))


def _verification(lines: list[Document]) -> Iterator[Hit]:
    if not lines or lines[0].data.get("r") != "PASS" or _explained(lines[0].data):
        return
    head = lines[0]
    failed = _number(head.data.get("fl"))
    if failed:
        yield Hit(head, "/r", f"verification says PASS with {failed} check(s) failed (fl)")
    failing = [doc for doc in lines[1:] if doc.data.get("r") == "fail"]
    if failing and not failed:
        yield Hit(
            head,
            "/r",
            f"verification says PASS, but {len(failing)} check line(s) failed",
            related=((failing[0], "/r", "failed check"),),
        )


def _qa_code(lines: list[Document]) -> Iterator[Hit]:
    if not lines or lines[0].data.get("r") != "PASS":
        return
    head = lines[0]
    tests = head.data.get("tests")
    failed = _number(tests.get("fl")) if isinstance(tests, dict) else None
    # Failing tests are explained by the line itself (gaps, notes) or a finding line for each.
    if failed and not _explained(head.data) and len(lines) - 1 < failed:
        yield Hit(head, "/r", f"QA says PASS with {failed} failing test(s) (tests.fl) that no line explains")
    severe = [doc for doc in lines[1:] if doc.data.get("sev") in ("critical", "major")]
    if severe:
        yield Hit(
            head,
            "/r",
            f"QA says PASS with {len(severe)} critical or major finding(s); PASS requires none",
            related=((severe[0], "/sev", "finding"),),
        )


def _code_review(lines: list[Document]) -> Iterator[Hit]:
    if not lines:
        return
    head = lines[0]
    cycle = _number(head.data.get("cycle"))
    if cycle is not None and cycle > MAX_REVIEW_CYCLES:
        yield Hit(
            head, "/cycle", f"review cycle {cycle}: YOLO's review loop allows at most {MAX_REVIEW_CYCLES}"
        )
    critical = [doc for doc in lines[1:] if doc.data.get("sev") == "critical"]
    if head.data.get("r") == "approve" and critical:
        yield Hit(
            head,
            "/r",
            f"review approves with {len(critical)} critical finding(s)",
            related=((critical[0], "/sev", "critical finding"),),
        )


def check_critique_settled(chain: Group, settings: Settings) -> Iterator[Hit]:
    """No critique finding is still open once the phase has plans.

    **What it does**: reports each line of `critique.jsonl` with `st: "open"` in a phase folder
    that holds a plan (`NN-MM.plan.jsonl`): YOLO's execution protocol lets planning start only
    when every finding is addressed, deferred or rejected.

    **Why is this bad?** An open finding is a question the architect never answered; the plans
    were written as if it had been.

    **Example**: `{"id": "C2", "cat": "gap", "sev": "minor", "q": "No clock-skew allowance", "st": "open"}`
    beside `03-01.plan.jsonl`.

    **Use instead**: `"st": "addressed"` (or `deferred`, `rejected`) once the plan answers it.
    """
    if not any(_is_plan(doc.name) for doc in chain.documents):
        return
    for doc in _lines(chain, "critique.jsonl"):
        if doc.data.get("st") == "open":
            label = doc.data.get("id")
            name = f"critique finding {label}" if isinstance(label, str) else "a critique finding"
            yield Hit(doc, "/st", f"{name} is still open, but the phase already has plans")


def check_tests_red_first(chain: Group, settings: Settings) -> Iterator[Hit]:
    """Every test in the test plan was written to fail first (`red: true`).

    **What it does**: reports each line of `test-plan.jsonl` whose `red` is not `true`. YOLO's
    execution protocol checks that the test plan exists "with `red: true` for all entries"
    before the developers start.

    **Why is this bad?** A test that never failed proves nothing about the code written after it:
    the developer's green run is no evidence.

    **Example**: `{"id": "T1", "tf": ["tests/test_tokens.py"], "tc": 4, "red": false, "desc": "..."}`.

    **Use instead**: run the new tests before the implementation, see them fail, then `"red": true`.
    """
    for doc in _lines(chain, "test-plan.jsonl"):
        if "red" in doc.data and doc.data["red"] is not True:
            yield Hit(doc, "/red", f"red is {doc.data['red']!r}: the test plan's tests must fail first")


def _is_plan(name: str) -> bool:
    found = plan_file(name)
    return found is not None and found[2] == "plan.jsonl"


def check_gaps_closed_when_complete(chain: Group, settings: Settings) -> Iterator[Hit]:
    """No gap is still open in a phase marked complete.

    **What it does**: reports each line of `gaps.jsonl` with `st: "open"` when the phase is marked
    complete: its `.execution-state.json` says `status: "complete"`, or the planning folder's
    `state.json` says `st: "complete"` for this phase (`ph`). The developer turns an open gap into
    `fixed` (with the commit in `res`); `accepted` is the way to close one without a fix.

    **Why is this bad?** QA wrote the gap for the developer to fix; a phase that completes with it
    open ships the failure QA found, and the sign-off reads "complete".

    **Example**: `{"id": "gap-001", "sev": "major", "desc": "retry budget untested", "st": "open"}`
    beside `.execution-state.json` with `"status": "complete"`.

    **Use instead**: fix it (`"st": "fixed", "res": "<commit>"`) or accept it (`"st": "accepted"`).
    """
    open_gaps = [doc for doc in _lines(chain, "gaps.jsonl") if doc.data.get("st") == "open"]
    if not open_gaps:
        return
    complete = _marked_complete(chain, open_gaps[0])
    if complete is None:
        return
    for doc in open_gaps:
        label = doc.data.get("id")
        name = f"gap {label}" if isinstance(label, str) else "a gap"
        yield Hit(doc, "/st", f"{name} is still open, but {complete}")


def _marked_complete(chain: Group, member: Document) -> str | None:
    """What marks the phase of ``member`` complete, or None."""
    from pytest_handoff.profiles.yolo.project import project_state  # reads state.json once per version

    for doc in chain.documents:
        if (
            doc.name == EXECUTION_STATE
            and isinstance(doc.data, dict)
            and doc.data.get("status") == "complete"
        ):
            return f'the phase\'s {EXECUTION_STATE} says "status": "complete"'
    phase = phase_of(member.path)
    state = project_state(member.path)
    if phase is None or state is None or state.get("st") != "complete":
        return None
    current = state.get("ph")
    if _number(current) == int(phase.number) or (isinstance(current, str) and current == phase.number):
        return f'state.json says phase {phase.number} is "complete"'
    return None


def check_verification_counts(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A verification's counts add up: passed + failed = total.

    **What it does**: reports the first line of `verification.jsonl` when its `ps` (checks passed)
    and `fl` (checks failed) do not add up to `tt` (checks total).

    **Why is this bad?** The sign-off and the user read the counts; counts that do not add up hide
    checks that were neither passed nor failed (skipped, never run) or were counted twice.

    **Example**: `{"tier": "standard", "r": "PARTIAL", "ps": 28, "fl": 2, "tt": 32, ...}`.

    **Use instead**: `"ps": 30, "fl": 2, "tt": 32`, or say what the other checks were in `notes`.
    """
    lines = _lines(chain, "verification.jsonl")
    if not lines:
        return
    head = lines[0].data
    passed, failed, total = (_number(head.get(key)) for key in ("ps", "fl", "tt"))
    if passed is None or failed is None or total is None or passed + failed == total:
        return
    yield Hit(
        lines[0],
        "/tt",
        f"checks passed ({passed}) + failed ({failed}) = {passed + failed}, not the total {total} (tt)",
    )
