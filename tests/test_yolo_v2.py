"""v2 messages: the envelope by our schema, the payload, roles and targets by the project's message-schemas.json."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.values.settings import Settings
from tests.yolo_helpers import (
    FIXTURES,
    PHASE,
    Place,
    check_folder,
    check_lines,
    codes,
    column_of,
    messages,
    places,
    write,
)

SCHEMAS = FIXTURES / "clean" / "config" / "schemas" / "message-schemas.json"


def envelope(type_: str = "execution_update", role: str = "dev", **fields: Any) -> dict[str, Any]:
    payload = fields.pop(
        "payload", {"plan_id": "05-01", "task_id": "T1", "status": "complete", "commit": "9f8e7d6"}
    )
    return {
        "id": "m-1", "type": type_, "phase": "05", "task": "05-01/T1", "author_role": role,
        "timestamp": "2026-05-12T10:00:00Z", "schema_version": "2.0", "payload": payload, "confidence": "medium",
        **fields,
    }  # fmt: skip


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with our message-schemas.json at YOLO's default place."""
    target = tmp_path / "config" / "schemas" / "message-schemas.json"
    target.parent.mkdir(parents=True)
    shutil.copyfile(SCHEMAS, target)
    return tmp_path


def check(project: Path, lines: list[Any], settings: Settings | None = None) -> list[Any]:
    write(project, f"{PHASE}/messages.jsonl", lines)
    return check_folder(project, settings=settings)


def test_a_v2_message_that_keeps_the_project_contract_has_no_finding(project: Path) -> None:
    assert check(project, [envelope(target_role="lead")]) == []


def test_a_v2_message_is_told_from_a_flat_one_of_the_same_type_by_its_envelope() -> None:
    flat_shutdown = {"type": "shutdown_request", "reason": "timeout", "deadline_seconds": 30}
    v2_shutdown = envelope("shutdown_request", "lead", payload={"reason": "user_abort", "team_name": "t"})
    assert check_lines([flat_shutdown, v2_shutdown]) == []


def test_the_envelope_is_checked_by_our_schema_without_a_project_file() -> None:
    broken = envelope(confidence="sure")
    del broken["timestamp"]
    findings = check_lines([broken])
    line = json.dumps(broken)
    assert places(findings, "HS001") == [
        Place("messages.jsonl", 1, 1),
        Place("messages.jsonl", 1, column_of(line, '"confidence": ')),
    ]
    assert "missing required property 'timestamp'" in messages(findings, "HS001")[0]


def test_an_envelope_without_a_type_is_still_a_message() -> None:
    broken = envelope()
    del broken["type"]
    assert "missing required property 'type'" in messages(check_lines([broken]), "HS001")[0]


def test_hs002_reports_an_unknown_v2_type_against_the_project_file(project: Path) -> None:
    broken = envelope("execution_updates")
    findings = check(project, [broken])
    assert places(findings, "HS002") == [
        Place("messages.jsonl", 1, column_of(json.dumps(broken), '"type": '))
    ]
    assert "config/schemas/message-schemas.json" in messages(findings, "HS002")[0]
    assert "did you mean 'execution_update'?" in messages(findings, "HS002")[0]


def test_without_a_project_file_a_v2_type_is_one_yolo_ships() -> None:
    assert codes(check_lines([envelope("qa_verdict", "qa", payload={})])) == []
    assert codes(check_lines([envelope("qa_verdicts", "qa", payload={})])) == ["HS002"]


def test_yl201_reports_every_missing_payload_key_at_the_payload(project: Path) -> None:
    broken = envelope(payload={"plan_id": "05-01", "status": "complete"})
    findings = check(project, [broken])
    column = column_of(json.dumps(broken), '"payload": ')
    assert places(findings, "YL201") == [Place("messages.jsonl", 1, column)] * 2
    assert [m.split(",")[0] for m in messages(findings, "YL201")] == [
        "payload lacks 'task_id'",
        "payload lacks 'commit'",
    ]


def test_yl201_reports_an_envelope_field_only_the_project_declares(project: Path) -> None:
    schemas = json.loads(SCHEMAS.read_text())
    schemas["envelope_fields"].append("correlation_id")
    write(project, "config/schemas/message-schemas.json", schemas)
    findings = check(project, [envelope(), envelope(correlation_id="c-1")])
    assert places(findings, "YL201") == [Place("messages.jsonl", 1, 1)]
    assert "missing envelope field 'correlation_id'" in messages(findings, "YL201")[0]


