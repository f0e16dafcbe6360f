"""Reading Craik's SQLite store without changing it: one document per handoff or score row.

The store is opened read-only through an SQLite URI (``mode=ro``: never created, never written,
no journal replayed or checkpoint run), with a short busy timeout, and read in one short
transaction so that every row comes from the same snapshot and no writer is kept waiting for
long. Whatever goes wrong (a locked, corrupt, foreign or newer store, a row that is not JSON) is
a finding on the store or on the row, never an exception.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_handoff.model import Finding, Severity
from pytest_handoff.profiles.craik.profile import STORE_KINDS
from pytest_handoff.read.document import Document, Loaded

if TYPE_CHECKING:
    import sqlite3

#: Craik's ``CURRENT_MIGRATION``: the newest store layout this reader knows.
SUPPORTED_VERSION = 3
#: Seconds to wait for a writer's lock before reporting the store as busy.
BUSY_TIMEOUT = 0.5

STORE_UNREADABLE = "CK001"
STORE_TOO_NEW = "CK002"
BAD_PAYLOAD = "CK003"


def read_store(path: Path, display_path: str) -> Loaded:
    """The handoff and quality-score rows of the store at ``path`` as documents (logical places)."""
    import sqlite3  # only here: checking JSON files must not pay for it

    if not path.is_file():
        return _failed(display_path, "no Craik store here (set CRAIK_HOME or name the store's file)")
    try:
        connection = sqlite3.connect(
            f"file:{_uri_path(path)}?mode=ro{_immutable_if_quiet_wal(path)}",
            uri=True,
            timeout=BUSY_TIMEOUT,
            isolation_level=None,
        )
    except sqlite3.Error as error:
        return _failed(display_path, f"cannot open the store read-only: {_reason(error)}")
    try:
        return _read_rows(connection, path, display_path)
    except sqlite3.Error as error:
        return _failed(display_path, f"cannot read the store: {_reason(error)}")
    finally:
        connection.close()


def _immutable_if_quiet_wal(path: Path) -> str:
    """``&immutable=1`` for a WAL-mode store no writer has open (no ``-wal`` file beside it).

    Opening a WAL database, even read-only, creates its ``-wal`` and ``-shm`` files beside it:
    files in the user's project. With no ``-wal`` file nothing is being written, so the file can
    be read as immutable, which creates nothing. A store a writer has open is read normally.
    """
    try:
        with path.open("rb") as stream:
            header = stream.read(20)
    except OSError:
        return ""
    in_wal_mode = len(header) == 20 and header.startswith(b"SQLite format 3\x00") and header[18] == 2
    return "&immutable=1" if in_wal_mode and not path.with_name(path.name + "-wal").exists() else ""


def _read_rows(connection: sqlite3.Connection, path: Path, display_path: str) -> Loaded:
    connection.execute("BEGIN")  # one snapshot; released at once by the rollback below
    try:
        version = int(connection.execute("PRAGMA user_version").fetchone()[0])
        if version > SUPPORTED_VERSION:
            return Loaded(
                (),
                (
                    _store_finding(
                        display_path,
                        STORE_TOO_NEW,
                        f"store schema newer than supported: its user_version is {version}, "
                        f"this reader knows Craik's store up to version {SUPPORTED_VERSION}",
                    ),
                ),
            )
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "records" not in tables:
            return _failed(display_path, "no 'records' table: this SQLite file is not a Craik store")
        kinds = tuple(STORE_KINDS)
        rows = connection.execute(
            "SELECT kind, id, payload_json FROM records WHERE kind IN (?, ?) ORDER BY kind, id", kinds
        ).fetchall()
    finally:
        _end(connection)
    documents: list[Document] = []
    findings: list[Finding] = []
    for kind, record_id, payload in rows:
        logical = f"{kind}/{record_id}"
        data, problem = _payload(payload)
        if problem:
            findings.append(_store_finding(display_path, BAD_PAYLOAD, problem, logical=logical))
            continue
        documents.append(Document(path, display_path, "", data, logical=logical, label=str(record_id)))
    return Loaded(tuple(documents), tuple(findings))


def _end(connection: sqlite3.Connection) -> None:
    """Release the read snapshot (an error may already have ended the transaction)."""
    import sqlite3

    try:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
    except sqlite3.Error:
        pass  # closing the connection releases it all the same


def _payload(payload: object) -> tuple[Any, str]:
    """A row's ``payload_json`` as data, or why it cannot be read (strict: finite numbers only)."""
    if isinstance(payload, bytes):
        try:
            payload = payload.decode("utf-8")
        except UnicodeDecodeError as error:
            return None, f"payload_json is not UTF-8 text (byte {error.start})"
    if not isinstance(payload, str):
        return None, f"payload_json holds {type(payload).__name__}, not JSON text"
    try:
        return json.loads(payload, parse_constant=_reject_constant), ""
    except _NonFinite as error:
        return None, f"payload_json is not valid JSON: {error} is not a finite number"
    except json.JSONDecodeError as error:
        return None, f"payload_json is not valid JSON: {error.msg} at character {error.pos + 1}"
    except (RecursionError, ValueError) as error:
        return None, f"payload_json cannot be read: {type(error).__name__}"


class _NonFinite(ValueError):
    pass


def _reject_constant(token: str) -> Any:
    raise _NonFinite(token)


def _uri_path(path: Path) -> str:
    """``path`` for an SQLite URI: absolute, with ``?``, ``#`` and ``%`` (and spaces) escaped."""
    from urllib.parse import quote

    return quote(path.resolve().as_posix(), safe="/:")


def _reason(error: Exception) -> str:
    text = str(error) or type(error).__name__
    if "locked" in text or "busy" in text:
        return f"{text} (another process holds a lock on it; try again when Craik is idle)"
    if "not a database" in text or "malformed" in text:
        return f"{text} (the file is not an intact SQLite database)"
    return text


def _failed(display_path: str, message: str) -> Loaded:
    return Loaded((), (_store_finding(display_path, STORE_UNREADABLE, message),))


def _store_finding(display_path: str, code: str, message: str, *, logical: str = "") -> Finding:
    return Finding(
        path=display_path,
        line=0,
        column=0,
        code=code,
        severity=Severity.ERROR,
        message=message,
        logical=logical,
    )
