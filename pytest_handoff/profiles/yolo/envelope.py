"""Rules on v2 messages from the project's ``message-schemas.json``: what YOLO's own hook checks.

YOLO's ``validate_message`` hook stops at the first problem and says nothing of where it is;
these report every problem at its key or value. Without the project file only the envelope's
shape is checked (by the ``yolo/v2_envelope`` schema) and the enums of YOLO's prose (YL205).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pytest_handoff.places.pointers import pointer_join
from pytest_handoff.profiles.yolo.format import V2_PREFIX, v2_type
from pytest_handoff.values.rules import Hit
from pytest_handoff.values.wording import did_you_mean

if TYPE_CHECKING:
    from pytest_handoff.profiles.yolo.project import MessageSchemas, TypeRules
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.settings import Settings


def _rules_of(document: Document, settings: Settings) -> tuple[MessageSchemas, str, TypeRules] | None:
    """The project's schemas and the rules of the document's v2 type, when both are known."""
    name = v2_type(document.handoff_type)
    if name is None:
        return None
    from pytest_handoff.profiles.yolo.project import document_schemas  # v2 messages only

    project = document_schemas(document, settings)
    if project is None or project.problem or name not in project.types:
        return None
    return project, name, project.types[name]


def check_required_keys(document: Document, settings: Settings) -> Iterator[Hit]:
    """A v2 message lacks a payload key (or envelope field) the project's message-schemas.json requires.

    **What it does**: reads `payload_required` of the message's type and `envelope_fields` from
    the project's `config/schemas/message-schemas.json` (the `message-schemas` option) and reports
    each one missing, at the payload (or the message). Runs only when the file is there.

    **Why is this bad?** YOLO's hook rejects the message (exit 2) at the first missing key, and
    the receiving agent expects every one of them.

    **Example**: an `execution_update` whose payload has `plan_id`, `task_id` and `status` but no
    `commit`.

    **Use instead**: `"payload": {"plan_id": "03-01", "task_id": "T2", "status": "complete", "commit": "abc1234"}`.
    """
    found = _rules_of(document, settings)
    if found is None:
        return
    project, name, rules = found
    data = document.data
    for field in project.envelope_fields:
        if field not in data:
            yield Hit(document, "", f"missing envelope field {field!r} (envelope_fields of {project.shown})")
    payload = data["payload"]
    for key in rules.required:
        if key not in payload:
            yield Hit(document, "/payload", f"payload lacks {key!r}, required for {name} by {project.shown}")


def check_author_role(document: Document, settings: Settings) -> Iterator[Hit]:
    """A v2 message's `author_role` is not among the type's `allowed_roles`.

    **What it does**: reports the `author_role` when the project's message-schemas.json does not
    list it in the type's `allowed_roles`.

    **Why is this bad?** Each role may send only its own kinds of message (a dev does not issue
    plan contracts); YOLO's hook rejects the message, and a receiver trusting the type would act
    on authority the author does not have.

    **Example**: `{"type": "plan_contract", "author_role": "dev", ...}`.

    **Use instead**: a type the role may send (`execution_update`), or the role that owns the type.
    """
    found = _rules_of(document, settings)
    if found is None:
        return
    _, name, rules = found
    author = document.data["author_role"]
    if author not in rules.allowed_roles:
        allowed = ", ".join(rules.allowed_roles) or "none"
        yield Hit(document, "/author_role", f"{author!r} may not send {name} (allowed_roles: {allowed})")


def check_target_role(document: Document, settings: Settings) -> Iterator[Hit]:
    """A v2 message's `target_role` cannot receive its type.

    **What it does**: when a message names a `target_role`, looks the role up in the project's
    `role_hierarchy` and reports a role that is not there or whose `can_receive` lacks the type.

    **Why is this bad?** The target never handles the message: YOLO's hook rejects it, and a
    message that slipped through would sit unread.

    **Example**: `{"type": "execution_update", "target_role": "dev", ...}` (devs receive plan
    contracts, not updates).

    **Use instead**: `"target_role": "lead"`.
    """
    found = _rules_of(document, settings)
    if found is None:
        return
    project, name, _ = found
    target = document.data.get("target_role")
    if target is None:
        return
    role = project.roles.get(target)
    if role is None:
        known = ", ".join(sorted(project.roles)) or "none"
        yield Hit(
            document,
            "/target_role",
            f"unknown role {target!r} (role_hierarchy of {project.shown}: {known}){did_you_mean(target, project.roles)}",
        )
    elif name not in role.can_receive:
        yield Hit(
            document, "/target_role", f"{target} cannot receive {name} (its can_receive in {project.shown})"
        )


def check_declared_payload_keys(document: Document, settings: Settings) -> Iterator[Hit]:
    """A v2 payload holds a key its type neither requires nor allows.

    **What it does**: reports, at its key, a payload key that is in neither `payload_required` nor
    `payload_optional` of the type in the project's message-schemas.json, suggesting the nearest
    declared key. A warning: YOLO's hook lets extra keys through.

    **Why is this bad?** Receivers read declared keys only; an undeclared one is most often a
    misspelt declared key (`files_modifed`), whose value is then lost.

    **Example**: `"payload": {..., "files_modifed": ["src/a.py"]}`.

    **Use instead**: `"files_modified": ["src/a.py"]`, or declare the key in message-schemas.json.
    """
    found = _rules_of(document, settings)
    if found is None:
        return
    _, name, rules = found
    declared = (*rules.required, *rules.optional)
    for key in document.data["payload"]:
        if key not in declared:
            yield Hit(
                document,
                pointer_join("/payload", key),
                f"{key!r} is not a payload key of {name}{did_you_mean(key, declared)}",
                anchor="key",
            )


def check_prose_enums(document: Document, settings: Settings) -> Iterator[Hit]:
    """A v2 payload value is outside the values YOLO's protocol documents for it.

    **What it does**: checks the payload values YOLO's handoff-schemas reference gives as enums:
    `execution_update.status` (complete, partial, failed), `blocker_report.severity` (blocking,
    degraded, informational), `approval_request.request_type` (scope_change, plan_approval,
    gate_override), `shutdown_request.reason` (phase_complete, plan_complete, user_abort) and
    `shutdown_response.final_status` (complete, idle, in_progress). A warning: message-schemas.json
    does not carry these enums, so YOLO's hook does not check them.

    **Why is this bad?** Agents branch on these values; one outside the set falls through every
    branch.

    **Example**: `{"type": "execution_update", "payload": {"status": "done", ...}}`.

    **Use instead**: `"status": "complete"`.
    """
    name = v2_type(document.handoff_type)
    if name is None:
        return
    from pytest_handoff.profiles.yolo.project import PROSE_ENUMS

    enums = PROSE_ENUMS.get(name)
    if not enums:
        return
    payload = document.data["payload"]
    for key, allowed in enums.items():
        value = payload.get(key)
        if value is not None and value not in allowed:
            yield Hit(
                document,
                pointer_join("/payload", key),
                f"{value!r} is not a documented {name} {key} ({', '.join(allowed)}){did_you_mean(value, allowed)}",
            )


def check_project_schemas_usable(chain: Group, settings: Settings) -> Iterator[Hit]:
    """The project's message-schemas.json is there but cannot be read, so v2 payloads go unchecked.

    **What it does**: once per group holding v2 messages, reports at the first of them a
    `message-schemas.json` that cannot be read, is not JSON, or has no `schemas` object. A
    warning: the envelopes are still checked.

    **Why is this bad?** YOLO's hook lets every message through when it cannot use the file, so
    the payload contracts silently stop being enforced, by YOLO and by this linter.

    **Example**: a trailing comma in `config/schemas/message-schemas.json`.

    **Use instead**: fix the file (`handoff-lint` does not check it as a handoff; `python -m json.tool`
    shows where it breaks), or point the `message-schemas` option at the right one.
    """
    first = next(
        (doc for doc in chain.documents if doc.handoff_type and doc.handoff_type.startswith(V2_PREFIX[:-1])),
        None,
    )
    if first is None:
        return
    from pytest_handoff.profiles.yolo.project import document_schemas

    project = document_schemas(first, settings)
    if project is not None and project.problem:
        yield Hit(
            first,
            "/type" if isinstance(first.data, dict) and "type" in first.data else "",
            f"{project.shown} {project.problem}: payload, role and target rules of v2 messages were not checked",
        )
