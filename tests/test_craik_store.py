"""Craik's SQLite store: read-only, one document per row, and every failure a finding on the store."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.pipeline.check import check_group
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.profiles.craik.profile import default_store
from pytest_handoff.profiles.craik.store import read_store
from pytest_handoff.values.findings import Finding
from pytest_handoff.values.groups import GroupRef
from pytest_handoff.values.settings import Settings
from tests.craik_helpers import clean_handoff, clean_score, codes, only

STAMP = "2026-06-02T09:15:00+00:00"


def build_store(path: Path, records: list[tuple[str, ...]], user_version: int = 3) -> Path:
    """A store with Craik's layout (migrations 1-3) holding ``(kind, id, payload_json[, schema])`` rows
    (the schema Craik gives the kind when not given)."""
    connection = sqlite3.connect(path)
    connection.executescript(
        """
        CREATE TABLE records (
          kind TEXT NOT NULL, id TEXT NOT NULL, schema TEXT NOT NULL, version TEXT NOT NULL,
          payload_json TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
          PRIMARY KEY (kind, id)
        );
        CREATE INDEX idx_records_schema ON records(schema);
        CREATE TABLE migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL);
        CREATE TABLE local_store_metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL);
        CREATE INDEX idx_records_kind_updated_at ON records(kind, updated_at);
        """
    )
    connection.executemany("INSERT INTO migrations VALUES (?, ?)", [(n, STAMP) for n in (1, 2, 3)])
    connection.executemany(
        "INSERT INTO local_store_metadata VALUES (?, ?, ?)",
        [
            ("schema_version", "3", STAMP),
            ("contract_registry_count", "74", STAMP),
            ("migration_framework", "1", STAMP),
        ],
    )
    schemas = {"handoffs": "craik.handoff", "handoff_quality_scores": "craik.handoff_quality_score"}
    connection.executemany(
        "INSERT INTO records VALUES (?, ?, ?, '0.1.0', ?, ?, ?)",
        [
            (kind, key, (*schema, schemas.get(kind, "craik.task_request"))[0], payload, STAMP, STAMP)
            for kind, key, payload, *schema in records
        ],
    )
    connection.execute(f"PRAGMA user_version = {user_version}")
    connection.commit()
    connection.close()
    return path


def as_row(kind: str, record: dict[str, Any]) -> tuple[str, str, str]:
    """A record as Craik stores it: compact JSON with sorted keys."""
    return kind, record["id"], json.dumps(record, sort_keys=True, separators=(",", ":"))


def check_store(store: Path, root: Path) -> list[Finding]:
    ref = GroupRef("craik", store.stem, None, (store,))
    return list(check_group(ref, Settings(), root, registry=default_registry()).findings)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return build_store(
        tmp_path / "craik.sqlite3",
        [
            as_row("handoffs", clean_handoff()),
            as_row("handoff_quality_scores", clean_score()),
            ("task_requests", "task_1", json.dumps({"not": "a handoff"})),
        ],
    )


def test_a_store_gives_one_document_per_handoff_or_score_row_with_a_logical_place(store: Path) -> None:
    loaded = read_store(store, "craik.sqlite3")
    assert loaded.findings == ()
    assert [(d.logical, d.label) for d in loaded.documents] == [
        (
            "handoff_quality_scores/handoff_quality_handoff_invoice_export",
            "handoff_quality_handoff_invoice_export",
        ),
        ("handoffs/handoff_invoice_export", "handoff_invoice_export"),
    ]
    assert loaded.documents[1].data == clean_handoff()


def test_a_clean_store_has_no_finding(store: Path, tmp_path: Path) -> None:
    assert check_store(store, tmp_path) == []


def test_findings_in_a_store_are_placed_at_the_row_and_pointer(tmp_path: Path) -> None:
    handoff = clean_handoff()
    handoff["tests_run"] = []
    store = build_store(
        tmp_path / "craik.sqlite3",
        [as_row("handoffs", handoff), as_row("handoff_quality_scores", clean_score())],
    )
    findings = check_store(store, tmp_path)
    assert {f.location for f in findings if f.code == "CK101"} == {
        "craik.sqlite3#handoffs/handoff_invoice_export/self_audit/validation_recorded"
    }
    # the score is checked against the handoff of the same store
    assert (
        "craik.sqlite3#handoff_quality_scores/handoff_quality_handoff_invoice_export/components/2/score"
        in {f.location for f in only(findings, "CK204")}
    )
    assert all(f.line == 0 for f in findings)


def test_checking_a_store_changes_nothing_on_disk(store: Path, tmp_path: Path) -> None:
    before = (store.read_bytes(), store.stat().st_mtime_ns, sorted(os.listdir(tmp_path)))
    check_store(store, tmp_path)
    assert (store.read_bytes(), store.stat().st_mtime_ns, sorted(os.listdir(tmp_path))) == before


@pytest.fixture
def writer(store: Path) -> Iterator[sqlite3.Connection]:
    """Another connection in the middle of a write (its rollback journal beside the store), as Craik's writer."""
    connection = sqlite3.connect(store, isolation_level=None)
    connection.execute("BEGIN EXCLUSIVE")
    connection.execute("UPDATE records SET updated_at = 'now'")
    yield connection
    connection.execute("ROLLBACK")
    connection.close()


