"""Trinity's rules (TR101-TR106) and schema on handoffs in memory: each fires where it should, and only there."""

from __future__ import annotations

import pytest

from pytest_handoff.pipeline.config import merged
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.values.errors import ConfigError
from pytest_handoff.values.settings import Settings
from tests.trinity_helpers import AT, OMIT, body, check, places

TESTER = "agents/tester/handoff"
NAME = f"{TESTER}/developer-2026-04-02T10:00:00.000Z.json"


def trinity(**options: object) -> Settings:
    return Settings(options={"trinity": options})


def test_a_sound_handoff_in_its_recipients_workspace_has_no_finding() -> None:
    assert check({NAME: body()}) == []


# --- the schema --------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["pending", "accepted"])
def test_the_schema_accepts_both_statuses(status: str) -> None:
    assert check({NAME: body(status=status)}) == []


def test_the_schema_reports_a_status_trinity_does_not_know_at_the_status() -> None:
    found = check({NAME: body(status="done")})
    assert places(found, "HS001") == [(NAME, *AT["/status"])]
    assert "pending" in found[0].message
    assert "accepted" in found[0].message


@pytest.mark.parametrize("field", ["from", "to", "timestamp", "context", "status"])
def test_the_schema_reports_each_missing_field(field: str) -> None:
    found = check({NAME: body(**{field: OMIT})})
    assert [f.code for f in found] == ["HS001"]
    assert repr(field) in found[0].message


@pytest.mark.parametrize("context", [None, "text", 3, [1, 2], {"a": {"b": []}}], ids=repr)
def test_the_schema_takes_any_json_as_context(context: object) -> None:
    assert check({NAME: body(context=context)}) == []


def test_the_schema_reports_a_timestamp_that_is_no_date_time() -> None:
    found = check({NAME: body(timestamp="2 April 2026, 10:00")})
    assert places(found, "HS001") == [(NAME, *AT["/timestamp"])]
    assert not places(found, "TR103")  # the schema's finding, not a second one


def test_the_schema_reports_a_handoff_that_is_not_an_object() -> None:
    found = check({NAME: "[]"})
    assert places(found, "HS001") == [(NAME, 1, 1)]


def test_extra_fields_are_allowed() -> None:
    assert check({NAME: body(accepted_at="2026-04-02T11:00:00.000Z")}) == []


# --- TR101 file-name ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "developer.json",
        "developer-2026-04-02.json",
        "developer-2026-04-02T10:00:00.json",  # no time zone
        "2026-04-02T10:00:00.000Z.json",  # no agent
        "developer-2026-04-02T10:00.000Z.json",  # no seconds
        "developer-2026-04-02T10:00_00.000Z.json",  # separators mixed
        "developer-2026-13-02T10:00:00.000Z.json",  # month 13
        "developer-2026-02-30T10:00:00.000Z.json",
        "developer-2026-04-02T10:00:00.000+02:99.json",
    ],
)
def test_tr101_reports_a_name_that_is_not_agent_dash_iso_timestamp(name: str) -> None:
    path = f"{TESTER}/{name}"
    found = check({path: body()})
    assert places(found, "TR101") == [(path, 1, 1)]
    assert [f.code for f in found] == ["TR101"]  # and no TR102/TR103 guessed from a bad name


@pytest.mark.parametrize(
    "name",
    [
        "developer-2026-04-02T10:00:00.000Z.json",
        "developer-2026-04-02T10:00:00Z.json",
        "developer-2026-04-02t10:00:00.000z.json",
        "developer-2026-04-02T12:00:00.000+02:00.json",
        "developer-2026-04-02T10_00_00.000Z.json",  # Windows-safe spellings
        "developer-2026-04-02T10-00-00.000Z.json",
        "developer-2026-04-02T12_00_00.000+02_00.json",
    ],
)
def test_tr101_reads_iso_names_with_colons_or_their_windows_safe_spellings(name: str) -> None:
    assert check({f"{TESTER}/{name}": body()}) == []


def test_tr101_splits_a_hyphenated_agent_at_the_timestamp() -> None:
    path = f"{TESTER}/qa-lead-2026-04-02T10:00:00.000Z.json"
    assert check({path: body(**{"from": "qa-lead"})}) == []


def test_tr101_reports_a_misnamed_file_beside_sound_ones_in_the_group() -> None:
    stray = f"{TESTER}/notes.json"
    found = check({NAME: body(), stray: '{"todo": []}'})
    assert places(found, "TR101") == [(stray, 1, 1)]


# --- TR102 sender-in-name ----------------------------------------------------------------


