"""Inputs the reader fuzzer found (fuzz/run_readers.sh), kept as tests: every finding lies on a
line of the file as editors count them (any line break), at a column inside that line."""

from __future__ import annotations

import re
from pathlib import Path

from pytest_handoff.profiles.yolo.profile import read_jsonl
from pytest_handoff.read.yamldoc import read_yaml
from pytest_handoff.values.findings import Finding

EDITOR_LINES = re.compile(r"\r\n|\r|\n")


def assert_inside(findings: tuple[Finding, ...], raw: bytes) -> None:
    lines = EDITOR_LINES.split(raw.decode("utf-8", errors="replace"))
    for finding in findings:
        assert 1 <= finding.line <= len(lines), finding
        assert 1 <= finding.column <= len(lines[finding.line - 1]) + 1, finding


def test_a_lone_carriage_return_inside_a_jsonl_line_moves_the_later_lines_as_editors_show_them() -> None:
    raw = b'{"type": "x",\r"a": 1}\n{oops}\n'
    loaded = read_jsonl(raw, Path("critique.jsonl"), "critique.jsonl")
    assert [(f.code, f.line, f.column) for f in loaded.findings] == [("HF002", 3, 2)]
    assert_inside(loaded.findings, raw)


def test_an_invalid_utf8_byte_in_a_jsonl_line_after_a_carriage_return_is_placed_inside_its_line() -> None:
    raw = b'{"id": "C1"}\n{\r"type\xe5": "po_qa_verdict"}\n'
    loaded = read_jsonl(raw, Path("x.jsonl"), "x.jsonl")
    assert [(f.code, f.line, f.column) for f in loaded.findings] == [("HF001", 3, 6)]
    assert_inside(loaded.findings, raw)


def test_an_invalid_utf8_byte_in_yaml_after_carriage_returns_is_placed_inside_its_line() -> None:
    raw = b"a: 1\r\r\rb: [x]\n    \x00\x80\x00\n"
    loaded = read_yaml(raw, Path("a.yaml"), "a.yaml")
    assert [(f.code, f.line, f.column) for f in loaded.findings] == [("HF001", 5, 6)]
    assert_inside(loaded.findings, raw)
