"""Secrets stay hidden in every format's outputs: also in encoded form, also in a store's rows."""

from __future__ import annotations

import base64
import json
import sqlite3
from pathlib import Path

import pytest

from pytest_handoff.cli import main

TOKEN = "ghp_" + "1234567890abcdefghijklmnopqrstuvwxyzAB"


@pytest.fixture
def project(git_project: Path) -> Path:
    return git_project


@pytest.mark.parametrize("output", ["text", "json", "sarif", "github", "markdown"])
@pytest.mark.parametrize("select", ["RL101", "HX001", "ALL"])
def test_a_secret_in_a_ralph_phrases_base64_context_is_not_shown_encoded(
    project: Path, capsys: pytest.CaptureFixture[str], output: str, select: str
) -> None:
    context = {
        "from": "developer",
        "reason": TOKEN,
        "timestamp": "2026-05-01T10:00:00Z",
        "task": {"id": "T-9"},
    }
    encoded = base64.b64encode(json.dumps(context).encode()).decode()
    logs = project / ".claude" / "session" / "logs"
    logs.mkdir(parents=True)
    (logs / "developer.log").write_text(f"AGENT_READY_FOR_HANDOFF\nHANDOFF:qa:{encoded}\n", encoding="utf-8")
    assert main(["--format", output, "--select", select]) == 1
    shown = capsys.readouterr().out
    assert TOKEN[4:16] not in shown
    # No run of 16 characters of the encoded context either: decoding it would give the token back.
    assert not any(encoded[i : i + 16] in shown for i in range(len(encoded) - 16))


def test_a_schema_error_in_a_store_row_names_its_row(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = incomplete_store(project / "craik.sqlite3")
    assert main(["--format", "json", str(store)]) == 1
    schema_errors = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "HS001"]
    assert schema_errors
    assert {f["logical"] for f in schema_errors} == {"handoffs/handoff_1"}
    assert all(f["location"].startswith("craik.sqlite3#handoffs/handoff_1") for f in schema_errors)


def test_the_api_gives_a_store_rows_finding_its_logical_place(project: Path) -> None:
    from pytest_handoff.api import check, finding_data

    data = [finding_data(f) for f in check(incomplete_store(project / "craik.sqlite3"))]
    assert data
    assert {(entry["logical"], entry["location"].split("/", 2)[0]) for entry in data} == {
        ("handoffs/handoff_1", "craik.sqlite3#handoffs")
    }


def incomplete_store(store: Path) -> Path:
    """A store of Craik's layout whose one handoff row lacks most required fields."""
    connection = sqlite3.connect(store)
    connection.execute(
        "CREATE TABLE records (kind TEXT NOT NULL, id TEXT NOT NULL, schema TEXT NOT NULL, version TEXT NOT NULL, "
        "payload_json TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY(kind, id))"
    )
    payload = json.dumps({"schema": "craik.handoff", "version": "0.1.0", "id": "handoff_1"})
    connection.execute(
        "INSERT INTO records VALUES ('handoffs', 'handoff_1', 'craik.handoff', '0.1.0', ?, 'x', 'x')",
        (payload,),
    )
    connection.execute("PRAGMA user_version = 3")
    connection.commit()
    connection.close()
    return store
