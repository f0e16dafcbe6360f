"""Craik's rule table (codes CK): the store, the self-audit, and quality scores."""

from __future__ import annotations

from pytest_handoff.profiles.craik import audit, quality
from pytest_handoff.profiles.craik.format import HANDOFF, HANDOFF_DOCS, NAME, QUALITY_SCORE
from pytest_handoff.profiles.craik.store import BAD_PAYLOAD, NOTHING_CHECKED, STORE_TOO_NEW, STORE_UNREADABLE
from pytest_handoff.rules.rows import listed, reported
from pytest_handoff.values.findings import Severity
from pytest_handoff.values.rules import Rule

HANDOFFS = (HANDOFF, HANDOFF_DOCS)
SCORES = (QUALITY_SCORE,)

RULES: tuple[Rule, ...] = (
    reported(
        STORE_UNREADABLE,
        "store-unreadable",
        """A Craik store can be opened read-only and read.

        **What it does**: reports, on the store's file, a store that is missing, locked by a
        writer past a short wait, not an SQLite database, damaged, or without Craik's `records`
        table and the columns read from it (at a layout no newer than this reader knows: see
        CK002). The store is opened read-only (never created, written or checkpointed) and read
        in one short transaction.

        **Why is this bad?** Nothing in the store can be checked; a damaged store also loses
        Craik's own handoffs.

        **Example**: `handoff-lint notes.db` on a file that is not a database; or a store while
        `craik` holds a write lock on it.

        **Use instead**: name Craik's store (`$CRAIK_HOME/state/craik.sqlite3`), wait for `craik`
        to finish writing, or restore the store from a backup (`craik doctor` diagnoses it).
        """,
        profile=NAME,
    ),
    reported(
        STORE_TOO_NEW,
        "store-too-new",
        """A Craik store's layout is one this reader knows.

        **What it does**: reports a store whose `PRAGMA user_version` is above 4, Craik's
        `CURRENT_MIGRATION` when these rules were written, and whose `records` table lacks a
        column this reader reads (`kind`, `id`, `schema`, `payload_json`); nothing is read from
        it. A newer store whose `records` are as known is read: a migration that adds a table
        (as Craik's 4th added `instruction_sources`) changes nothing that is checked.

        **Why is this bad?** A newer Craik has reshaped its records; reading them with the old
        layout could report errors that are not there, or miss real ones.

        **Example**: a store migrated by a newer Craik (`user_version` 5) whose payload column is
        no longer `payload_json`.

        **Use instead**: upgrade pytest-handoff, or check the store's exported handoffs
        (`craik handoff show ID > ID.craik.json`).
        """,
        profile=NAME,
    ),
    reported(
        BAD_PAYLOAD,
        "invalid-record-json",
        """A store row's `payload_json` is valid JSON.

        **What it does**: reports, at the row (`store.sqlite3#handoffs/ID`), a handoff or score
        row whose `payload_json` is not UTF-8 JSON text (or holds `NaN`/`Infinity`).

        **Why is this bad?** Craik cannot read the record back (it raises
        `LocalStoreCorruptError`), and nothing in it can be checked.

        **Example**: a row written by hand with `payload_json` `{"id": "handoff_1",` (cut short).

        **Use instead**: write records through `craik` (it stores compact JSON with sorted keys),
        or restore the row from a backup.
        """,
        profile=NAME,
    ),
    reported(
        NOTHING_CHECKED,
        "store-without-handoffs",
        """A Craik store has a handoff or quality-score row to check.

        **What it does**: warns, on the store's file, when no row of a readable store was checked:
        none claims `craik.handoff` or `craik.handoff_quality_score` in its `schema` column, and
        none is of Craik's kinds for them (`handoffs`, `handoff_quality_scores`); the message says
        how many rows there are and which contracts they claim. A row is checked by the contract
        its `schema` column names, whatever its `kind`.

        **Why is this bad?** Without it the run says "no broken contracts" about a store it did not
        check at all: a store of the wrong Craik home, one its handoffs have not reached yet, or
        one whose writer files them under another schema name.

        **Example**: a store whose rows are a task request and a case file (`craik.task_request`,
        `craik.case_file`), and no handoff yet.

        **Use instead**: name the store that holds the handoffs (`$CRAIK_HOME/state/craik.sqlite3`),
        write them through `craik handoff` (it stores them as `craik.handoff` rows), or leave a
        store with no handoffs out of `[tool.handoff.craik] stores`.
        """,
        severity=Severity.WARNING,
        profile=NAME,
    ),
    listed(
        "CK010", "docs-shaped-record", audit.check_docs_shape,
        severity=Severity.WARNING, profile=NAME, handoff_types=(HANDOFF_DOCS,),
        modes=('FM-1.1',),
    ),
    listed(
        "CK101", "validation-recorded-without-tests", audit.check_validation_recorded,
        profile=NAME, handoff_types=HANDOFFS,
        modes=('FM-3.2', 'FM-3.3'),
    ),
    listed(
        "CK102", "receipts-reviewed-without-receipts", audit.check_receipts_reviewed,
        profile=NAME, handoff_types=HANDOFFS,
        modes=('FM-3.2', 'FM-3.3'),
    ),
    listed(
        "CK103", "unexplained-missing-validation", audit.check_gap_explained,
        profile=NAME, handoff_types=HANDOFFS,
        modes=('FM-2.4',),
    ),
    listed(
        "CK104", "completed-with-failed-validation", audit.check_completed_without_failures,
        profile=NAME, handoff_types=HANDOFFS,
        modes=('FM-2.6', 'FM-3.1', 'FM-3.3'),
    ),
    listed(
        "CK105", "redaction-reviewed-with-secret", audit.check_redaction_reviewed,
        profile=NAME, handoff_types=HANDOFFS,
        modes=('FM-3.3',),
    ),
    listed(
        "CK106", "undisclosed-policy-exceptions", audit.check_policy_exceptions_disclosed,
        severity=Severity.WARNING, profile=NAME, handoff_types=HANDOFFS,
        modes=('FM-2.4',),
    ),
    listed("CK201", "score-band-mismatch", quality.check_band, profile=NAME, handoff_types=SCORES, modes=('FM-3.3',)),
    listed(
        "CK202", "poor-score-without-reasons", quality.check_poor_has_reasons,
        profile=NAME, handoff_types=SCORES,
        modes=('FM-2.4',),
    ),
    listed(
        "CK203", "score-not-weighted-mean", quality.check_weighted_mean, profile=NAME, handoff_types=SCORES,
        modes=('FM-3.3',),
    ),
    listed(
        "CK204", "score-disagrees-with-handoff", quality.check_agrees_with_handoff,
        scope="chain", profile=NAME,
        modes=('FM-3.3',),
    ),
    listed(
        "CK205", "score-without-handoff", quality.check_handoff_present,
        severity=Severity.WARNING, scope="chain", profile=NAME,
    ),
)  # fmt: skip
