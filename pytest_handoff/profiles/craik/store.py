"""Reading Craik's SQLite store without changing it: one document per handoff or score row.

Nothing beside the store is created or changed, and the caller's locks on it are kept:

- the store file is only ever opened by SQLite (a plain ``open()`` and ``close()`` of it would
  drop every POSIX lock this process holds on it, and a writer in the same process would fail
  at ``COMMIT``);
- with a ``-wal`` file beside it (a writer has it open, or left committed rows there), the store
  is read as a private copy: its main file through SQLite as immutable (which touches neither
  ``-wal`` nor ``-shm``), the ``-wal`` file's bytes beside the copy, in a temporary folder; so the
  rows committed in the WAL are seen, and the store's ``-shm`` is neither created nor written;
- while a rollback journal is beside it, a writer is at work: the store is opened read-only
  (``mode=ro``, a short busy timeout), and a store it keeps locked is CK001;
- with neither, nothing is pending and the store is read as immutable (SQLite takes no lock and
  creates nothing); it is read again the safe way if a writer began meanwhile.

Rows are read in one short transaction, so they come from one snapshot. Whatever goes wrong (a
locked, corrupt, foreign or newer store, a name that is not UTF-8, a row that is not JSON) is a
finding on the store or on the row, never an exception.

A row is read when its ``schema`` column claims a handoff or a quality score, whatever its
``kind``, or when its ``kind`` is Craik's for them (Craik reads those rows back as one). A store
none of whose rows is read says so (CK004): a run that checked nothing must not pass in silence.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_handoff.profiles.craik.format import SCHEMA_IDS, STORE_KINDS
from pytest_handoff.values.documents import Document, Loaded
from pytest_handoff.values.findings import Finding, Severity

if TYPE_CHECKING:
    import sqlite3

#: Craik's ``CURRENT_MIGRATION``: the newest store layout this reader knows (4 added the
#: ``instruction_sources`` table; ``records`` is as migration 1 made it).
SUPPORTED_VERSION = 4
#: The columns of ``records`` this reader reads: a store of any version that has them is read.
READ_COLUMNS = ("kind", "id", "schema", "payload_json")
#: Seconds to wait for a writer's lock before reporting the store as busy.
BUSY_TIMEOUT = 0.5

STORE_UNREADABLE = "CK001"
STORE_TOO_NEW = "CK002"
BAD_PAYLOAD = "CK003"
NOTHING_CHECKED = "CK004"


class StoreRow(Document):
    """A handoff or score row of a store: its payload as data, at its logical place ``kind/id``."""

    def __init__(
        self, path: Path, display_path: str, data: Any, *, kind: str, record_id: object, schema: str
    ) -> None:
        super().__init__(path, display_path, "", data, logical=f"{kind}/{record_id}", label=str(record_id))
        #: The row's ``kind`` column.
        self.kind = kind
        #: The row's ``schema`` column: the contract the row claims ("" when it is not text).
        self.schema = schema


def read_store(path: Path, display_path: str) -> Loaded:
    """The handoff and quality-score rows of the store at ``path`` as documents (logical places)."""
    import sqlite3  # only here: checking JSON files must not pay for it

    if not path.is_file():
        return _failed(display_path, "no Craik store here (set CRAIK_HOME or name the store's file)")
    wal = path.with_name(path.name + "-wal")
    journal = path.with_name(path.name + "-journal")
    try:
        for attempt in (1, 2):
            if wal.exists():
                copied = _read_private_copy(path, wal, display_path)
                if copied is not None or attempt == 2:
                    return copied or _failed(display_path, "its -wal file kept changing while it was read")
                continue  # the -wal file went or changed meanwhile: look again
            if journal.exists():  # a writer is at work: SQLite keeps to its locks
                return _read_from(_open(path, "mode=ro"), path, display_path)
            loaded = _read_from(_open(path, "mode=ro&immutable=1"), path, display_path)
            # Nothing was pending; a writer that began meanwhile may have torn what was read.
            if attempt == 2 or not (wal.exists() or journal.exists()):
                return loaded
        raise AssertionError("unreachable")
    except (sqlite3.Error, OSError) as error:
        return _failed(display_path, f"cannot open the store read-only: {_reason(error)}")


def _open(path: Path, options: str) -> sqlite3.Connection:
    import sqlite3

    return sqlite3.connect(
        f"file:{_uri_path(path)}?{options}", uri=True, timeout=BUSY_TIMEOUT, isolation_level=None
    )


def _read_from(connection: sqlite3.Connection, path: Path, display_path: str) -> Loaded:
    """The rows of an open store (closed afterwards); a store that cannot be read is CK001."""
    import sqlite3

    try:
        return _read_rows(connection, path, display_path)
    except sqlite3.Error as error:
        return _failed(display_path, f"cannot read the store: {_reason(error)}")
    except (UnicodeDecodeError, ValueError) as error:  # a table or column name that is not UTF-8
        return _failed(display_path, f"cannot read the store: {type(error).__name__} in its schema")
    finally:
        connection.close()


#: The largest ``-wal`` file copied (bytes); a larger one is not a store this reader takes in.
MAX_WAL_SIZE = 1 << 30


def _read_private_copy(path: Path, wal: Path, display_path: str) -> Loaded | None:
    """The rows of a store with a ``-wal`` file, read from a copy in a temporary folder; None when
    the ``-wal`` file went, or changed, while it was copied (then the caller looks again)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="pytest-handoff-store-") as folder:
        copy = Path(folder) / "store.sqlite3"
        source = _open(path, "mode=ro&immutable=1")
        try:
            target = _open(copy, "mode=rwc")
            try:
                source.backup(target)
            finally:
                target.close()
        finally:
            source.close()
        copied = _copy_wal(wal, Path(folder) / "store.sqlite3-wal")
        if isinstance(copied, str):
            return _failed(display_path, copied)
        if not copied:
            return None
        return _read_from(_open(copy, "mode=rw"), path, display_path)  # ours: it may build its -shm


