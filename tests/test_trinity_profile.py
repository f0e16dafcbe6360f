"""The Trinity profile: reading file names, which files it claims, how they group and sort, and what it imports."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_handoff.pipeline.config import merged
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.profiles.builtin import TRINITY
from pytest_handoff.profiles.trinity.format import normal_folder, workspaces
from pytest_handoff.profiles.trinity.names import Instant, parse_file_name, parse_timestamp
from pytest_handoff.profiles.trinity.profile import PROFILE
from pytest_handoff.read.globs import matches_globs
from pytest_handoff.values.settings import Settings
from tests.probes import HEAVY_MODULES, import_in_fresh_process

WORKSPACE = Path("/project/agents/tester/handoff")


# --- file names and instants ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "agent", "stamp"),
    [
        ("developer-2026-04-02T10:00:00.000Z.json", "developer", "2026-04-02T10:00:00.000Z"),
        ("qa-lead-2026-04-02T10:00:00.000Z.json", "qa-lead", "2026-04-02T10:00:00.000Z"),
        ("release-2025-2026-04-02T10:00:00Z.json", "release-2025", "2026-04-02T10:00:00Z"),
        ("a-b-c-2026-04-02T10_00_00.5+02_00.json", "a-b-c", "2026-04-02T10_00_00.5+02_00"),
        ("dev-2026-04-02T10-00-00.000Z.json", "dev", "2026-04-02T10-00-00.000Z"),
    ],
)
def test_a_name_splits_where_the_timestamp_starts_not_at_the_first_hyphen(
    name: str, agent: str, stamp: str
) -> None:
    named = parse_file_name(name)
    assert not isinstance(named, str)
    assert (named.agent, named.stamp) == (agent, stamp)


def test_a_windows_safe_name_is_marked_as_such() -> None:
    colons = parse_file_name("dev-2026-04-02T10:00:00.000Z.json")
    underscores = parse_file_name("dev-2026-04-02T10_00_00.000Z.json")
    assert not isinstance(colons, str)
    assert not isinstance(underscores, str)
    assert (colons.substituted, underscores.substituted) == (False, True)
    assert colons.instant == underscores.instant


def test_a_name_that_does_not_read_says_why() -> None:
    assert parse_file_name("dev.txt") == "a handoff file name ends in .json"
    assert "{agent}-{ISO 8601 timestamp}.json" in str(parse_file_name("dev.json"))
    assert "no real date and time" in str(parse_file_name("dev-2026-02-29T10:00:00Z.json"))


def test_instants_compare_across_offsets_and_precisions() -> None:
    utc = parse_timestamp("2026-04-02T10:00:00.000Z")
    assert utc == parse_timestamp("2026-04-02T10:00:00+00:00")
    assert utc == parse_timestamp("2026-04-02T12:00:00.000000+02:00")
    assert utc == parse_timestamp("2026-04-02T00:00:00-10:00")
    later = parse_timestamp("2026-04-02T10:00:00.0005Z")
    assert utc is not None
    assert later is not None
    assert later > utc
    assert later.minus(utc) == 0  # under a millisecond
    assert utc.minus(later) == 0
    assert parse_timestamp("2026-04-02T10:00:01.5Z") == Instant(utc.seconds + 1, 500_000_000_000)


def test_a_leap_second_reads_as_the_second_after_59() -> None:
    leap = parse_timestamp("2016-12-31T23:59:60Z")
    after = parse_timestamp("2017-01-01T00:00:00Z")
    assert leap is not None
    assert after is not None
    assert leap.seconds == after.seconds


@pytest.mark.parametrize("text", ["2026-04-02T10:00:00", "2026-04-02 10:00:00Z", "2026-04-31T10:00:00Z", "x"])
def test_a_timestamp_without_zone_or_date_is_no_instant(text: str) -> None:
    assert parse_timestamp(text) is None


# --- claims, groups, order -------------------------------------------------------------------


def test_it_claims_files_named_like_handoffs_not_every_json_file_of_a_handoff_folder() -> None:
    # Another project's handoff/ folder (translations, templates) is not Trinity's; a misnamed
    # file beside Trinity's handoffs is still checked with its folder's group (TR101).
    assert not PROFILE.claims(WORKSPACE / "notes.json")
    assert not PROFILE.claims(Path("src/i18n/handoff/Translations.json"))
    assert PROFILE.claims(Path("elsewhere/developer-2026-04-02T10:00:00.000Z.json"))
    assert not PROFILE.claims(Path("elsewhere/notes.json"))
    assert not PROFILE.claims(WORKSPACE / "README.md")


def test_a_group_is_one_workspaces_handoff_folder_named_for_the_workspace() -> None:
    assert PROFILE.group_of(WORKSPACE / "developer-2026-04-02T10:00:00.000Z.json") == (WORKSPACE, "tester")
    assert PROFILE.group_of(WORKSPACE / "notes.json") == (WORKSPACE, "tester")
    assert PROFILE.group_of(Path("inbox/developer-2026-04-02T10:00:00.000Z.json")) is None
    assert PROFILE.group_of(WORKSPACE / "notes.txt") is None


def test_members_are_the_json_files_of_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "tester" / "handoff"
    folder.mkdir(parents=True)
    for name in ("developer-2026-04-02T10:00:00.000Z.json", "notes.json", "README.md"):
        (folder / name).write_text("{}")
    (folder / "old").mkdir()
    assert sorted(p.name for p in PROFILE.members(folder, "tester", None)) == [
        "developer-2026-04-02T10:00:00.000Z.json",
        "notes.json",
    ]


def test_files_sort_by_the_instant_in_their_name_then_unreadable_names_last() -> None:
    names = [
        "notes.json",
        "zed-2026-04-02T10:00:00.000Z.json",
        "alpha-2026-04-02T12:30:00.000+02:00.json",  # 10:30Z
        "beta-2026-04-02T09:00:00.000Z.json",
        "alpha-2026-04-02T10:00:00.000Z.json",
    ]
    ordered = sorted((WORKSPACE / n for n in names), key=PROFILE.sort_key)
    assert [p.name for p in ordered] == [
        "beta-2026-04-02T09:00:00.000Z.json",
        "alpha-2026-04-02T10:00:00.000Z.json",
        "zed-2026-04-02T10:00:00.000Z.json",
        "alpha-2026-04-02T12:30:00.000+02:00.json",
        "notes.json",
    ]


def test_keywords_are_the_senders_named_by_the_files() -> None:
    paths = [
        WORKSPACE / "qa-lead-2026-04-02T10:00:00Z.json",
        WORKSPACE / "developer-2026-04-02T10:00:00Z.json",
    ]
    assert PROFILE.keywords([*paths, WORKSPACE / "notes.json"], Settings()) == ["developer", "qa-lead"]


def test_the_chain_view_shows_each_file_by_its_sender() -> None:
    from pytest_handoff.values.groups import Group, GroupRef

    paths = (WORKSPACE / "qa-lead-2026-04-02T10:00:00Z.json", WORKSPACE / "notes.json")
    view = PROFILE.summarise(Group(GroupRef(PROFILE.name, "tester", WORKSPACE, paths), []))
    assert [(stage.file, stage.agent) for stage in view.stages] == [
        ("qa-lead-2026-04-02T10:00:00Z.json", "qa-lead"),
        ("notes.json", "notes"),
    ]
    assert (view.profile, view.group_id) == ("trinity", "tester")


# --- discovery globs -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "relative",
    [
        "tester/handoff/developer-2026-04-02T10:00:00.000Z.json",
        "agents/qa-lead/handoff/developer-2026-04-02T10_00_00.000Z.json",
        "handoff/developer-2026-04-02T10:00:00Z.json",
    ],
)
def test_the_default_glob_finds_handoffs_in_any_workspace(relative: str) -> None:
    assert matches_globs(relative, TRINITY.default_globs)


@pytest.mark.parametrize(
    "relative",
    [
        "docs/handoff/checklist.json",
        "docs/handoff/my-Thing.json",
        "src/handoff/messages-en.json",
        "tester/handoffs/developer-2026-04-02T10:00:00.000Z.json",
        ".neuralrelay/handoffs/20260402-100000/01-ba-agent.json",
    ],
)
def test_the_default_glob_leaves_other_handoff_folders_alone(relative: str) -> None:
    assert not matches_globs(relative, TRINITY.default_globs)


def test_the_spec_and_the_profile_agree() -> None:
    spec = TRINITY
    assert default_registry().profile("trinity") is PROFILE
    assert spec.default_globs == PROFILE.default_globs
    assert [option.key for option in spec.declared or ()] == ["globs", "workspaces", "timestamp-tolerance-ms"]
    assert PROFILE.spec is spec
    assert {rule.code for rule in PROFILE.rule_table()} == {f"TR10{n}" for n in range(1, 7)}
    assert all(rule.profile == "trinity" for rule in PROFILE.rule_table())


def test_every_rule_has_the_four_part_doc() -> None:
    for rule in PROFILE.rule_table():
        for part in ("**What it does**", "**Why is this bad?**", "**Example**", "**Use instead**"):
            assert part in rule.doc, (rule.code, part)


# --- options -------------------------------------------------------------------------------------


def test_workspaces_are_read_from_the_trinity_table_as_posix_folders() -> None:
    settings = merged(
        Settings(),
        {"trinity": {"workspaces": {"tester": "./agents\\tester/", "root": ".", "abs": "/srv/x/"}}},
        "pyproject.toml",
        default_registry(),
    )
    assert workspaces(settings) == {"tester": "agents/tester", "root": ".", "abs": "/srv/x"}
    assert normal_folder("C:\\work\\tester\\") == "C:/work/tester"


def test_the_trinity_table_is_accepted_in_pyproject(tmp_path: Path) -> None:
    from pytest_handoff.pipeline.config import load_settings
    from pytest_handoff.values.errors import ConfigError

    (tmp_path / "pyproject.toml").write_text(
        '[tool.handoff.trinity]\nworkspaces = {tester = "agents/tester"}\ntimestamp-tolerance-ms = 0\n'
    )
    settings = load_settings(tmp_path, tables=default_registry())
    assert workspaces(settings) == {"tester": "agents/tester"}
    (tmp_path / "pyproject.toml").write_text('[tool.handoff.trinity]\nworkspace = {tester = "x"}\n')
    with pytest.raises(ConfigError, match="did you mean 'workspaces'"):
        load_settings(tmp_path, tables=default_registry())


# --- import cost ---------------------------------------------------------------------------------


def test_importing_the_profile_imports_no_other_profile_and_nothing_heavy() -> None:
    probe = import_in_fresh_process(
        "import pytest_handoff.profiles.trinity.profile as p\np.PROFILE.rule_table()"
    )
    assert probe.loaded((*HEAVY_MODULES, "sqlite3")) == []
    assert probe.formats == ["trinity"]


def test_the_package_itself_imports_nothing() -> None:
    source = (Path(__file__).parents[1] / "pytest_handoff/profiles/trinity/__init__.py").read_text()
    assert "import" not in source.replace("imports nothing", "")
