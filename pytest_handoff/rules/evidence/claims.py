"""What a handoff claims about the repository it describes, found where its format says claims are.

A profile declares its claims as :class:`ClaimField` values: a pointer pattern (``*`` stands for
any key or index) and a kind. :func:`claims_of` finds them in a document; the evidence rules
(:mod:`pytest_handoff.rules.evidence.rules`) check them against git and the working tree.

Kinds:

- ``path``: a file of the repository. ``change`` names a sibling key holding how it changed
  (``created``, ``modified``, ``deleted`` and their synonyms), when the format records that.
- ``commit``: a commit hash (7 to 40 hexadecimal characters).
- ``location``: ``path:line``, ``path:12-30``, ``path#L12``, ``path (lines 31-44)``; or a path whose
  line number sits in the sibling key ``line`` (YOLO's ``f`` + ``ln``).
- ``test_file``: a test file the handoff says it wrote; ``count_at`` names a key of the document
  with how many test cases the files of this field hold together.
- ``test_name``: pytest node ids in a text (``tests/test_x.py::test_y``, ``...::TestX::test_y[case]``),
  tests the handoff says it wrote or ran.
- ``test_totals``: an object of test counts, its keys named by ``totals`` (total, passed, failed;
  an empty name for one the format does not record), reconciled with a JUnit report.
- ``test_verdict``: a verdict that all tests pass (``PASS``), reconciled with a JUnit report.
- ``attestation``: the handoff's word that it checked its own claims (GSD's ``Self-Check:
  PASSED``): when a claim of the same document is false, the attestation is too (EV601).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from pytest_handoff.places.pointers import pointer_join, resolve
from pytest_handoff.rules.evidence.declared import CHANGES, Change, ClaimField, ClaimKind

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document


class Claim(NamedTuple):
    """One claim of one document, where it sits, and what it says."""

    document: Document
    pointer: str
    kind: ClaimKind
    value: str  # the path or the commit hash as written
    change: Change | None = None
    line: int | None = None  # a location's (first) line
    claimed_count: int | None = None  # test cases claimed for the files of this field, together
    totals: tuple[int | None, int | None, int | None] = (None, None, None)  # total, passed, failed
    test: str = ""  # a test_name claim's function, in the file of ``value``
    passing: bool = False  # a test_name claim's text says the test passed
    tentative: bool = False  # a commit named before it was made (see ClaimField.tentative)


def claims_of(document: Document, fields: Sequence[ClaimField]) -> Iterator[Claim]:
    """Every claim ``document`` makes at the places ``fields`` declare, in field order."""
    found: list[Claim] = []
    for field in _fields_of(fields, document.handoff_type):
        count = _number(_value_at(document.data, field.count_at)) if field.count_at else None
        for pointer, value in resolve(document.data, field.pointer):
            # The container of the value, where its change type or line sits (when a field has one).
            parent = (
                _value_at(document.data, pointer.rsplit("/", 1)[0]) if field.change or field.line else None
            )
            _claims_at(document, field, pointer, value, parent, count, found)
    return iter(found)


_OF_TYPE: dict[tuple[int, str | None], tuple[Sequence[ClaimField], tuple[ClaimField, ...]]] = {}


def _fields_of(fields: Sequence[ClaimField], handoff_type: str | None) -> tuple[ClaimField, ...]:
    """The fields of ``fields`` that documents of ``handoff_type`` have (kept per profile's fields)."""
    found = _OF_TYPE.get((id(fields), handoff_type))
    if found is None or found[0] is not fields:
        if len(_OF_TYPE) > 256:  # fields made per group (a contract's): keep the memo small
            _OF_TYPE.clear()
        chosen = tuple(f for f in fields if not f.handoff_types or handoff_type in f.handoff_types)
        found = _OF_TYPE[id(fields), handoff_type] = (fields, chosen)
    return found[1]


def _claims_at(
    document: Document,
    field: ClaimField,
    pointer: str,
    value: Any,
    parent: Any,
    count: int | None,
    out: list[Claim],
) -> None:
    """Add to ``out`` the claims of ``value``, at ``pointer`` in ``document``, of ``field``'s kind."""
    if field.kind == "test_totals":
        if isinstance(value, dict):
            counts = tuple(_number(value.get(key)) if key else None for key in field.totals)
            out.append(Claim(document, pointer, "test_totals", "", totals=(counts[0], counts[1], counts[2])))
        return
    if field.kind in ("location", "test_name") and isinstance(value, (dict, list)) and not field.line:
        # A text field the format also writes as an object (Trinity's ``context``): its strings.
        for inner, text in _strings_in(value, pointer):
            _claims_at(document, field, inner, text, parent, count, out)
        return
    if field.kind == "commit" and isinstance(value, int) and not isinstance(value, bool):
        # YAML reads an unquoted hash of digits alone (``- 9633489``) as a number: it is the hash.
        if 7 <= len(str(value)) <= 40 and value > 0:
            out.append(Claim(document, pointer, "commit", str(value), tentative=field.tentative))
        return
    if not isinstance(value, str) or not value.strip():
        return
    text = value.strip()
    if field.kind in ("test_verdict", "attestation"):
        out.append(Claim(document, pointer, field.kind, text))
        return
    if field.kind == "test_name":
        passing = PASSED.search(text) is not None and NOT_PASSED.search(text) is None
        for match in NODE_ID.finditer(text):
            if looks_like_path(match.group("path")):
                out.append(
                    Claim(
                        document,
                        pointer,
                        "test_name",
                        match.group("path"),
                        test=match.group("test"),
                        passing=passing,
                    )
                )
        return
    if field.kind == "commit":
        if COMMIT.fullmatch(text) or (text.isdigit() and text.isascii() and 7 <= len(text) <= 40):
            out.append(Claim(document, pointer, "commit", text, tentative=field.tentative))
        return
    if field.kind == "location":
        line = _number(parent.get(field.line)) if field.line and isinstance(parent, dict) else None
        if line is not None:
            if looks_like_path(text):
                out.append(Claim(document, pointer, "location", text, line=line))
        else:
            out.extend(Claim(document, pointer, "location", path, line=at) for path, at in locations_in(text))
        return
    change = field.changed
    if field.change and isinstance(parent, dict):
        spelt = parent.get(field.change)
        change = CHANGES.get(spelt.strip().lower()) if isinstance(spelt, str) else None
    if looks_like_path(text):
        out.append(Claim(document, pointer, field.kind, text, change=change, claimed_count=count))


#: A line number or a count has at most this many digits (longer is no number a file or a run has,
#: and past 4,300 digits Python refuses to convert it).
MAX_DIGITS = 18
#: A pytest node id: a Python file, ``::``, an optional class, the test function (parameters dropped).
NODE_ID = re.compile(r"(?<![\w./-])(?P<path>[\w./-]*\w\.py)::(?:[A-Za-z_]\w*::)?(?P<test>test\w*)")
#: A commit hash as handoffs write them: 7 to 40 hexadecimal characters, not all digits (in a field
#: that holds only hashes, digits alone are one too).
COMMIT = re.compile(r"(?=[0-9]*[a-fA-F])[0-9a-fA-F]{7,40}")
#: A test named in a text that says it passed, and says nothing of a failure, an error or a skip.
PASSED = re.compile(r"\bpass(?:ed|es|ing)?\b|\u2713|\u2705", re.IGNORECASE)
NOT_PASSED = re.compile(r"fail|error|skip|xfail|\u2717|\u274c", re.IGNORECASE)
#: How deep and how many strings of one claimed object are read.
MAX_DEPTH = 16
MAX_STRINGS = 1000
# path:12, path:12-30, path#L12, path:Symbol (lines 31-44), path (line 12), path, line 12. A path
# ends in a file name with an extension of letters and digits (``ExportQuery.check_range`` is none).
_LOCATION = re.compile(
    r"(?<![\w./-])(?P<path>(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,5})(?![\w/])"
    r"(?::(?P<colon>\d+)|#L(?P<anchor>\d+)|(?::[A-Za-z_][\w.]*)?,?[ \t]*\(?[ \t]*lines?[ \t]+(?P<words>\d+))"
)


def locations_in(text: str) -> Iterator[tuple[str, int]]:
    """The (path, first line) pairs a text cites (``billing/api.py:31``, ``api.py#L12``)."""
    for match in _LOCATION.finditer(text):
        path = match.group("path")
        line = match.group("colon") or match.group("anchor") or match.group("words")
        if looks_like_path(path) and len(line) <= MAX_DIGITS:
            yield path, int(line)


def looks_like_path(text: str) -> bool:
    """True for a relative file path as handoffs write one (no spaces, no URL, no glob)."""
    return (
        0 < len(text) <= 400
        and text.isprintable()
        and _NOT_IN_A_PATH.search(text) is None
        and _ALNUM.search(text) is not None
    )


#: What no relative path a handoff names holds: white space, a URL's scheme, a glob or quoting.
_NOT_IN_A_PATH = re.compile(r"[\s*?\[\]{}<>|\"'`]|://")
_ALNUM = re.compile(r"[^\W_]")


def _strings_in(value: Any, pointer: str) -> Iterator[tuple[str, str]]:
    """The strings inside ``value`` (an object or an array at ``pointer``), with their pointers."""
    pending: list[tuple[str, Any, int]] = [(pointer, value, 0)]
    seen = 0
    while pending and seen < MAX_STRINGS:
        at, item, depth = pending.pop()
        if isinstance(item, str):
            seen += 1
            yield at, item
        elif depth < MAX_DEPTH and isinstance(item, dict):
            pending.extend(
                (pointer_join(at, str(key)), inner, depth + 1) for key, inner in reversed(item.items())
            )
        elif depth < MAX_DEPTH and isinstance(item, list):
            pending.extend(
                (pointer_join(at, index), inner, depth + 1)
                for index, inner in reversed(list(enumerate(item)))
            )


def _number(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    # Decimal digits only: "²" is a digit int() cannot read.
    if isinstance(value, str) and value.isdecimal() and len(value) <= MAX_DIGITS:
        return int(value)
    return None


def _value_at(data: Any, pointer: str) -> Any:
    """The value at a pointer with no ``*`` (None when there is none)."""
    return next(resolve(data, pointer), ("", None))[1]