def _copy_wal(wal: Path, target: Path) -> bool | str:
    """Copy the store's ``-wal`` file: True, False when it went or changed meanwhile, or why it
    cannot be taken in (a link, not a regular file, too large).

    Not through a link, in bounded pieces, and checked again afterwards. The ``-wal`` file is not
    the store: reading it leaves the store's locks alone.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(wal, flags)
    except FileNotFoundError:
        return False
    except OSError as error:
        return f"its -wal file cannot be read ({error.strerror or error}; a link is not followed)"
    try:
        before = os.fstat(descriptor)
        if not stat.S_ISREG(before.st_mode):
            return "its -wal file is not a regular file"
        if before.st_size > MAX_WAL_SIZE:
            return f"its -wal file is larger than {MAX_WAL_SIZE:,} bytes"
        with target.open("wb") as out:
            left = before.st_size
            while left > 0:
                piece = os.read(descriptor, min(left, 1 << 20))
                if not piece:
                    break
                out.write(piece)
                left -= len(piece)
        after = os.fstat(descriptor)
    finally:
        os.close(descriptor)
    # Ours: it may build its -shm.
    return (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def _read_rows(connection: sqlite3.Connection, path: Path, display_path: str) -> Loaded:
    connection.execute("BEGIN")  # one snapshot; released at once by the rollback below
    try:
        unknown = _layout_problem(connection, display_path)
        if unknown is not None:
            return Loaded((), (unknown,))
        rows = connection.execute(
            "SELECT kind, id, schema, payload_json FROM records WHERE kind IN (?, ?) OR schema IN (?, ?) "
            "ORDER BY kind, id",
            (*STORE_KINDS, *SCHEMA_IDS),
        ).fetchall()
        unread = None if rows else _nothing_checked(connection, display_path)
    finally:
        _end(connection)
    if unread is not None:
        return Loaded((), (unread,))
    documents: list[Document] = []
    findings: list[Finding] = []
    for kind, record_id, schema, payload in rows:
        data, problem = _payload(payload)
        if problem:
            logical = f"{kind}/{record_id}"
            findings.append(_store_finding(display_path, BAD_PAYLOAD, problem, logical=logical))
            continue
        claimed = schema if isinstance(schema, str) else ""
        documents.append(
            StoreRow(path, display_path, data, kind=str(kind), record_id=record_id, schema=claimed)
        )
    return Loaded(tuple(documents), tuple(findings))


def _layout_problem(connection: sqlite3.Connection, display_path: str) -> Finding | None:
    """Why the store's rows cannot be read as Craik's, or None: a store of any version whose
    ``records`` table has :data:`READ_COLUMNS` is read (a newer Craik may add tables, as
    migration 4 did); without them, a newer store is CK002 and any other SQLite file CK001."""
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    missing: list[str] | None = None
    if "records" in tables:
        # SQLite's names are case-insensitive, and table_xinfo lists generated columns too.
        present = {str(row[1]).lower() for row in connection.execute("PRAGMA table_xinfo(records)")}
        missing = [column for column in READ_COLUMNS if column not in present]
        if not missing:
            return None
    lacks = "no 'records' table" if missing is None else f"no {_columns(missing)} in 'records'"
    version = int(connection.execute("PRAGMA user_version").fetchone()[0])
    if version > SUPPORTED_VERSION:
        return _store_finding(
            display_path,
            STORE_TOO_NEW,
            f"store schema newer than supported: its user_version is {version}, this reader knows "
            f"Craik's store up to version {SUPPORTED_VERSION}, and it has {lacks}",
        )
    return _store_finding(display_path, STORE_UNREADABLE, f"{lacks}: this SQLite file is not a Craik store")


def _columns(names: list[str]) -> str:
    """Column names (ours, never the file's) as a message says them."""
    quoted = [f"'{name}'" for name in names]
    return f"{quoted[0]} column" if len(quoted) == 1 else f"{', '.join(quoted)} columns"


#: A ``schema`` column value shown in a message: a contract's name, not whatever a row holds.
_SHOWN_SCHEMA = re.compile(r"[A-Za-z0-9_.:-]{1,80}")


def _nothing_checked(connection: sqlite3.Connection, display_path: str) -> Finding:
    """CK004 on a store without a row to check: how many rows it has, and the contracts they claim
    (a name shaped like a secret is not shown)."""
    from pytest_handoff.rules.secrets import may_hold_secrets

    counts = connection.execute(
        "SELECT schema, COUNT(*) FROM records GROUP BY schema ORDER BY COUNT(*) DESC, schema"
    ).fetchall()
    total = sum(count for _, count in counts)
    named = [
        f"{schema}: {count:,}"
        for schema, count in counts[:3]
        if isinstance(schema, str) and _SHOWN_SCHEMA.fullmatch(schema) and not may_hold_secrets(schema)
    ]
    claimed = f" ({', '.join(named)}{', …' if len(counts) > len(named) else ''})" if named else ""
    message = (
        f"nothing in this store was checked: it has {total:,} row{'s' * (total != 1)}, and none claims "
        f"{' or '.join(SCHEMA_IDS)} in its schema column{claimed}"
    )
    return _store_finding(display_path, NOTHING_CHECKED, message, severity=Severity.WARNING)


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
        # Some of json's messages end in "at" ("Unterminated string starting at"): say it once.
        said = error.msg.removesuffix(" at")
        return None, f"payload_json is not valid JSON: {said} at character {error.pos + 1}"
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


def _store_finding(
    display_path: str, code: str, message: str, *, logical: str = "", severity: Severity = Severity.ERROR
) -> Finding:
    return Finding(
        path=display_path,
        line=0,
        column=0,
        code=code,
        severity=severity,
        message=message,
        logical=logical,
    )
