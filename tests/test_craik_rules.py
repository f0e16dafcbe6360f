"""Craik's rules, each on both sides, on records checked in memory through the engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.values.findings import Severity
from tests.craik_helpers import (
    check_records,
    clean_handoff,
    clean_score,
    codes,
    docs_handoff,
    line_of,
    only,
)


def test_our_clean_handoff_and_its_score_have_no_finding(tmp_path: Path) -> None:
    assert check_records(clean_handoff(), clean_score(), root=tmp_path) == []


def test_a_handoff_in_the_docs_shape_has_only_the_docs_shape_warnings(tmp_path: Path) -> None:
    findings = check_records(docs_handoff(), root=tmp_path)
    assert codes(findings) == ["CK010"] * 4


def test_every_craik_rule_has_a_four_part_doc_and_a_ck_code() -> None:
    table = default_registry().profile("craik").rule_table()
    assert len({rule.code for rule in table}) == len(table)
    for rule in table:
        assert rule.code.startswith("CK")
        assert rule.profile == "craik"
        for part in ("**What it does**", "**Why is this bad?**", "**Example**", "**Use instead**"):
            assert part in rule.doc, (rule.code, part)


# --- CK101 validation-recorded-without-tests ---------------------------------------------------


def test_ck101_reports_validation_recorded_with_no_tests_run_at_the_box(tmp_path: Path) -> None:
    record = clean_handoff()
    record["tests_run"] = []
    [finding] = only(check_records(record, root=tmp_path), "CK101")
    assert finding.pointer == "/self_audit/validation_recorded"
    assert finding.line == line_of(record, '"validation_recorded"')
    assert "commands_run lists 1 command(s)" in finding.message


def test_ck101_is_quiet_when_tests_run_records_validation_or_the_box_is_false(tmp_path: Path) -> None:
    unchecked = clean_handoff()
    unchecked["tests_run"] = []
    unchecked["self_audit"]["validation_recorded"] = False
    assert only(check_records(clean_handoff(), unchecked, root=tmp_path), "CK101") == []


def test_ck101_reads_commands_and_validation_in_the_docs_shape(tmp_path: Path) -> None:
    record = docs_handoff()
    assert only(check_records(record, root=tmp_path), "CK101") == []
    record["commands_and_validation"] = []
    [finding] = only(check_records(record, root=tmp_path), "CK101")
    assert "commands_and_validation is empty" in finding.message


# --- CK102 receipts-reviewed-without-receipts -------------------------------------------------


def test_ck102_reports_receipts_reviewed_with_no_receipt_ids(tmp_path: Path) -> None:
    record = clean_handoff()
    record["receipt_ids"] = []
    [finding] = only(check_records(record, root=tmp_path), "CK102")
    assert finding.pointer == "/self_audit/receipts_reviewed"
    assert finding.line == line_of(record, '"receipts_reviewed"')


def test_ck102_is_quiet_with_receipts_or_an_unchecked_box(tmp_path: Path) -> None:
    unchecked = clean_handoff()
    unchecked["receipt_ids"] = []
    unchecked["self_audit"]["receipts_reviewed"] = False
    assert only(check_records(clean_handoff(), unchecked, root=tmp_path), "CK102") == []


def test_ck102_reads_receipts_in_the_docs_shape(tmp_path: Path) -> None:
    record = docs_handoff()
    record["receipts"] = []
    [finding] = only(check_records(record, root=tmp_path), "CK102")
    assert "receipts is empty" in finding.message


def test_ck102_is_quiet_on_a_record_of_mixed_shapes_that_links_receipts_under_the_other_name(
    tmp_path: Path,
) -> None:
    record = docs_handoff()
    record["receipts"] = []
    record["receipt_ids"] = ["receipt_pytest"]
    assert only(check_records(record, root=tmp_path), "CK102") == []


# --- CK103 unexplained-missing-validation ---------------------------------------------------------


def _unvalidated(status: str) -> dict[str, object]:
    record = clean_handoff()
    record.update(status=status, tests_run=[], risks=[], context_debt=[], next_steps=[])
    record["self_audit"]["validation_recorded"] = False  # type: ignore[index]
    return record


@pytest.mark.parametrize("status", ["incomplete", "blocked", "failed"])
def test_ck103_reports_an_unfinished_run_that_does_not_say_why_validation_is_missing(
    tmp_path: Path, status: str
) -> None:
    record = _unvalidated(status)
    [finding] = only(check_records(record, root=tmp_path), "CK103")
    assert finding.pointer == "/self_audit/validation_recorded"
    assert f"status {status!r}" in finding.message


def test_ck103_reports_a_paused_handoff_of_the_docs_shape(tmp_path: Path) -> None:
    record = docs_handoff()
    record.update(status="paused", context_debt=[], next_steps=[])
    record["self_audit"]["validation_recorded"] = False
    assert len(only(check_records(record, root=tmp_path), "CK103")) == 1


@pytest.mark.parametrize("field", ["risks", "context_debt", "next_steps"])
def test_ck103_is_quiet_when_risks_context_debt_or_next_steps_explain(tmp_path: Path, field: str) -> None:
    record = _unvalidated("blocked")
    record[field] = ["The staging database was down, so no tests ran."]
    assert only(check_records(record, root=tmp_path), "CK103") == []


def test_ck103_does_not_take_craiks_automatic_context_debt_line_for_an_explanation(tmp_path: Path) -> None:
    record = _unvalidated("blocked")
    record["context_debt"] = ["No case file was available for this handoff."]
    [finding] = only(check_records(record, root=tmp_path), "CK103")
    assert finding.pointer == "/self_audit/validation_recorded"


def test_ck103_is_quiet_for_a_completed_run(tmp_path: Path) -> None:
    assert only(check_records(_unvalidated("completed"), root=tmp_path), "CK103") == []


# --- CK104 completed-with-failed-validation ------------------------------------------------------


def test_ck104_reports_a_failed_test_entry_of_a_completed_handoff_at_that_entry(tmp_path: Path) -> None:
    record = clean_handoff()
    record["tests_run"] = ["ruff check ledger", "pytest -q: 2 failed, 12 passed"]
    [finding] = only(check_records(record, root=tmp_path), "CK104")
    assert finding.pointer == "/tests_run/1"
    assert finding.line == line_of(record, "2 failed")
    assert "'2 failed'" in finding.message


def test_ck104_reads_commands_run_too_and_counts_a_missing_status_as_completed(tmp_path: Path) -> None:
    record = clean_handoff()
    del record["status"]  # Craik's default
    record["commands_run"] = ["npm test (exit code 1)"]
    [finding] = only(check_records(record, root=tmp_path), "CK104")
    assert finding.pointer == "/commands_run/0"


def test_ck104_is_quiet_for_passing_runs_and_for_unfinished_handoffs(tmp_path: Path) -> None:
    passing = clean_handoff()
    passing["tests_run"] = [
        "pytest: 14 passed, 0 failed",
        "make check (exit 0)",
        "pytest --cov-fail-under=90",
    ]
    incomplete = clean_handoff()
    incomplete["status"] = "incomplete"
    incomplete["tests_run"] = ["pytest FAILED"]
    assert only(check_records(passing, incomplete, root=tmp_path), "CK104") == []


def test_ck104_reads_command_objects_of_the_docs_shape(tmp_path: Path) -> None:
    record = docs_handoff()
    record["commands_and_validation"] = [
        {"command": "pytest", "exit_code": 0},
        {"command": "mypy", "exit_code": 2},
    ]
    [finding] = only(check_records(record, root=tmp_path), "CK104")
    assert finding.pointer == "/commands_and_validation/1/exit_code"


# --- CK105 redaction-reviewed-with-secret -------------------------------------------------------

TOKEN = "ghp_" + "Ab3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5"


def test_ck105_reports_redaction_reviewed_when_a_string_holds_a_secret_without_quoting_it(
    tmp_path: Path,
) -> None:
    record = clean_handoff()
    record["risks"] = [f"deploys with GITHUB_TOKEN={TOKEN}"]
    findings = check_records(record, root=tmp_path)
    [finding] = only(findings, "CK105")
    assert finding.pointer == "/self_audit/redaction_reviewed"
    assert "/risks/0 holds a possible GitHub token" in finding.message
    assert finding.related
    assert finding.related[0][1] == line_of(record, "GITHUB_TOKEN")
    assert all(TOKEN[4:12] not in f.message for f in findings)


def test_ck105_is_quiet_without_a_secret_or_with_an_unchecked_box(tmp_path: Path) -> None:
    unchecked = clean_handoff()
    unchecked["risks"] = [f"deploys with GITHUB_TOKEN={TOKEN}"]
    unchecked["self_audit"]["redaction_reviewed"] = False
    findings = check_records(clean_handoff(), unchecked, root=tmp_path)
    assert only(findings, "CK105") == []
    assert only(findings, "HX001")  # the secret itself is still reported


# --- CK106 undisclosed-policy-exceptions ----------------------------------------------------------


@pytest.mark.parametrize(("exceptions", "told"), [([], "names none"), (["network open"], "lists 1")])
def test_ck106_warns_when_policy_exceptions_are_not_all_disclosed(
    tmp_path: Path, exceptions: list[str], told: str
) -> None:
    record = clean_handoff()
    record["policy_exceptions"] = exceptions
    record["self_audit"]["policy_exceptions_disclosed"] = False
    [finding] = only(check_records(record, root=tmp_path), "CK106")
    assert finding.severity == Severity.WARNING
    assert finding.pointer == "/self_audit/policy_exceptions_disclosed"
    assert told in finding.message


def test_ck106_is_quiet_when_disclosed_with_or_without_exceptions(tmp_path: Path) -> None:
    listed = clean_handoff()
    listed["policy_exceptions"] = ["network access allowed for the package index"]
    assert only(check_records(clean_handoff(), listed, root=tmp_path), "CK106") == []


# --- CK010 docs-shaped-record ---------------------------------------------------------------------


def test_ck010_warns_at_each_docs_field_name_and_docs_status(tmp_path: Path) -> None:
    record = docs_handoff()
    record["status"] = "requires_review"
    findings = only(check_records(record, root=tmp_path), "CK010")
    assert sorted(f.pointer for f in findings) == [
        "/commands_and_validation", "/files_and_artifacts", "/memory_proposals", "/receipts", "/status",
    ]  # fmt: skip
    receipts = next(f for f in findings if f.pointer == "/receipts")
    assert (receipts.line, receipts.column) == (line_of(record, '"receipts"'), 3)  # at the key
    assert "receipt_ids" in receipts.message


def test_ck010_is_quiet_for_the_code_shape(tmp_path: Path) -> None:
    assert only(check_records(clean_handoff(), root=tmp_path), "CK010") == []


# --- quality scores ---------------------------------------------------------------------------------


def test_ck201_reports_a_band_that_does_not_fit_the_score(tmp_path: Path) -> None:
    score = clean_score()
    score["band"] = "adequate"
    [finding] = only(check_records(clean_handoff(), score, root=tmp_path), "CK201")
    assert finding.pointer == "/band"
    assert "'excellent'" in finding.message


@pytest.mark.parametrize(("value", "band"), [(0.85, "excellent"), (0.6, "adequate"), (0.5999, "poor")])
def test_ck201_is_quiet_at_the_band_boundaries(tmp_path: Path, value: float, band: str) -> None:
    score = clean_score()
    score.update(score=value, band=band, components=[{"name": "summary", "score": value, "weight": 0.5,
                                                      "rationale": "x"}])  # fmt: skip
    assert only(check_records(score, root=tmp_path), "CK201") == []


def test_ck202_reports_a_poor_score_without_blocking_reasons_and_not_one_with_them(tmp_path: Path) -> None:
    score = clean_score()
    score.update(score=0.5, band="poor", blocking_reasons=[],
                 components=[{"name": "summary", "score": 0.5, "weight": 1, "rationale": "x"}])  # fmt: skip
    [finding] = only(check_records(score, root=tmp_path), "CK202")
    assert finding.pointer == "/blocking_reasons"
    score["blocking_reasons"] = ["Validation records are missing or not self-audited."]
    assert only(check_records(score, root=tmp_path), "CK202") == []


def test_ck203_reports_a_score_that_is_not_the_weighted_mean_of_its_components(tmp_path: Path) -> None:
    score = clean_score()
    score["score"] = 0.88
    [finding] = only(check_records(score, root=tmp_path), "CK203")
    assert finding.pointer == "/score"
    assert "(0.8909)" in finding.message


def test_ck203_allows_the_rounding_to_four_places(tmp_path: Path) -> None:
    score = clean_score()
    score["score"] = 0.89085  # 0.890909... within 1e-4
    assert only(check_records(score, root=tmp_path), "CK203") == []


def test_ck204_reports_a_component_that_disagrees_with_the_handoff_at_the_component(tmp_path: Path) -> None:
    handoff = clean_handoff()
    handoff["receipt_ids"] = []
    handoff["self_audit"]["receipts_reviewed"] = False
    findings = only(check_records(handoff, clean_score(), root=tmp_path), "CK204")
    receipt = next(f for f in findings if f.pointer == "/components/3/score")
    assert "'receipt_links' scores 1.0" in receipt.message
    assert "receipt_ids is empty" in receipt.message
    assert receipt.related[0][0].endswith("record_0.craik.json")
    # the total follows: 1.1 - 0.12 (context debt) - 0.14 (receipts) - 0.16 (audit) over 1.1
    total = next(f for f in findings if f.pointer == "/score")
    assert "(0.6182)" in total.message


def test_ck204_reports_a_weight_other_than_craiks(tmp_path: Path) -> None:
    score = clean_score()
    score["components"][0]["weight"] = 0.2
    findings = only(check_records(clean_handoff(), score, root=tmp_path), "CK204")
    assert [f.pointer for f in findings] == ["/components/0/weight"]


def test_ck204_accepts_a_score_listing_some_components_when_the_total_agrees(tmp_path: Path) -> None:
    handoff = clean_handoff()
    handoff["context_debt"] = []
    score = clean_score()
    score.update(score=1.0, components=score["components"][:3], blocking_reasons=[])
    assert check_records(handoff, score, root=tmp_path) == []


def test_ck204_reports_a_task_or_project_other_than_the_handoffs(tmp_path: Path) -> None:
    score = clean_score()
    score["task_id"] = "task_invoice_import"
    [finding] = only(check_records(clean_handoff(), score, root=tmp_path), "CK204")
    assert finding.pointer == "/task_id"
    assert "'task_invoice_export'" in finding.message


def test_ck204_does_not_recompute_from_an_invalid_handoff(tmp_path: Path) -> None:
    handoff = clean_handoff()
    handoff["receipt_ids"] = "receipt_invoice_pytest"  # not a list: HS001
    findings = check_records(handoff, clean_score(), root=tmp_path)
    assert "HS001" in codes(findings)
    assert only(findings, "CK204") == []


def test_ck205_warns_of_a_score_whose_handoff_is_not_in_the_group(tmp_path: Path) -> None:
    [finding] = only(check_records(clean_score(), root=tmp_path), "CK205")
    assert finding.severity == Severity.WARNING
    assert finding.pointer == "/handoff_id"
    assert only(check_records(clean_handoff(), clean_score(), root=tmp_path), "CK205") == []


# --- what is not a Craik record ---------------------------------------------------------------------


def test_a_craik_named_file_that_is_no_craik_record_is_reported_hs002(tmp_path: Path) -> None:
    [finding] = check_records({"name": "settings"}, root=tmp_path)
    assert finding.code == "HS002"
    assert "not a Craik handoff record" in finding.message
    [array] = check_records([1, 2], root=tmp_path)
    assert array.code == "HS002"
    assert "got list" in array.message


def test_hs002_suggests_the_craik_schema_closest_to_a_misspelt_one(tmp_path: Path) -> None:
    [finding] = check_records({**clean_handoff(), "schema": "crak.handoff"}, root=tmp_path)
    assert (finding.code, finding.pointer) == ("HS002", "/schema")
    assert finding.message.endswith("; did you mean 'craik.handoff'?")


def test_another_craik_contract_is_not_checked(tmp_path: Path) -> None:
    assert check_records({"schema": "craik.case_file", "id": "case_1"}, root=tmp_path) == []


def test_ck103_reads_context_debt_entries_that_are_objects(tmp_path: Path) -> None:
    record = docs_handoff()
    record.update(status="paused", context_debt=[{"note": "fixtures missing"}], next_steps=[])
    record["self_audit"]["validation_recorded"] = False
    assert only(check_records(record, root=tmp_path), "CK103") == []
