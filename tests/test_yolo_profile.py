"""The YOLO profile: reading JSONL line by line, telling messages apart, grouping by phase folder, schemas."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_handoff.profiles.yolo.catalogue import FLAT, all_schemas, render
from pytest_handoff.profiles.yolo.format import FLAT_TYPES
from pytest_handoff.validation.schemas import source_checkout_schemas
from pytest_handoff.values.settings import Settings
from tests.yolo_helpers import (
    NOWHERE,
    PHASE,
    PROFILE,
    REPO,
    Place,
    check_folder,
    check_group,
    check_lines,
    codes,
    column_of,
    messages,
    places,
    write,
)

SHUTDOWN = {"type": "shutdown_response", "status": "clean", "pending_work": []}


def read(text: str, name: str = "messages.jsonl") -> tuple[list[object], list[object]]:
    path = NOWHERE / PHASE / name
    loaded = PROFILE.read(text.encode(), path, f"{PHASE}/{name}", Settings())
    return list(loaded.documents), list(loaded.findings)


# --- reading -------------------------------------------------------------------------------


def test_each_non_blank_line_of_a_jsonl_file_is_a_document_placed_at_its_line() -> None:
    documents, findings = read(f"{json.dumps(SHUTDOWN)}\n\n   \n{json.dumps(SHUTDOWN)}\n")
    assert findings == []
    assert [(d.label, d.origin) for d in documents] == [("line 1", (1, 1)), ("line 4", (4, 1))]  # type: ignore[attr-defined]
    assert documents[1].region("/status").line == 4  # type: ignore[attr-defined]


def test_a_broken_line_is_hf002_at_its_line_and_the_other_lines_are_still_checked() -> None:
    broken = {**SHUTDOWN, "status": "gone"}
    lines = [json.dumps(broken), '{"type": "shutdown_response", "status": "clean",}', json.dumps(broken)]
    findings = check_lines(lines)
    assert places(findings, "HF002") == [Place("messages.jsonl", 2, lines[1].index(",}") + 1)]
    assert places(findings, "HS001") == [
        Place("messages.jsonl", 1, column_of(lines[0], '"status": ')),
        Place("messages.jsonl", 3, column_of(lines[2], '"status": ')),
    ]


def test_a_line_ending_in_crlf_reads_like_any_other() -> None:
    documents, findings = read(json.dumps(SHUTDOWN) + "\r\n" + json.dumps(SHUTDOWN) + "\r\n")
    assert findings == []
    assert len(documents) == 2


def test_a_byte_order_mark_is_hf001_at_the_first_line_only() -> None:
    path = NOWHERE / PHASE / "messages.jsonl"
    raw = b"\xef\xbb\xbf" + (json.dumps(SHUTDOWN) + "\n").encode() * 2
    loaded = PROFILE.read(raw, path, "messages.jsonl", Settings())
    assert [(f.code, f.line, f.column) for f in loaded.findings] == [("HF001", 1, 1)]
    assert len(loaded.documents) == 1


def test_documents_of_a_jsonl_file_show_lines_of_the_whole_file() -> None:
    text = json.dumps(SHUTDOWN) + "\n" + json.dumps(SHUTDOWN) + "\n"
    documents, _ = read(text)
    assert documents[1].source_text == text  # type: ignore[attr-defined]


def test_a_json_file_is_one_document() -> None:
    documents, findings = read(json.dumps(SHUTDOWN, indent=2), ".execution-state.json")
    assert findings == []
    assert len(documents) == 1


def test_an_empty_jsonl_file_holds_no_document_and_no_finding() -> None:
    assert read("") == ([], [])


# --- telling messages apart ----------------------------------------------------------------


def test_objects_without_a_type_are_artifact_lines_not_messages() -> None:
    assert check_lines([{"id": "C1", "cat": "gap", "sev": "minor"}, [1, 2], "3"]) == []


def test_yolos_own_logs_are_not_messages_though_their_lines_have_a_type(tmp_path: Path) -> None:
    # YOLO's notification hook writes {"timestamp", "type": "warning" | "error" | ..., "title", "message"}.
    notice = {"timestamp": "2026-05-11T10:00:00Z", "type": "warning", "title": "Idle", "message": "waiting"}
    write(tmp_path, ".yolo-planning/.notification-log.jsonl", [notice])
    write(tmp_path, ".yolo-planning/.events/event-log.jsonl", [{"type": "phase_start", "phase": 3}])
    write(tmp_path, f"{PHASE}/.qa-gate-results.jsonl", [{"gl": "post-task", "r": "PASS", "type": "gate"}])
    for relative in (".yolo-planning/.notification-log.jsonl", ".yolo-planning/.events/event-log.jsonl"):
        assert check_group(tmp_path, [tmp_path / relative]) == []
    assert check_folder(tmp_path) == []
    # The same line in a file agents write is a message of an unknown type.
    write(tmp_path, f"{PHASE}/messages.jsonl", [notice])
    assert codes(check_folder(tmp_path)) == ["HS002"]


def test_hs002_reports_an_unknown_flat_type_with_the_nearest_known_one() -> None:
    line = {"type": "dev_progres", "task": "05-01/T1"}
    findings = check_lines([line])
    assert places(findings, "HS002") == [Place("messages.jsonl", 1, column_of(json.dumps(line), '"type": '))]
    assert messages(findings, "HS002") == [
        "unknown YOLO message type 'dev_progres'; did you mean 'dev_progress'?"
    ]


def test_hs002_reports_a_type_that_is_not_a_string() -> None:
    assert messages(check_lines([{"type": 7}]), "HS002") == ["a message's type must be a string"]


def test_every_type_of_the_catalogue_is_classified_as_itself() -> None:
    for name in FLAT_TYPES:
        document = read(json.dumps({"type": name}))[0][0]
        assert PROFILE.classify(document, Settings())[0] == name  # type: ignore[arg-type]


def test_hs001_reports_a_value_outside_a_types_enum_at_the_value() -> None:
    line = {"type": "escalation", "from": "tester", "to": "lead", "issue": "x", "severity": "major"}
    findings = check_lines([line])
    assert places(findings, "HS001") == [Place("messages.jsonl", 1, column_of(json.dumps(line), '"from": '))]
    assert messages(findings, "HS001") == ['"tester" is not one of "dev", "senior", "lead"']


def test_hs001_reports_a_misspelt_key_at_the_key() -> None:
    line = {**SHUTDOWN, "artifact_committed": True}
    findings = check_lines([line])
    assert places(findings, "HS001") == [
        Place("messages.jsonl", 1, column_of(json.dumps(line), '"artifact_committed"', after=False))
    ]


# --- groups ----------------------------------------------------------------------------------


def test_a_phase_folder_is_a_group_and_files_elsewhere_stand_alone(tmp_path: Path) -> None:
    phase = tmp_path / ".yolo-planning" / "milestones" / "m1" / "phases" / "02-api"
    assert PROFILE.group_of(phase / "critique.jsonl") == (phase, "milestones/m1/phases/02-api")
    assert PROFILE.group_of(phase / ".execution-state.json") == (phase, "milestones/m1/phases/02-api")
    assert PROFILE.group_of(tmp_path / ".yolo-planning" / "research-archive.jsonl") is None
    assert PROFILE.group_of(phase / "architecture.toon") is None
    assert PROFILE.group_of(tmp_path / "notes" / "critique.jsonl") is None
    # A planning folder of another name (configured globs): its phases/NN-slug/ folders are groups.
    other = tmp_path / "planning" / "phases" / "02-api"
    assert PROFILE.group_of(other / "critique.jsonl") == (other, "phases/02-api")


def test_the_members_of_a_phase_folder_are_its_json_and_jsonl_files(tmp_path: Path) -> None:
    folder = tmp_path / PHASE
    for name in ("critique.jsonl", ".execution-state.json", "architecture.toon", "05-01.plan.jsonl"):
        write(tmp_path, f"{PHASE}/{name}", "{}")
    (folder / "sub").mkdir()
    names = sorted(p.name for p in PROFILE.members(folder, "phases/05-escalation", None))
    assert names == [".execution-state.json", "05-01.plan.jsonl", "critique.jsonl"]


def test_a_named_file_is_claimed_by_its_place_its_name_or_its_first_message(tmp_path: Path) -> None:
    assert PROFILE.claims(tmp_path / ".yolo-planning" / "state.json")
    assert PROFILE.claims(tmp_path / "05-01.plan.jsonl")
    message = write(tmp_path, "out/message.jsonl", [{"type": "qa_result"}])
    other = write(tmp_path, "out/events.jsonl", [{"type": "assistant", "message": {}}])
    broken = write(tmp_path, "out/broken.json", "{")
    assert PROFILE.claims(message)
    assert not PROFILE.claims(other)
    assert not PROFILE.claims(broken)
    assert not PROFILE.claims(tmp_path / ".yolo-planning" / "notes.md")


def test_keywords_name_the_artifacts_of_a_group() -> None:
    paths = [
        Path(name)
        for name in ("05-01.plan.jsonl", "05-01.summary.jsonl", "critique.jsonl", ".execution-state.json")
    ]
    assert PROFILE.keywords(paths, Settings()) == ["critique", "execution-state", "plan", "summary"]


# --- schemas ---------------------------------------------------------------------------------


def test_the_shipped_schemas_are_the_catalogue_table_written_out() -> None:
    folder = source_checkout_schemas() / "yolo"
    shipped = {
        path.name.removesuffix(".schema.json"): path.read_text(encoding="utf-8") for path in folder.iterdir()
    }
    assert shipped == {name: render(schema) for name, schema in all_schemas().items()}


def test_the_profile_knows_exactly_the_types_of_the_catalogue() -> None:
    assert set(FLAT) == FLAT_TYPES


def test_every_yolo_schema_is_valid_draft_07_and_compiles_to_the_fast_check() -> None:
    import jsonschema

    from pytest_handoff.validation.fastcheck import compile_schema

    for name, schema in all_schemas().items():
        jsonschema.Draft7Validator.check_schema(schema)
        assert compile_schema(schema) is not None, name


# --- cost ------------------------------------------------------------------------------------


@pytest.mark.parametrize("module", ["pytest_handoff.profiles.yolo", "pytest_handoff.profiles.yolo.profile"])
def test_importing_the_profile_imports_nothing_heavy_and_no_other_profile(module: str) -> None:
    heavy = [
        "rich", "jsonschema", "pytest", "dataclasses", "inspect", "importlib.metadata", "multiprocessing",
        "sqlite3", "difflib", "pytest_handoff.profiles.neuralrelay", "pytest_handoff.profiles.yolo.catalogue",
        "pytest_handoff.profiles.yolo.rules", "pytest_handoff.profiles.yolo.project",
    ]  # fmt: skip
    code = f"import sys, {module}; print([m for m in {heavy!r} if m in sys.modules])"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert result.stdout.strip() == "[]"
    if module.endswith(".yolo"):
        assert "pytest_handoff.profiles.yolo.profile" not in result.stdout


def test_checking_a_clean_group_of_flat_messages_needs_no_difflib_jsonschema_or_project_file_reader(
    tmp_path: Path,
) -> None:
    write(tmp_path, f"{PHASE}/messages.jsonl", [SHUTDOWN])
    code = (
        "import sys; from pathlib import Path; from tests.yolo_helpers import check_folder;"
        f"assert check_folder(Path({str(tmp_path)!r})) == [];"
        "print([m for m in ('difflib', 'jsonschema', 'rich', 'pytest_handoff.profiles.yolo.project') if m in sys.modules])"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert result.stdout.strip() == "[]"


# --- the rule table ----------------------------------------------------------------------------

FOUR_PARTS = ("**What it does**", "**Why is this bad?**", "**Example**", "**Use instead**")


def test_every_yl_rule_has_a_unique_yl_code_a_kebab_name_and_four_part_docs() -> None:
    table = PROFILE.rule_table()
    codes_ = [rule.code for rule in table]
    assert len(set(codes_)) == len(codes_)
    for rule in table:
        assert rule.code.startswith("YL"), rule.code
        assert rule.profile == "yolo", rule.code
        assert re.fullmatch("[a-z0-9]+(-[a-z0-9]+)*", rule.name), rule.code
        assert all(part in rule.doc for part in FOUR_PARTS), rule.code
