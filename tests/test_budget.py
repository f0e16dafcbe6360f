"""A file's output is bounded: at most 100 findings of one rule in one file, and one more that counts the rest."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pytest_handoff.config import Settings
from pytest_handoff.model import Finding, Severity
from pytest_handoff.pipeline.check import MAX_FINDINGS_PER_RULE, capped
from pytest_handoff.pipeline.run import check_paths
from tests.yolo_helpers import PHASE, write


def finding(line: int, code: str = "YL101", path: str = "a.jsonl") -> Finding:
    return Finding(path=path, line=line, column=1, code=code, severity=Severity.ERROR, message=f"broken at {line}")


def test_capped_keeps_the_first_of_each_rule_per_file_and_counts_the_rest() -> None:
    many = [finding(n) for n in range(1, 251)] + [finding(1, "YL102")] + [finding(n, path="b.jsonl") for n in range(1, 4)]
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
    _, results = check_paths([], tmp_path, Settings())
    codes = [f.code for result in results for f in result.findings]
    assert codes.count("YL101") == MAX_FINDINGS_PER_RULE + 1
    last = [f for result in results for f in result.findings if f.code == "YL101"][-1]
    assert last.message.startswith("300 more YL101 findings")


def test_a_users_catastrophic_pattern_runs_in_linear_time(tmp_path: Path) -> None:
    """``re:^(a+)+$`` against ``"a" * 40 + "!"`` never returns under a backtracking engine."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.json").write_text('{"text": "' + "a" * 40 + '!"}', encoding="utf-8")
    (tmp_path / "schema.json").write_text('{"type": "object"}', encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.handoff.contracts.note]\nglobs = ["notes/*.json"]\nschema = "schema.json"\n'
        '[tool.handoff.contracts.note.rules.real]\ncheck = "no-placeholders"\nplaceholders = ["re:^(a+)+$"]\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest_handoff", "--format", "json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_a_pattern_re2_cannot_run_is_a_configuration_error_naming_contract_and_pattern(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "schema.json").write_text('{"type": "object"}', encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.handoff.contracts.note]\nglobs = ["notes/*.json"]\nschema = "schema.json"\n'
        '[tool.handoff.contracts.note.rules.real]\ncheck = "no-placeholders"\nplaceholders = ["re:(?<!x)TODO"]\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest_handoff"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "contract 'note'" in done.stderr
    assert "(?<!x)TODO" in done.stderr
    assert done.stderr.count("\n") == 1  # our one line, nothing logged by the engine


def test_a_pattern_in_a_users_schema_runs_in_linear_time(tmp_path: Path) -> None:
    """JSON Schema's ``pattern`` in a contract's schema is a user's pattern too: RE2 runs it."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.json").write_text('{"text": "' + "a" * 40 + '!"}', encoding="utf-8")
    (tmp_path / "schema.json").write_text(
        '{"type": "object", "properties": {"text": {"type": "string", "pattern": "^(a+)+$"}}}', encoding="utf-8"
    )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.handoff.contracts.note]\nglobs = ["notes/*.json"]\nschema = "schema.json"\n', encoding="utf-8"
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest_handoff", "--format", "json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "does not match" in done.stdout
