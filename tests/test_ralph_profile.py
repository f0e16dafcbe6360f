"""The Ralph profile's place in discovery: which files it claims, how a session groups, what it imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pytest_handoff.pipeline.discovery import discover
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.profiles.ralph.profile import PROFILE
from pytest_handoff.values.settings import Settings
from tests.probes import HEAVY_MODULES, lint_in_fresh_process
from tests.ralph_helpers import READY, make_session, phrase, write_logs


def test_it_claims_session_files_logs_and_a_prd_beside_a_session(tmp_path: Path) -> None:
    root = make_session(tmp_path / "lantern")
    session = root / ".claude" / "session"
    assert PROFILE.claims(session / "handoff-log.json")
    assert PROFILE.claims(session / "logs" / "qa.log")
    assert PROFILE.claims(root / "logs" / "2026-03-02" / "pm.log")
    assert PROFILE.claims(root / "prd.json")


def test_it_does_not_claim_look_alikes_elsewhere(tmp_path: Path) -> None:
    assert not PROFILE.claims(tmp_path / "handoff-log.json")  # not in .claude/session
    assert not PROFILE.claims(tmp_path / "session" / "handoff-log.json")
    assert not PROFILE.claims(tmp_path / "prd.json")  # no session beside it
    assert not PROFILE.claims(tmp_path / "build.log")  # in no logs folder
    assert not PROFILE.claims(tmp_path / ".claude" / "session" / "agent-pm.json")


def test_every_file_of_a_session_is_in_one_group_named_by_its_session_id(tmp_path: Path) -> None:
    root = make_session(tmp_path / "lantern")
    session = root / ".claude" / "session"
    groups = {
        PROFILE.group_of(path)
        for path in (root / "prd.json", session / "handoff-signal.json", session / "logs" / "pm.log")
    }
    assert groups == {(root, "ralph-single-20260302-090000")}


def test_a_session_without_an_id_is_a_group_all_the_same(tmp_path: Path) -> None:
    write_logs(tmp_path, {"pm": [READY, phrase("developer")]})
    assert PROFILE.group_of(tmp_path / ".claude" / "session" / "logs" / "pm.log") == (
        tmp_path,
        "ralph-session",
    )
    assert PROFILE.group_of(tmp_path / "notes.txt") is None


def test_members_list_the_prd_the_session_files_and_every_log_session_files_first(tmp_path: Path) -> None:
    root = make_session(tmp_path / "lantern")
    (root / "logs" / "run-2").mkdir(parents=True)
    (root / "logs" / "run-2" / "developer.log").write_text("nothing to see\n")
    members = sorted(PROFILE.members(root, "s", None), key=PROFILE.sort_key)
    assert [path.relative_to(root).as_posix() for path in members] == [
        ".claude/session/coordinator-state.json",
        ".claude/session/handoff-log.json",
        ".claude/session/handoff-signal.json",
        ".claude/session/pending-handoff.json",
        ".claude/session/logs/developer.log",
        ".claude/session/logs/pm.log",
        ".claude/session/logs/qa.log",
        "logs/run-2/developer.log",
        "prd.json",
    ]


def test_keywords_are_the_profile_and_the_agents_with_logs(tmp_path: Path) -> None:
    root = make_session(tmp_path / "lantern", logs={"qa": ["x"], "pm": ["y"]})
    assert PROFILE.keywords(PROFILE.members(root, "s", None), Settings()) == ["ralph", "pm", "qa"]


def test_discovery_finds_one_session_from_any_of_its_files(tmp_path: Path) -> None:
    root = make_session(tmp_path / "lantern")
    found = discover([], tmp_path, Settings(), registry=default_registry())
    assert [(ref.profile, ref.group_id, ref.directory) for ref in found.groups] == [
        ("ralph", "ralph-single-20260302-090000", root)
    ]
    assert len(found.groups[0].paths) == 8


def test_configured_globs_replace_the_defaults(tmp_path: Path) -> None:
    make_session(tmp_path / "lantern")
    only_logs = Settings(options={"ralph": {"globs": ("agent-logs/*.log",)}})
    assert discover([], tmp_path, only_logs, registry=default_registry()).groups == ()


def test_checking_one_log_imports_no_other_profile_and_nothing_heavy(tmp_path: Path) -> None:
    root = make_session(tmp_path / "lantern")
    probe = lint_in_fresh_process([".claude/session/logs/developer.log"], root)
    assert probe.code == 0
    assert probe.loaded((*HEAVY_MODULES, "sqlite3")) == []
    assert probe.formats == ["ralph"]


def test_editors_get_the_session_file_schemas_but_not_one_for_every_prd_json() -> None:
    pairs = dict(PROFILE.editor_schemas(Settings()))
    assert pairs["ralph/handoff_log"] == ["**/.claude/session/handoff-log.json"]
    assert len(pairs) == 4
    assert "ralph/prd" not in pairs


def test_a_prd_json_is_no_member_of_a_group_of_logs_without_a_session(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "pm.log").write_text(f"{READY}\n{phrase('developer')}\n")
    (tmp_path / "prd.json").write_text('{"userStories": []}')  # another tool's PRD
    assert PROFILE.group_of(tmp_path / "logs" / "pm.log") == (tmp_path, "ralph-session")
    assert PROFILE.members(tmp_path, "ralph-session", None) == [tmp_path / "logs" / "pm.log"]
    (tmp_path / ".claude" / "session").mkdir(parents=True)
    assert tmp_path / "prd.json" in PROFILE.members(tmp_path, "ralph-session", None)


def test_the_ralph_table_has_unique_rl_codes_four_part_docs_and_its_groups_get_exactly_it() -> None:
    from pytest_handoff.profiles.ralph.rules import RULES as TABLE

    parts = ("**What it does**", "**Why is this bad?**", "**Example**", "**Use instead**")
    assert len({rule.code for rule in TABLE}) == len({rule.name for rule in TABLE}) == len(TABLE)
    for rule in TABLE:
        assert rule.code.startswith("RL"), rule.code
        assert rule.profile == "ralph", rule.code
        places = [rule.doc.find(part) for part in parts]
        assert -1 not in places, rule.code
        assert places == sorted(places), rule.code
        assert (rule.check is None) == (rule.scope == "load"), rule.code
    default_registry().profile("ralph")
    rules = default_registry().rules_of("ralph").by_code
    assert {code: rule for code, rule in rules.items() if code.startswith("RL")} == {r.code: r for r in TABLE}


def test_the_ralph_package_imports_none_of_its_modules() -> None:
    probe = (
        "import sys, pytest_handoff.profiles.ralph\n"
        "print(sorted(m for m in sys.modules if m.startswith('pytest_handoff.profiles.ralph.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["[]"]