def test_ck001_reports_a_store_locked_by_a_writer_instead_of_waiting(
    store: Path, tmp_path: Path, writer: sqlite3.Connection
) -> None:
    [finding] = check_store(store, tmp_path)
    assert finding.code == "CK001"
    assert finding.location == "craik.sqlite3"
    assert "locked" in finding.message
    assert "try again" in finding.message


def test_a_store_a_writer_only_holds_locked_is_read_as_last_committed(store: Path, tmp_path: Path) -> None:
    connection = sqlite3.connect(store, isolation_level=None)
    connection.execute("BEGIN EXCLUSIVE")  # nothing written yet: no journal
    try:
        assert "CK001" not in codes(check_store(store, tmp_path))
    finally:
        connection.execute("ROLLBACK")
        connection.close()


def test_ck001_reports_a_corrupt_store(store: Path, tmp_path: Path) -> None:
    damaged = bytearray(store.read_bytes())
    damaged[100:4096] = b"\xff" * (4096 - 100)  # the first page's b-tree header and cells
    store.write_bytes(bytes(damaged))
    [finding] = check_store(store, tmp_path)
    assert finding.code == "CK001"
    assert "not an intact SQLite database" in finding.message


def test_ck001_reports_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    fake = tmp_path / "notes.db"
    fake.write_text("just some notes\n" * 100)
    [finding] = check_store(fake, tmp_path)
    assert finding.code == "CK001"
    assert "not a database" in finding.message


