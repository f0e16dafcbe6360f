"""NR201 (duplicate coverage gaps): exact repeats and rewordings, not gaps about different things."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_handoff.profiles.neuralrelay.handoff import check_coverage_gaps_are_distinct
from pytest_handoff.read.strict_json import parse_json_bytes
from pytest_handoff.values.settings import Settings


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            "parse_header is untested with an empty CSV file",
            "parse_footer is untested with an empty CSV file",
        ),
        (
            "the import with batch_size=499 rows is untested",
            "the import with batch_size=501 rows is untested",
        ),
        ("renewal on 2026-02-29 leap day is untested", "renewal on 2024-02-29 leap day is untested"),
    ],
)
def test_nr201_takes_gaps_naming_different_identifiers_or_numbers_for_different_gaps(
    first: str, second: str
) -> None:
    document = parse_json_bytes(
        json.dumps({"coverage_gaps": [first, second]}).encode(), Path("d.json"), "d.json"
    )
    assert document.document is not None
    assert list(check_coverage_gaps_are_distinct(document.document, Settings())) == []


def test_nr201_still_finds_a_rewording_about_the_same_identifier() -> None:
    gaps = [
        "parse_header is untested with an empty CSV file",
        "an empty CSV file given to parse_header is untested",
    ]
    document = parse_json_bytes(
        json.dumps({"coverage_gaps": gaps}).encode(), Path("d.json"), "d.json"
    ).document
    assert document is not None
    assert [hit.pointer for hit in check_coverage_gaps_are_distinct(document, Settings())] == [
        "/coverage_gaps/1"
    ]
