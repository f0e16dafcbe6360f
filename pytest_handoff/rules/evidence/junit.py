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
    from xml.parsers import expat

    raw = read_file_bytes(Path(path), path, MAX_REPORT)
    if not isinstance(raw, bytes):
        raise JUnitError(f"JUnit report {path}: {raw.message}")
    cases = _Cases()
    parser = expat.ParserCreate()
    # A document type is refused whatever the encoding (entities could expand without end).
    parser.StartDoctypeDeclHandler = _refuse_doctype
    parser.EntityDeclHandler = _refuse_doctype
    parser.StartElementHandler = cases.start
    parser.EndElementHandler = cases.end
    try:
        parser.Parse(raw, True)
    except expat.ExpatError as error:
        raise JUnitError(f"JUnit report {path}: not XML ({expat.ErrorString(error.code)})") from None
    except (LookupError, ValueError):  # an encoding no codec reads (utf-7, rot13, a made-up name)
        raise JUnitError(
            f"JUnit report {path}: its XML declaration names an encoding that cannot be read"
        ) from None
    except _Doctype:
        raise JUnitError(f"JUnit report {path}: a document type declaration is not accepted") from None
    if cases.tests == 0 and cases.root not in ("testsuites", "testsuite"):
        raise JUnitError(f"JUnit report {path}: no <testsuites> or <testsuite> element")
    return JUnitReport(path, cases.tests, cases.failures, cases.skipped, tuple(cases.failing))


class _Cases:
    """Counts a report's test cases as the parser meets them: one pass, no tree built."""

    def __init__(self) -> None:
        self.root = ""
        self.depth = 0
        self.tests = self.failures = self.skipped = 0
        self.failing: list[str] = []
        self._case: dict[str, str] | None = None  # the open <testcase>'s attributes
        self._case_depth = 0
        self._outcome: set[str] = set()  # the tags of its children: failure, error, skipped

    def start(self, tag: str, attributes: dict[str, str]) -> None:
        self.depth += 1
        self.root = self.root or tag
        if tag == "testcase" and self._case is None:
            self._case, self._case_depth, self._outcome = attributes, self.depth, set()
        elif self._case is not None and self.depth == self._case_depth + 1:
            self._outcome.add(tag)

    def end(self, tag: str) -> None:
        if self._case is not None and self.depth == self._case_depth:
            self.tests += 1
            if self._outcome & {"failure", "error"}:
                self.failures += 1
                classname, name = self._case.get("classname", ""), self._case.get("name", "?")
                shown = f"{classname}::{name}" if classname else name
                self.failing.append(shown if len(shown) <= MAX_NAME else shown[: MAX_NAME - 1] + "…")
            elif "skipped" in self._outcome:
                self.skipped += 1
            self._case = None
        self.depth -= 1
