"""Hostile and broken input: every byte a handoff holds is treated as an attack.

Each input class is run through ``handoff-lint`` in-process, in a copy of our primary chain with
one file replaced. Whatever the bytes, the run must end with a clear finding at a position
inside the file (exit 1, or 0 when the input is actually fine), never a traceback or exit 2,
in bounded time and memory, and without writing or changing any file.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from pytest_handoff.cli import main
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.pipeline.run import check_paths
from pytest_handoff.read.strict_json import parse_json_bytes
from pytest_handoff.values.documents import MAX_DEPTH
from pytest_handoff.values.findings import Finding, Severity
from pytest_handoff.values.settings import Settings
from tests.conftest import CHAIN_ID, SAMPLE_CHAIN, ChainFolder

BA, DEV, TEST, REVIEW = "01-ba-agent.json", "02-dev-agent.json", "03-test-agent.json", "04-review-agent.json"
CHAIN = f".neuralrelay/handoffs/{CHAIN_ID}"
LINE_BREAK = re.compile(r"\r\n|\r|\n")
# File-level findings (no position) are only right for files that could not be read at all.
FILE_LEVEL_CODES = {"HF006", "HF007"}


# --- helpers ------------------------------------------------------------------------------


def source_lines(raw: bytes) -> list[str]:
    """The file's lines as the engine numbers them (invalid UTF-8 shown as U+FFFD)."""
    return LINE_BREAK.split(raw.decode("utf-8", errors="replace"))


def position_is_inside(lines: list[str], line: int, column: int) -> bool:
    """1 <= line <= number of lines and 1 <= column <= len(line) + 1."""
    return 1 <= line <= len(lines) and 1 <= column <= len(lines[line - 1]) + 1


def assert_positions_inside(findings: Any, raw: bytes) -> None:
    lines = source_lines(raw)
    for finding in findings:
        line, column = (finding.line, finding.column) if isinstance(finding, Finding) else finding
        code = finding.code if isinstance(finding, Finding) else "?"
        if line == 0 and code in FILE_LEVEL_CODES:
            continue
        assert position_is_inside(lines, line, column), (finding, len(lines))


def tree_digest(root: Path) -> dict[str, str]:
    """Every file and link under ``root`` -> a hash of its bytes (or its link target)."""
    digest: dict[str, str] = {}
    for current, folders, files in os.walk(root):
        for name in [*folders, *files]:
            path = Path(current, name)
            key = path.relative_to(root).as_posix()
            if path.is_symlink():
                digest[key] = "link:" + os.readlink(path)
            elif path.is_file() and os.access(path, os.R_OK):
                digest[key] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                digest[key] = "dir" if path.is_dir() else "other"
    return digest


@dataclass
class Run:
    code: int
    out: str
    err: str

    def findings(self) -> list[dict[str, Any]]:
        report: dict[str, Any] = json.loads(self.out)
        return list(report["findings"])


class Repo:
    """A repository holding a copy of the primary chain; every lint checks that no file changed."""

    def __init__(self, root: Path, chain: ChainFolder, capsys: pytest.CaptureFixture[str]) -> None:
        self.root = root
        self.chain = chain
        self.capsys = capsys

    def path(self, name: str) -> Path:
        return self.chain.path(name)

    def display(self, name: str) -> str:
        return f"{CHAIN}/{name}"

    def write(self, name: str, raw: bytes | str) -> Path:
        path = self.chain.path(name)
        path.write_bytes(raw.encode("utf-8") if isinstance(raw, str) else raw)
        return path

    def lint(self, *args: str) -> Run:
        self.capsys.readouterr()
        before = tree_digest(self.root)
        code = main(list(args))
        captured = self.capsys.readouterr()
        assert tree_digest(self.root) == before, "handoff-lint wrote or changed a file"
        for stream in (captured.out, captured.err):
            assert "Traceback" not in stream
            assert "internal error" not in stream
        return Run(code, captured.out, captured.err)

    def lint_json(self, *args: str) -> tuple[int, list[dict[str, Any]]]:
        run = self.lint("--format", "json", *args)
        return run.code, run.findings()


@pytest.fixture
def repo(
    sample_chain: ChainFolder,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Repo:
    monkeypatch.chdir(pytester.path)
    for variable in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "FORCE_COLOR", "NO_COLOR"):
        monkeypatch.delenv(variable, raising=False)
    return Repo(pytester.path, sample_chain, capsys)


def line_col_of(raw: bytes, needle: bytes) -> tuple[int, int]:
    offset = raw.index(needle)
    prefix = source_lines(raw[:offset])
    return len(prefix), len(prefix[-1]) + 1


