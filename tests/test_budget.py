"""A file's output is bounded: at most 100 findings of one rule in one file, and one more that counts the rest."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_handoff.pipeline.check import capped
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.pipeline.run import check_paths
from pytest_handoff.profiles.neuralrelay.handoff import MAX_GAPS_COMPARED, check_coverage_gaps_are_distinct
from pytest_handoff.profiles.yolo.profile import MAX_JSONL_LINES, read_jsonl
from pytest_handoff.read.strict_json import line_failure, parse_json_bytes
from pytest_handoff.validation.schemas import MAX_SCHEMA_ERRORS
from pytest_handoff.values.findings import (
    MAX_COUNTED_PER_RULE,
    MAX_FINDINGS_PER_RULE,
    Finding,
    Severity,
    Tally,
)
from pytest_handoff.values.settings import Settings
from tests.yolo_helpers import PHASE, write

CLEAN = Path(__file__).resolve().parents[1] / "examples" / "neuralrelay" / "clean"
CHAIN = ".neuralrelay/handoffs/20261103-091500"


def chain_copy(tmp_path: Path) -> Path:
    """The clean example project, copied (a chain that passes)."""
    root = tmp_path / "project"
    shutil.copytree(CLEAN, root)
    (root / ".git").mkdir(exist_ok=True)
    return root


def finding(line: int, code: str = "YL101", path: str = "a.jsonl") -> Finding:
    return Finding(
        path=path, line=line, column=1, code=code, severity=Severity.ERROR, message=f"broken at {line}"
    )


def test_capped_keeps_the_first_of_each_rule_per_file_and_counts_the_rest() -> None:
    many = (
        [finding(n) for n in range(1, 251)]
        + [finding(1, "YL102")]
        + [finding(n, path="b.jsonl") for n in range(1, 4)]
    )
    kept = capped(sorted(many))
    mine = [f for f in kept if (f.path, f.code) == ("a.jsonl", "YL101")]
    assert len(mine) == MAX_FINDINGS_PER_RULE + 1
    assert mine[-1].line == MAX_FINDINGS_PER_RULE + 1
    assert mine[-1].message.startswith("150 more YL101 findings in this file not shown")
    assert len([f for f in kept if f.path == "b.jsonl"]) == 3
    assert len([f for f in kept if f.code == "YL102"]) == 1


def test_capped_leaves_a_file_under_the_cap_alone() -> None:
    few = [finding(n) for n in range(1, 11)]
    assert capped(few) == few


def test_a_jsonl_file_of_many_broken_lines_reports_the_cap_and_the_count(tmp_path: Path) -> None:
    broken = {"type": "critique_result", "phase": "05", "findings": 4, "critical": 9, "major": 0, "minor": 0}
    write(tmp_path, f"{PHASE}/critique.jsonl", [broken] * 400)
    _, results = check_paths([], tmp_path, Settings(), registry=default_registry())
    codes = [f.code for result in results for f in result.findings]
    assert codes.count("YL101") == MAX_FINDINGS_PER_RULE + 1
    last = [f for result in results for f in result.findings if f.code == "YL101"][-1]
    assert last.message.startswith("300 more YL101 findings")


CONTRACT = '[tool.handoff.contracts.note]\nglobs = ["notes/*.json"]\nschema = "schema.json"\n'


def contract_run(
    root: Path,
    schema: str,
    note: str | None = None,
    rules: str = "",
    args: tuple[str, ...] = ("--format", "json"),
) -> subprocess.CompletedProcess[str]:
    """A project of one contract (its ``schema``, ``note`` as notes/a.json), checked in a fresh process."""
    (root / ".git").mkdir()
    if note is not None:
        (root / "notes").mkdir()
        (root / "notes" / "a.json").write_text(note, encoding="utf-8")
    (root / "schema.json").write_text(schema, encoding="utf-8")
    (root / "pyproject.toml").write_text(CONTRACT + rules, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "pytest_handoff", *args], cwd=root, capture_output=True, text=True, timeout=60
    )


def test_a_users_catastrophic_pattern_runs_in_linear_time(tmp_path: Path) -> None:
    """``re:^(a+)+$`` against ``"a" * 40 + "!"`` never returns under a backtracking engine."""
    rules = (
        '[tool.handoff.contracts.note.rules.real]\ncheck = "no-placeholders"\nplaceholders = ["re:^(a+)+$"]\n'
    )
    done = contract_run(tmp_path, '{"type": "object"}', '{"text": "' + "a" * 40 + '!"}', rules)
    assert done.returncode == 0, done.stderr


def test_a_pattern_re2_cannot_run_is_a_configuration_error_naming_contract_and_pattern(
    tmp_path: Path,
) -> None:
    rules = '[tool.handoff.contracts.note.rules.real]\ncheck = "no-placeholders"\nplaceholders = ["re:(?<!x)TODO"]\n'
    done = contract_run(tmp_path, '{"type": "object"}', rules=rules, args=())
    assert done.returncode == 2
    assert "contract 'note'" in done.stderr
    assert "(?<!x)TODO" in done.stderr
    assert done.stderr.count("\n") == 1  # our one line, nothing logged by the engine


def test_a_pattern_in_a_users_schema_runs_in_linear_time(tmp_path: Path) -> None:
    """JSON Schema's ``pattern`` in a contract's schema is a user's pattern too: RE2 runs it."""
    schema = '{"type": "object", "properties": {"text": {"type": "string", "pattern": "^(a+)+$"}}}'
    done = contract_run(tmp_path, schema, '{"text": "' + "a" * 40 + '!"}')
    assert done.returncode == 1, done.stderr
    assert "does not match" in done.stdout