def test_ck001_reports_an_sqlite_file_without_craiks_records_table(tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    connection = sqlite3.connect(other)
    connection.execute("CREATE TABLE things (name TEXT)")
    connection.commit()
    connection.close()
    [finding] = check_store(other, tmp_path)
    assert finding.code == "CK001"
    assert "not a Craik store" in finding.message


def test_ck001_reports_a_missing_store_and_creates_nothing(tmp_path: Path) -> None:
    [finding] = check_store(tmp_path / "state" / "craik.sqlite3", tmp_path)
    assert finding.code == "CK001"
    assert "no Craik store here" in finding.message
    assert not (tmp_path / "state").exists()


def store_without(path: Path, column: str, user_version: int) -> Path:
    """A store whose ``records`` table lacks ``column`` (a layout this reader does not know)."""
    columns = [c for c in ("kind", "id", "schema", "version", "payload_json") if c != column]
    connection = sqlite3.connect(path)
    connection.execute(f"CREATE TABLE records ({', '.join(c + ' TEXT' for c in columns)})")
    connection.execute(f"INSERT INTO records VALUES ({', '.join('?' * len(columns))})", ["x"] * len(columns))
    connection.execute(f"PRAGMA user_version = {user_version}")
    connection.commit()
    connection.close()
    return path


def test_ck002_reports_a_newer_store_whose_records_are_not_as_known_and_reads_nothing(tmp_path: Path) -> None:
    store = store_without(tmp_path / "craik.sqlite3", "payload_json", user_version=5)
    [finding] = check_store(store, tmp_path)
    assert finding.code == "CK002"
    assert finding.message == (
        "store schema newer than supported: its user_version is 5, this reader knows Craik's store "
        "up to version 4, and it has no 'payload_json' column in 'records'"
    )


@pytest.mark.parametrize("user_version", [4, 9])
def test_a_store_of_craiks_migration_4_or_newer_with_records_as_known_is_read(
    tmp_path: Path, user_version: int
) -> None:
    handoff = clean_handoff()
    handoff["tests_run"] = []  # CK101: the rows were read and checked
    store = build_store(tmp_path / "craik.sqlite3", [as_row("handoffs", handoff)], user_version=user_version)
    connection = sqlite3.connect(store)  # what Craik's migration 4 adds
    connection.execute("CREATE TABLE instruction_sources (id TEXT PRIMARY KEY, payload_json TEXT NOT NULL)")
    connection.commit()
    connection.close()
    assert codes(check_store(store, tmp_path)) == ["CK101"]


def test_ck001_says_a_records_table_without_a_schema_column_is_not_a_craik_store(tmp_path: Path) -> None:
    store = store_without(tmp_path / "craik.sqlite3", "schema", user_version=0)
    [finding] = check_store(store, tmp_path)
    assert finding.code == "CK001"
    assert finding.message == "no 'schema' column in 'records': this SQLite file is not a Craik store"


def test_a_store_of_an_older_layout_is_read(tmp_path: Path) -> None:
    store = build_store(tmp_path / "craik.sqlite3", [as_row("handoffs", clean_handoff())], user_version=2)
    assert check_store(store, tmp_path) == []


def test_ck003_reports_a_row_that_is_not_json_at_its_place_and_reads_the_others(tmp_path: Path) -> None:
    store = build_store(
        tmp_path / "craik.sqlite3",
        [("handoffs", "handoff_cut", '{"id": "handoff_cut",'), ("handoffs", "handoff_nan", '{"score": NaN}'),
         as_row("handoffs", clean_handoff())],
    )  # fmt: skip
    findings = check_store(store, tmp_path)
    assert [(f.code, f.location) for f in findings] == [
        ("CK003", "craik.sqlite3#handoffs/handoff_cut"),
        ("CK003", "craik.sqlite3#handoffs/handoff_nan"),
    ]
    assert "NaN is not a finite number" in findings[1].message


def test_ck003_says_once_where_a_string_cut_short_starts(tmp_path: Path) -> None:
    store = build_store(
        tmp_path / "craik.sqlite3",
        [("handoffs", "handoff_cut", '{"id": "handoff_cut'), ("handoffs", "handoff_tab", '{"id": "a\tb"}'),
         ("handoffs", "handoff_empty", "")],
    )  # fmt: skip
    messages = {f.location: f.message for f in check_store(store, tmp_path)}
    assert messages == {
        "craik.sqlite3#handoffs/handoff_cut": "payload_json is not valid JSON: Unterminated string starting at character 8",
        "craik.sqlite3#handoffs/handoff_empty": "payload_json is not valid JSON: Expecting value at character 1",
        "craik.sqlite3#handoffs/handoff_tab": "payload_json is not valid JSON: Invalid control character at character 10",
    }


def test_a_secret_in_a_store_row_is_reported_masked(tmp_path: Path) -> None:
    token = "ghp_" + "Zy8xW6vU4tS2rQ0pO8nM6lK4jI2hG0fE8dC6"
    handoff = clean_handoff()
    handoff["summary"] = f"Deployed with GITHUB_TOKEN={token}"
    findings = check_store(build_store(tmp_path / "craik.sqlite3", [as_row("handoffs", handoff)]), tmp_path)
    assert codes(findings) == ["CK105", "HX001"]
    assert all(token[4:12] not in f.message for f in findings)


def test_default_store_follows_craik_home_then_the_users_home() -> None:
    assert default_store({"CRAIK_HOME": "/srv/craik", "HOME": "/home/ada"}) == Path(
        "/srv/craik/state/craik.sqlite3"
    )
    assert default_store({"CRAIK_HOME": "", "HOME": "/home/ada"}) == Path(
        "/home/ada/.craik/state/craik.sqlite3"
    )


def test_default_sources_are_the_configured_stores_else_craiks_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRAIK_HOME", str(tmp_path / "home"))
    profile = default_registry().profile("craik")
    assert profile.default_sources(Settings()) == [tmp_path / "home" / "state" / "craik.sqlite3"]
    configured = Settings(options={"craik": {"stores": ["ci/craik.sqlite3"]}})
    assert profile.default_sources(configured) == [Path("ci/craik.sqlite3")]


def test_the_profile_claims_stores_craik_json_names_and_files_declaring_a_craik_record(
    tmp_path: Path,
) -> None:
    profile = default_registry().profile("craik")
    declared = tmp_path / "handoff.json"
    declared.write_text(json.dumps(clean_handoff(), sort_keys=True))
    foreign = tmp_path / "package.json"
    foreign.write_text('{"name": "ledger", "schema": "craik.other"}')
    claimed = [
        profile.claims(tmp_path / name) for name in ("craik.sqlite3", "x.sqlite", "x.db", "a.craik.json")
    ]
    assert claimed == [True, True, True, True]
    assert profile.claims(declared)
    assert not profile.claims(foreign)
    assert profile.opens_itself(tmp_path / "craik.sqlite3")
    assert not profile.opens_itself(declared)


def test_a_folders_group_holds_only_its_craik_records(tmp_path: Path) -> None:
    (tmp_path / "a.craik.json").write_text("{}")
    (tmp_path / "exported.json").write_text(json.dumps(clean_score(), indent=2))
    (tmp_path / "package.json").write_text('{"name": "ledger"}')
    (tmp_path / "notes.txt").write_text("hello")
    profile = default_registry().profile("craik")
    assert profile.group_of(tmp_path / "a.craik.json") == (tmp_path, tmp_path.name)
    assert profile.group_of(tmp_path / "craik.sqlite3") is None
    members = profile.members(tmp_path, tmp_path.name, None)
    assert sorted(p.name for p in members) == ["a.craik.json", "exported.json"]


def test_reading_a_wal_mode_store_creates_no_file_beside_it(tmp_path: Path) -> None:
    store = build_store(tmp_path / "craik.sqlite3", [as_row("handoffs", clean_handoff())])
    connection = sqlite3.connect(store)
    assert connection.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    connection.close()
    before = sorted(p.name for p in tmp_path.iterdir())
    assert [d.logical for d in read_store(store, "craik.sqlite3").documents] == [
        "handoffs/handoff_invoice_export"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_store_linked_from_outside_the_repository_is_not_followed(tmp_path: Path) -> None:
    outside = build_store(tmp_path / "elsewhere.sqlite3", [as_row("handoffs", clean_handoff())])
    project = tmp_path / "project"
    (project / ".craik" / "state").mkdir(parents=True)
    link = project / ".craik" / "state" / "craik.sqlite3"
    link.symlink_to(outside)
    ref = GroupRef("craik", "craik", None, (link,))
    (finding,) = check_group(ref, Settings(), project, registry=default_registry()).findings
    assert (finding.code, finding.path) == ("HF007", ".craik/state/craik.sqlite3")


# --- read only, nothing written, the caller's locks kept ----------------------------------------


def wal_store(path: Path, ids: list[str]) -> sqlite3.Connection:
    """A WAL-mode store whose rows sit in its -wal file (no checkpoint), with its writer still open."""
    build_store(path, [])
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    for record_id in ids:
        handoff = {**clean_handoff(), "id": record_id}
        kind, key, payload = as_row("handoffs", handoff)
        writer.execute(
            "INSERT INTO records VALUES (?, ?, 'craik.handoff', '0.1', ?, '2026-01-01', '2026-01-01')",
            (kind, key, payload),
        )
    return writer


def beside(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.parent.iterdir()) if p.name.startswith(path.name)}


def test_rows_committed_in_the_wal_are_seen_and_nothing_beside_the_store_changes(tmp_path: Path) -> None:
    store = tmp_path / "craik.sqlite3"
    writer = wal_store(store, ["handoff_a", "handoff_b"])
    writer.execute("BEGIN IMMEDIATE")  # the writer (this process) holds a write transaction
    writer.execute("UPDATE records SET id = 'handoff_c' WHERE id = 'handoff_a'")
    files = beside(store)
    loaded = read_store(store, "craik.sqlite3")
    assert sorted(document.label for document in loaded.documents) == ["handoff_a", "handoff_b"]
    assert beside(store) == files  # no -shm written, nothing created
    writer.execute("COMMIT")  # its locks were kept: the commit goes through
    writer.close()


def test_a_leftover_wal_without_shm_is_read_and_no_shm_appears(tmp_path: Path) -> None:
    store = tmp_path / "craik.sqlite3"
    writer = wal_store(store, ["handoff_a"])
    wal = (tmp_path / "craik.sqlite3-wal").read_bytes()
    writer.close()  # closing checkpoints and removes the WAL: put the leftover back
    (tmp_path / "craik.sqlite3-wal").write_bytes(wal)
    (tmp_path / "craik.sqlite3-shm").unlink(missing_ok=True)
    files = beside(store)
    loaded = read_store(store, "craik.sqlite3")
    assert [document.label for document in loaded.documents] == ["handoff_a"]
    assert beside(store) == files


def test_a_schema_name_that_is_not_utf8_is_ck001_not_an_error(tmp_path: Path) -> None:
    store = build_store(tmp_path / "craik.sqlite3", [])
    connection = sqlite3.connect(store)
    connection.execute("CREATE TABLE t (x)")
    connection.execute("PRAGMA writable_schema = ON")
    connection.execute("UPDATE sqlite_master SET name = CAST(X'74ff' AS TEXT) WHERE name = 't'")
    connection.commit()
    connection.close()
    loaded = read_store(store, "craik.sqlite3")
    assert [f.code for f in loaded.findings] == ["CK001"]
    assert loaded.documents == ()


def test_a_row_claiming_craik_handoff_is_checked_by_its_schema_whatever_its_kind(tmp_path: Path) -> None:
    handoff = clean_handoff()
    handoff["tests_run"] = []
    store = build_store(tmp_path / "craik.sqlite3", [(*as_row("handoff_records", handoff), "craik.handoff")])

    findings = check_store(store, tmp_path)

    assert codes(findings) == ["CK101"]
    assert findings[0].location == (
        "craik.sqlite3#handoff_records/handoff_invoice_export/self_audit/validation_recorded"
    )


def test_a_row_of_another_kind_and_another_schema_is_not_checked_as_a_handoff(tmp_path: Path) -> None:
    handoff = clean_handoff()
    handoff["tests_run"] = []  # CK101, were it checked
    rows = [(*as_row("handoff_records", handoff), "craik.case_file"), as_row("handoffs", clean_handoff())]
    assert check_store(build_store(tmp_path / "craik.sqlite3", rows), tmp_path) == []


def test_a_row_is_checked_as_the_contract_its_schema_column_names_not_as_its_kind(tmp_path: Path) -> None:
    score = clean_score()
    score["band"] = "poor"  # CK201 of a score; as a handoff it would fail its schema (HS001)
    rows = [as_row("handoffs", clean_handoff()), (*as_row("handoffs", score), "craik.handoff_quality_score")]
    findings = check_store(build_store(tmp_path / "craik.sqlite3", rows), tmp_path)
    assert "HS001" not in codes(findings)
    assert "CK201" in codes(findings)


def test_ck004_warns_about_a_store_none_of_whose_rows_is_checked(tmp_path: Path) -> None:
    rows = [("task_requests", f"task_{n}", json.dumps({"id": f"task_{n}"})) for n in range(3)]
    store = build_store(tmp_path / "craik.sqlite3", rows)

    [finding] = check_store(store, tmp_path)

    assert (finding.code, finding.severity.label, finding.line) == ("CK004", "warning", 0)
    assert finding.message == (
        "nothing in this store was checked: it has 3 rows, and none claims craik.handoff or "
        "craik.handoff_quality_score in its schema column (craik.task_request: 3)"
    )


def test_ck004_warns_about_an_empty_store(tmp_path: Path) -> None:
    [finding] = check_store(build_store(tmp_path / "craik.sqlite3", []), tmp_path)
    assert finding.code == "CK004"
    assert "it has 0 rows, and none claims craik.handoff" in finding.message


def test_ck004_is_not_reported_when_one_row_is_checked_even_if_it_cannot_be_read(tmp_path: Path) -> None:
    rows = [("task_requests", "task_1", "{}"), ("handoffs", "handoff_cut", '{"id": "handoff_cut",')]
    assert codes(check_store(build_store(tmp_path / "craik.sqlite3", rows), tmp_path)) == ["CK003"]


def test_a_records_table_whose_column_names_differ_only_in_case_is_read(tmp_path: Path) -> None:
    store = tmp_path / "craik.sqlite3"
    connection = sqlite3.connect(store)
    connection.execute("CREATE TABLE records (KIND TEXT, ID TEXT, SCHEMA TEXT, PAYLOAD_JSON TEXT)")
    handoff = clean_handoff()
    handoff["tests_run"] = []  # CK101: the row was read and checked
    kind, key, payload = as_row("handoffs", handoff)
    connection.execute("INSERT INTO records VALUES (?, ?, 'craik.handoff', ?)", (kind, key, payload))
    connection.commit()
    connection.close()
    assert codes(check_store(store, tmp_path)) == ["CK101"]