def sample(name: str) -> bytes:
    return (SAMPLE_CHAIN / name).read_bytes()


def sample_data(name: str) -> Any:
    return json.loads(sample(name))


def dumps(data: Any) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def test_the_untouched_sample_chain_is_clean(repo: Repo) -> None:
    """The baseline every case below breaks: no error, so exit 1 always comes from the hostile file."""
    code, findings = repo.lint_json()
    assert code == 0
    assert not [f for f in findings if f["severity"] == "error"]


# --- syntax -------------------------------------------------------------------------------


def test_json_truncated_at_every_byte_offset_is_one_finding_inside_the_file() -> None:
    raw = sample(DEV)
    assert len(raw) > 6000  # a full-sized dev handoff, so every kind of token gets cut
    for cut in range(len(raw)):
        prefix = raw[:cut]
        result = parse_json_bytes(prefix, Path(DEV), DEV)
        if not raw[cut:].strip():  # only the final line break was cut: still the whole document
            assert result.findings == (), cut
            continue
        assert result.document is None, cut
        assert len(result.findings) == 1, (cut, result.findings)
        finding = result.findings[0]
        assert finding.code in ("HF001", "HF002"), (cut, finding)
        assert_positions_inside([finding], prefix)
    assert parse_json_bytes(raw, Path(DEV), DEV).findings == ()


def test_truncated_json_through_the_whole_engine_stays_inside_the_file(
    sample_chain: ChainFolder, pytester: pytest.Pytester
) -> None:
    raw = sample(REVIEW)
    path = sample_chain.path(REVIEW)
    for cut in range(0, len(raw), 61):
        path.write_bytes(raw[:cut])
        _, results = check_paths([path], pytester.path, Settings(), registry=default_registry())
        findings = [f for result in results for f in result.findings]
        mine = [f for f in findings if f.path.endswith(REVIEW)]
        assert any(f.code in ("HF001", "HF002") for f in mine), (cut, mine)
        assert_positions_inside(mine, raw[:cut])


def numbered(*lines: str, newline: str = "\n") -> bytes:
    return newline.join(lines).encode("utf-8")


# A 7-line object whose line 5 holds the error, joined with each kind of line break.
_LINE_5 = (
    "{",
    '  "handoff_type": "test_to_review",',
    '  "a": 1,',
    '  "b": 2,',
    '  "c": oops,',
    '  "d": 4',
    "}",
)

