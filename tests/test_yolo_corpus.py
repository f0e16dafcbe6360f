"""Our YOLO fixture project (clean and broken), and YOLO's own files from the shared corpus."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_handoff.values.settings import Settings
from tests.yolo_helpers import (
    CORPUS,
    PHASE,
    PROFILE,
    check_folder,
    check_group,
    codes,
    fixture_project,
    write,
)

FIXTURE_PHASE = ".yolo-planning/phases/03-auth"
CORPUS_PHASE = ".yolo-planning/milestones/workflow-hardening-org-alignment-optimization/phases/05-escalation-gates-owner-user-loop"


def needs_corpus() -> None:
    if not (Path(__file__).parents[2] / "shared" / "corpus").is_dir():
        pytest.skip("the shared corpus (../shared/corpus) is not beside this clone")


def test_the_clean_fixture_project_has_no_finding(tmp_path: Path) -> None:
    assert check_folder(fixture_project("clean", tmp_path), FIXTURE_PHASE) == []


def test_the_broken_fixture_project_has_one_finding_per_planted_defect(tmp_path: Path) -> None:
    root = fixture_project("broken", tmp_path)
    found = [(f.code, f.path.rsplit("/", 1)[-1], f.line) for f in check_folder(root, FIXTURE_PHASE)]
    assert sorted(found) == sorted(
        [
            ("YL301", "03-02.plan.jsonl", 1),
            ("YL307", "critique.jsonl", 2),
            ("YL303", "integration-gate-result.jsonl", 1),
            ("YL101", "messages.jsonl", 1),
            ("YL106", "messages.jsonl", 2),
            ("YL113", "messages.jsonl", 3),
            ("YL302", "messages.jsonl", 4),
            ("YL102", "messages.jsonl", 5),
            ("YL105", "messages.jsonl", 5),
            ("YL103", "messages.jsonl", 6),
            ("YL104", "messages.jsonl", 7),
            ("YL105", "messages.jsonl", 8),
            ("YL111", "messages.jsonl", 9),
            ("YL111", "messages.jsonl", 9),
            ("YL112", "messages.jsonl", 10),
            ("HS002", "messages.jsonl", 11),
            ("HS001", "messages.jsonl", 12),
            ("HF002", "messages.jsonl", 13),
            ("YL301", "phase-handoff.jsonl", 1),
            ("YL201", "v2-messages.jsonl", 1),
            ("YL202", "v2-messages.jsonl", 1),
            ("YL203", "v2-messages.jsonl", 1),
            ("YL204", "v2-messages.jsonl", 1),
            ("YL205", "v2-messages.jsonl", 1),
        ]
    )


def test_yolos_own_phase_folder_reads_and_only_its_summary_and_critique_break_the_documented_format() -> None:
    """YOLO's own 05-01.summary.jsonl is written with full-word keys (tasks, commits,
    files_modified, deviations), which its artifact-formats reference abbreviates and its own
    validate.sh rejects; its critique.jsonl writes each finding as title/detail, where the Senior
    reads q (or desc). Everything the next agent reads in the other files is as documented."""
    needs_corpus()
    folder = CORPUS / CORPUS_PHASE
    paths = sorted(PROFILE.members(folder, "", None), key=PROFILE.sort_key)
    assert len(paths) == 8
    documents = 0
    for path in paths:
        loaded = PROFILE.read(path.read_bytes(), path, path.name, Settings())
        assert loaded.findings == ()
        documents += len(loaded.documents)
    assert documents == sum(len(path.read_bytes().splitlines()) for path in paths)
    found = check_folder(CORPUS, CORPUS_PHASE)
    assert {(f.code, f.path.rsplit("/", 1)[-1]) for f in found} == {
        ("HS001", "05-01.summary.jsonl"),
        ("HS001", "critique.jsonl"),
    }
    assert {f.pointer for f in found if f.message.startswith("unexpected property")} == {
        "/tasks",
        "/commits",
        "/files_modified",
        "/deviations",
    }


def test_yolos_own_plan_filed_under_another_phase_is_yl301(tmp_path: Path) -> None:
    needs_corpus()
    moved = tmp_path / PHASE.replace("05-escalation", "04-moved")
    shutil.copytree(CORPUS / CORPUS_PHASE, moved)
    findings = [
        f for f in check_folder(tmp_path, PHASE.replace("05-escalation", "04-moved")) if f.code != "HS001"
    ]
    assert codes(findings) == ["YL301"]
    where = sorted({(f.path.rsplit("/", 1)[-1], f.pointer) for f in findings})
    # The plan and summary are named for phase 05 (their headers agree with their names), and the
    # review and the verification name plans 05-01..05-04.
    assert where == sorted(
        [
            ("05-01.plan.jsonl", ""),
            ("05-01.summary.jsonl", ""),
            *(("code-review.jsonl", f"/plans/{n}") for n in range(4)),
            *(("verification.jsonl", f"/plans/{n}/id") for n in range(4)),
        ]
    )


def test_v2_messages_are_checked_against_yolos_own_message_schemas(tmp_path: Path) -> None:
    needs_corpus()
    target = tmp_path / "config" / "schemas" / "message-schemas.json"
    target.parent.mkdir(parents=True)
    shutil.copyfile(CORPUS / "config" / "schemas" / "message-schemas.json", target)

    def message(type_: str, role: str, payload: dict[str, object], **extra: str) -> dict[str, object]:
        return {
            "id": "m", "type": type_, "phase": "05", "task": "05-01/T1", "author_role": role,
            "timestamp": "2026-02-18T22:00:00Z", "schema_version": "2.0", "payload": payload, "confidence": "high",
            **extra,
        }  # fmt: skip

    update = {"plan_id": "05-01", "task_id": "T1", "status": "complete", "commit": "41011f4"}
    good = message("execution_update", "dev", update, target_role="lead")
    # YOLO's file lets lead send hitl_approval (allowed_roles), though no role can receive it.
    approval = message(
        "hitl_approval", "lead", {"plan_path": "p", "gate_type": "vision", "status": "approved"}
    )
    undelivered = message("hitl_approval", "architect", approval["payload"], target_role="lead")  # type: ignore[arg-type]
    wrong_author = message("scout_findings", "dev", {"domain": "quality", "documents": []})
    write(tmp_path, f"{PHASE}/messages.jsonl", [good, approval, undelivered, wrong_author])
    findings = check_folder(tmp_path)
    assert [(f.code, f.line) for f in findings] == [("YL203", 3), ("YL202", 4)]


def test_yolos_execution_state_schema_file_is_not_claimed_as_a_yolo_file() -> None:
    needs_corpus()
    for path in (CORPUS / "config" / "schemas").iterdir():
        assert not PROFILE.claims(path)
    assert (
        json.loads((CORPUS / "config" / "schemas" / "message-schemas.json").read_text())["schema_version"]
        == "2.0"
    )


def test_a_standalone_file_of_yolo_planning_is_a_group_of_its_own(tmp_path: Path) -> None:
    path = write(
        tmp_path, ".yolo-planning/research-archive.jsonl", [{"q": "x", "finding": "y", "phase": "03"}]
    )
    assert PROFILE.group_of(path) is None
    assert check_group(tmp_path, [path]) == []