# --- work past the cap is counted, not done -------------------------------------------------


def test_a_tally_makes_the_first_of_each_rule_and_one_more_then_only_counts() -> None:
    tally = Tally(limit=2, counted=3)
    made = [tally.admits("a.jsonl", "YL101") for _ in range(7)]
    assert made == [True, True, True, False, False, False, False]
    assert tally.is_full("a.jsonl", "YL101")
    assert not tally.is_full("a.jsonl", "YL102")
    assert tally.is_spent("a.jsonl", "YL101")
    assert tally.unmade() == {("a.jsonl", "YL101"): 4}


def test_broken_jsonl_lines_past_the_cap_are_counted_without_being_placed(tmp_path: Path) -> None:
    raw = b"\x00\n" * 300 + b"{oops\n" * 150 + json.dumps({"type": "critique_result"}).encode() + b"\n"
    loaded = read_jsonl(raw, tmp_path / "critique.jsonl", "critique.jsonl")
    codes = [f.code for f in loaded.findings]
    assert codes.count("HF001") == codes.count("HF002") == MAX_FINDINGS_PER_RULE + 1
    assert sorted(loaded.unmade) == [("critique.jsonl", "HF001", 199), ("critique.jsonl", "HF002", 49)]
    assert len(loaded.documents) == 1  # the good line after the broken ones is still read


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (b"\x00", "HF001"), (b"\xef\xbb\xbf{}", "HF001"), (b"\xff\xfe{", "HF001"), (b'{"a": 1', "HF002"),
        (b"[" * 5000, "HF002"), (b"{}", None), (b'{"a": NaN}', None), (b"[1, NaN", None), (b"1e999", None),
        (b'{"a": 1, "a": 2}', None), (b'"\\ud800"', None), (b"9" * 5000, "HF002"),
    ],
)  # fmt: skip
def test_the_cheap_look_at_a_line_agrees_with_parsing_it(line: bytes, expected: str | None) -> None:
    """A code only where parsing certainly fails with it; None (parse it) wherever it might not."""
    assert line_failure(line) == expected
    parsed = parse_json_bytes(line, Path("x.jsonl"), "x.jsonl")
    if expected is not None:
        assert [f.code for f in parsed.findings] == [expected]
        assert parsed.document is None


@given(st.binary(max_size=40) | st.text(max_size=40).map(str.encode))
def test_the_cheap_look_never_names_a_code_parsing_would_not(line: bytes) -> None:
    failure = line_failure(line)
    if failure is not None and line.strip(b" \t\r\n"):
        assert [f.code for f in parse_json_bytes(line, Path("x.jsonl"), "x.jsonl").findings] == [failure]


def test_a_rule_stops_looking_at_a_file_once_it_has_counted_enough(tmp_path: Path) -> None:
    """NR202 on 12,000 vague gaps: 101 made, the rest counted until the rule stops ("more than")."""
    root = chain_copy(tmp_path)
    dev = root / CHAIN / "02-dev-agent.json"
    data = json.loads(dev.read_text(encoding="utf-8"))
    data["coverage_gaps"] = ["edge cases"] * 12_000
    dev.write_text(json.dumps(data), encoding="utf-8")
    _, results = check_paths([], root, Settings(), registry=default_registry())
    vague = [f for result in results for f in result.findings if f.code == "NR202"]
    assert len(vague) == MAX_FINDINGS_PER_RULE + 1
    more = int(vague[-1].message.removeprefix("at least ").split(" ")[0].replace(",", ""))
    assert MAX_COUNTED_PER_RULE <= more < 12_000 - MAX_FINDINGS_PER_RULE
    assert vague[-1].message.startswith("at least ")


