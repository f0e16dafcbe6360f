"""Write the Craik example stores: ``examples/craik/{clean,broken}/.craik/state/craik.sqlite3``.

Craik keeps its handoffs as rows of a SQLite store: a ``records`` table (kind, id, schema, version,
payload_json, created_at, updated_at), ``migrations`` and ``local_store_metadata``, with the layout's
version in ``PRAGMA user_version`` (3). A row's payload is the record as compact JSON with sorted
keys. The rows of both example stores are written here, so the committed stores can always be
rebuilt and reviewed as text::

    python scripts/craik_example_stores.py           # (re)write both stores
    python scripts/craik_example_stores.py --check   # exit 1 when a committed store differs

The build is deterministic (fixed times, one transaction, then VACUUM). ``--check`` and
``tests/test_examples.py`` compare what a store holds (its schema, every row, its user_version),
not its bytes: the header of a SQLite file names the library version that wrote it.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples" / "craik"
#: Where Craik's opt-in project-local folder keeps the store, inside each example project.
STORE = Path(".craik") / "state" / "craik.sqlite3"
#: When the example stores were "migrated" and written.
STAMP = "2026-11-14T08:00:00+00:00"

LAYOUT = """
CREATE TABLE records (
  kind TEXT NOT NULL, id TEXT NOT NULL, schema TEXT NOT NULL, version TEXT NOT NULL,
  payload_json TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
  PRIMARY KEY (kind, id)
);
CREATE INDEX idx_records_schema ON records(schema);
CREATE INDEX idx_records_kind_updated_at ON records(kind, updated_at);
CREATE TABLE migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL);
CREATE TABLE local_store_metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL);
"""

#: Each kind of row and the contract its records follow.
SCHEMAS = {
    "handoffs": "craik.handoff",
    "handoff_quality_scores": "craik.handoff_quality_score",
    "task_requests": "craik.task_request",
}

_LISTS = (
    "completed_actions", "files_changed", "artifacts", "commands_run", "tests_run", "assumptions",
    "context_debt", "policy_exceptions", "facts_learned", "facts_invalidated", "contradictions_opened",
    "adjudication_ids", "unresolved_disagreements", "open_human_delegation_ids", "scope_change_request_ids",
    "scope_change_result_ids", "risks", "next_steps", "receipt_ids", "memory_proposal_ids", "runner_metadata",
)  # fmt: skip
_OPTIONAL = ("intent_lock_id", "auth_profile_id", "auth_identity_hash", "operator_subject", "operator_issuer")
#: Craik's quality components and their weights.
WEIGHTS = {
    "summary": 0.12, "completed_actions": 0.12, "validation_records": 0.18, "receipt_links": 0.14,
    "evidence_links": 0.10, "context_debt": 0.12, "unresolved_risks": 0.12, "next_steps": 0.04,
    "self_audit": 0.16,
}  # fmt: skip


def handoff(task: str, **fields: Any) -> dict[str, Any]:
    """A handoff record as Craik dumps one: every field present, lists empty and ids null by default."""
    record: dict[str, Any] = {
        "schema": "craik.handoff",
        "version": "0.1.0",
        "id": f"handoff_{task}",
        "task_id": f"task_{task}",
        "project_id": "project_weather_station",
        "agent": "agent:codex",
        "status": "completed",
        **{name: [] for name in _LISTS},
        **dict.fromkeys(_OPTIONAL),
    }
    record.update(fields)
    return record


def audit(**boxes: bool) -> dict[str, Any]:
    """A self-audit with every box ticked unless given otherwise."""
    names = ("schema_validated", "redaction_reviewed", "receipts_reviewed", "assumptions_reviewed",
             "validation_recorded", "policy_exceptions_disclosed")  # fmt: skip
    return {**{name: boxes.get(name, True) for name in names}, "notes": []}


def score(task: str, score: float, band: str, zero: dict[str, str], created_at: str) -> dict[str, Any]:
    """The quality score of ``handoff_{task}``: each component 1, except those in ``zero`` (name: why)."""
    return {
        "schema": "craik.handoff_quality_score",
        "version": "0.1.0",
        "id": f"handoff_quality_handoff_{task}",
        "task_id": f"task_{task}",
        "project_id": "project_weather_station",
        "handoff_id": f"handoff_{task}",
        "score": score,
        "band": band,
        "components": [
            {
                "name": name,
                "score": 0.0 if name in zero else 1.0,
                "weight": weight,
                "rationale": zero.get(name, "Met."),
            }
            for name, weight in WEIGHTS.items()
        ],
        "blocking_reasons": [],
        "created_at": created_at,
    }


CLEAN = [
    (
        "handoffs",
        handoff(
            "alert_digest",
            intent_lock_id="intent_alert_digest",
            summary="Frost and storm alerts of one hour are sent as one digest e-mail instead of one mail each.",
            self_audit=audit(),
            completed_actions=["Alerts are queued and flushed once an hour.", "Added the digest template."],
            files_changed=["station/alerts.py", "templates/digest.txt", "tests/test_alerts.py"],
            artifacts=["logs/digest-preview.txt"],
            tests_run=["pytest tests/test_alerts.py -q: 7 passed"],
            receipt_ids=["receipt_alerts_pytest"],
            context_debt=["The digest's time zone follows the server, not the station."],
            next_steps=["Let a user choose an immediate mail for storm alerts."],
            created_at="2026-11-11T16:40:00Z",
        ),
    ),
    (
        "handoff_quality_scores",
        score(
            "alert_digest",
            0.8909,
            "excellent",
            {"context_debt": "One open question."},
            "2026-11-11T16:40:01Z",
        ),
    ),
    ("task_requests", {"id": "task_alert_digest", "title": "Send alerts as an hourly digest"}),
]

BROKEN = [
    (
        "handoffs",
        handoff(
            "frost_alert",
            intent_lock_id="intent_frost_alert",
            summary="A frost alert fires when the ground sensor reads below 0.5 degrees C twice in ten minutes.",
            self_audit=audit(),
            completed_actions=["Added the two-reading frost rule."],
            files_changed=["station/rules/frost.py", "tests/test_frost.py"],
            artifacts=["logs/frost-replay.txt"],
            commands_run=["pytest tests/test_frost.py -q"],
            receipt_ids=["receipt_frost_replay"],
            next_steps=["Tune the threshold for the valley station."],
            created_at="2026-11-13T09:10:00Z",
        ),
    ),
    (
        "handoff_quality_scores",
        score(
            "frost_alert",
            0.8364,
            "adequate",
            {"validation_records": "No test run is recorded."},
            "2026-11-13T09:10:01Z",
        ),
    ),
    (
        "handoffs",
        handoff(
            "wind_gust",
            status="done",
            summary="Gusts are the highest three-second mean wind speed of each ten minutes.",
            self_audit=audit(receipts_reviewed=False),
            completed_actions=["Added the gust window to the anemometer reader."],
            files_changed=["station/wind.py"],
            tests_run=["pytest tests/test_wind.py -q: 5 passed"],
            next_steps=["Show gusts on the status page."],
            created_at="2026-11-13T15:30:00Z",
        ),
    ),
]

#: The rows of each example project's store.
STORES = {"clean": CLEAN, "broken": BROKEN}


def build(path: Path, rows: list[tuple[str, dict[str, Any]]]) -> None:
    """Write a store with Craik's layout holding ``rows`` (kind, record) to ``path`` (replaced)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        built = Path(folder) / path.name
        connection = sqlite3.connect(built)
        try:
            with connection:
                connection.executescript(LAYOUT)
                connection.executemany(
                    "INSERT INTO migrations VALUES (?, ?)", [(n, STAMP) for n in (1, 2, 3)]
                )
                connection.executemany(
                    "INSERT INTO local_store_metadata VALUES (?, ?, ?)",
                    [("schema_version", "3", STAMP), ("contract_registry_count", "74", STAMP),
                     ("migration_framework", "1", STAMP)],
                )  # fmt: skip
                connection.executemany(
                    "INSERT INTO records VALUES (?, ?, ?, '0.1.0', ?, ?, ?)",
                    [
                        (kind, record["id"], SCHEMAS[kind], _payload(record), STAMP, STAMP)
                        for kind, record in rows
                    ],
                )
            connection.execute("PRAGMA user_version = 3")
            connection.execute("VACUUM")
        finally:
            connection.close()
        path.write_bytes(built.read_bytes())


def _payload(record: dict[str, Any]) -> str:
    """A record as Craik stores it: compact JSON with sorted keys."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def contents(path: Path) -> list[str]:
    """What a store holds, as text: its schema and rows (SQL) and its user_version; read without a lock."""
    connection = sqlite3.connect(f"file:{path.as_posix()}?mode=ro&immutable=1", uri=True)
    try:
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        return [*connection.iterdump(), f"PRAGMA user_version = {version};"]
    finally:
        connection.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="compare the committed stores, write nothing")
    options = parser.parse_args(argv)
    status = 0
    for project, rows in STORES.items():
        target = EXAMPLES / project / STORE
        if not options.check:
            build(target, rows)
            print(f"wrote {target.relative_to(REPO)}")
            continue
        with tempfile.TemporaryDirectory() as folder:
            expected = Path(folder) / STORE.name
            build(expected, rows)
            if not target.is_file() or contents(target) != contents(expected):
                print(
                    f"{target.relative_to(REPO)} differs from what this script builds; run it to rewrite it"
                )
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
