"""Reading YAML contract documents: data as a safe loader gives it, places from the parser's marks,
and every hostile or broken file a finding at its place (UC001, UC002, HF001, HF003)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_handoff.read import yamldoc
from pytest_handoff.read.yamldoc import MAX_ALIAS_NODES, read_yaml, read_yaml_data
from pytest_handoff.values.documents import Loaded
from pytest_handoff.values.findings import Finding


def read(text: str | bytes) -> Loaded:
    raw = text.encode("utf-8") if isinstance(text, str) else text
    return read_yaml(raw, Path("doc.yaml"), "doc.yaml")


def only_finding(loaded: Loaded) -> Finding:
    (finding,) = loaded.findings
    return finding


PLAN = """\
kind: plan
summary: "Sessions expire"
criteria:
  - Idle sessions expire
  - {text: Activity keeps them, weight: 2}
flow: [a, b, c]
written_at: 2026-03-22T09:00:00Z
"""


def test_a_yaml_document_reads_as_json_data_with_timestamps_kept_as_written() -> None:
    (document,) = read(PLAN).documents
    assert document.data == {
        "kind": "plan",
        "summary": "Sessions expire",
        "criteria": ["Idle sessions expire", {"text": "Activity keeps them", "weight": 2}],
        "flow": ["a", "b", "c"],
        "written_at": "2026-03-22T09:00:00Z",
    }


@pytest.mark.parametrize(
    ("pointer", "anchor", "place"),
    [
        ("/kind", "value", (1, 7, 1, 10)),
        ("/kind", "key", (1, 1, 1, 4)),
        ("/summary", "value", (2, 10, 2, 26)),
        ("/criteria/0", "value", (4, 5, 4, 24)),
        ("/criteria/1/weight", "value", (5, 41, 5, 41)),
        ("/criteria/1/weight", "key", (5, 33, 5, 38)),
        ("/flow/2", "value", (6, 14, 6, 14)),
        ("/written_at", "value", (7, 13, 7, 32)),
        # A container is marked at its first character only, as JSON brackets are.
        ("/criteria", "value", (4, 3, 4, 3)),
    ],
)
def test_a_pointer_resolves_to_the_line_and_column_of_its_value_or_key(
    pointer: str, anchor: str, place: tuple[int, int, int, int]
) -> None:
    (document,) = read(PLAN).documents
    region, found = document.locate(pointer, anchor)  # type: ignore[arg-type]
    assert found == pointer
    assert tuple(region) == place


def test_a_missing_pointer_is_shown_at_its_nearest_ancestor() -> None:
    (document,) = read(PLAN).documents
    region, found = document.locate("/criteria/1/missing")
    assert found == "/criteria/1"
    assert (region.line, region.column) == (5, 5)
    assert "did you mean '/kind'?" in document.missing_pointer_note("kind", "")


def test_each_document_of_a_multi_document_file_is_labelled_and_placed_in_the_file() -> None:
    loaded = read("kind: plan\n---\nkind: report\nextra: [1]\n")
    first, second = loaded.documents
    assert (first.label, second.label) == ("document 1", "document 2")
    assert second.data == {"kind": "report", "extra": [1]}
    assert tuple(second.region("/extra/0"))[:2] == (4, 9)
    assert second.source_text.startswith("kind: plan\n---\n")


def test_a_single_document_file_has_no_label() -> None:
    (document,) = read("---\nkind: plan\n").documents
    assert document.label == ""


def test_hf003_reports_a_duplicate_key_at_its_second_definition_naming_the_first() -> None:
    loaded = read("kind: plan\nsummary: one\nkind: report\n")
    finding = only_finding(loaded)
    assert (finding.code, finding.line, finding.column) == ("HF003", 3, 1)
    assert "first defined at line 1, column 1" in finding.message
    assert finding.related == (("doc.yaml", 1, 1, "first definition"),)
    (document,) = loaded.documents
    assert document.data["kind"] == "report"  # read as YAML readers read it


def test_a_key_overriding_a_merged_one_is_no_duplicate_and_points_where_it_is_defined() -> None:
    loaded = read("base: &base {a: 1, b: 2}\nderived:\n  <<: *base\n  b: 3\n")
    assert loaded.findings == ()
    (document,) = loaded.documents
    assert document.data["derived"] == {"a": 1, "b": 3}
    assert tuple(document.region("/derived/a"))[:2] == (1, 17)  # the merged value, in the anchor
    assert tuple(document.region("/derived/b"))[:2] == (4, 6)


def test_uc002_refuses_a_billion_laughs_file_at_the_alias_that_crosses_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in "bcdefghi":
        previous = chr(ord(level) - 1)
        lines.append(f"{level}: &{level} [{', '.join(['*' + previous] * 9)}]")
    counted: list[int] = []
    real_alias = yamldoc._Composer._alias

    def counting_alias(self: yamldoc._Composer, event: object) -> yamldoc.Node:
        try:
            return real_alias(self, event)
        finally:
            counted.append(self.aliased)

    monkeypatch.setattr(yamldoc._Composer, "_alias", counting_alias)
    loaded = read("\n".join(lines) + "\n")
    finding = only_finding(loaded)
    assert finding.code == "UC002"
    assert "more than 10,000 values" in finding.message
    assert (finding.line, finding.column) == (5, 8)  # the first *d: d brings in 7,381 values
    assert loaded.documents == ()  # nothing of the expansion was built or handed on
    # Counting stopped at the first alias past the limit: a bounded count, not 10**9.
    assert counted[-1] < 2 * MAX_ALIAS_NODES
    assert len(counted) < 40


def test_aliases_below_the_limit_share_their_data() -> None:
    (document,) = read("a: &x [1, 2]\nb: *x\nc: *x\n").documents
    assert document.data == {"a": [1, 2], "b": [1, 2], "c": [1, 2]}
    assert document.data["b"] is document.data["a"]


@pytest.mark.parametrize(
    ("text", "place", "words"),
    [
        ("a: [1, 2\nb: 3\n", (2, 2), "invalid YAML: did not find expected ',' or ']'"),
        ("a: b: c\n", (1, 5), "invalid YAML: mapping values are not allowed"),
        ("a: *nowhere\n", (1, 4), "alias *nowhere refers to no anchor"),
        ("a: &x [*x]\n", (1, 8), "recursive structure"),
        ("a: !!python/object/apply:os.system [echo hi]\n", (1, 4), "unsupported YAML tag"),
        ("a: !custom 1\n", (1, 4), "unsupported YAML tag '!custom'"),
        ("? [a, b]\n: 1\n", (1, 3), "a mapping key must be a scalar"),
        ("", (1, 1), "file holds no YAML document"),
        ("# only a comment\n", (1, 1), "file holds no YAML document"),
        ("a: \x07\n", (1, 4), "is not allowed"),
        ("[" * 300, (1, 257), "nests deeper than 256 levels"),
        ("a: !!int x\n", (1, 4), "'x' cannot be read as int"),
        ("a: !!bool maybe\n", (1, 4), "'maybe' cannot be read as bool"),
        ("n: " + "7" * 5000 + "\n", (1, 4), "cannot be read as int"),
    ],
)
def test_uc001_reports_a_file_that_cannot_be_read_safely_at_its_place(
    text: str, place: tuple[int, int], words: str
) -> None:
    finding = only_finding(read(text))
    assert finding.code == "UC001"
    assert (finding.line, finding.column) == place
    assert words in finding.message


def test_hf001_reports_invalid_utf8_at_its_line_and_column() -> None:
    finding = only_finding(read(b"a: ok\nb: caf\xe9\n"))
    assert (finding.code, finding.line, finding.column) == ("HF001", 2, 7)


def test_a_utf8_byte_order_mark_is_allowed_in_yaml() -> None:
    (document,) = read(b"\xef\xbb\xbfa: 1\n").documents
    assert document.data == {"a": 1}


def test_keys_that_are_not_strings_become_their_text() -> None:
    (document,) = read("1: one\ntrue: yes\nnull: nothing\n").documents
    assert document.data == {"1": "one", "true": True, "null": "nothing"}


def test_a_document_of_several_documents_keeps_the_ones_before_a_syntax_error() -> None:
    loaded = read("a: 1\n---\nb: [\n")
    assert [d.data for d in loaded.documents] == [{"a": 1}]
    assert only_finding(loaded).code == "UC001"


def test_read_yaml_data_gives_the_first_document_or_the_first_problem_with_its_place() -> None:
    assert read_yaml_data(b"a: [1, 2]\n") == ({"a": [1, 2]}, "")
    data, problem = read_yaml_data(b"a: 1\na: 2\n")
    assert data is None
    assert problem.startswith("2:1: duplicate key 'a'")


def test_without_libyaml_the_pure_python_loader_gives_the_same_data_places_and_findings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import yaml

    with_c = read(PLAN), read("a: 1\nb: [x\n"), read("k: 1\nk: 2\n")
    monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    without_c = read(PLAN), read("a: 1\nb: [x\n"), read("k: 1\nk: 2\n")
    (fast,), (slow,) = with_c[0].documents, without_c[0].documents
    assert slow.data == fast.data
    for pointer in ("/kind", "/criteria/1/weight", "/flow/2", "/written_at"):
        assert slow.region(pointer) == fast.region(pointer)
    assert [(f.code, f.line, f.column) for f in without_c[1].findings] == [
        (f.code, f.line, f.column) for f in with_c[1].findings
    ]
    assert without_c[2].findings == with_c[2].findings


def test_a_syntax_error_at_the_end_of_the_text_is_placed_on_its_last_line() -> None:
    """The parser marks the end of a text without a final line break a line past it (found by fuzzing)."""
    from pathlib import Path

    from pytest_handoff.read.yamldoc import read_yaml

    raw = b"kind: report\ntotals: {run: 2 , pa"
    (finding,) = read_yaml(raw, Path("a.yaml"), "a.yaml").findings
    assert (finding.code, finding.line) == ("UC001", 2)
    assert 1 <= finding.column <= len("totals: {run: 2 , pa") + 1