def test_yl202_reports_an_author_the_type_does_not_allow(project: Path) -> None:
    broken = envelope(role="qa")
    findings = check(project, [envelope(), broken])
    assert places(findings, "YL202") == [
        Place("messages.jsonl", 2, column_of(json.dumps(broken), '"author_role": '))
    ]
    assert "'qa' may not send execution_update (allowed_roles: dev)" in messages(findings, "YL202")[0]


def test_yl203_reports_a_target_that_cannot_receive_the_type_or_is_unknown(project: Path) -> None:
    cannot = envelope(target_role="dev")
    unknown = envelope(target_role="owner")
    findings = check(project, [cannot, unknown])
    assert places(findings, "YL203") == [
        Place("messages.jsonl", 1, column_of(json.dumps(cannot), '"target_role": ')),
        Place("messages.jsonl", 2, column_of(json.dumps(unknown), '"target_role": ')),
    ]
    assert "unknown role 'owner'" in messages(findings, "YL203")[1]


def test_yl203_suggests_the_role_of_the_hierarchy_closest_to_an_unknown_one(project: Path) -> None:
    findings = check(project, [envelope(target_role="leed"), envelope(target_role="owner")])
    close, far = messages(findings, "YL203")
    assert close.endswith(
        "(role_hierarchy of config/schemas/message-schemas.json: dev, lead, qa); did you mean 'lead'?"
    )
    assert "did you mean" not in far


def test_yl204_warns_of_an_undeclared_payload_key_at_its_key(project: Path) -> None:
    payload = {
        "plan_id": "05-01",
        "task_id": "T1",
        "status": "complete",
        "commit": "9f8e7d6",
        "concern": ["slow"],
    }
    broken = envelope(payload=payload)
    findings = check(project, [broken])
    assert places(findings, "YL204") == [
        Place("messages.jsonl", 1, column_of(json.dumps(broken), '"concern"', after=False))
    ]
    assert "did you mean 'concerns'?" in messages(findings, "YL204")[0]
    assert findings[0].severity.label == "warning"


def test_yl205_warns_of_a_value_outside_yolos_documented_enum() -> None:
    payload = {"plan_id": "05-01", "task_id": "T1", "status": "done", "commit": "9f8e7d6"}
    broken = envelope(payload=payload)
    findings = check_lines([broken, envelope()])
    assert places(findings, "YL205") == [
        Place("messages.jsonl", 1, column_of(json.dumps(broken), '"status": '))
    ]


def test_yl205_suggests_the_documented_value_closest_to_a_misspelt_one() -> None:
    payload = {"plan_id": "05-01", "task_id": "T1", "status": "complet", "commit": "9f8e7d6"}
    (message,) = messages(check_lines([envelope(payload=payload)]), "YL205")
    assert message.endswith("(complete, partial, failed); did you mean 'complete'?")


def test_the_message_schemas_option_points_at_another_file(project: Path) -> None:
    moved = project / "yolo-config" / "messages.json"
    moved.parent.mkdir()
    shutil.move(project / "config" / "schemas" / "message-schemas.json", moved)
    settings = Settings(options={"yolo": {"message-schemas": "yolo-config/messages.json"}})
    assert codes(check(project, [envelope(role="qa")])) == []
    assert codes(check(project, [envelope(role="qa")], settings)) == ["YL202"]


def test_yl200_warns_once_when_the_project_file_is_broken(project: Path) -> None:
    write(project, "config/schemas/message-schemas.json", '{"schemas": {},}')
    findings = check(project, [envelope(role="qa"), envelope(role="qa")])
    assert codes(findings) == ["YL200"]
    assert places(findings, "YL200") == [
        Place("messages.jsonl", 1, column_of(json.dumps(envelope()), '"type": '))
    ]
    assert "is not valid JSON" in messages(findings, "YL200")[0]


def test_yl200_is_silent_when_the_group_has_no_v2_message(project: Path) -> None:
    write(project, "config/schemas/message-schemas.json", "[")
    assert check(project, [{"type": "shutdown_response", "status": "clean"}]) == []


def test_a_project_file_edited_between_runs_is_read_again(project: Path) -> None:
    assert codes(check(project, [envelope(role="qa")])) == ["YL202"]
    schemas = json.loads(SCHEMAS.read_text())
    schemas["schemas"]["execution_update"]["allowed_roles"].append("qa")
    write(project, "config/schemas/message-schemas.json", json.dumps(schemas) + " " * 7)
    assert codes(check(project, [envelope(role="qa")])) == []
