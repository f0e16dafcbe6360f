"""Reading files strictly: every malformed input becomes a finding with a position."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_handoff.read.strict_json import parse_json_bytes


def load(raw: bytes) -> tuple[object, list[tuple[str, int, int, str]]]:
    result = parse_json_bytes(raw, Path("h.json"), "h.json")
    data = result.document.data if result.document else None
    return data, [(f.code, f.line, f.column, f.message) for f in result.findings]


def test_a_clean_object_loads_without_findings() -> None:
    assert load(b'{"a": [1, 2]}') == ({"a": [1, 2]}, [])


@pytest.mark.parametrize(
    ("raw", "code", "line", "column"),
    [
        (b"\xef\xbb\xbf{}", "HF001", 1, 1),
        (b"\xff\xfe{\x00}\x00", "HF001", 1, 1),
        (b'{\n  "a": "caf\xc3\xa9 \xff"\n}', "HF001", 2, 14),
        (b"", "HF002", 1, 1),
        (b"   \n  ", "HF002", 1, 1),
        (b'{"a": 1,}', "HF002", 1, 8),
        (b'{"a": 1}\n{"b": 2}', "HF002", 2, 1),
        (b'{"a": 1} // done', "HF002", 1, 10),
        (b"{'a': 1}", "HF002", 1, 2),
        (b'{\n  "a": NaN\n}', "HF004", 2, 8),
        (b'{"s": "NaN", "a": -Infinity}', "HF004", 1, 19),
        (b'{"a": 1,\r\n "a": 2}', "HF003", 2, 2),
        (b'{"a": 1,\r "b": 2,\r "b": 3}', "HF003", 3, 2),
    ],
    ids=[
        "bom",
        "utf16",
        "invalid-utf8",
        "empty",
        "whitespace",
        "trailing-comma",
        "two-documents",
        "comment",
        "single-quotes",
        "nan",
        "negative-infinity",
        "duplicate-crlf",
        "duplicate-cr",
    ],
)
def test_malformed_input_is_a_finding_at_its_position(raw: bytes, code: str, line: int, column: int) -> None:
    _, findings = load(raw)
    assert [(c, ln, col) for c, ln, col, _ in findings] == [(code, line, column)]


def test_a_duplicate_key_names_the_first_definition() -> None:
    _, findings = load(b'{\n  "verdict": "approved",\n  "verdict": "needs_rework"\n}')
    assert findings[0][3].startswith("duplicate key 'verdict': first defined at line 2, column 3")


def test_columns_count_characters_not_bytes() -> None:
    _, findings = load('{"é😀": "ü", "x": NaN}'.encode())
    assert findings[0][1:3] == (1, 18)


def test_very_deep_nesting_is_a_finding_not_a_crash() -> None:
    _, findings = load(b"[" * 100_000 + b"]" * 100_000)
    assert findings[0][0] == "HF002"


def test_an_integer_too_long_for_python_is_a_finding() -> None:
    _, findings = load(b'{"n": ' + b"9" * 5000 + b"}")
    assert findings
    assert findings[0][0] == "HF002"


@pytest.mark.parametrize(
    ("raw", "pointer"),
    [
        (b'{"a": [1, {"b": 2, "c": NaN}], "d": Infinity}', "/a/1/c"),
        (b'{"s": "1e999",\n "a": 1e999}', "/a"),
        (b"[-Infinity]", "/0"),
        (b'{"a/b": {"x~y": NaN}}', "/a~1b/x~0y"),
    ],
)
def test_hf004_names_the_pointer_of_the_first_non_finite_number(raw: bytes, pointer: str) -> None:
    (finding,) = parse_json_bytes(raw, Path("x.json"), "x.json").findings
    assert (finding.code, finding.pointer) == ("HF004", pointer)
