"""Tests for pytest_handoff.places.positions: JSON pointer -> source span / line / column."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_handoff.places.lines import LineIndex
from pytest_handoff.places.pointers import escape_pointer_token, pointer_join
from pytest_handoff.places.positions import DuplicateKey, NodeSpans, PositionMap, Span, scan_positions
from tests.conftest import FIXTURES, NEURALRELAY_CORPUS

FIXTURE_FILES = sorted(FIXTURES.rglob("*.json"))
CORPUS_FILES = sorted(NEURALRELAY_CORPUS.rglob("*.json")) if NEURALRELAY_CORPUS.is_dir() else []

_DECODER = json.JSONDecoder()


# --- helpers ------------------------------------------------------------------------------


def spans_of(position_map: PositionMap, pointer: str) -> NodeSpans:
    spans = position_map.spans(pointer)
    assert spans is not None, f"no spans for {pointer!r}"
    return spans


def text_of(text: str, span: Span | None) -> str:
    assert span is not None
    return text[span.start : span.end]


def line_and_column(text: str, pointer: str) -> tuple[int, int]:
    return LineIndex(text).position(spans_of(scan_positions(text), pointer).value.start)


def walk(document: Any) -> Iterator[tuple[str, str | None, Any]]:
    """Yield (pointer, raw key or None, value) for every value, computed independently."""
    pending: list[tuple[str, str | None, Any]] = [("", None, document)]
    while pending:
        pointer, key, value = pending.pop()
        yield pointer, key, value
        if isinstance(value, dict):
            pending.extend((pointer_join(pointer, k), k, v) for k, v in value.items())
        elif isinstance(value, list):
            pending.extend((pointer_join(pointer, i), None, v) for i, v in enumerate(value))


def assert_agrees_with_json_loads(text: str) -> None:
    """Brute force: every pointer of json.loads(text) has spans that re-parse to its value."""
    position_map = scan_positions(text)
    lines = LineIndex(text)
    count = 0
    for pointer, key, value in walk(json.loads(text)):
        count += 1
        spans = spans_of(position_map, pointer)
        assert _DECODER.raw_decode(text, spans.value.start) == (value, spans.value.end), pointer
        if key is None:
            assert spans.key is None, pointer
        else:
            assert json.loads(text_of(text, spans.key)) == key, pointer
        line, column = lines.position(spans.value.start)
        assert lines.line_text(line)[column - 1] == text[spans.value.start], pointer
    assert len(position_map) == count


def scan_or_error(text: str) -> PositionMap | ValueError:
    try:
        return scan_positions(text)
    except ValueError as error:
        return error


def brute_force_position(text: str, offset: int) -> tuple[int, int]:
    lines = re.split(r"\r\n|\r|\n", text[:offset])
    return len(lines), len(lines[-1]) + 1


# --- pointers -----------------------------------------------------------------------------


def test_escape_pointer_token_escapes_tilde_before_slash() -> None:
    assert escape_pointer_token("a/b~c") == "a~1b~0c"
    assert escape_pointer_token("~1") == "~01"
    assert escape_pointer_token("plain") == "plain"


def test_pointer_join_escapes_keys_and_formats_indexes() -> None:
    assert pointer_join("", "items") == "/items"
    assert pointer_join("/items", 0) == "/items/0"
    assert pointer_join("/a", "x/y") == "/a/x~1y"
    assert pointer_join("", "") == "/"


# --- basic structure ----------------------------------------------------------------------


def test_it_maps_the_root_to_the_whole_document_without_surrounding_whitespace() -> None:
    text = '  \n {"a": 1} \n'
    spans = spans_of(scan_positions(text), "")
    assert spans == NodeSpans(Span(4, 12), None)


@pytest.mark.parametrize(
    "text",
    ["0", "-1.5e+10", '"x"', "true", "false", "null", "NaN", "-Infinity", "Infinity"],
)
def test_it_maps_a_root_scalar(text: str) -> None:
    position_map = scan_positions(f" {text}\n")
    assert position_map.spans("") == NodeSpans(Span(1, 1 + len(text)), None)
    assert len(position_map) == 1
    assert position_map.spans("/0") is None


def test_it_maps_a_nested_array_item_to_its_line_and_column() -> None:
    text = '{\n  "items": [\n    [1, 2],\n    [3, 44]\n  ]\n}\n'
    assert line_and_column(text, "/items/1/1") == (4, 9)
    assert line_and_column(text, "/items/1") == (4, 5)
    assert line_and_column(text, "/items") == (2, 12)


def test_it_maps_nested_objects_and_arrays_to_value_and_key_spans() -> None:
    text = '{"a": {"b": [true, {"c": "d"}]}, "e": []}'
    position_map = scan_positions(text)
    assert text_of(text, spans_of(position_map, "/a").value) == '{"b": [true, {"c": "d"}]}'
    assert text_of(text, spans_of(position_map, "/a").key) == '"a"'
    assert text_of(text, spans_of(position_map, "/a/b").value) == '[true, {"c": "d"}]'
    assert text_of(text, spans_of(position_map, "/a/b/0").value) == "true"
    assert spans_of(position_map, "/a/b/0").key is None
    assert text_of(text, spans_of(position_map, "/a/b/1/c").value) == '"d"'
    assert text_of(text, spans_of(position_map, "/a/b/1/c").key) == '"c"'
    assert text_of(text, spans_of(position_map, "/e").value) == "[]"
    assert len(position_map) == 7


def test_it_maps_empty_objects_and_arrays() -> None:
    text = '{"o": {}, "a": [], "s": [ ], "t": { \n }}'
    position_map = scan_positions(text)
    assert text_of(text, spans_of(position_map, "/o").value) == "{}"
    assert text_of(text, spans_of(position_map, "/a").value) == "[]"
    assert text_of(text, spans_of(position_map, "/s").value) == "[ ]"
    assert text_of(text, spans_of(position_map, "/t").value) == "{ \n }"
    assert position_map.spans("/a/0") is None
    assert position_map.spans("/o/x") is None
    assert len(position_map) == 5


def test_it_maps_an_empty_root_object_and_array() -> None:
    assert scan_positions("{}").spans("") == NodeSpans(Span(0, 2), None)
    assert scan_positions("[]").spans("") == NodeSpans(Span(0, 2), None)


def test_strings_containing_brackets_quotes_and_backslashes_do_not_confuse_the_scanner() -> None:
    text = r'{"s": "a}b]c{d[e,f:g\"h\\", "t\"}": ["\\", "\\\"]", "x"], "u": 1}'
    position_map = scan_positions(text)
    assert text_of(text, spans_of(position_map, "/s").value) == r'"a}b]c{d[e,f:g\"h\\"'
    assert text_of(text, spans_of(position_map, '/t"}').key) == r'"t\"}"'
    assert text_of(text, spans_of(position_map, '/t"}/1').value) == r'"\\\"]"'
    assert text_of(text, spans_of(position_map, '/t"}/2').value) == '"x"'
    assert text_of(text, spans_of(position_map, "/u").value) == "1"
    assert_agrees_with_json_loads(text)


def test_it_spans_numbers_with_sign_fraction_and_exponent() -> None:
    text = "[-1.5e+10, 0, -0, 2E-3, 1.25, 10e2, 123456789012345678901234567890]"
    position_map = scan_positions(text)
    tokens = text[1:-1].split(", ")
    for index, token in enumerate(tokens):
        assert text_of(text, spans_of(position_map, f"/{index}").value) == token
    assert_agrees_with_json_loads(text)


# --- keys ---------------------------------------------------------------------------------


def test_it_escapes_tilde_and_slash_in_keys_as_pointer_tokens() -> None:
    text = '{"a/b~c": {"~1": 1, "/": 2, "": 3}}'
    position_map = scan_positions(text)
    assert text_of(text, spans_of(position_map, "/a~1b~0c").key) == '"a/b~c"'
    assert text_of(text, spans_of(position_map, "/a~1b~0c/~01").value) == "1"
    assert text_of(text, spans_of(position_map, "/a~1b~0c/~1").value) == "2"
    assert text_of(text, spans_of(position_map, "/a~1b~0c/").value) == "3"
    assert position_map.spans("/a/b~c") is None


def test_it_decodes_escapes_in_keys_exactly_as_json_does() -> None:
    text = r'{"caf\u00e9": 1, "q\"b\\s\/": 2, "smile \ud83d\ude00": 3, "tab\tnl\n": 4}'
    position_map = scan_positions(text)
    assert text_of(text, spans_of(position_map, "/café").value) == "1"
    assert text_of(text, spans_of(position_map, '/q"b\\s~1').value) == "2"
    assert text_of(text, spans_of(position_map, "/smile \U0001f600").value) == "3"
    assert text_of(text, spans_of(position_map, "/tab\tnl\n").value) == "4"
    assert text_of(text, spans_of(position_map, "/café").key) == r'"caf\u00e9"'
    assert_agrees_with_json_loads(text)


def test_a_raw_non_ascii_key_and_its_escaped_spelling_are_the_same_key() -> None:
    text = '{"é": 1, "\\u00e9": 2}'
    position_map = scan_positions(text)
    assert text_of(text, spans_of(position_map, "/é").value) == "2"
    assert [duplicate.pointer for duplicate in position_map.duplicates] == ["/é"]


# --- duplicates ---------------------------------------------------------------------------


def test_it_reports_duplicate_keys_with_both_positions_and_keeps_the_last_one() -> None:
    text = '{\n  "a": 1,\n  "b": 2,\n  "a": 3\n}'
    position_map = scan_positions(text)
    assert text_of(text, spans_of(position_map, "/a").value) == "3"
    assert position_map.duplicates == [DuplicateKey("/a", Span(4, 7), Span(24, 27))]
    lines = LineIndex(text)
    duplicate = position_map.duplicates[0]
    assert lines.position(duplicate.first.start) == (2, 3)
    assert lines.position(duplicate.second.start) == (4, 3)
    assert len(position_map) == 3


def test_descendants_of_a_duplicated_key_come_from_the_last_occurrence() -> None:
    text = '{"a": {"x": 1, "y": [2]}, "a": {"x": 4}}'
    position_map = scan_positions(text)
    assert text_of(text, spans_of(position_map, "/a/x").value) == "4"
    assert position_map.spans("/a/y") is None
    assert position_map.spans("/a/y/0") is None
    assert position_map.nearest("/a/y/0") == ("/a", spans_of(position_map, "/a"))
    assert len(position_map) == 3
    assert_agrees_with_json_loads(text)


def test_a_key_repeated_three_times_is_reported_against_its_first_occurrence() -> None:
    text = '{"k": 1, "k": 2, "k": 3}'
    position_map = scan_positions(text)
    assert position_map.duplicates == [
        DuplicateKey("/k", Span(1, 4), Span(9, 12)),
        DuplicateKey("/k", Span(1, 4), Span(17, 20)),
    ]
    assert text_of(text, spans_of(position_map, "/k").value) == "3"


def test_duplicates_are_listed_in_source_order_with_their_full_pointers() -> None:
    text = '{"o": {"p/q": [{"z": 1, "z": 2}], "p/q": 0}, "o": 5, "l": [{"m": 1, "m": 1}]}'
    position_map = scan_positions(text)
    assert [duplicate.pointer for duplicate in position_map.duplicates] == [
        "/o/p~1q/0/z",
        "/o/p~1q",
        "/o",
        "/l/0/m",
    ]
    for duplicate in position_map.duplicates:
        assert duplicate.first.start < duplicate.second.start
        assert json.loads(text_of(text, duplicate.first)) == json.loads(text_of(text, duplicate.second))
    assert len(position_map) == 5
    assert_agrees_with_json_loads(text)


def test_a_document_without_duplicate_keys_reports_none() -> None:
    assert scan_positions('{"a": {"a": {"a": 1}}, "b": [{"a": 1}, {"a": 2}]}').duplicates == []


# --- nearest / missing --------------------------------------------------------------------


def test_nearest_returns_the_pointer_itself_when_it_exists() -> None:
    position_map = scan_positions('{"a": [1, 2]}')
    assert position_map.nearest("/a/1") == ("/a/1", spans_of(position_map, "/a/1"))
    assert position_map.nearest("") == ("", spans_of(position_map, ""))


@pytest.mark.parametrize(
    ("pointer", "expected"),
    [
        ("/a/b/missing/deeper", "/a/b"),  # missing key
        ("/a/list/7", "/a/list"),  # index out of range
        ("/a/list/01", "/a/list"),  # leading zero is not an index (RFC 6901)
        ("/a/list/-", "/a/list"),  # "-" (past the end) never exists
        ("/a/list/" + "9" * 5000, "/a/list"),  # huge index
        ("/a/list/x", "/a/list"),  # key into an array
        ("/a/b/c/0", "/a/b/c"),  # index into a scalar
        ("/nope", ""),  # missing at the top level
        ("a/b", ""),  # not a pointer: no leading "/"
    ],
)
def test_nearest_falls_back_to_the_closest_existing_ancestor(pointer: str, expected: str) -> None:
    position_map = scan_positions('{"a": {"b": {"c": "leaf"}, "list": [0, 1]}}')
    assert position_map.spans(pointer) is None
    assert position_map.nearest(pointer) == (expected, spans_of(position_map, expected))


# --- lines and columns --------------------------------------------------------------------


def test_it_counts_columns_in_characters_after_non_ascii_text_on_the_same_line() -> None:
    text = '[\n  {"naïve 日本語 \U0001f600": "é", "x": 1}\n]'
    position_map = scan_positions(text)
    lines = LineIndex(text)
    # Line 2 is '  {"naïve 日本語 😀": "é", "x": 1}': the 1 is its 29th character but would
    # be its 40th byte in UTF-8 (ï, é: 2 bytes; each CJK character: 3; the emoji: 4).
    assert lines.position(spans_of(position_map, "/0/x").value.start) == (2, 29)
    assert lines.position(spans_of(position_map, "/0/naïve 日本語 \U0001f600").value.start) == (
        2,
        19,
    )
    assert lines.line_text(2)[28] == "1"


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_it_numbers_lines_correctly_for_each_line_ending(newline: str) -> None:
    text = newline.join(["{", '  "a": [', "    1,", '    {"b": true}', "  ]", "}", ""])
    assert line_and_column(text, "/a") == (2, 8)
    assert line_and_column(text, "/a/0") == (3, 5)
    assert line_and_column(text, "/a/1/b") == (4, 11)
    assert LineIndex(text).line_count == 7
    assert LineIndex(text).line_text(4) == '    {"b": true}'


def test_crlf_counts_as_one_line_break_but_lf_cr_counts_as_two() -> None:
    lines = LineIndex("a\r\nb\n\rc")
    assert lines.line_count == 4
    assert [lines.line_text(n) for n in range(1, 5)] == ["a", "b", "", "c"]
    assert lines.position(6) == (4, 1)
    assert lines.position(7) == (4, 2)


def test_line_text_returns_each_line_without_its_line_break() -> None:
    lines = LineIndex("first\r\nsecond\rthird\nfourth")
    assert [lines.line_text(n) for n in range(1, lines.line_count + 1)] == [
        "first",
        "second",
        "third",
        "fourth",
    ]


def test_a_trailing_line_break_starts_an_empty_last_line() -> None:
    lines = LineIndex("{}\n")
    assert lines.line_count == 2
    assert lines.line_text(2) == ""
    assert lines.position(3) == (2, 1)


def test_position_accepts_the_end_of_the_text_and_rejects_offsets_beyond_it() -> None:
    lines = LineIndex("ab\ncd")
    assert lines.position(0) == (1, 1)
    assert lines.position(2) == (1, 3)  # the line break itself ends line 1
    assert lines.position(3) == (2, 1)
    assert lines.position(5) == (2, 3)
    with pytest.raises(ValueError, match="offset 6"):
        lines.position(6)
    with pytest.raises(ValueError, match="offset -1"):
        lines.position(-1)


def test_line_text_rejects_lines_outside_the_text() -> None:
    lines = LineIndex("one\ntwo")
    for line in (0, 3):
        with pytest.raises(ValueError, match=f"line {line}"):
            lines.line_text(line)


def test_an_empty_text_has_one_empty_line() -> None:
    lines = LineIndex("")
    assert lines.line_count == 1
    assert lines.line_text(1) == ""
    assert lines.position(0) == (1, 1)


# --- depth and robustness -----------------------------------------------------------------


def test_it_handles_100000_levels_of_array_nesting_without_recursion() -> None:
    depth = 100_000
    text = "[" * depth + "7" + "]" * depth
    position_map = scan_positions(text)
    assert len(position_map) == depth + 1
    deepest = "/0" * depth
    assert position_map.spans(deepest) == NodeSpans(Span(depth, depth + 1), None)
    assert position_map.spans("/0" * (depth - 1)) == NodeSpans(Span(depth - 1, depth + 2), None)
    assert position_map.nearest(deepest + "/0/0") == (deepest, spans_of(position_map, deepest))
    assert spans_of(position_map, "").value == Span(0, len(text))


def test_it_handles_100000_levels_of_object_nesting_with_a_deep_duplicate() -> None:
    depth = 100_000
    text = '{"a/": ' * depth + '{"k": 1, "k": 2}' + "}" * depth
    position_map = scan_positions(text)
    assert len(position_map) == depth + 2
    inner = "/a~1" * depth
    assert text_of(text, spans_of(position_map, inner + "/k").value) == "2"
    assert [duplicate.pointer for duplicate in position_map.duplicates] == [inner + "/k"]
    assert LineIndex(text).position(spans_of(position_map, inner).value.start) == (1, 7 * depth + 1)


def test_a_leading_byte_order_mark_is_skipped_and_offsets_still_count_it() -> None:
    text = '\ufeff{"a": 1}'
    assert text_of(text, spans_of(scan_positions(text), "/a").value) == "1"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "{",
        "[1, 2",
        '{"a": 1,}',
        "[1,]",
        '{"a" 1}',
        "{1: 2}",
        '{"a": }',
        '"unterminated',
        '"bad \\x escape"',
        "01",
        "1 2",
        "tru",
        "[1}",
        '{"a": 1]',
        "]",
        '{"a": 1}}',
        "{'a': 1}",
        "[+1]",
        "[1.]",
        "[.5]",
    ],
)
def test_invalid_json_raises_a_value_error_naming_the_offset(text: str) -> None:
    with pytest.raises(ValueError, match=r"offset \d+"):
        scan_positions(text)


def test_an_invalid_escape_in_a_key_raises_a_value_error_naming_the_offset() -> None:
    with pytest.raises(ValueError, match="offset 1"):
        scan_positions('{"\\ud83d\\u12": 1}')


# --- brute force against json.loads ------------------------------------------------------


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda path: path.relative_to(FIXTURES).as_posix())
def test_positions_agree_with_json_loads_on_our_fixture_chains(path: Path) -> None:
    assert_agrees_with_json_loads(path.read_text(encoding="utf-8"))


def test_positions_agree_with_json_loads_with_crlf_endings_on_non_ascii_text() -> None:
    text = (FIXTURES / "20260518-110000" / "02-dev-agent.json").read_text(encoding="utf-8")
    assert not text.isascii()
    assert_agrees_with_json_loads(text.replace("\n", "\r\n"))


@pytest.mark.parametrize(
    "path",
    CORPUS_FILES
    or [
        pytest.param(
            None,
            marks=pytest.mark.skip(
                reason=f"the public NeuralRelay corpus is not beside this checkout (looked in {NEURALRELAY_CORPUS})"
            ),
        )
    ],
    ids=lambda path: path.relative_to(NEURALRELAY_CORPUS).as_posix() if isinstance(path, Path) else "none",
)
def test_positions_agree_with_json_loads_on_real_corpus_files(path: Path) -> None:
    assert_agrees_with_json_loads(path.read_text(encoding="utf-8"))


_KEYS = st.text(st.sampled_from('~/01aé"\\ \n') | st.characters(), max_size=6)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(st.sampled_from('{}[],:"\\/ \n') | st.characters(), max_size=10)
)
_JSON_VALUES = st.recursive(
    _SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_KEYS, children, max_size=4),
    max_leaves=25,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    document=_JSON_VALUES,
    indent=st.sampled_from([None, 0, 1, 2, "\t"]),
    ensure_ascii=st.booleans(),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_every_pointer_of_random_json_resolves_to_text_that_reparses_to_its_value(
    document: Any, indent: int | str | None, ensure_ascii: bool, newline: str
) -> None:
    # Only indentation produces raw line breaks (strings escape theirs), so swapping them for
    # another line ending keeps the JSON equal while exercising LineIndex.
    text = json.dumps(document, indent=indent, ensure_ascii=ensure_ascii).replace("\n", newline)
    assert_agrees_with_json_loads(text)
    position_map = scan_positions(text)
    lines = LineIndex(text)
    for pointer, _key, _value in walk(document):
        offset = spans_of(position_map, pointer).value.start
        assert lines.position(offset) == brute_force_position(text, offset)


@settings(max_examples=300)
@given(document=_JSON_VALUES, data=st.data())
def test_damaged_json_either_scans_like_json_loads_or_raises_value_error(
    document: Any, data: st.DataObject
) -> None:
    text = json.dumps(document)
    cut = data.draw(st.integers(0, len(text)), label="cut")
    insert = data.draw(st.sampled_from(["", "{", "}", "[", "]", ",", ":", '"', "\\", "x"]))
    damaged = text[:cut] + insert + text[cut + data.draw(st.integers(0, 2), label="drop") :]
    try:
        expected = json.loads(damaged)
    except ValueError:
        # Rejected by json.loads: the scanner may be more lenient, but must not crash or hang.
        outcome = scan_or_error(damaged)
        if isinstance(outcome, ValueError):
            assert re.search(r"offset \d+", str(outcome))
        return
    assert_agrees_with_json_loads(damaged)
    assert len(scan_positions(damaged)) == sum(1 for _ in walk(expected))


@settings(max_examples=300)
@given(document=_JSON_VALUES, order=st.randoms(use_true_random=False), missing=_KEYS)
def test_a_map_that_knows_keys_are_unique_scans_no_further_than_asked_and_agrees(
    document: Any, order: Any, missing: str
) -> None:
    """Pointers asked in any order (and one that is not there) resolve alike with and without
    ``unique_keys`` (which stops scanning an object at the wanted key)."""
    text = json.dumps(document)
    pointers = [pointer for pointer, _, _ in walk(document)]
    order.shuffle(pointers)
    pointers.insert(len(pointers) // 2, pointer_join(pointers[0], missing))
    full, lazy = scan_positions(text), scan_positions(text, unique_keys=True)
    for pointer in pointers:
        assert lazy.nearest(pointer) == full.nearest(pointer), pointer
    assert len(lazy) == len(full)


def test_a_huge_object_is_scanned_only_as_far_as_the_key_asked_for() -> None:
    text = json.dumps({f"k{n}": n for n in range(10_000)})
    lazy = scan_positions(text, unique_keys=True)
    assert lazy.spans("/k3") is not None
    members = lazy._members[0]  # what was scanned is the point
    assert len(members.keys) == 4
    assert members.resume > 0
    assert lazy.spans("/k9999") is not None
    assert members.resume == -1