SYNTAX_CASES: list[tuple[str, bytes, str, int, int]] = [
    ("trailing-comma-object", b'{\n  "a": 1,\n}', "HF002", 2, 9),
    ("trailing-comma-array", b'{"a": [1,\n  2,\n]}', "HF002", 2, 4),
    ("line-comment", b'{\n  // a note\n  "a": 1\n}', "HF002", 2, 3),
    ("block-comment", b'{"a": 1 /* note */}', "HF002", 1, 9),
    ("hash-comment", b'# note\n{"a": 1}', "HF002", 1, 1),
    ("single-quotes", b"{'a': 1}", "HF002", 1, 2),
    ("unquoted-key", b"{a: 1}", "HF002", 1, 2),
    ("nan", b'{\n  "a": NaN\n}', "HF004", 2, 8),
    ("infinity", b'{"a": [1, Infinity]}', "HF004", 1, 11),
    ("negative-infinity", b'{"a": -Infinity}', "HF004", 1, 7),
    ("overflowing-float", b'{"s": "1e999",\n "a": 1e999}', "HF004", 2, 7),
    ("duplicate-key", b'{\n  "a": 1,\n  "a": 2\n}', "HF003", 3, 3),
    ("duplicate-key-escaped-spelling", b'{"\\u0061": 1, "a": 2}', "HF003", 1, 15),
    ("utf8-bom", b'\xef\xbb\xbf{"a": 1}', "HF001", 1, 1),
    ("utf16-le-bom", '{"a": 1}'.encode("utf-16"), "HF001", 1, 1),
    ("utf16-be-bom", b"\xfe\xff" + '{"a": 1}'.encode("utf-16-be"), "HF001", 1, 1),
    ("utf16-without-bom", '{"a": 1}'.encode("utf-16-le"), "HF001", 1, 2),
    ("utf32-bom", '{"a": 1}'.encode("utf-32"), "HF001", 1, 1),
    ("invalid-utf8", b'{\n  "a": "caf\xc3\xa9 \xff"\n}', "HF001", 2, 14),
    ("overlong-utf8", b'{"a": "\xc0\xaf"}', "HF001", 1, 8),
    ("utf8-encoded-surrogate", b'{"a": "\xed\xa0\x80"}', "HF001", 1, 8),
    ("truncated-utf8", b'{"a": "\xe2\x82', "HF001", 1, 8),
    ("latin1", '{"a": "café"}'.encode("latin-1"), "HF001", 1, 11),
    ("lone-high-surrogate", b'{"a": "x\\ud800y"}', "HF002", 1, 9),
    ("lone-low-surrogate", b'{\n  "a": "\\udc00"\n}', "HF002", 2, 9),
    ("reversed-surrogate-pair", b'{"a": "\\ude00\\ud83d"}', "HF002", 1, 8),
    ("lone-surrogate-in-a-key", b'{"k\\ud83d": 1}', "HF002", 1, 4),
    ("nul-between-tokens", b'{"a": 1,\x00 "b": 2}', "HF001", 1, 9),
    ("nul-in-a-string", b'{"a": "x\x00y"}', "HF001", 1, 9),
    ("raw-escape-in-a-string", b'{"a": "\x1b[31mred"}', "HF002", 1, 8),
    ("raw-tab-in-a-string", b'{"a": "x\ty"}', "HF002", 1, 9),
    ("invalid-escape", b'{"a": "\\x41"}', "HF002", 1, 8),
    ("short-unicode-escape", b'{"a": "\\u12"}', "HF002", 1, 9),
    ("form-feed-as-whitespace", b'{\x0c"a": 1}', "HF002", 1, 2),
    ("non-breaking-space", '{\u00a0"a": 1}'.encode(), "HF002", 1, 2),
    ("line-separator", '{"a": 1,\u2028"b": 2}'.encode(), "HF002", 1, 9),
    ("two-documents", b'{"a": 1}\n{"b": 2}', "HF002", 2, 1),
    ("garbage-after", b'{"a": 1}  xyz', "HF002", 1, 11),
    ("unterminated-string", b'{"a": "abc', "HF002", 1, 7),
    ("unclosed-object", b'{"a": 1', "HF002", 1, 8),
    ("leading-zero", b'{"a": 01}', "HF002", 1, 8),
    ("plus-sign", b'{"a": +1}', "HF002", 1, 7),
    ("hex-number", b'{"a": 0x1F}', "HF002", 1, 8),
    ("python-literals", b'{"a": True}', "HF002", 1, 7),
    ("empty-file", b"", "HF002", 1, 1),
    ("only-spaces", b"        ", "HF002", 1, 1),
    ("only-line-breaks", b"\n\r\n\r", "HF002", 1, 1),
    ("error-on-line-5-lf", numbered(*_LINE_5), "HF002", 5, 8),
    ("error-on-line-5-crlf", numbered(*_LINE_5, newline="\r\n"), "HF002", 5, 8),
    ("error-on-line-5-cr", numbered(*_LINE_5, newline="\r"), "HF002", 5, 8),
    ("error-on-line-5-mixed", b'{\n  "a": 1,\r\n  "b": 2,\r  "c": 3,\n  "d": oops\n}', "HF002", 5, 8),
]


@pytest.mark.parametrize(
    ("raw", "code", "line", "column"),
    [pytest.param(raw, code, line, column, id=name) for name, raw, code, line, column in SYNTAX_CASES],
)
def test_malformed_bytes_are_a_finding_at_their_position(
    repo: Repo, raw: bytes, code: str, line: int, column: int
) -> None:
    repo.write(TEST, raw)
    exit_code, findings = repo.lint_json()
    assert exit_code == 1
    mine = [f for f in findings if f["path"] == repo.display(TEST)]
    assert (code, line, column) in [(f["code"], f["line"], f["column"]) for f in mine], mine
    assert_positions_inside([(f["line"], f["column"]) for f in mine], raw)
    # The text report names the same place, and nothing in it is raw control characters.
    text = repo.lint().out
    assert f"{repo.display(TEST)}:{line}:{column}: {code}" in text
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text.replace("\r", "")), text


def test_a_valid_surrogate_pair_is_fine(repo: Repo) -> None:
    data = sample_data(TEST)
    data["remaining_risks"].append("emoji \ud83d\ude00 written as an escaped pair")
    raw = json.dumps(data, indent=2, ensure_ascii=True).encode()
    assert b"\\ud83d\\ude00" in raw
    repo.write(TEST, raw)
    code, findings = repo.lint_json()
    assert code == 0
    assert not [f for f in findings if f["severity"] == "error"]


@pytest.mark.parametrize("newline", ["\r\n", "\r"], ids=["CRLF", "CR"])
def test_line_endings_keep_schema_findings_on_their_line(repo: Repo, newline: str) -> None:
    data = sample_data(REVIEW)
    data["quality_score"] = "six"
    text = json.dumps(data, indent=2).replace("\n", newline)
    raw = text.encode()
    repo.write(REVIEW, raw)
    code, findings = repo.lint_json()
    assert code == 1
    finding = next(f for f in findings if f["pointer"] == "/quality_score")
    line, column = line_col_of(raw, b'"six"')
    assert (finding["code"], finding["line"], finding["column"]) == ("HS001", line, column)
    assert line > 5


