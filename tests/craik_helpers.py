"""Helpers for the Craik tests: our fixtures as data, and records checked in memory through the engine."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from pytest_handoff.pipeline.check import check_group
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.values.findings import Finding
from pytest_handoff.values.groups import GroupRef
from pytest_handoff.values.settings import Settings

#: Our records, named ``*.json`` (not ``*.craik.json``): a walk of this repository must not take
#: them for the project's own handoffs.
FIXTURES = Path(__file__).parent / "fixtures" / "craik"
CLEAN_HANDOFF = FIXTURES / "clean" / "handoff_invoice_export.json"
CLEAN_SCORE = FIXTURES / "clean" / "handoff_quality_invoice_export.json"
CORPUS_CONTRACTS = (
    Path(__file__).resolve().parents[2] / "shared" / "corpus" / "craik" / "tests" / "fixtures" / "contracts"
    / "v0_1" / "contracts.json"
)  # fmt: skip


def copy_as_exports(source: Path, destination: Path) -> Path:
    """The records of a fixture folder copied to ``destination`` as ``*.craik.json`` exports."""
    destination.mkdir(parents=True, exist_ok=True)
    for record in sorted(source.glob("*.json")):
        (destination / f"{record.stem}.craik.json").write_bytes(record.read_bytes())
    return destination


def clean_handoff() -> dict[str, Any]:
    """A fresh copy of our clean handoff (code shape)."""
    data: dict[str, Any] = json.loads(CLEAN_HANDOFF.read_text(encoding="utf-8"))
    return copy.deepcopy(data)


def clean_score() -> dict[str, Any]:
    """A fresh copy of the clean handoff's quality score."""
    data: dict[str, Any] = json.loads(CLEAN_SCORE.read_text(encoding="utf-8"))
    return data


def docs_handoff() -> dict[str, Any]:
    """The clean handoff rewritten in the docs' shape (its field names and statuses)."""
    data = clean_handoff()
    for field in ("schema", "version", "files_changed", "artifacts", "commands_run", "tests_run", "receipt_ids",
                  "memory_proposal_ids", "facts_learned", "facts_invalidated", "contradictions_opened",
                  "adjudication_ids", "unresolved_disagreements", "open_human_delegation_ids",
                  "scope_change_request_ids", "scope_change_result_ids", "risks", "runner_metadata",
                  "auth_profile_id", "auth_identity_hash", "operator_subject", "operator_issuer"):  # fmt: skip
        data.pop(field)
    data["files_and_artifacts"] = ["ledger/export.py", "samples/march.csv"]
    data["commands_and_validation"] = [{"command": "pytest tests/test_export.py", "exit_code": 0}]
    data["receipts"] = ["receipt_invoice_pytest"]
    data["memory_proposals"] = []
    return data


def text_of(record: Any) -> str:
    return json.dumps(record, indent=2)


def check_records(*records: Any, root: Path, settings: Settings | None = None) -> list[Finding]:
    """Findings of ``records`` as JSON files of one folder, checked in memory (nothing on disk)."""
    paths = tuple(root / f"record_{index}.craik.json" for index in range(len(records)))
    overrides = {path: text_of(record).encode("utf-8") for path, record in zip(paths, records, strict=True)}
    ref = GroupRef("craik", root.name, root, paths)
    return list(
        check_group(
            ref, settings or Settings(), root, overrides=overrides, registry=default_registry()
        ).findings
    )


def codes(findings: list[Finding]) -> list[str]:
    return sorted(f.code for f in findings)


def only(findings: list[Finding], code: str) -> list[Finding]:
    return [f for f in findings if f.code == code]


def line_of(record: Any, needle: str) -> int:
    """The 1-based line of the first line of ``text_of(record)`` that holds ``needle``."""
    for number, line in enumerate(text_of(record).splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in the record")
