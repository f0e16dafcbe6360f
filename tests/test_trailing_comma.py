"""HF002 for a trailing comma points at the comma, not at the bracket on the next line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_handoff.read.strict_json import parse_json_bytes
from pytest_handoff.values.findings import Finding


def only_finding(raw: bytes) -> Finding:
    loaded = parse_json_bytes(raw, Path("x.json"), "x.json")
    assert loaded.document is None
    (finding,) = loaded.findings
    return finding


@pytest.mark.parametrize(
    ("raw", "line", "column", "closing"),
    [
        (b'{\n  "a": 1,\n  "b": 2,\n}\n', 3, 9, "}"),
        (b'{"a": [1,\n  2,\n]}', 2, 4, "]"),
        (b'{"a": [1, 2,   ]}', 1, 12, "]"),
        (b'{"a":1,}', 1, 7, "}"),
        (b'{\n  "a": 1,\r\n\r\n\t}', 2, 9, "}"),
    ],
)
def test_hf002_points_at_a_trailing_comma_itself(raw: bytes, line: int, column: int, closing: str) -> None:
    finding = only_finding(raw)
    assert (finding.code, finding.line, finding.column) == ("HF002", line, column)
    assert finding.message == (
        f"invalid JSON: trailing comma before '{closing}' "
        f"(JSON allows no comma after the last {'member' if closing == '}' else 'element'})"
    )


@pytest.mark.parametrize(
    ("raw", "line", "column"),
    [
        (b'{"a": 1,,"b": 2}', 1, 9),  # a doubled comma: the second one is wrong
        (b'{"a":}', 1, 6),  # a missing value
        (b'{"a": 1,\n  // note\n}', 2, 3),  # a comment after the comma: the comment is wrong
        (b'{"a": "x,"}}', 1, 12),  # a comma inside a string is no trailing comma
    ],
)
def test_hf002_other_syntax_errors_keep_their_own_place(raw: bytes, line: int, column: int) -> None:
    finding = only_finding(raw)
    assert (finding.code, finding.line, finding.column) == ("HF002", line, column)
    assert "trailing comma" not in finding.message


def test_hf002_trailing_comma_matches_what_json_rejects() -> None:
    # The same text without the comma parses: the comma is the whole problem.
    raw = '{\n  "a": [1, 2],\n}\n'
    with pytest.raises(json.JSONDecodeError):
        json.loads(raw)
    assert json.loads(raw.replace("],", "]")) == {"a": [1, 2]}
    finding = only_finding(raw.encode())
    assert (finding.line, finding.column) == (2, len('  "a": [1, 2],'))