# --- size and shape -----------------------------------------------------------------------


def test_100000_levels_of_nesting_are_a_finding_at_the_first_bracket_too_deep(repo: Repo) -> None:
    for raw in (b"[" * 100_000 + b"]" * 100_000, b'{"a": ' * 100_000 + b"1" + b"}" * 100_000):
        repo.write(TEST, raw)
        code, findings = repo.lint_json()
        assert code == 1
        mine = [f for f in findings if f["path"] == repo.display(TEST)]
        assert [(f["code"], f["line"]) for f in mine] == [("HF002", 1)]
        depth_reached = raw[: mine[0]["column"]].count(b"[") + raw[: mine[0]["column"]].count(b"{")
        assert depth_reached == MAX_DEPTH + 1
        assert str(MAX_DEPTH) in mine[0]["message"]


def test_nesting_just_inside_the_limit_is_read(repo: Repo) -> None:
    data = sample_data(REVIEW)
    deep: Any = "leaf"
    for _ in range(MAX_DEPTH - 2):  # the document and the list around it are two more levels
        deep = [deep]
    data["recommendations"] = [deep]
    repo.write(REVIEW, dumps(data))
    code, findings = repo.lint_json()
    assert code == 1
    assert any(f["code"] == "HS001" and f["pointer"] == "/recommendations/0" for f in findings)


def test_a_file_over_a_small_configured_limit_is_reported_unread(repo: Repo) -> None:
    (repo.root / "pyproject.toml").write_text("[tool.handoff]\nmax-file-size = 4096\n")
    assert len(sample(DEV)) > 4096
    code, findings = repo.lint_json()
    assert code == 1
    mine = [f for f in findings if f["path"] == repo.display(DEV)]
    assert [(f["code"], f["line"], f["column"]) for f in mine] == [("HF006", 0, 0)]
    assert "4,096" in mine[0]["message"]


# The child reports its own peak resident size: /proc/self/status's VmHWM belongs to the new
# program image, unlike ru_maxrss, which also counts the parent's pages it was forked with.
_CHILD = """
import sys
from pytest_handoff.cli import main
code = main()
try:
    with open("/proc/self/status") as status:
        peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak = "0"
sys.stderr.write(f"\\nPEAK_KB={peak}\\n")
sys.exit(code)
"""


