"""The Ralph profile's rules and schemas, each on both sides, at the line and column they report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.read.strict_json import parse_json_bytes
from pytest_handoff.validation.schemas import compiled_schema
from pytest_handoff.values.documents import Document
from pytest_handoff.values.findings import Finding, Severity
from pytest_handoff.values.rules import finding_of
from pytest_handoff.values.settings import Settings
from tests.ralph_helpers import (
    PROMISE,
    READY,
    check_session,
    codes,
    column_of,
    context,
    encode,
    log_documents,
    make_session,
    phrase,
    where,
)


def _run(code: str, document: Document) -> list[Finding]:
    rule = default_registry().rules_of("ralph").by_code[code]
    assert rule.check is not None
    return [finding_of(rule, hit, Settings(), "s") for hit in rule.check(document, Settings())]


def _phrase_document(target: str, log: str = "developer.log", **fields: object) -> tuple[Document, str]:
    line = phrase(target, **fields)
    documents, findings = log_documents([READY, line], name=log)
    assert findings == ()
    return documents[0], line


# --- the context's schema --------------------------------------------------------------


@pytest.mark.parametrize("field", ["from", "reason", "timestamp", "task"])
def test_the_context_schema_requires_each_field_and_reports_at_the_context(field: str) -> None:
    made = context()
    del made[field]
    line = f"HANDOFF:developer:{encode(made)}"
    documents, _ = log_documents([READY, line], name="pm.log")

    (finding,) = compiled_schema("ralph/handoff_context").findings(documents[0])
    assert (finding.code, finding.line, finding.column, finding.end_column) == ("HS001", 2, 19, len(line))
    assert repr(field) in finding.message


def test_the_context_schema_requires_the_task_id_and_accepts_a_complete_context() -> None:
    without_id = context(task={"title": "Save a note"})
    documents, _ = log_documents([READY, f"HANDOFF:developer:{encode(without_id)}"], name="pm.log")
    assert [f.message for f in compiled_schema("ralph/handoff_context").findings(documents[0])] == [
        "missing required property 'id' in /task"
    ]
    document, _ = _phrase_document("developer", log="pm.log")
    assert compiled_schema("ralph/handoff_context").findings(document) == []


# --- RL101-RL104: one handoff ---------------------------------------------------------


def test_rl101_reports_a_reason_outside_the_protocol_at_the_context() -> None:
    document, line = _phrase_document("qa", sender="developer", reason="please_test")
    (finding,) = _run("RL101", document)
    assert (finding.line, finding.column, finding.pointer) == (2, column_of(line, "eyJ"), "/reason")
    assert "'please_test'" in finding.message


def test_rl101_suggests_the_protocols_reason_closest_to_a_misspelt_one() -> None:
    misspelt, _ = _phrase_document("qa", sender="developer", reason="ready-for-qa")
    (finding,) = _run("RL101", misspelt)
    assert finding.message.endswith("; did you mean 'ready_for_qa'?")
    unlike, _ = _phrase_document("qa", sender="developer", reason="please_test")
    assert "did you mean" not in _run("RL101", unlike)[0].message


def test_rl101_does_not_fire_for_the_protocols_reasons() -> None:
    for reason in ("task_assignment", "ready_for_qa", "validation_passed", "error", "all_complete"):
        document, _ = _phrase_document("qa", sender="developer", reason=reason)
        assert _run("RL101", document) == [], reason


def test_rl102_reports_all_complete_as_a_handoff_and_names_the_promise() -> None:
    document, _ = _phrase_document("pm", log="qa.log", sender="qa", reason="all_complete")
    (finding,) = _run("RL102", document)
    assert PROMISE in finding.message
    other, _ = _phrase_document("pm", log="qa.log", sender="qa", reason="validation_passed")
    assert _run("RL102", other) == []


@pytest.mark.parametrize(
    ("target", "sender", "reason"),
    [
        ("developer", "pm", "task_assignment"),
        ("qa", "developer", "ready_for_qa"),
        ("pm", "qa", "validation_passed"),
        ("developer", "qa", "validation_failed"),
        ("pm", "developer", "need_clarification"),
        ("pm", "developer", "error"),
        ("pm", "qa", "error"),
    ],
)
def test_rl103_does_not_fire_for_a_route_of_the_table(target: str, sender: str, reason: str) -> None:
    document, _ = _phrase_document(target, log=f"{sender}.log", sender=sender, reason=reason)
    assert _run("RL103", document) == []


@pytest.mark.parametrize(
    ("target", "sender", "reason"),
    [
        ("qa", "pm", "task_assignment"),  # skips the developer
        ("developer", "qa", "validation_passed"),  # a pass goes to the PM
        ("pm", "developer", "ready_for_qa"),  # from the right agent, to the wrong one
        ("developer", "pm", "error"),  # errors go to the PM
    ],
)
def test_rl103_reports_a_route_its_reason_does_not_take(target: str, sender: str, reason: str) -> None:
    document, line = _phrase_document(target, log=f"{sender}.log", sender=sender, reason=reason)
    (finding,) = _run("RL103", document)
    assert (finding.line, finding.column) == (2, column_of(line, "eyJ"))
    assert f"this handoff goes {sender} -> {target}" in finding.message


def test_rl104_reports_a_sender_that_is_not_the_logs_agent() -> None:
    document, line = _phrase_document("qa", log="developer.log", sender="pm", reason="ready_for_qa")
    (finding,) = _run("RL104", document)
    assert (finding.line, finding.column, finding.pointer) == (2, column_of(line, "eyJ"), "/from")
    assert "developer's log" in finding.message


def test_rl104_does_not_fire_for_the_logs_own_agent_or_a_log_named_for_no_agent() -> None:
    own, _ = _phrase_document("qa", log="developer.log", sender="developer", reason="ready_for_qa")
    assert _run("RL104", own) == []
    unnamed, _ = _phrase_document("qa", log="run-3.log", sender="pm", reason="ready_for_qa")
    assert _run("RL104", unnamed) == []


# --- a whole session: the clean fixture, then each rule broken in it ---------------------


def test_the_clean_session_has_no_findings(tmp_path: Path) -> None:
    result = check_session(make_session(tmp_path / "lantern"))
    assert result.findings == ()
    assert result.ref.group_id == "ralph-single-20260302-090000"


def _set_passes(root: Path, index: int, value: object) -> None:
    prd = json.loads((root / "prd.json").read_text())
    prd["items"][index]["passes"] = value
    (root / "prd.json").write_text(json.dumps(prd, indent=2))


def test_rl201_reports_the_promise_while_an_item_does_not_pass(tmp_path: Path) -> None:
    root = make_session(tmp_path / "lantern")
    _set_passes(root, 1, False)
    (root / ".claude/session/handoff-signal.json").unlink()

    (finding,) = check_session(root).findings
    assert (finding.code, *where(finding)) == ("RL201", ".claude/session/logs/pm.log", 5, 1)
    assert "1 of 2 items of prd.json does not pass: test-101" in finding.message
    prd_lines = (root / "prd.json").read_text().splitlines()
    passes_line = [n for n, text in enumerate(prd_lines, 1) if '"passes": false' in text]
    assert finding.related == (("prd.json", passes_line[0], 17, "first item that does not pass"),)


def test_rl201_reports_a_complete_signal_while_an_item_does_not_pass(tmp_path: Path) -> None:
    root = make_session(tmp_path / "lantern", logs={})
    _set_passes(root, 0, "yes")  # not true: the schema reports it, and it does not pass either

    passes_line = next(
        n for n, t in enumerate((root / "prd.json").read_text().splitlines(), 1) if '"yes"' in t
    )
    found = [(f.code, f.path, f.line, f.column) for f in check_session(root).findings]
    # The schema error does not hide the contract: RL201 speaks in the same run.
    assert found == [
        ("RL201", ".claude/session/handoff-signal.json", 1, 10),
        ("HS001", "prd.json", passes_line, 17),
    ]
    _set_passes(root, 0, False)
    (finding,) = check_session(root).findings
    assert (finding.code, *where(finding)) == ("RL201", ".claude/session/handoff-signal.json", 1, 10)


def test_rl201_needs_a_prd_to_judge_completion(tmp_path: Path) -> None:
    root = make_session(tmp_path / "lantern")
    (root / "prd.json").unlink()
    assert check_session(root).findings == ()


def test_rl202_reports_a_task_that_is_no_item_of_the_prd_at_the_context(tmp_path: Path) -> None:
    logs = {"qa": [READY, phrase("pm", sender="qa", reason="validation_passed", task_id="feat-999")]}
    root = make_session(tmp_path / "lantern", logs=logs)

    (finding,) = check_session(root).findings
    assert (finding.code, *where(finding), finding.pointer) == (
        "RL202",
        ".claude/session/logs/qa.log",
        2,
        column_of(logs["qa"][1], "eyJ"),
        "/task/id",
    )
    assert "'feat-999'" in finding.message


def test_rl202_counts_every_item_of_a_three_item_prd_when_two_share_an_id(tmp_path: Path) -> None:
    logs = {"qa": [READY, phrase("pm", sender="qa", reason="validation_passed", task_id="feat-999")]}
    root = make_session(tmp_path / "lantern", logs=logs)
    prd = json.loads((root / "prd.json").read_text())
    third = {**prd["items"][0], "passes": False}  # feat-101 again: RL204's, and still an item
    prd["items"].append(third)
    (root / "prd.json").write_text(json.dumps(prd, indent=2))

    found = {f.code: f.message for f in check_session(root).findings}
    assert found["RL202"] == "task 'feat-999' is no item of prd.json (3 items)"
    assert found["RL201"].endswith("while 1 of 3 items of prd.json does not pass: feat-101")
    assert "RL204" in found


def test_rl203_reports_a_logged_handoff_outside_the_routes_at_its_to(tmp_path: Path) -> None:
    root = make_session(tmp_path / "broken", "broken", logs={})
    findings = [f for f in check_session(root).findings if f.code == "RL203"]
    assert [(*where(f), f.severity) for f in findings] == [
        (".claude/session/handoff-log.json", 4, 63, Severity.WARNING)
    ]


def test_rl203_does_not_fire_for_routes_of_the_table_or_a_first_handoff_from_no_agent(tmp_path: Path) -> None:
    root = make_session(tmp_path / "lantern", logs={})
    log = json.loads((root / ".claude/session/handoff-log.json").read_text())
    log["handoffs"].insert(0, {**log["handoffs"][0], "from": None, "to": "pm"})
    log["handoffs"].append({**log["handoffs"][0], "from": "qa", "to": "developer"})
    (root / ".claude/session/handoff-log.json").write_text(json.dumps(log))
    assert check_session(root).findings == ()


def test_rl204_and_rl205_report_a_duplicate_id_and_a_dependency_on_no_item(tmp_path: Path) -> None:
    root = make_session(tmp_path / "broken", "broken", logs={})
    found = [(f.code, *where(f)) for f in check_session(root).findings if f.code in ("RL204", "RL205")]
    assert found == [("RL205", "prd.json", 5, 108), ("RL204", "prd.json", 6, 12)]


def test_rl204_and_rl205_do_not_fire_for_unique_ids_and_known_dependencies(tmp_path: Path) -> None:
    # The clean PRD has test-101 depend on feat-101.
    assert check_session(make_session(tmp_path / "lantern")).findings == ()


# --- the session files ------------------------------------------------------------------


def _json_document(data: object, name: str) -> Document:
    result = parse_json_bytes(json.dumps(data, indent=1).encode(), Path(name), name)
    assert result.document is not None
    return result.document


@pytest.mark.parametrize(
    ("schema", "data"),
    [
        ("handoff_signal", {"type": "complete"}),
        ("handoff_signal", {"targetAgent": "qa", "context": "feat-101 is ready", "timestamp": "t"}),
        ("pending_handoff", {"targetAgent": "developer", "context": "## Handoff from pm", "timestamp": "t"}),
        ("handoff_log", {"sessionId": "s", "handoffs": []}),
        ("coordinator_state", {"sessionId": "s", "status": "max_iterations_reached", "pendingHandoff": None}),
        ("prd", {"items": [{"id": "feat-001", "title": "t", "passes": False}]}),
    ],
)
def test_session_file_schemas_accept_what_ralph_writes(schema: str, data: object) -> None:
    assert compiled_schema(f"ralph/{schema}").findings(_json_document(data, "x.json")) == []


@pytest.mark.parametrize(
    ("schema", "data", "message"),
    [
        (
            "handoff_signal",
            {"targetAgent": "tester", "context": "c", "timestamp": "t"},
            '"tester" is not one of',
        ),
        ("handoff_signal", {"targetAgent": "qa"}, "missing required property 'context'"),
        ("pending_handoff", {"targetAgent": "qa", "context": "c"}, "missing required property 'timestamp'"),
        (
            "handoff_log",
            {"sessionId": "s", "handoffs": [{"from": "pm", "to": "qa"}]},
            "property 'reason' in /handoffs/0",
        ),
        ("coordinator_state", {"sessionId": "s", "status": "paused"}, '"paused" is not one of'),
        (
            "prd",
            {"items": [{"id": "f", "title": "t", "passes": "yes"}]},
            'expected boolean, got string "yes"',
        ),
        (
            "prd",
            {"items": [{"id": "f", "title": "t", "passes": True, "category": "ui"}]},
            '"ui" is not one of',
        ),
    ],
)
def test_session_file_schemas_reject_what_ralph_cannot_use(schema: str, data: object, message: str) -> None:
    findings = compiled_schema(f"ralph/{schema}").findings(_json_document(data, "x.json"))
    assert any(message in f.message for f in findings), [f.message for f in findings]


def test_session_files_written_with_a_bom_are_read_and_placed_as_shown(tmp_path: Path) -> None:
    root = make_session(tmp_path / "broken", "broken", logs={})
    found = [
        (f.code, *where(f)) for f in check_session(root).findings if f.path.endswith("coordinator-state.json")
    ]
    assert found == [("HS001", ".claude/session/coordinator-state.json", 3, 13)]


def test_the_broken_fixture_reports_each_of_its_faults(tmp_path: Path) -> None:
    root = make_session(tmp_path / "broken", "broken", logs={"pm": ["all done", PROMISE]})
    assert sorted(codes(check_session(root).findings)) == [
        "HS001",
        "HS001",
        "RL201",
        "RL203",
        "RL204",
        "RL205",
    ]
