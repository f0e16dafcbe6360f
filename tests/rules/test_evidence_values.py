"""The evidence rules' values, on in-memory documents: claims read at any depth and whatever YAML made
of a hash, a handoff's day in its author's time zone, and test claims reconciled with a run."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from pytest_handoff.rules.evidence.claims import claims_of
from pytest_handoff.rules.evidence.declared import ClaimField
from pytest_handoff.rules.evidence.moments import WORKING_TREE, State, span_of
from pytest_handoff.rules.evidence.repository import Commit
from pytest_handoff.rules.evidence.runs import RunOfTests, verdict
from pytest_handoff.values.documents import Document


def document(data: Any) -> Document:
    return Document(Path("handoff.json"), "handoff.json", "", data)


def test_ev201_a_hash_yaml_read_as_a_number_is_a_commit_claim() -> None:
    found = claims_of(
        document({"ch": [9633489, "abc1234", 12, True, "1234567"]}), [ClaimField("/ch/*", "commit")]
    )
    assert [(claim.pointer, claim.value) for claim in found] == [
        ("/ch/0", "9633489"),
        ("/ch/1", "abc1234"),
        ("/ch/4", "1234567"),
    ]


def test_ev301_locations_are_read_inside_an_object_at_any_depth() -> None:
    data = {"context": {"goal": "see api.py:3", "files": ["a.py", {"at": "b.py#L9"}], "n": 4}}
    found = claims_of(document(data), [ClaimField("/context", "location")])
    assert [(c.pointer, c.value, c.line) for c in found] == [
        ("/context/goal", "api.py", 3),
        ("/context/files/1/at", "b.py", 9),
    ]


def test_ev501_a_named_test_is_a_passing_claim_only_when_its_text_says_it_passed() -> None:
    field = [ClaimField("/runs/*", "test_name")]
    data = {
        "runs": [
            "tests/test_a.py::test_x PASSED",
            "tests/test_a.py::test_y: failed",
            "tests/test_a.py::test_z",
        ]
    }
    assert [(c.test, c.passing) for c in claims_of(document(data), field)] == [
        ("test_x", True),
        ("test_y", False),
        ("test_z", False),
    ]


def test_a_date_alone_covers_its_day_in_the_authors_time_zone() -> None:
    zone = timezone(timedelta(hours=-5))
    committed = State(Commit("a" * 40, 0, (), offset=-5 * 3600))
    span = span_of(document({"dt": "2026-02-16"}), "/dt", committed)
    assert span is not None
    assert (span.start, span.end) == (
        datetime(2026, 2, 16, tzinfo=zone),
        datetime(2026, 2, 16, 23, 59, 59, tzinfo=zone),
    )
    instant = span_of(document({"dt": "2026-02-16T10:00:00Z"}), "/dt", WORKING_TREE)
    assert instant is not None
    assert instant.start == instant.end


RUN = RunOfTests(
    "junit.xml", tests=10, failures=2, skipped=1, failing=("tests.test_a::test_x", "tests.test_a::test_y")
)


def claim(total: int | None, passed: int | None, failed: int | None) -> Any:
    from pytest_handoff.rules.evidence.claims import Claim

    return Claim(document({}), "/tests", "test_totals", "", totals=(total, passed, failed))


def test_ev501_fewer_failures_or_more_passes_than_the_run_is_an_error_naming_the_failing_tests() -> None:
    for totals in [(10, 8, 1), (10, 9, 2), (10, 7, 0)]:
        said = verdict(claim(*totals), RUN)
        assert said is not None, totals
        assert said[0] == "EV501", totals
        assert "tests.test_a::test_x, tests.test_a::test_y" in said[1]


def test_ev502_more_failures_or_fewer_passes_than_the_run_is_a_warning() -> None:
    for totals in [(10, 7, 3), (10, 6, 2), (12, 7, 2)]:
        said = verdict(claim(*totals), RUN)
        assert said is not None, totals
        assert said[0] == "EV502", totals


def test_counts_that_match_the_run_say_nothing() -> None:
    assert verdict(claim(10, 7, 2), RUN) is None


def test_a_session_is_held_only_to_claims_that_everything_passed() -> None:
    session = RUN._replace(session=True)
    assert verdict(claim(10, 9, 1), session) is None  # another run's counts: not this session's
    said = verdict(claim(None, None, 0), session)
    assert said is not None
    assert said[0] == "EV501"


def test_ev501_a_named_test_is_the_failing_one_only_at_the_same_path() -> None:
    from pytest_handoff.rules.evidence.claims import Claim

    def named(path: str) -> Any:
        return Claim(document({}), "/runs/0", "test_name", path, test="test_create", passing=True)

    run = RUN._replace(failing=("services/b/tests/test_api.py::test_create",))
    assert verdict(named("tests/test_api.py"), run) is None  # another package's file of that name
    said = verdict(named("services/b/tests/test_api.py"), run)
    assert said is not None
    assert said[0] == "EV501"
    junit = RUN._replace(failing=("tests.test_api.TestApi::test_create",))
    assert verdict(named("tests/test_api.py"), junit) is not None  # the module, then its class
    assert verdict(named("b/tests/test_api.py"), junit) is None
