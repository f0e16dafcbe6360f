"""A JUnit XML report (``pytest --junitxml``, most test runners) read as the totals and the
failing tests a handoff's test claims are reconciled with (EV501, EV502).

The report is read safely: a regular file under a size limit, no document type declaration
(so no entity can expand), parsed once per version of the file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from pytest_handoff.read.files import read_file_bytes

#: A report larger than this is not read.
MAX_REPORT = 64 * 1024 * 1024
#: A failing test's name is cut to this many characters in a finding.
MAX_NAME = 200


class _Doctype(Exception):
    pass


def _refuse_doctype(*_: object) -> None:
    raise _Doctype


class JUnitReport(NamedTuple):
    """What a JUnit report says: its totals and the tests that failed (or errored)."""

    path: str
    tests: int
    failures: int  # failures and errors
    skipped: int
    failing: tuple[str, ...]

    @property
    def passed(self) -> int:
        return self.tests - self.failures - self.skipped


class JUnitError(Exception):
    """The report cannot be read; the message says why, in one line."""


_READ: dict[tuple[str, int, int], JUnitReport] = {}


def read_junit(path: str) -> JUnitReport:
    """The report at ``path`` (``JUnitError`` when it cannot be read)."""
    try:
        info = os.stat(path)
    except OSError as error:
        raise JUnitError(f"JUnit report {path}: {error.strerror or 'cannot be read'}") from None
    key = (path, info.st_mtime_ns, info.st_size)
    found = _READ.get(key)
    if found is None:
        found = _READ[key] = _parse(path)
    return found


def _parse(path: str) -> JUnitReport:
    from xml.etree import ElementTree

    raw = read_file_bytes(Path(path), path, MAX_REPORT)
    if not isinstance(raw, bytes):
        raise JUnitError(f"JUnit report {path}: {raw.message}")
    from xml.parsers import expat

    # A first look refuses a document type whatever the encoding (entities could expand without end).
    looker = expat.ParserCreate()
    looker.StartDoctypeDeclHandler = _refuse_doctype
    looker.EntityDeclHandler = _refuse_doctype
    try:
        looker.Parse(raw, True)
        root = ElementTree.fromstring(raw)
    except expat.ExpatError as error:
        raise JUnitError(f"JUnit report {path}: not XML ({expat.ErrorString(error.code)})") from None
    except _Doctype:
        raise JUnitError(f"JUnit report {path}: a document type declaration is not accepted") from None
    except ElementTree.ParseError as error:
        raise JUnitError(f"JUnit report {path}: not XML ({error})") from None
    tests = failures = skipped = 0
    failing: list[str] = []
    for case in root.iter("testcase"):
        tests += 1
        outcome = {child.tag for child in case}
        if outcome & {"failure", "error"}:
            failures += 1
            classname, name = case.get("classname", ""), case.get("name", "?")
            shown = f"{classname}::{name}" if classname else name
            failing.append(shown if len(shown) <= MAX_NAME else shown[: MAX_NAME - 1] + "…")
        elif "skipped" in outcome:
            skipped += 1
    if tests == 0 and root.tag not in ("testsuites", "testsuite"):
        raise JUnitError(f"JUnit report {path}: no <testsuites> or <testsuite> element")
    return JUnitReport(path, tests, failures, skipped, tuple(failing))
