"""Inputs the fuzzers found, kept as tests. The reader fuzzer's (fuzz/run_readers.sh): every finding
lies on a line of the file as editors count them (any line break), at a column inside that line.
The surface fuzzer's (fuzz/run_surface.sh): the Bash hook's reading of a command and the evidence
claim finders."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pytest_handoff.agents.bash import command_paths, placed
from pytest_handoff.profiles.yolo.profile import read_jsonl
from pytest_handoff.read.yamldoc import read_yaml
from pytest_handoff.rules.evidence.claims import claims_of, locations_in
from pytest_handoff.rules.evidence.declared import ClaimField
from pytest_handoff.values.documents import Document
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


def test_a_folder_a_bash_command_moves_into_with_a_nul_or_a_lone_surrogate_places_no_path() -> None:
    # The Bash and Stop hooks stat what placed() gives: a NUL raised ValueError, a lone surrogate UnicodeEncodeError.
    for folder in ("x\x00y", "x\ud800y", "x\udc00y"):
        named = command_paths(f'cd "{folder}" && echo {{}} > a.json')
        assert named.writes == ((folder, "a.json"),)
        assert list(placed(named.writes, Path("/project"))) == []
    assert list(placed([("x\x00y/..", "a.json")], Path("/project"))) == [Path("/project/a.json")]


def test_a_comment_or_a_quoted_line_break_in_a_bash_command_hides_none_of_its_writes() -> None:
    assert command_paths("# write the handoff\ncat > h/02-dev.json <<'EOF'\n{}\nEOF\n").writes == (
        ("", "h/02-dev.json"),
    )
    assert command_paths("mkdir -p out # make it\necho {} > out/a.json").writes == (("", "out/a.json"),)
    assert command_paths("echo a#b > x.json; echo '#' >> y.json # > no.json").writes == (
        ("", "x.json"),
        ("", "y.json"),
    )
    assert command_paths('printf x > "c\nd.json"').writes == (("", "c\nd.json"),)
    assert command_paths("cat a.json \\\n  > b.json").writes == (("", "b.json"),)


def test_a_line_or_a_count_int_cannot_read_makes_no_number_of_a_claim() -> None:
    # "²" is a digit to str.isdigit(), not to int(); past 4,300 digits int() refuses a number.
    many = "1" * 5000
    data = {
        "f": "src/a.py",
        "ln": "²",
        "at": f"src/b.py:{many} and src/c.py:12",
        "tests": {"ps": "²", "fl": many},
    }
    document = Document(Path("h.json"), "h.json", json.dumps(data), data)
    fields = (
        ClaimField("/f", "location", line="ln"),
        ClaimField("/at", "location"),
        ClaimField("/tests", "test_totals", totals=("", "ps", "fl")),
    )
    assert [(c.kind, c.value, c.line, c.totals) for c in claims_of(document, fields)] == [
        ("location", "src/c.py", 12, (None, None, None)),
        ("test_totals", "", None, (None, None, None)),
    ]
    assert list(locations_in("a.py:" + "7" * 18)) == [("a.py", 777777777777777777)]


def test_a_junit_report_naming_an_encoding_no_codec_reads_is_a_junit_error(tmp_path: Path) -> None:
    from pytest_handoff.rules.evidence.junit import JUnitError, read_junit

    for encoding in ("utf-7", "rot13", "x", "idna"):
        report = tmp_path / f"{encoding}.xml"
        report.write_bytes(f'<?xml version="1.0" encoding="{encoding}"?><testsuites/>'.encode())
        with pytest.raises(JUnitError, match="encoding"):
            read_junit(str(report))


def test_a_stop_mark_with_a_count_of_thousands_of_digits_is_no_mark(tmp_path: Path) -> None:
    from pytest_handoff.agents.stop import read_transcript

    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        "handoff-lint stop check " + "1" * 4301 + " of 3, findings 0123456789ab\n", encoding="utf-8"
    )
    assert read_transcript(transcript, tmp_path).marks == ()


def test_the_boundary_escapes_the_arabic_letter_mark_a_cr_and_every_control_sequence() -> None:
    from pytest_handoff.values.boundary import guarded_line, inert

    assert inert("a\u061cb") == "a\\u061cb"
    assert guarded_line("x\r::warning::y") == "x\r\\x3a:warning::y"
    assert guarded_line("\x1b[1;3:1m::set-output name=a::b") == "\x1b[1;3:1m\\x3a:set-output name=a::b"
    assert guarded_line("\x1b[<m::error::z") == "\x1b[<m\\x3a:error::z"