def run_process(root: Path, *args: str) -> tuple[int, str, float, float]:
    """handoff-lint in a child process: (exit code, stdout, seconds, peak resident MB; 0 if unknown)."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, *args], cwd=root, capture_output=True, timeout=120, check=False
    )
    elapsed = time.perf_counter() - start
    err = done.stderr.decode("utf-8", errors="replace")
    assert "Traceback" not in err, err
    peak = re.search(r"PEAK_KB=(\d+)", err)
    assert peak is not None, err
    return done.returncode, done.stdout.decode("utf-8"), elapsed, int(peak.group(1)) / 1024


@pytest.mark.slow
def test_a_real_50_mb_file_is_reported_in_bounded_time_and_memory(repo: Repo) -> None:
    path = repo.path(TEST)
    with path.open("wb") as stream:
        stream.write(b'{"handoff_type": "test_to_review", "remaining_risks": ["')
        chunk = b"A" * (1024 * 1024)
        for _ in range(50):
            stream.write(chunk)
        stream.write(b'"]}')
    assert path.stat().st_size > 50 * 1024 * 1024
    before = tree_digest(repo.root)
    code, out, elapsed, peak = run_process(repo.root, "--format", "json")
    assert tree_digest(repo.root) == before
    assert code == 1
    mine = [f for f in json.loads(out)["findings"] if f["path"] == repo.display(TEST)]
    assert [f["code"] for f in mine] == ["HF006"]
    assert elapsed < 20
    assert peak < 400, f"{peak:.0f} MB"
    # Raised to 64 MiB, the same file is read, parsed and checked for real.
    (repo.root / "pyproject.toml").write_text("[tool.handoff]\nmax-file-size = 67108864\n")
    code, out, elapsed, peak = run_process(repo.root, "--format", "json")
    assert code == 1
    assert "HF006" not in out
    assert elapsed < 30
    assert peak < 400, f"{peak:.0f} MB"


def test_a_file_just_under_the_default_limit_is_read_in_bounded_time_and_memory(repo: Repo) -> None:
    # About 9.5 MB to read, decode, parse and check for real; few words, so that the text rules
    # (linear, but about 1 s per 100,000 words) do not dominate the time measured.
    data = sample_data(TEST)
    data["remaining_risks"] = [f"risk {n} " + "x" * 1_900 for n in range(5_000)]
    raw = dumps(data)
    assert 9 * 1024 * 1024 < len(raw) < 10 * 1024 * 1024
    repo.write(TEST, raw)
    code, _out, elapsed, peak = run_process(repo.root, "--format", "json")
    assert code in (0, 1)
    assert elapsed < 30
    assert peak < 400, f"{peak:.0f} MB"


def test_a_one_megabyte_string_is_checked_quickly(repo: Repo) -> None:
    data = sample_data(REVIEW)
    data["summary"] = "x" * 1_000_000
    repo.write(REVIEW, dumps(data))
    start = time.perf_counter()
    code, _findings = repo.lint_json()
    assert code == 0
    assert time.perf_counter() - start < 10


def test_a_5000_digit_integer_is_a_finding_at_its_position(repo: Repo) -> None:
    data = sample_data(REVIEW)
    data["total_tokens"] = 0
    raw = dumps(data).replace(b'"total_tokens": 0', b'"total_tokens": ' + b"7" * 5000)
    repo.write(REVIEW, raw)
    code, findings = repo.lint_json()
    assert code == 1
    mine = [f for f in findings if f["path"] == repo.display(REVIEW)]
    assert [(f["code"], f["line"], f["column"]) for f in mine] == [("HF002", *line_col_of(raw, b"7777"))]
    assert "5,000 digits" in mine[0]["message"]


def test_an_integer_just_under_pythons_limit_is_read(repo: Repo) -> None:
    data = sample_data(REVIEW)
    data["total_tokens"] = int("9" * 4000)
    repo.write(REVIEW, dumps(data))
    code, _findings = repo.lint_json()
    assert code in (0, 1)


def test_a_million_element_array_is_checked_in_bounded_time(repo: Repo) -> None:
    data = sample_data(REVIEW)
    data["recommendations"] = ["Add a concurrency test helper"] * 1_000_000
    repo.write(REVIEW, dumps(data))
    code, _out, elapsed, peak = run_process(repo.root, "--format", "json")
    assert code in (0, 1)
    assert elapsed < 30
    assert peak < 400, f"{peak:.0f} MB"


def test_a_finding_at_the_end_of_a_huge_array_is_positioned_quickly(repo: Repo) -> None:
    # One schema error pointing at the last of a million items: resolving it must not
    # build a node per value (the position map is lazy).
    # 200,000 items: jsonschema alone needs seconds per million (see the report on findings).
    raw = b'{"handoff_type": "review_final", "recommendations": [' + b'"x",' * 199_999 + b"7]}"
    repo.write(REVIEW, raw)
    code, out, elapsed, peak = run_process(repo.root, "--format", "json")
    assert code == 1
    finding = next(f for f in json.loads(out)["findings"] if f["pointer"] == "/recommendations/199999")
    assert (finding["line"], finding["column"]) == (1, len(raw) - 2)
    assert elapsed < 30
    assert peak < 400, f"{peak:.0f} MB"


def test_findings_per_file_are_capped(repo: Repo) -> None:
    data = sample_data(REVIEW)
    data["recommendations"] = [1] * 20_000
    repo.write(REVIEW, dumps(data))
    code, findings = repo.lint_json()
    assert code == 1
    assert len([f for f in findings if f["path"] == repo.display(REVIEW)]) <= 1_000


# --- types --------------------------------------------------------------------------------

REPLACEMENTS: dict[str, Any] = {
    "null": None,
    "boolean": True,
    "integer": 1,
    "number": 1.5,
    "string": "s",
    "array": [],
    "object": {},
}


def json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def walk(value: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    pending = [(pointer, value)]
    while pending:
        pointer, value = pending.pop()
        yield pointer, value
        if isinstance(value, dict):
            pending.extend(
                (f"{pointer}/{k.replace('~', '~0').replace('/', '~1')}", v) for k, v in value.items()
            )
        elif isinstance(value, list):
            pending.extend((f"{pointer}/{i}", v) for i, v in enumerate(value))


def replaced(data: Any, pointer: str, new: Any) -> Any:
    if not pointer:
        return new
    copy = json.loads(json.dumps(data))
    *parents, last = [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]
    node = copy
    for token in parents:
        node = node[int(token)] if isinstance(node, list) else node[token]
    node[int(last) if isinstance(node, list) else last] = new
    return copy


REWORK = {
    "handoff_type": "rework",
    "rework_cycle": 1,
    "original_review_path": f"{CHAIN}/{REVIEW}",
    "issues_to_address": [
        "Serialise concurrent token refreshes per user",
        {"severity": "high", "description": "decryptToken hides failures", "location": "src/lib/tokens.ts"},
    ],
    "focus_areas": ["src/lib/tokens.ts"],
    "verdict": "changes_requested",
}


def documents_with_types() -> list[tuple[str, str, Any]]:
    """(file name, schema, data) of a real document of every handoff type."""
    cases = [(name, "", sample_data(name)) for name in (BA, DEV, TEST, REVIEW)]
    return [*cases, ("rework-1.json", "rework", REWORK)]


@pytest.mark.parametrize("kind", list(REPLACEMENTS))
@pytest.mark.parametrize("name", [BA, DEV, TEST, REVIEW, "rework-1.json"])
def test_every_field_given_a_value_of_another_type_is_a_finding(
    sample_chain: ChainFolder, pytester: pytest.Pytester, name: str, kind: str
) -> None:
    from pytest_handoff.validation.schemas import build_validator, load_schema

    data = next(d for n, _, d in documents_with_types() if n == name)
    handoff_type = data["handoff_type"]
    validator = build_validator(load_schema(f"neuralrelay/{handoff_type}"))
    assert not list(validator.iter_errors(data)), "the starting document must be valid"
    path = sample_chain.path(name)
    settings = Settings()
    checked = 0
    for pointer, value in list(walk(data)):
        if json_kind(value) == kind:
            continue
        if pointer == "/handoff_type" and kind in ("array", "object") and name != "rework-1.json":
            continue  # a known crash outside the loader: test_an_unhashable_handoff_type_is_a_finding
        mutated = replaced(data, pointer, REPLACEMENTS[kind])
        raw = dumps(mutated)
        path.write_bytes(raw)
        _, results = check_paths([path], pytester.path, settings, registry=default_registry())
        mine = [f for result in results for f in result.findings if f.path.endswith(name)]
        assert_positions_inside(mine, raw)
        if list(validator.iter_errors(mutated)):
            related = [
                f
                for f in mine
                if f.pointer in ("", pointer)
                or f.pointer.startswith(pointer + "/")
                or pointer.startswith(f.pointer + "/")
            ]
            assert related, (pointer, kind, mine)
            assert any(f.severity >= Severity.ERROR for f in related), (pointer, kind, related)
        checked += 1
    assert checked > 0


@pytest.mark.parametrize("value", [[], {}, ["dev_to_test"]], ids=["empty-array", "empty-object", "array"])
def test_an_unhashable_handoff_type_is_a_finding(repo: Repo, value: Any) -> None:
    data = sample_data(REVIEW)
    data["handoff_type"] = value
    repo.write(REVIEW, dumps(data))
    code = main(["--format", "json"])
    captured = repo.capsys.readouterr()
    assert "internal error" not in captured.err
    assert code == 1
    assert any(f["pointer"] == "/handoff_type" for f in json.loads(captured.out)["findings"])


@pytest.mark.parametrize(
    ("raw", "what"),
    [
        (b"[]", "list"),
        (b'[{"handoff_type": "test_to_review"}]', "list"),
        (b'"a string"', "str"),
        (b"42", "int"),
        (b"-1.5e3", "float"),
        (b"null", "null"),
        (b"true", "bool"),
    ],
)
def test_a_document_that_is_not_an_object_is_a_finding_at_its_start(
    repo: Repo, raw: bytes, what: str
) -> None:
    name = "notes.json"  # no agent in the name, so the content alone must say what it is
    path = repo.root / ".neuralrelay" / "handoffs" / name
    path.write_bytes(b"\n  " + raw + b"\n")
    code, findings = repo.lint_json()
    assert code == 1
    mine = [f for f in findings if f["path"] == f".neuralrelay/handoffs/{name}"]
    assert [(f["code"], f["line"], f["column"]) for f in mine] == [("HS002", 2, 3)]
    repo.write(TEST, b"\n  " + raw + b"\n")  # a named agent's file: its schema says "object"
    code, findings = repo.lint_json()
    assert code == 1
    assert any(f["path"] == repo.display(TEST) and (f["line"], f["column"]) == (2, 3) for f in findings)


# --- files --------------------------------------------------------------------------------


def test_a_symlink_to_a_file_outside_the_repository_is_not_followed(
    repo: Repo, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside") / "secret.json"
    outside.write_text('{"handoff_type": "exfiltrated-secret"}')
    repo.path("05-evil-agent.json").symlink_to(outside)
    (repo.root / ".neuralrelay" / "handoffs" / "loose.json").symlink_to(outside)
    run = repo.lint("--format", "json")
    assert "exfiltrated-secret" not in run.out


def test_a_symlink_to_a_folder_outside_the_repository_is_not_walked(
    repo: Repo, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    chain = outside / "20260101-000000"
    chain.mkdir()
    (chain / "01-ba-agent.json").write_text('{"handoff_type": "exfiltrated-secret"}')
    (repo.root / ".neuralrelay" / "handoffs" / "linked").symlink_to(outside, target_is_directory=True)
    run = repo.lint("--format", "json")
    assert run.code == 0
    assert "exfiltrated-secret" not in run.out


def test_a_folder_named_like_a_handoff_is_not_read_as_one(repo: Repo) -> None:
    repo.path("05-review-agent.json").mkdir()
    repo.path("x.json").mkdir()
    (repo.path("x.json") / "inner.txt").write_text("not json")
    assert repo.lint().code == 0
    assert repo.lint(f"{CHAIN}/x.json").code == 0
    run = repo.lint(f"{CHAIN}/05-review-agent.json")
    assert run.code in (0, 2)  # an empty folder named on the command line holds no handoff


def test_an_unreadable_file_is_a_finding(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    path = repo.path(TEST)
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            # Root reads any file: refuse it at the same call, as the kernel refuses everyone else.
            real_open = os.open

            def refusing_open(file: Any, flags: int, *args: Any, **kwargs: Any) -> int:
                if os.path.abspath(file) == os.path.abspath(path):
                    raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(file))
                return real_open(file, flags, *args, **kwargs)

            monkeypatch.setattr(os, "open", refusing_open)
        code, findings = repo.lint_json()
        assert code == 1
        mine = [f for f in findings if f["path"] == repo.display(TEST)]
        assert [f["code"] for f in mine] == ["HF007"]
    finally:
        path.chmod(0o644)


def test_a_file_that_vanishes_between_discovery_and_reading_is_a_finding(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_handoff.pipeline import discovery

    discover = discovery.discover

    def discover_then_delete(*args: Any, **kwargs: Any) -> Any:
        found = discover(*args, **kwargs)
        repo.path(TEST).unlink()
        return found

    monkeypatch.setattr(discovery, "discover", discover_then_delete)
    code = main(["--format", "json"])
    out = repo.capsys.readouterr().out
    assert code == 1
    mine = [f for f in json.loads(out)["findings"] if f["path"] == repo.display(TEST)]
    assert [(f["code"], f["line"]) for f in mine] == [("HF007", 0)]


def test_a_fifo_named_like_a_handoff_does_not_block(repo: Repo) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    os.mkfifo(repo.root / ".neuralrelay" / "handoffs" / "pipe.json")
    os.mkfifo(repo.path("05-review-agent.json"))
    code, findings = repo.lint_json()
    assert code == 1
    assert [f["code"] for f in findings if f["path"].endswith("pipe.json")] == ["HF007"]


BINARY_FILES = {
    "png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01",
    "gzip": b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xcbH\xcd\xc9\xc9\x07\x00",
    "elf": b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)),
    "random": random.Random(7).randbytes(4096),
    "all-bytes": bytes(range(256)) * 4,
}


@pytest.mark.parametrize("raw", list(BINARY_FILES.values()), ids=list(BINARY_FILES))
def test_a_binary_file_is_one_finding_inside_it(repo: Repo, raw: bytes) -> None:
    repo.write(TEST, raw)
    code, findings = repo.lint_json()
    assert code == 1
    mine = [f for f in findings if f["path"] == repo.display(TEST)]
    assert len(mine) == 1
    assert mine[0]["code"] in ("HF001", "HF002")
    assert_positions_inside([(f["line"], f["column"]) for f in mine], raw)
    run = repo.lint()
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", run.out.replace("\r", "")), run.out


ODD_NAMES = ["with space.json", "comma,name.json", "colon:name.json", "ünïcødé 日本.json", "a%25b.json"]


@pytest.mark.parametrize("name", ODD_NAMES)
def test_odd_file_names_give_valid_annotations_and_sarif_uris(repo: Repo, name: str) -> None:
    path = repo.root / ".neuralrelay" / "handoffs" / name
    path.write_bytes(b'{\n  "a": 1,\n}')
    display = f".neuralrelay/handoffs/{name}"

    github = repo.lint("--format", "github")
    assert github.code == 1
    lines = github.out.splitlines()
    assert all(line.startswith("::") for line in lines)
    annotation = next(line for line in lines if "HF002" in line)
    properties = dict(
        item.split("=", 1) for item in annotation.removeprefix("::error ").split("::", 1)[0].split(",")
    )
    decoded = (
        properties["file"]
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%0A", "\n")
        .replace("%0D", "\r")
        .replace("%25", "%")
    )
    assert decoded == display
    assert (properties["line"], properties["col"]) == ("2", "9")  # the trailing comma

    sarif = json.loads(repo.lint("--format", "sarif").out)
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in sarif["runs"][0]["results"]
        if r["ruleId"] == "HF002"
    ]
    assert len(uris) == 1
    assert unquote(uris[0]) == display
    assert re.fullmatch(r"[A-Za-z0-9._~%/-]+", uris[0]), uris[0]

    markdown = repo.lint("--format", "markdown").out
    assert all(len(re.split(r"(?<!\\)\|", row)) == 6 for row in markdown.splitlines() if row.startswith("|"))


def test_control_characters_in_a_file_name_never_reach_the_text_output(repo: Repo) -> None:
    name = "evil\x1b[31m\x1b]8;;http:x\x07name.json"
    (repo.root / ".neuralrelay" / "handoffs" / name).write_bytes(b"{,}")
    run = repo.lint()
    assert run.code == 1
    assert "\x1b" not in run.out
    assert "\x07" not in run.out


def test_control_characters_in_a_file_name_stay_inert_outside_the_text_output(repo: Repo) -> None:
    name = "evil\n::error::pwned\x1b[31m.json"
    (repo.root / ".neuralrelay" / "handoffs" / name).write_bytes(b"{,}")
    github = repo.lint("--format", "github")
    assert github.code == 1
    assert all(line.startswith(("::error ", "::warning ", "::notice")) for line in github.out.splitlines())
    for format_ in ("json", "sarif", "markdown"):
        out = repo.lint("--format", format_).out
        assert "\x1b" not in out
        if format_ != "markdown":
            json.loads(out)


# --- output injection ---------------------------------------------------------------------

HOSTILE = [
    "x\n::error::injected",
    "::add-mask::secret",
    "y\r\n::stop-commands::token",
    "\x1b[31mred\x1b[0m",
    "\x1b]8;;http://evil.example\x07link\x1b]8;;\x07",
    "\x9b31mC1 CSI",
    "[bold red]markup[/]",
    "| </table> <script>alert(1)</script> |",
    "\u202eright-to-left override",
]


@pytest.fixture
def hostile_repo(repo: Repo) -> Repo:
    """Hostile text where findings quote it: a repeated coverage gap, a bad enum value, a bad key."""
    dev = sample_data(DEV)
    for text in HOSTILE:
        dev["coverage_gaps"].extend([f"gap {text}", f"gap {text}"])
    repo.write(DEV, dumps(dev))
    review = sample_data(REVIEW)
    review["verdict"] = HOSTILE[0] + HOSTILE[3]
    for text in HOSTILE:
        review[f"key {text}"] = 1
    repo.write(REVIEW, dumps(review))
    return repo


def test_hostile_text_stays_inert_in_text_output(hostile_repo: Repo) -> None:
    run = hostile_repo.lint()
    assert run.code == 1
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]", run.out.replace("\r", "")), run.out
    assert "[bold red]markup[/]" in run.out  # printed literally, not styled


def test_hostile_text_cannot_start_a_workflow_command(hostile_repo: Repo) -> None:
    run = hostile_repo.lint("--format", "github")
    assert run.code == 1
    lines = run.out.splitlines()
    assert len(lines) > 3
    for line in lines:
        assert line.startswith(("::error ", "::warning ", "::notice")), line
        assert not re.search(r"[\x00-\x1f\x7f-\x9f]", line), line


def test_hostile_text_keeps_the_markdown_table_whole(hostile_repo: Repo) -> None:
    run = hostile_repo.lint("--format", "markdown")
    assert run.code == 1
    assert "<script" not in run.out.lower()
    assert "</table" not in run.out.lower()
    rows = [line for line in run.out.splitlines() if line.startswith("|")]
    assert len(rows) > 3
    for row in rows:
        assert len(re.split(r"(?<!\\)\|", row)) == 6, row
    assert "\x1b" not in run.out


def test_hostile_text_round_trips_through_json_output(hostile_repo: Repo) -> None:
    run = hostile_repo.lint("--format", "json")
    assert run.code == 1
    assert "\x1b" not in run.out
    assert not re.search(r"[\x80-\x9f\u202a-\u202e]", run.out)
    findings = run.findings()
    pointers = {f["pointer"] for f in findings}
    for text in HOSTILE:
        key = f"key {text}".replace("~", "~0").replace("/", "~1")
        assert f"/{key}" in pointers, text
    sarif = json.loads(hostile_repo.lint("--format", "sarif").out)
    assert sarif["runs"][0]["results"]