def test_tr102_reports_a_from_other_than_the_agent_in_the_name_at_from() -> None:
    found = check({NAME: body(**{"from": "designer"})})
    assert places(found, "TR102") == [(NAME, *AT["/from"])]
    assert "'developer'" in found[0].message
    assert "'designer'" in found[0].message


def test_tr102_compares_names_exactly() -> None:
    assert places(check({NAME: body(**{"from": "Developer"})}), "TR102") == [(NAME, *AT["/from"])]
    assert places(check({NAME: body(**{"from": "developer"})}), "TR102") == []


# --- TR103 timestamp-in-name ---------------------------------------------------------------


def test_tr103_reports_a_timestamp_an_hour_from_the_name_at_timestamp() -> None:
    found = check({NAME: body(timestamp="2026-04-02T11:00:00.000Z")})
    assert places(found, "TR103") == [(NAME, *AT["/timestamp"])]
    assert "1 h" in found[0].message


@pytest.mark.parametrize(
    "stamp",
    [
        "2026-04-02T10:00:00.000Z",
        "2026-04-02T10:00:00Z",
        "2026-04-02T10:00:00.000+00:00",
        "2026-04-02T12:00:00.000+02:00",
        "2026-04-02T05:30:00-04:30",
        "2026-04-02T10:00:00.000000000Z",
    ],
)
def test_tr103_compares_instants_not_spellings(stamp: str) -> None:
    assert check({NAME: body(timestamp=stamp)}, trinity(**{"timestamp-tolerance-ms": 0})) == []


def test_tr103_with_no_tolerance_tells_milliseconds_apart() -> None:
    exact = trinity(**{"timestamp-tolerance-ms": 0})
    found = check({NAME: body(timestamp="2026-04-02T10:00:00.001Z")}, exact)
    assert places(found, "TR103") == [(NAME, *AT["/timestamp"])]
    assert "1 ms" in found[0].message
    assert "the same instant" in found[0].message


def test_tr103_allows_a_second_by_default_as_trinity_reads_the_clock_twice() -> None:
    assert check({NAME: body(timestamp="2026-04-02T10:00:00.999Z")}) == []
    assert check({NAME: body(timestamp="2026-04-02T09:59:59.000Z")}) == []
    late = check({NAME: body(timestamp="2026-04-02T10:00:01.001Z")})
    assert places(late, "TR103") == [(NAME, *AT["/timestamp"])]
    assert "at most 1000 ms apart" in late[0].message


def test_tr103_reads_the_windows_safe_name_as_the_same_instant() -> None:
    path = f"{TESTER}/developer-2026-04-02T10_00_00.000Z.json"
    assert check({path: body()}, trinity(**{"timestamp-tolerance-ms": 0})) == []


# --- TR104 recipient-workspace --------------------------------------------------------------


def test_tr104_reports_a_handoff_in_a_workspace_named_for_another_agent_at_to() -> None:
    path = "agents/developer/handoff/designer-2026-04-02T10:00:00.000Z.json"
    found = check({path: body(**{"from": "designer"})})
    assert places(found, "TR104") == [(path, *AT["/to"])]
    assert "agents/developer/handoff/" in found[0].message


def test_tr104_does_not_judge_a_handoff_folder_at_the_project_root_without_workspaces() -> None:
    assert check({"handoff/developer-2026-04-02T10:00:00.000Z.json": body()}) == []


def test_tr104_goes_by_the_configured_workspace_of_to() -> None:
    path = "team/t1/handoff/developer-2026-04-02T10:00:00.000Z.json"
    configured = trinity(workspaces={"tester": "team/t1"})
    assert check({path: body()}, configured) == []
    elsewhere = trinity(workspaces={"tester": "./team/t2/"})
    found = check({path: body()}, elsewhere)
    assert places(found, "TR104") == [(path, *AT["/to"])]
    assert "team/t2/handoff/" in found[0].message


def test_tr104_reports_a_workspace_configured_as_another_agents_even_when_named_for_to() -> None:
    path = "tester/handoff/developer-2026-04-02T10:00:00.000Z.json"
    found = check({path: body()}, trinity(workspaces={"reviewer": "tester"}))
    assert places(found, "TR104") == [(path, *AT["/to"])]
    assert "'reviewer''s" in found[0].message


