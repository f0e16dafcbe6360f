"""Property tests: whatever the bytes, the loader and the engine give findings inside the file.

The only outcomes allowed for any input are "no findings" or findings whose line and column
lie inside the file (1 <= line <= number of lines, 1 <= column <= len(line) + 1). The
coverage-guided counterpart of these tests is ``fuzz/fuzz_engine.py``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.pipeline.run import check_paths
from pytest_handoff.places.lines import LineIndex
from pytest_handoff.read.strict_json import parse_json_bytes
from pytest_handoff.values.findings import Finding
from pytest_handoff.values.settings import Settings
from tests.conftest import CHAIN_ID, FIXTURES, SAMPLE_CHAIN, copy_chain
from tests.test_hostile import assert_positions_inside, source_lines, walk

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ENGINE = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_KEYS = st.text(st.sampled_from('~/0aé"\\ \n\t\x1b') | st.characters(), max_size=5)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.sampled_from('{}[],:"\\/ \n\r\x00\x1b') | st.characters(), max_size=8)
)
JSON_VALUES = st.recursive(
    _SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_KEYS, children, max_size=4),
    max_leaves=30,
)
INTERESTING_BYTES = [*b'{}[],:"\\ \n\r\t0-.eE+uNaIfinity', 0x00, 0x1B, 0x7F, 0x80, 0xC3, 0xED, 0xEF, 0xFF]


def load(raw: bytes) -> Any:
    return parse_json_bytes(raw, Path("h.json"), "h.json")


def encode(value: Any, indent: int | str | None, ensure_ascii: bool, newline: str) -> bytes:
    return (
        json.dumps(value, indent=indent, ensure_ascii=ensure_ascii)
        .replace("\n", newline)
        .encode("utf-8", "surrogatepass")
    )


@FAST
@given(
    value=JSON_VALUES,
    indent=st.sampled_from([None, 0, 2, "\t"]),
    ensure_ascii=st.booleans(),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_any_json_value_loads_without_findings_and_every_pointer_is_inside_the_file(
    value: Any, indent: int | str | None, ensure_ascii: bool, newline: str
) -> None:
    raw = encode(value, indent, ensure_ascii, newline)
    loaded = load(raw)
    if _has_surrogate(json.loads(json.dumps(value))):
        # A lone surrogate: raw (as CESU-8 bytes) it is invalid UTF-8, escaped it is unpaired.
        assert loaded.document is None
        assert [f.code for f in loaded.findings] == ["HF002" if ensure_ascii else "HF001"]
        assert_positions_inside(loaded.findings, raw)
        return
    assert loaded.findings == ()
    document = loaded.document
    assert document is not None
    assert document.data == value
    lines = source_lines(raw)
    for pointer, _ in walk(value):
        region = document.region(pointer)
        assert 1 <= region.line <= region.end_line <= len(lines)
        assert 1 <= region.column <= len(lines[region.line - 1]) + 1
        assert 1 <= region.end_column <= len(lines[region.end_line - 1]) + 1


def _has_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return bool(re.search("[\ud800-\udfff]", value))
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_surrogate(v) for v in value)
    return False


_SURROGATE_TEXT = st.text(st.characters(categories=["Cs"]) | st.sampled_from('ab\\"\U0001f600'), max_size=6)


@FAST
@given(
    st.recursive(
        _SURROGATE_TEXT,
        lambda children: (
            st.lists(children, max_size=3) | st.dictionaries(_SURROGATE_TEXT, children, max_size=3)
        ),
        max_leaves=10,
    )
)
def test_a_lone_surrogate_escape_is_always_a_finding_and_a_pair_never_is(value: Any) -> None:
    raw = json.dumps(value).encode("ascii")  # surrogates as \udXXX escapes
    lone = _has_surrogate(json.loads(raw))  # adjacent high+low escapes combine into one character
    loaded = load(raw)
    if lone:
        assert loaded.document is None
        assert [f.code for f in loaded.findings] == ["HF002"]
        finding = loaded.findings[0]
        assert_positions_inside([finding], raw)
        assert raw[finding.column - 1 : finding.column + 1] == b"\\u"
    else:
        assert loaded.findings == ()
        assert loaded.document is not None


def mutate(data: st.DataObject, raw: bytes) -> bytes:
    """A few random insertions, deletions, replacements and truncations of ``raw``."""
    result = bytearray(raw)
    for _ in range(data.draw(st.integers(1, 4), label="mutations")):
        position = data.draw(st.integers(0, len(result)), label="position")
        operation = data.draw(st.sampled_from(["insert", "delete", "replace", "truncate", "duplicate"]))
        byte = data.draw(st.sampled_from(INTERESTING_BYTES) | st.integers(0, 255), label="byte")
        if operation == "insert":
            result[position:position] = bytes([byte])
        elif operation == "delete":
            del result[position : position + data.draw(st.integers(1, 8), label="length")]
        elif operation == "replace" and position < len(result):
            result[position] = byte
        elif operation == "truncate":
            del result[position:]
        elif operation == "duplicate":
            end = position + data.draw(st.integers(1, 40), label="length")
            result[position:position] = result[position:end]
    return bytes(result)


#: Every handoff of our fixture chains (several writing styles, non-ASCII text, a rework file).
FIXTURE_FILES = sorted(FIXTURES.rglob("*.json"))
#: The files of the primary chain, which the engine tests check in place.
CHAIN_FILES = sorted(path.name for path in SAMPLE_CHAIN.glob("*.json"))


@FAST
@given(data=st.data())
def test_mutated_real_handoffs_give_findings_inside_the_file_or_none(data: st.DataObject) -> None:
    original = data.draw(st.sampled_from(FIXTURE_FILES), label="file").read_bytes()
    raw = mutate(data, original)
    loaded = load(raw)
    assert_positions_inside(loaded.findings, raw)
    if loaded.document is None:
        assert loaded.findings
    else:
        assert all(f.code == "HF003" for f in loaded.findings)


@pytest.fixture(scope="module")
def chain_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz-chain")
    copy_chain(SAMPLE_CHAIN, root / ".neuralrelay" / "handoffs" / CHAIN_ID)
    return root


@ENGINE
@given(data=st.data())
def test_mutated_handoffs_through_the_whole_engine_give_findings_inside_the_file(
    chain_root: Path, data: st.DataObject
) -> None:
    name = data.draw(st.sampled_from(CHAIN_FILES), label="file")
    raw = mutate(data, (SAMPLE_CHAIN / name).read_bytes())
    assert_positions_inside(check_in_place(chain_root, name, raw), raw)


@ENGINE
@given(value=JSON_VALUES, data=st.data())
def test_random_json_in_place_of_a_handoff_gives_findings_inside_the_file(
    chain_root: Path, value: Any, data: st.DataObject
) -> None:
    name = data.draw(st.sampled_from(CHAIN_FILES), label="file")
    if data.draw(st.booleans(), label="inside the real document") and isinstance(value, (dict, list)):
        document = json.loads((SAMPLE_CHAIN / name).read_text(encoding="utf-8"))
        document[data.draw(st.sampled_from(sorted(document)), label="field")] = value
        value = document
    raw = encode(value, 2, False, data.draw(st.sampled_from(["\n", "\r\n", "\r"]), label="newline"))
    assert_positions_inside(check_in_place(chain_root, name, raw), raw)


def check_in_place(chain_root: Path, name: str, raw: bytes) -> list[Finding]:
    """The findings in file ``name`` of the chain when it holds ``raw`` (then it is restored)."""
    path = chain_root / ".neuralrelay" / "handoffs" / CHAIN_ID / name
    path.write_bytes(raw)
    try:
        _, results = check_paths([path], chain_root, Settings(), registry=default_registry())
    finally:
        path.write_bytes((SAMPLE_CHAIN / name).read_bytes())
    return [f for result in results for f in result.findings if f.path.endswith(name)]


@FAST
@given(
    text=st.text(st.sampled_from("ab\r\n\t é😀"), max_size=60),
    data=st.data(),
)
def test_line_index_counts_the_same_before_and_after_building_its_table(
    text: str, data: st.DataObject
) -> None:
    offsets = data.draw(st.lists(st.integers(0, len(text)), min_size=1, max_size=40), label="offsets")
    counted = LineIndex(text, counted_lookups=len(offsets))  # every lookup answered by counting
    tabled = LineIndex(text, counted_lookups=0)  # every lookup answered from the table
    for offset in offsets:
        lines = re.split(r"\r\n|\r|\n", text[:offset])
        # A "\r\n" cut in half by the offset still counts as one break ending the line before.
        if offset and text[offset - 1] == "\r" and text[offset : offset + 1] == "\n":
            lines = re.split(r"\r\n|\r|\n", text[: offset - 1])
            expected = (len(lines), len(lines[-1]) + 2)
        else:
            expected = (len(lines), len(lines[-1]) + 1)
        assert counted.position(offset) == tabled.position(offset) == expected
    assert counted.line_count == tabled.line_count == len(re.split(r"\r\n|\r|\n", text))
