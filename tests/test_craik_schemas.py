"""Craik's schemas and classification: the code's shape, the docs' shape, and quality scores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.profiles.craik.profile import record_type
from pytest_handoff.read.strict_json import parse_json_bytes
from pytest_handoff.validation.schemas import compiled_schema
from tests.craik_helpers import (
    CORPUS_CONTRACTS,
    check_records,
    clean_handoff,
    clean_score,
    docs_handoff,
    only,
)


def schema_errors(name: str, data: Any) -> list[str]:
    """``pointer: message`` of each error of ``data`` against ``craik/<name>``."""
    document = parse_json_bytes(json.dumps(data, indent=2).encode(), Path("r.json"), "r.json").document
    assert document is not None
    return [f"{f.pointer}: {f.message}" for f in compiled_schema(f"craik/{name}").findings(document)]


@pytest.mark.skipif(not CORPUS_CONTRACTS.is_file(), reason="the shared corpus (../shared/corpus) is not here")
@pytest.mark.parametrize(
    ("key", "name"), [("craik.handoff", "handoff"), ("craik.handoff_quality_score", "handoff_quality_score")]
)
def test_craiks_own_contract_fixtures_validate_against_our_schemas(key: str, name: str) -> None:
    record = json.loads(CORPUS_CONTRACTS.read_text(encoding="utf-8"))[key]
    assert record_type(record) == name
    assert schema_errors(name, record) == []


@pytest.mark.skipif(not CORPUS_CONTRACTS.is_file(), reason="the shared corpus (../shared/corpus) is not here")
def test_craiks_own_handoff_and_score_have_no_finding_together(tmp_path: Path) -> None:
    contracts = json.loads(CORPUS_CONTRACTS.read_text(encoding="utf-8"))
    assert (
        check_records(contracts["craik.handoff"], contracts["craik.handoff_quality_score"], root=tmp_path)
        == []
    )


def test_our_clean_fixtures_validate() -> None:
    assert schema_errors("handoff", clean_handoff()) == []
    assert schema_errors("handoff_quality_score", clean_score()) == []
    assert schema_errors("handoff_docs", docs_handoff()) == []


def test_the_handoff_schema_rejects_unknown_keys_as_craik_does() -> None:
    record = clean_handoff()
    record["files_touched"] = []
    record["self_audit"]["tests_green"] = True
    errors = schema_errors("handoff", record)
    assert any(e.startswith("/files_touched") for e in errors)
    assert any(e.startswith("/self_audit/tests_green") for e in errors)


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        (lambda r: r.pop("agent"), ""),
        (lambda r: r["self_audit"].pop("receipts_reviewed"), "/self_audit"),
        (lambda r: r.update(status="done"), "/status"),
        (lambda r: r.update(version="0.2.0"), "/version"),
        (lambda r: r.update(created_at="yesterday"), "/created_at"),
        (lambda r: r.update(tests_run=[{"cmd": "pytest"}]), "/tests_run/0"),
        (lambda r: r["self_audit"].update(validation_recorded="yes"), "/self_audit/validation_recorded"),
    ],
)
def test_the_handoff_schema_reports_what_craik_rejects_where_it_is(change: Any, pointer: str) -> None:
    record = clean_handoff()
    change(record)
    errors = schema_errors("handoff", record)
    assert errors
    assert all(e.startswith(f"{pointer}: ") for e in errors), errors


def test_the_handoff_schema_accepts_a_time_without_offset_and_a_missing_schema_and_status() -> None:
    record = clean_handoff()
    record["created_at"] = "2026-06-02T09:15:00.123456"
    for field in ("schema", "version", "status", "intent_lock_id", "risks"):
        record.pop(field)
    assert schema_errors("handoff", record) == []


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        (lambda s: s.update(score=1.2), "/score"),
        (lambda s: s.update(band="good"), "/band"),
        (lambda s: s.update(components=[]), "/components"),
        (lambda s: s["components"][0].update(weight=0), "/components/0/weight"),
        (lambda s: s["components"][0].update(name="tests"), "/components/0/name"),
        (lambda s: s["components"][0].pop("rationale"), "/components/0"),
        (lambda s: s.pop("handoff_id"), ""),
    ],
)
def test_the_quality_score_schema_reports_out_of_range_values(change: Any, pointer: str) -> None:
    score = clean_score()
    change(score)
    errors = schema_errors("handoff_quality_score", score)
    assert errors
    assert all(e.startswith(f"{pointer}: ") for e in errors), errors


def test_the_docs_schema_knows_the_docs_statuses_and_lets_entries_be_objects() -> None:
    record = docs_handoff()
    record["status"] = "requires_review"
    record["completed_actions"] = [{"action": "Added the CSV writer."}]
    assert schema_errors("handoff_docs", record) == []
    record["status"] = "incomplete"
    assert [e.split(":")[0] for e in schema_errors("handoff_docs", record)] == ["/status"]


def test_a_record_is_classified_by_its_schema_then_by_its_shape() -> None:
    assert record_type(clean_handoff()) == "handoff"
    assert record_type(clean_score()) == "handoff_quality_score"
    assert record_type(docs_handoff()) == "handoff_docs"
    paused = clean_handoff() | {"status": "paused"}
    assert record_type(paused) == "handoff_docs"
    unlabelled = {k: v for k, v in clean_handoff().items() if k != "schema"}
    assert record_type(unlabelled) == "handoff"
    assert record_type({k: v for k, v in clean_score().items() if k != "schema"}) == "handoff_quality_score"
    assert record_type({"schema": "craik.case_file"}) is None
    # A store row is classified by its kind.
    assert record_type({"schema": "craik.case_file"}, kind="handoffs") == "handoff"
    assert record_type(["not", "a", "record"]) is None


def test_a_score_labelled_as_a_handoff_is_checked_as_a_handoff(tmp_path: Path) -> None:
    # Its "schema" decides: the handoff schema then reports what a handoff lacks.
    record = clean_score()
    findings = check_records(record | {"schema": "craik.handoff"}, root=tmp_path)
    assert only(findings, "HS001")