def test_schema_findings_across_the_lines_of_a_file_are_capped(tmp_path: Path) -> None:
    invalid = {"type": "critique_result", "phase": 5, "findings": "x", "critical": [], "major": 0, "minor": 0}
    write(tmp_path, f"{PHASE}/critique.jsonl", [invalid] * 150)
    _, results = check_paths([], tmp_path, Settings(), registry=default_registry())
    schema = [f for result in results for f in result.findings if f.code == "HS001"]
    assert len(schema) == MAX_FINDINGS_PER_RULE + 1
    assert schema[-1].message.startswith("at least ")


def test_one_object_with_thousands_of_unexpected_keys_places_only_what_is_reported(tmp_path: Path) -> None:
    root = chain_copy(tmp_path)
    dev = root / CHAIN / "02-dev-agent.json"
    data = json.loads(dev.read_text(encoding="utf-8"))
    data.update({f"k{n}": n for n in range(5_000)})
    dev.write_text(json.dumps(data), encoding="utf-8")
    _, results = check_paths([], root, Settings(), registry=default_registry())
    schema = [f for result in results for f in result.findings if f.code == "HS001"]
    assert len(schema) == MAX_SCHEMA_ERRORS + 1
    assert any(f.message.startswith(f"more than {MAX_SCHEMA_ERRORS} schema errors") for f in schema)


def test_nr201_finds_exact_repeats_anywhere_and_rewordings_within_the_bound() -> None:
    gaps = [f"case {n}: {word(n)} {word(n + 7919)} ignored" for n in range(MAX_GAPS_COMPARED + 100)]
    gaps += [gaps[-1].upper(), "refresh race token rotation lock", "lock on token rotation race refresh!"]
    document = parse_json_bytes(
        json.dumps({"coverage_gaps": gaps}).encode(), Path("d.json"), "d.json"
    ).document
    assert document is not None
    hits = list(check_coverage_gaps_are_distinct(document, Settings()))
    assert [hit.pointer for hit in hits] == [f"/coverage_gaps/{len(gaps) - 3}"]
    assert "repeats entry" in hits[0].message


def word(number: int) -> str:
    """A made-up word of its own for every number (no two gaps share one)."""
    letters = ""
    while True:
        number, digit = divmod(number, 20)
        letters += "bcdfghjklmnpqrstvwxz"[digit]
        if not number:
            return letters + "a"


def test_a_patternproperties_key_in_a_users_schema_runs_in_linear_time(tmp_path: Path) -> None:
    schema = '{"type": "object", "patternProperties": {"^(a+)+$": {}}, "additionalProperties": false}'
    done = contract_run(tmp_path, schema, '{"' + "a" * 40 + '!": 1}')
    assert done.returncode == 1, done.stderr
    assert "unexpected property" in done.stdout


def test_a_patternproperties_key_re2_cannot_run_is_a_configuration_error(tmp_path: Path) -> None:
    done = contract_run(
        tmp_path, '{"type": "object", "patternProperties": {"(?<!x)y": {}}}', '{"y": 1}', args=()
    )
    assert done.returncode == 2
    assert "(?<!x)y" in done.stderr


def test_lines_past_the_jsonl_bound_are_one_hf006_finding_not_read(tmp_path: Path) -> None:
    raw = b"\n" * MAX_JSONL_LINES + b"{oops}\n" * 3
    loaded = read_jsonl(raw, tmp_path / "critique.jsonl", "critique.jsonl")
    assert [(f.code, f.line) for f in loaded.findings] == [("HF006", MAX_JSONL_LINES + 1)]
    assert loaded.findings[0].message.startswith("3 more lines after line 50,000 are not checked")


def test_a_jsonl_file_of_exactly_the_bound_is_read_whole(tmp_path: Path) -> None:
    raw = b"\n" * (MAX_JSONL_LINES - 1) + b"{oops}\n"
    loaded = read_jsonl(raw, tmp_path / "critique.jsonl", "critique.jsonl")
    assert [(f.code, f.line) for f in loaded.findings] == [("HF002", MAX_JSONL_LINES)]