def test_tr104_configured_workspaces_may_be_the_project_root_or_absolute(tmp_path: object) -> None:
    at_root = "handoff/developer-2026-04-02T10:00:00.000Z.json"
    assert check({at_root: body()}, trinity(workspaces={"tester": "."})) == []
    assert places(check({at_root: body()}, trinity(workspaces={"tester": "qa"})), "TR104") == [
        (at_root, *AT["/to"])
    ]
    absolute = trinity(workspaces={"tester": "/nonexistent-project/agents/tester"})
    assert check({NAME: body()}, absolute) == []


@pytest.mark.parametrize("workspaces", [{"tester": 3}, {"x": ""}, ["tester"]])
def test_tr104_workspace_entries_that_are_not_folders_are_refused_with_the_configuration(
    workspaces: object,
) -> None:
    with pytest.raises(ConfigError, match="'workspaces'"):
        merged(Settings(), {"trinity": {"workspaces": workspaces}}, "pyproject.toml", default_registry())


def test_tr104_reports_a_handoff_outside_any_handoff_folder() -> None:
    path = "inbox/developer-2026-04-02T10:00:00.000Z.json"
    found = check({path: body()})
    assert places(found, "TR104") == [(path, *AT["/to"])]
    assert "not in a handoff/ folder" in found[0].message


# --- TR105 handoff-to-self -----------------------------------------------------------------


def test_tr105_reports_a_handoff_to_its_own_sender_at_to_pointing_at_from() -> None:
    path = "agents/developer/handoff/developer-2026-04-02T10:00:00.000Z.json"
    found = check({path: body(to="developer")})
    assert places(found, "TR105") == [(path, *AT["/to"])]
    assert found[0].related == ((path, *AT["/from"], "the sender"),)
    assert [f.code for f in found] == ["TR105"]


def test_tr105_compares_names_exactly() -> None:
    path = "agents/Developer/handoff/developer-2026-04-02T10:00:00.000Z.json"
    assert places(check({path: body(to="Developer")}), "TR105") == []


# --- TR106 history-order -------------------------------------------------------------------


def _history(*entries: tuple[str, str, str]) -> dict[str, str]:
    """Handoffs to the tester: (sender, time of day, status)."""
    return {
        f"{TESTER}/{sender}-2026-04-02T{time}.000Z.json": body(
            **{"from": sender, "timestamp": f"2026-04-02T{time}.000Z", "status": status}
        )
        for sender, time, status in entries
    }


def test_tr106_reports_a_pending_handoff_older_than_an_accepted_one_from_the_same_sender() -> None:
    found = check(_history(("developer", "09:00:00", "pending"), ("developer", "10:00:00", "accepted")))
    older = f"{TESTER}/developer-2026-04-02T09:00:00.000Z.json"
    newer = f"{TESTER}/developer-2026-04-02T10:00:00.000Z.json"
    assert places(found, "TR106") == [(older, *AT["/status"])]
    assert found[0].related == ((newer, *AT["/status"], "the later handoff, accepted"),)
    assert found[0].severity.label == "warning"


def test_tr106_points_at_the_newest_accepted_handoff() -> None:
    found = check(
        _history(
            ("developer", "08:00:00", "pending"),
            ("developer", "09:00:00", "accepted"),
            ("developer", "11:00:00", "accepted"),
        )
    )
    assert [f.related[0][0] for f in found] == [f"{TESTER}/developer-2026-04-02T11:00:00.000Z.json"]


def test_tr106_accepts_history_that_goes_forward() -> None:
    assert (
        check(
            _history(
                ("developer", "08:00:00", "accepted"),
                ("developer", "09:00:00", "accepted"),
                ("developer", "10:00:00", "pending"),
                ("developer", "11:00:00", "pending"),
            )
        )
        == []
    )


def test_tr106_does_not_compare_different_senders() -> None:
    assert check(_history(("designer", "09:00:00", "pending"), ("developer", "10:00:00", "accepted"))) == []


def test_tr106_compares_timestamps_as_instants() -> None:
    # 11:30+02:00 is 09:30Z: before the pending handoff of 10:00Z, so history goes forward.
    files = _history(("developer", "10:00:00", "pending"))
    files[f"{TESTER}/developer-2026-04-02T09:30:00.000Z.json"] = body(
        timestamp="2026-04-02T11:30:00.000+02:00", status="accepted"
    )
    assert check(files) == []


def test_tr106_compares_only_handoffs_of_one_workspace() -> None:
    files = {
        "agents/tester/handoff/developer-2026-04-02T09:00:00.000Z.json": body(
            timestamp="2026-04-02T09:00:00Z"
        ),
        "agents/reviewer/handoff/developer-2026-04-02T10:00:00.000Z.json": body(
            to="reviewer", status="accepted"
        ),
    }
    assert check(files) == []
