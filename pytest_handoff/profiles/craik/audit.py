"""The self-audit must not hide incompleteness: each checked box against what the handoff records.

Craik's docs: "Incomplete handoffs are valid [...] What's not valid is hiding that
incompleteness." Craik's code checks the self-audit's shape only; these rules check that its
answers agree with the rest of the record. They run on both shapes of a handoff: the one Craik's
code writes (``tests_run``, ``receipt_ids``) and the one its docs describe
(``commands_and_validation``, ``receipts``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pytest_handoff.places.pointers import pointer_join
from pytest_handoff.profiles.craik.format import DOCS_ONLY_FIELDS, DOCS_ONLY_STATUSES, HANDOFF_DOCS
from pytest_handoff.profiles.craik.outcomes import failures
from pytest_handoff.values.rules import Hit

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.settings import Settings

#: Statuses of a run that did not finish (Craik's code: incomplete, blocked, failed; its docs: paused).
UNFINISHED = ("incomplete", "blocked", "failed", "paused")
#: Where a handoff may explain a gap (Craik's self-audit reference).
EXPLANATIONS = ("risks", "context_debt", "next_steps")
#: What Craik's writer puts in `context_debt` by itself when it had no case file: it explains nothing.
AUTOMATIC_DEBT = frozenset({"No case file was available for this handoff."})
#: The code's name for each docs field (what Craik's code rejects the docs' name for).
CODE_NAMES = {
    "files_and_artifacts": "files_changed and artifacts",
    "commands_and_validation": "commands_run and tests_run",
    "receipts": "receipt_ids",
    "memory_proposals": "memory_proposal_ids",
}


def _docs(document: Document) -> bool:
    return document.handoff_type == HANDOFF_DOCS


def _filled(data: dict[str, Any], key: str) -> bool:
    value = data.get(key)
    return isinstance(value, list) and len(value) > 0


def _audit(document: Document, box: str) -> bool:
    audit = document.data.get("self_audit")
    return isinstance(audit, dict) and audit.get(box) is True


def check_validation_recorded(document: Document, settings: Settings) -> Iterator[Hit]:
    """`self_audit.validation_recorded` is true only when validation is recorded.

    **What it does**: reports `validation_recorded: true` on a handoff whose `tests_run` is
    empty (for a handoff of the docs' shape: whose `commands_and_validation` is empty). Craik
    records validation in `tests_run`: its own writer sets the box from it, and its quality
    score gives `validation_records` nothing without it; commands in `commands_run` alone do
    not count, and the message says so when there are some.

    **Why is this bad?** The next agent trusts the box and skips re-running the checks, although
    nothing says which checks ran or that they passed.

    **Example**: `"tests_run": [], "self_audit": {"validation_recorded": true, ...}`.

    **Use instead**: list what ran (`"tests_run": ["pytest -q", "ruff check ."]`), or set the box
    to false and say in `risks` or `next_steps` that validation is still to do.
    """
    if not _audit(document, "validation_recorded"):
        return
    data = document.data
    field = "commands_and_validation" if _docs(document) else "tests_run"
    if _filled(data, field):
        return
    message = f"self_audit.validation_recorded is true but {field} is empty"
    commands = data.get("commands_run")
    if field == "tests_run" and isinstance(commands, list) and commands:
        message += (
            f"; commands_run lists {len(commands)} command(s), but Craik records validation in tests_run"
        )
    yield Hit(document, "/self_audit/validation_recorded", message)


def _explains(entries: Any) -> bool:
    """True for a list with an entry someone wrote (not only Craik's automatic context debt)."""
    return isinstance(entries, list) and any(
        not isinstance(e, str) or e not in AUTOMATIC_DEBT for e in entries
    )


def check_receipts_reviewed(document: Document, settings: Settings) -> Iterator[Hit]:
    """`self_audit.receipts_reviewed` is true only when the handoff links receipts.

    **What it does**: reports `receipts_reviewed: true` on a handoff with no `receipt_ids`
    (docs' shape: no `receipts`).

    **Why is this bad?** Receipts are the evidence of what the run did; a review of receipts that
    are not linked cannot be checked, and Craik's quality score gives `receipt_links` nothing.

    **Example**: `"receipt_ids": [], "self_audit": {"receipts_reviewed": true, ...}`.

    **Use instead**: link the receipts reviewed (`"receipt_ids": ["receipt_pytest"]`), or set the
    box to false.
    """
    if not _audit(document, "receipts_reviewed"):
        return
    field = "receipts" if _docs(document) else "receipt_ids"
    # A record of mixed shapes may link them under the other shape's name: that links them too.
    if not any(_filled(document.data, name) for name in ("receipt_ids", "receipts")):
        yield Hit(
            document,
            "/self_audit/receipts_reviewed",
            f"self_audit.receipts_reviewed is true but {field} is empty",
        )


def check_gap_explained(document: Document, settings: Settings) -> Iterator[Hit]:
    """An unfinished run without recorded validation says why, in `risks`, `context_debt` or `next_steps`.

    **What it does**: reports a handoff whose `status` is `incomplete`, `blocked`, `failed` or
    (docs' shape) `paused`, whose `self_audit.validation_recorded` is false, and whose `risks`,
    `context_debt` and `next_steps` are all empty. Craik's self-audit reference allows such a
    handoff only when it explains the gap; Craik's code does not check it.

    **Why is this bad?** The handoff admits that nothing was validated but leaves the next agent
    to find out why and what to do first: exactly the incompleteness the self-audit exists to
    make visible.

    **Example**: `"status": "blocked", "risks": [], "context_debt": [], "next_steps": [],
    "self_audit": {"validation_recorded": false, ...}`.

    Craik's own line for a run without a case file ("No case file was available for this
    handoff.", which its writer adds by itself) is no explanation.

    **Use instead**: `"next_steps": ["Run pytest once the fixture database is reachable."]`.
    """
    data = document.data
    status = data.get("status")
    audit = data.get("self_audit")
    if (
        status not in UNFINISHED
        or not isinstance(audit, dict)
        or audit.get("validation_recorded") is not False
    ):
        return
    if any(_explains(data.get(field)) for field in EXPLANATIONS):
        return
    present = [field for field in EXPLANATIONS if field in data]
    yield Hit(
        document,
        "/self_audit/validation_recorded",
        f"status {status!r} with validation_recorded false, and no risks, context_debt or next_steps "
        "explain the missing validation",
        related=(
            (document, "/status", "status"),
            *((document, f"/{field}", "empty") for field in present[:1]),
        ),
    )


def check_completed_without_failures(document: Document, settings: Settings) -> Iterator[Hit]:
    """A `completed` handoff records no failed validation command.

    **What it does**: reads each entry of `tests_run` and `commands_run` (docs' shape:
    `commands_and_validation`) of a handoff whose `status` is `completed`, and reports an entry
    that shows a failure: a non-zero exit status (`exit 1`, `exit code 2`, `rc=1`), a non-zero
    count (`2 failed`, `1 error`, `failures: 3`), `FAILED`/`FAIL`/`ERROR` as test runners print
    them, or `failed` as the outcome (`pytest: failed`, `pytest failed`). Zero counts
    (`0 failed`), exit 0, names and options (`test_login_fails`, `--cov-fail-under=90`) and
    prose (`test for failed logins`) are not failures. In the docs' shape an entry may be an
    object: a non-zero `exit_code`, a `status`/`result` of `failed`, or `passed: false`.

    **Why is this bad?** The status tells the next agent the work is done while the record shows
    a check that did not pass: one of the two is wrong, and the next agent builds on it.

    **Example**: `"status": "completed", "tests_run": ["pytest -q: 2 failed, 40 passed"]`.

    **Use instead**: fix the failure and record the passing run, or set `status` to
    `incomplete` and say what fails in `risks`.
    """
    data = document.data
    if data.get("status", "completed") != "completed":
        return  # Craik's default status is completed
    fields = ("commands_and_validation",) if _docs(document) else ("tests_run", "commands_run")
    for field in fields:
        for pointer, shown in failures(data.get(field), f"/{field}"):
            yield Hit(
                document,
                pointer,
                f"status is 'completed' but this validation entry shows a failure ({shown!r})",
                related=((document, "/status", "status"),) if "status" in data else (),
            )


def check_redaction_reviewed(document: Document, settings: Settings) -> Iterator[Hit]:
    """`self_audit.redaction_reviewed` is true only when no string holds a secret.

    **What it does**: looks for secrets (as HX001 does: tokens of known shapes, private keys,
    passwords in URLs, long random values of key-like names) in every string of a handoff whose
    `redaction_reviewed` is true, and reports the box, pointing at the first string that holds
    one. The message names the kind of secret and where it is, never its value.

    **Why is this bad?** The box tells readers the record was checked for secrets; it was not,
    or the check missed one, and the record is about to be shared as safe. Craik's writer sets
    the box to true on every handoff it writes.

    **Example**: `"summary": "Deployed with GITHUB_TOKEN=ghp_…"` with
    `"self_audit": {"redaction_reviewed": true, ...}`.

    **Use instead**: replace the value with a reference to where it is kept (`"the
    GITHUB_TOKEN secret"`); HX001 reports the string itself.
    """
    if not _audit(document, "redaction_reviewed"):
        return
    from pytest_handoff.rules.secrets import find_secrets, may_hold_secrets

    data = document.data
    # The quick look HX001 takes first: a store's row has no text of its own, so its data's.
    if not may_hold_secrets(document.text if document.has_text else json.dumps(data, ensure_ascii=False)):
        return
    places = [(pointer, kind) for pointer, key, text in _strings(data) for kind, _ in find_secrets(text, key)]
    if not places:
        return
    pointer, kind = places[0]
    strings = len({place for place, _ in places})
    more = f" (and {strings - 1} more string(s))" if strings > 1 else ""
    yield Hit(
        document,
        "/self_audit/redaction_reviewed",
        f"self_audit.redaction_reviewed is true but {pointer or 'the record'} holds a possible {kind}{more}",
        related=((document, pointer, f"possible {kind}"),),
    )


def _strings(value: Any, pointer: str = "", key: str = "") -> Iterator[tuple[str, str, str]]:
    """(pointer, key holding it, text) for every string of a record, in document order."""
    if isinstance(value, str):
        yield pointer, key, value
    elif isinstance(value, dict):
        for name, child in value.items():
            yield from _strings(child, pointer_join(pointer, name), name)
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _strings(child, f"{pointer}/{index}", key)


def check_policy_exceptions_disclosed(document: Document, settings: Settings) -> Iterator[Hit]:
    """`self_audit.policy_exceptions_disclosed` false admits a policy exception the record does not name.

    **What it does**: reports `policy_exceptions_disclosed: false`. The box answers "are all
    fail-open paths and policy boundary hits called out in `policy_exceptions`?": false means
    some are not, whether the list is empty (none named) or not (some left out). True with an
    empty list is fine: there was nothing to disclose.

    **Why is this bad?** The next run inherits `policy_exceptions` to know where the system was
    running hot; an exception the handoff admits to but does not name is hidden from it.
    Craik's own writer always sets the box to true.

    **Example**: `"policy_exceptions": [], "self_audit": {"policy_exceptions_disclosed": false}`.

    **Use instead**: name every exception in `policy_exceptions`
    (`"network access allowed for the package index"`) and set the box to true.
    """
    audit = document.data.get("self_audit")
    if not isinstance(audit, dict) or audit.get("policy_exceptions_disclosed") is not False:
        return
    listed = document.data.get("policy_exceptions")
    count = len(listed) if isinstance(listed, list) else 0
    told = f"lists {count} but says not all are disclosed" if count else "names none"
    yield Hit(
        document,
        "/self_audit/policy_exceptions_disclosed",
        f"self_audit.policy_exceptions_disclosed is false: the handoff admits undisclosed policy "
        f"exceptions, and policy_exceptions {told}",
    )


def check_docs_shape(document: Document, settings: Settings) -> Iterator[Hit]:
    """A handoff uses the field names and statuses Craik's code accepts, not only its docs'.

    **What it does**: on a handoff of the docs' shape (a field `files_and_artifacts`,
    `commands_and_validation`, `receipts` or `memory_proposals`, or a status `paused` or
    `requires_review`), reports each such field and status, with the code's name for it.

    **Why is this bad?** Craik's handoff page describes these, but its code rejects unknown keys
    and these statuses: `craik` cannot store or read the record, and tools that read Craik's
    records (onboarding of the next agent, the quality score) see none of it.

    **Example**: `"status": "paused", "receipts": ["receipt_pytest"]`.

    **Use instead**: `"status": "incomplete", "receipt_ids": ["receipt_pytest"]`.
    """
    data = document.data
    for field in DOCS_ONLY_FIELDS:
        if field in data:
            yield Hit(
                document,
                f"/{field}",
                f"{field!r} is the docs' name; Craik's code rejects it and records {CODE_NAMES[field]}",
                anchor="key",
            )
    status = data.get("status")
    if status in DOCS_ONLY_STATUSES:
        instead = (
            "incomplete" if status == "paused" else "completed (with the review asked for in next_steps)"
        )
        yield Hit(
            document,
            "/status",
            f"status {status!r} is the docs' only; Craik's code knows completed, incomplete, blocked and "
            f"failed: use {instead}",
        )
