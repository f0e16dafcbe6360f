"""How CK104 reads a recorded command's outcome: failures found, and no false alarm on passes."""

from __future__ import annotations

import pytest

from pytest_handoff.profiles.craik.outcomes import failure_in, failures


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("pytest (exit 1)", "exit 1"),
        ("npm test: exit code 2", "exit code 2"),
        ("make check exited with 127", "exited with 127"),
        ("cargo test rc=101", "rc=101"),
        ("tox returncode: 1", "returncode: 1"),
        ("script returned a non-zero exit", "non-zero exit"),
        ("pytest -q: 2 failed, 40 passed", "2 failed"),
        ("pytest: 40 passed, 0 failed, 1 error", "1 error"),
        ("jest: 3 tests failed", "3 tests failed"),
        ("unittest failures: 4", "failures: 4"),
        ("FAILED tests/test_api.py::test_login", "FAILED"),
        ("go test ./... FAIL", "FAIL"),
        ("ERROR collecting tests/test_db.py", "ERROR"),
        ("pytest failed", "failed"),
        ("ruff: failed", "failed"),
        ("mypy (failing)", "failing"),
        ("eslint - fails", "fails"),
        ("pytest (retry): failed", "failed"),
        ("pytest: failed after 3 retries", "failed"),
    ],
)
def test_ck104_reads_these_entries_as_failed(text: str, shown: str) -> None:
    assert failure_in(text) == shown


@pytest.mark.parametrize(
    "text",
    [
        "pytest",
        "uv run --python 3.12 pytest -q",
        "pytest: 14 passed, 0 failed",
        "pytest: 0 tests failed",
        "failures=0",
        "errors: 0",
        "no failures",
        "make check -> exit 0",
        "exit code: 0",
        "pytest --cov-fail-under=90",
        "pytest --maxfail=1 -x",
        "pytest tests/test_login_fails.py",
        "pytest: 3 passed, 2 xfailed",
        "fail-fast run of the smoke suite",
        "regression test for failed logins",
        "error handling tests",
        "pip install ledger==1.0rc1",
        "psql query returned 3 rows",
        "pytest: passed (retry after failure)",
        "e2e suite: ok despite a flaky failure",
    ],
)
def test_ck104_reads_these_entries_as_not_failed(text: str) -> None:
    assert failure_in(text) is None


def test_ck104_reads_command_objects_by_exit_status_verdict_and_passed() -> None:
    entries = [
        {"command": "pytest", "exit_code": 0, "status": "passed"},
        {"command": "mypy", "exit_code": 1},
        {"command": "ruff", "result": "Failed"},
        {"command": "e2e", "passed": False},
        {"command": "lint", "output": "2 errors"},
        "ok",
    ]
    assert [pointer for pointer, _ in failures(entries, "/commands_and_validation")] == [
        "/commands_and_validation/1/exit_code",
        "/commands_and_validation/2/result",
        "/commands_and_validation/3/passed",
        "/commands_and_validation/4/output",
    ]


def test_ck104_ignores_a_value_that_is_not_a_list() -> None:
    assert list(failures("pytest failed", "/tests_run")) == []
