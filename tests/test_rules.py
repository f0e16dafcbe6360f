"""Each contract rule on both sides: our primary chain, which passes, and the same chain broken on purpose.

The chain is checked in process by the pipeline (no pytest session: the plugin has tests of its
own); each test reads the report text pytest would show for it, and the trace.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.pipeline.config import load_settings
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.pipeline.run import check_paths
from pytest_handoff.plugin.items import one_line, render_failure
from pytest_handoff.values.findings import Severity
from tests.conftest import SAMPLE_CHAIN, ChainFolder, copy_chain


class Checked:
    """The chains of the project checked in process: their verdicts, report text and trace."""

    def __init__(self, root: Path) -> None:
        settings = load_settings(root, tables=default_registry())
        _, self.results = check_paths([], root, settings, jobs=1, registry=default_registry())
        lines = [line for result in self.results for line in render_failure(result).splitlines()]
        # pytest's warnings summary shows each warning finding on one line.
        lines += [one_line(f) for r in self.results for f in r.findings if f.severity == Severity.WARNING]
        lines += ["handoff trace", *(note for result in self.results for note in result.notes)]
        self.stdout = pytest.LineMatcher(lines)

    def assert_outcomes(self, passed: int = 0, failed: int = 0, warnings: int | None = None) -> None:
        """As pytest would count them: a chain fails on an error, and each warning finding warns."""
        verdicts = [result.failed for result in self.results]
        assert (verdicts.count(False), verdicts.count(True)) == (passed, failed)
        if warnings is not None:
            warned = sum(f.severity == Severity.WARNING for result in self.results for f in result.findings)
            assert warned == warnings


Run = Callable[..., Checked]


@pytest.fixture
def run_handoffs(pytester: pytest.Pytester) -> Run:
    """Check the project's chains in process (pytest's own options, such as ``-rA``, change nothing here)."""

    def run(*pytest_options: str) -> Checked:
        return Checked(pytester.path)

    return run


DEV, TEST, REVIEW, BA = "02-dev-agent.json", "03-test-agent.json", "04-review-agent.json", "01-ba-agent.json"


def expect_finding(
    result: Checked, chain: ChainFolder, pytester: pytest.Pytester, name: str, line: int, code: str
) -> None:
    """The output names ``file:line:col`` and the rule code of the finding."""
    result.stdout.fnmatch_lines([f"*{chain.relative(name, pytester.path)}:{line}:*: {code} *"])


def expect_no(result: Checked, code: str) -> None:
    result.stdout.no_fnmatch_line(f"*: {code} *")


def test_the_primary_chain_passes_without_a_finding(sample_chain: ChainFolder, run_handoffs: Run) -> None:
    result = run_handoffs("-W", "always")
    result.assert_outcomes(passed=1, warnings=0)
    result.stdout.no_fnmatch_line("*: [HN][FSRX][0-9]* *")


# --- loading and schema ----------------------------------------------------------


def test_it_reports_a_byte_order_mark_at_the_first_character(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    path = sample_chain.path(DEV)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(result, sample_chain, pytester, DEV, 1, "HF001")


def test_it_reports_a_syntax_error_where_the_parser_stopped(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    path = sample_chain.path(TEST)
    path.write_text(path.read_text().replace('"failing": 3,', '"failing": 3,,'))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    line = sample_chain.line_of(TEST, '"failing": 3,,')
    result.stdout.fnmatch_lines(
        [f"*{sample_chain.relative(TEST, pytester.path)}:{line}:18: HF002 invalid-json*"]
    )


def test_it_reports_both_positions_of_a_duplicate_key(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    path = sample_chain.path(REVIEW)
    path.write_text(
        path.read_text().replace('"quality_score": 6,', '"quality_score": 6,\n  "quality_score": 9,')
    )
    first, second = (
        sample_chain.line_of(REVIEW, '"quality_score"'),
        sample_chain.line_of(REVIEW, '"quality_score"', 1),
    )
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"*{sample_chain.relative(REVIEW, pytester.path)}:{second}:3: HF003 duplicate-key*",
            f"*first defined at line {first}, column 3*",
        ]
    )


def test_it_rejects_nan_as_a_number(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    path = sample_chain.path(REVIEW)
    path.write_text(path.read_text().replace('"quality_score": 6,', '"quality_score": NaN,'))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(result, sample_chain, pytester, REVIEW, sample_chain.line_of(REVIEW, "NaN"), "HF004")


def test_a_missing_property_is_reported_at_the_object_that_lacks_it(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(TEST, lambda d: d["test_summary"].pop("skipped"))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    line = sample_chain.line_of(TEST, '"test_summary"')
    result.stdout.fnmatch_lines(
        [
            f"*{sample_chain.relative(TEST, pytester.path)}:{line}:19: HS001 schema-violation*at /test_summary",
            "*missing required property 'skipped'*",
        ]
    )


def test_an_unexpected_property_is_reported_at_its_key(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(DEV, lambda d: d["unit_tests_written"].update(flaky=2))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    line = sample_chain.line_of(DEV, '"flaky"')
    result.stdout.fnmatch_lines(
        [
            f"*{sample_chain.relative(DEV, pytester.path)}:{line}:5: HS001 *at /unit_tests_written/flaky",
            "*unexpected property 'flaky'*",
        ]
    )


def test_two_coverage_gaps_break_the_schema_at_the_list(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(DEV, lambda d: d.update(coverage_gaps=d["coverage_gaps"][:2]))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(result, sample_chain, pytester, DEV, sample_chain.line_of(DEV, '"coverage_gaps"'), "HS001")
    result.stdout.fnmatch_lines(["*has 2 item(s); at least 3 required*"])


def test_a_timestamp_that_is_not_a_date_time_is_a_schema_violation(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(BA, lambda d: d.update(timestamp="2026-03-22 14:30"))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(result, sample_chain, pytester, BA, sample_chain.line_of(BA, '"timestamp"'), "HS001")
    result.stdout.fnmatch_lines(["*is not a valid date-time*"])


def test_an_unknown_handoff_type_is_reported_at_the_field(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(DEV, lambda d: d.update(handoff_type="dev-to-test"))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(result, sample_chain, pytester, DEV, 2, "HS002")


# --- layout -----------------------------------------------------------------------


def test_an_unknown_agent_in_a_file_name_is_reported(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    shutil.copyfile(sample_chain.path(REVIEW), sample_chain.path("05-qa-agent.json"))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(result, sample_chain, pytester, "05-qa-agent.json", 1, "NR101")


def test_a_configured_agent_is_known(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    shutil.copyfile(sample_chain.path(REVIEW), sample_chain.path("05-qa-agent.json"))
    pytester.makepyprojecttoml('[tool.handoff.neuralrelay]\nagents = { qa-agent = "review_final" }\n')
    result = run_handoffs()
    expect_no(result, "NR101")


def test_a_security_agent_writing_a_review_is_a_type_mismatch(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    shutil.copyfile(sample_chain.path(REVIEW), sample_chain.path("05-security-agent.json"))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(result, sample_chain, pytester, "05-security-agent.json", 2, "NR102")


def test_a_gap_in_the_sequence_names_the_missing_number(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.path(REVIEW).rename(sample_chain.path("05-review-agent.json"))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(result, sample_chain, pytester, "05-review-agent.json", 1, "NR103")
    result.stdout.fnmatch_lines(["*sequence jumps to 05: 04 missing*"])


def test_a_test_handoff_numbered_before_the_dev_handoff_breaks_stage_order(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.path(DEV).rename(sample_chain.path("tmp"))
    sample_chain.path(TEST).rename(sample_chain.path("02-test-agent.json"))
    sample_chain.path("tmp").rename(sample_chain.path("03-dev-agent.json"))
    sample_chain.edit("02-test-agent.json", lambda d: d.update(timestamp="2026-05-11T09:30:00Z"))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(result, sample_chain, pytester, "03-dev-agent.json", 2, "NR104")


def test_a_timestamp_going_backwards_is_reported(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(TEST, lambda d: d.update(timestamp="2026-05-11T09:00:00Z"))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(result, sample_chain, pytester, TEST, sample_chain.line_of(TEST, '"timestamp"'), "NR105")


def test_a_chain_without_its_review_is_incomplete_as_a_warning(
    sample_chain: ChainFolder, run_handoffs: Run
) -> None:
    sample_chain.path(REVIEW).unlink()
    result = run_handoffs()
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(["*NR106*incomplete: no review_final handoff*"])


def test_incomplete_chains_can_be_made_errors(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.path(REVIEW).unlink()
    pytester.makepyprojecttoml('[tool.handoff]\nseverity = { NR106 = "error" }\n')
    run_handoffs().assert_outcomes(failed=1)


def test_a_quick_mode_chain_with_inline_requirements_is_complete(
    sample_chain: ChainFolder, run_handoffs: Run
) -> None:
    sample_chain.path(BA).unlink()
    for old, new in (
        (DEV, "01-dev-agent.json"),
        (TEST, "02-test-agent.json"),
        (REVIEW, "03-review-agent.json"),
    ):
        sample_chain.path(old).rename(sample_chain.path(new))
    sample_chain.edit(
        "01-dev-agent.json", lambda d: d.update(inline_requirements=["Book and cancel clinic appointments"])
    )
    result = run_handoffs()
    result.assert_outcomes(passed=1)
    expect_no(result, "NR106")
    expect_no(result, "NR103")


@pytest.mark.parametrize(
    "folder",
    [
        "clinic-booking",
        "20261322-143052",  # month 13
        "\uff12\uff10\uff12\uff16\uff10\uff13\uff12\uff12-\uff11\uff14\uff13\uff10\uff15\uff12",  # full-width digits
    ],
)
def test_a_chain_folder_not_named_by_its_start_time_is_reported(
    pytester: pytest.Pytester, run_handoffs: Run, folder: str
) -> None:
    copy_chain(SAMPLE_CHAIN, pytester.path / ".neuralrelay" / "handoffs" / folder)
    result = run_handoffs()
    result.stdout.fnmatch_lines(["*01-ba-agent.json:1:1: NR107 chain-id*"])


# --- per handoff --------------------------------------------------------------------


def test_a_repeated_coverage_gap_is_reported_at_the_repeat(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(DEV, lambda d: d["coverage_gaps"].append("  " + d["coverage_gaps"][1].upper() + " "))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(
        result,
        sample_chain,
        pytester,
        DEV,
        sample_chain.line_of(DEV, "  LIST_FREE_SLOTS ON THE DAYS"),
        "NR201",
    )


def test_a_placeholder_coverage_gap_is_reported(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(DEV, lambda d: d["coverage_gaps"].append("needs more testing"))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(
        result, sample_chain, pytester, DEV, sample_chain.line_of(DEV, '"needs more testing"'), "NR202"
    )


def test_a_specific_gap_that_mentions_more_tests_is_fine(
    sample_chain: ChainFolder, run_handoffs: Run
) -> None:
    sample_chain.edit(
        DEV,
        lambda d: d["coverage_gaps"].append(
            "needs more testing of cancel_appointment for clinics whose timezone column is NULL"
        ),
    )
    expect_no(run_handoffs(), "NR202")


def test_a_vague_acceptance_criterion_is_quoted_as_a_warning(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(
        BA, lambda d: d["acceptance_criteria"].append("The booking page should work as expected")
    )
    result = run_handoffs()
    expect_finding(
        result, sample_chain, pytester, BA, sample_chain.line_of(BA, "should work as expected"), "NR203"
    )
    result.stdout.fnmatch_lines(['*untestable wording "should work"*'])


def test_a_placeholder_counterexample_is_reported(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(TEST, lambda d: d["bugs_found"][2].update(counterexample="see above"))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(result, sample_chain, pytester, TEST, sample_chain.line_of(TEST, '"see above"'), "NR204")


def test_an_abstract_counterexample_is_reported(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(
        TEST, lambda d: d["bugs_found"][2].update(counterexample="Cancelling fails for some appointments")
    )
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(
        result, sample_chain, pytester, TEST, sample_chain.line_of(TEST, "Cancelling fails"), "NR205"
    )


def test_a_long_counterexample_is_a_warning_with_a_configurable_bound(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(TEST, lambda d: d["bugs_found"][0].update(counterexample="f(1) " * 140))
    result = run_handoffs()
    result.stdout.fnmatch_lines(["*NR206*700 characters long; keep it under 600*"])
    pytester.makepyprojecttoml("[tool.handoff.neuralrelay]\nmax-counterexample-length = 1000\n")
    expect_no(run_handoffs(), "NR206")


def test_a_reviewer_focus_without_a_file_is_reported(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(
        TEST, lambda d: d.update(recommended_focus_for_reviewer="Look at the slot handling carefully")
    )
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(
        result, sample_chain, pytester, TEST, sample_chain.line_of(TEST, "recommended_focus"), "NR207"
    )


def test_test_counts_that_do_not_add_up_are_reported_at_the_total(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(TEST, lambda d: d["test_summary"].update(failing=1))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(result, sample_chain, pytester, TEST, sample_chain.line_of(TEST, '"total"'), "NR208")


def test_counts_that_include_skipped_tests_add_up(sample_chain: ChainFolder, run_handoffs: Run) -> None:
    sample_chain.edit(TEST, lambda d: d["test_summary"].update(total=39))
    expect_no(run_handoffs(), "NR208")


def test_more_unit_tests_passing_than_written_is_reported(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(DEV, lambda d: d["unit_tests_written"].update(passing=24))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(result, sample_chain, pytester, DEV, sample_chain.line_of(DEV, '"passing"'), "NR209")


def raise_first_issue_to_high(data: Any) -> None:
    data["issues"][0]["severity"] = "high"


def test_an_approval_over_high_issues_is_an_error(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(REVIEW, raise_first_issue_to_high)
    sample_chain.edit(REVIEW, lambda d: d.update(verdict="approved", quality_score=8))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(result, sample_chain, pytester, REVIEW, sample_chain.line_of(REVIEW, '"verdict"'), "NR210")


def test_an_approval_with_a_low_score_is_an_error(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    def approve(data: Any) -> None:
        data.update(verdict="approved", quality_score=6)
        for issue in data["issues"]:
            issue["severity"] = "low"

    sample_chain.edit(REVIEW, approve)
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*NR210 approved-with-blockers*", "*approved with quality score 6*"])


def test_a_review_requesting_changes_with_score_9_is_a_warning(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(REVIEW, lambda d: d.update(quality_score=9))
    result = run_handoffs()
    result.assert_outcomes(passed=1)
    line = sample_chain.line_of(REVIEW, '"quality_score"')
    expect_finding(result, sample_chain, pytester, REVIEW, line, "NR211")


def test_a_high_issue_under_changes_requested_is_a_warning_at_its_severity(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(REVIEW, raise_first_issue_to_high)
    result = run_handoffs()
    result.assert_outcomes(passed=1)
    line = sample_chain.line_of(REVIEW, '"severity": "high"')
    expect_finding(result, sample_chain, pytester, REVIEW, line, "NR212")


def test_nr211_a_review_requesting_changes_with_score_7_fits_as_neuralrelays_calibration_allows(
    sample_chain: ChainFolder, run_handoffs: Run
) -> None:
    sample_chain.edit(REVIEW, lambda d: d.update(quality_score=7))
    expect_no(run_handoffs(), "NR211")


def test_high_issues_under_needs_rework_are_fine(sample_chain: ChainFolder, run_handoffs: Run) -> None:
    sample_chain.edit(REVIEW, raise_first_issue_to_high)
    sample_chain.edit(REVIEW, lambda d: d.update(verdict="needs_rework", quality_score=3))
    result = run_handoffs()
    expect_no(result, "NR212")
    expect_no(result, "NR211")


# --- across the chain ---------------------------------------------------------------


def test_an_unclassified_property_is_reported_at_the_property(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(
        DEV,
        lambda d: d["properties_believed"].append(
            {
                "property": "cancel_appointment emails the owner a cancellation notice",
                "confidence": "low",
                "evidence": "manual check",
            }
        ),
    )
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(
        result,
        sample_chain,
        pytester,
        DEV,
        sample_chain.line_of(DEV, "emails the owner a cancellation"),
        "NR301",
    )


def test_a_property_classified_twice_is_reported_at_the_second_entry(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(
        TEST,
        lambda d: d["property_verification"]["inconclusive"].append(
            "book_slot is idempotent for a repeated Idempotency-Key — but only checked on one database"
        ),
    )
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(
        result,
        sample_chain,
        pytester,
        TEST,
        sample_chain.line_of(TEST, "only checked on one database"),
        "NR302",
    )


def test_an_orphan_classification_is_reported(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(
        TEST, lambda d: d["property_verification"]["confirmed"].append("Dark mode renders in every browser")
    )
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(
        result, sample_chain, pytester, TEST, sample_chain.line_of(TEST, "Dark mode renders"), "NR303"
    )


def test_an_explicit_reference_wins_over_reworded_text(sample_chain: ChainFolder, run_handoffs: Run) -> None:
    sample_chain.edit(
        TEST,
        lambda d: d["property_verification"].update(
            inconclusive=["[P5] exactly-once email — needs a real SMTP relay"]
        ),
    )
    result = run_handoffs("-rA")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*inconclusive[[]0[]] -> P5 (explicit reference)*"])


def test_the_trace_shows_which_entry_matched_which_property(
    sample_chain: ChainFolder, run_handoffs: Run
) -> None:
    result = run_handoffs("-rA")
    result.stdout.fnmatch_lines(
        [
            "*handoff trace*",
            "*confirmed[[]1[]] -> P2 (restated prefix) score 2.00*",
            '*AC1 traced: "/api/v1/clinics/{clinic_id}/slots" in 02-dev-agent.json /files_changed/0/summary*',
            "*AC6 traced: shared words: address, clinic, confirmat, date, email, local in 02-dev-agent.json*",
            '*AC7 traced: "closing day" in 02-dev-agent.json /files_changed/3/summary*',
        ]
    )


def test_a_falsified_property_without_a_bug_is_reported(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(TEST, lambda d: d.update(bugs_found=[d["bugs_found"][1]]))  # the DST bug only
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(
        result,
        sample_chain,
        pytester,
        TEST,
        sample_chain.line_of(TEST, "After cancel_appointment the freed slot"),
        "NR304",
    )


def test_an_unexplained_inconclusive_property_is_a_warning(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(TEST, lambda d: d.update(remaining_risks=["Load behaviour on Safari untested"]))
    result = run_handoffs()
    result.assert_outcomes(passed=1)
    expect_finding(
        result,
        sample_chain,
        pytester,
        TEST,
        sample_chain.line_of(TEST, "The confirmation email is sent at most once"),
        "NR305",
    )


HOLIDAY_PAGE = "Receptionists can export the week's bookings as a PDF rota listing each vet's name"


def test_a_criterion_no_later_handoff_mentions_is_an_error_at_the_criterion(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(BA, lambda d: d["acceptance_criteria"].append(HOLIDAY_PAGE))
    result = run_handoffs("-rA")
    result.assert_outcomes(failed=1)
    expect_finding(result, sample_chain, pytester, BA, sample_chain.line_of(BA, HOLIDAY_PAGE), "NR306")
    result.stdout.fnmatch_lines(["*AC9 untraced: looked for*"])


def test_nr306_is_not_reported_while_a_later_handoff_that_might_trace_it_is_invalid(
    sample_chain: ChainFolder, run_handoffs: Run
) -> None:
    sample_chain.edit(BA, lambda d: d["acceptance_criteria"].append(HOLIDAY_PAGE))
    sample_chain.edit(TEST, lambda d: d.pop("remaining_risks"))  # a schema error of its own
    result = run_handoffs("-rA")
    expect_no(result, "NR306")
    result.stdout.fnmatch_lines(["*AC9 not reported while 03-test-agent.json is invalid*"])


def test_nr306_is_not_reported_while_a_later_handoff_cannot_be_read(
    sample_chain: ChainFolder, run_handoffs: Run
) -> None:
    sample_chain.edit(BA, lambda d: d["acceptance_criteria"].append(HOLIDAY_PAGE))
    sample_chain.path(TEST).write_text("{ not json", encoding="utf-8")
    result = run_handoffs("-rA")
    expect_no(result, "NR306")
    result.stdout.fnmatch_lines(["*AC9 not reported while 03-test-agent.json is invalid*"])


def test_nr306_is_reported_when_the_invalid_handoffs_own_finding_is_not_an_error(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(BA, lambda d: d["acceptance_criteria"].append(HOLIDAY_PAGE))
    sample_chain.edit(TEST, lambda d: d.pop("remaining_risks"))
    pytester.makepyprojecttoml('[tool.handoff]\nignore = ["HS001"]\n')
    result = run_handoffs("-rA")
    expect_finding(result, sample_chain, pytester, BA, sample_chain.line_of(BA, HOLIDAY_PAGE), "NR306")


def test_an_explicit_criterion_reference_traces_it(sample_chain: ChainFolder, run_handoffs: Run) -> None:
    sample_chain.edit(BA, lambda d: d["acceptance_criteria"].append(HOLIDAY_PAGE))
    sample_chain.edit(
        TEST,
        lambda d: d["remaining_risks"].append("AC9 (the weekly PDF rota) checked manually in a browser"),
    )
    expect_no(run_handoffs(), "NR306")


def test_a_token_total_below_the_agents_tokens_is_reported(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(REVIEW, lambda d: d.update(total_tokens=50000))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(
        result, sample_chain, pytester, REVIEW, sample_chain.line_of(REVIEW, '"total_tokens"'), "NR307"
    )
    result.stdout.fnmatch_lines(["*less than the agents' own 65,500*"])


def rework(cycle: int, verdict: str = "changes_requested") -> dict[str, Any]:
    return {
        "rework_cycle": cycle,
        "original_review_path": ".neuralrelay/handoffs/20260511-091500/04-review-agent.json",
        "issues_to_address": ["Clear the slot cache when an appointment is cancelled"],
        "focus_areas": ["app/services/booking.py:88-104"],
        "verdict": verdict,
    }


def test_a_rework_after_changes_were_requested_passes(sample_chain: ChainFolder, run_handoffs: Run) -> None:
    sample_chain.write("rework-1.json", rework(1))
    result = run_handoffs()
    result.assert_outcomes(passed=1)
    expect_no(result, "NR308")


def test_a_rework_after_an_approval_is_reported(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    def approve(data: Any) -> None:
        data.update(verdict="approved", quality_score=8)
        for issue in data["issues"]:
            issue["severity"] = "low"

    sample_chain.edit(REVIEW, approve)
    sample_chain.write("rework-1.json", rework(1))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(result, sample_chain, pytester, "rework-1.json", 1, "NR308")


def test_a_third_rework_cycle_is_reported(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    for cycle in (1, 2, 3):
        sample_chain.write(f"rework-{cycle}.json", rework(cycle))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    expect_finding(result, sample_chain, pytester, "rework-3.json", 1, "NR309")
    expect_no(result, "NR308")


def test_a_rework_file_is_validated_against_the_rework_schema(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.path("rework-1.json").write_text(json.dumps({**rework(1), "rework_cycle": 0}))
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*rework-1.json:1:*: HS001 *at /rework_cycle*"])


def test_criterion_tracing_points_at_strings_with_escaped_json_pointers() -> None:
    from pytest_handoff.profiles.neuralrelay.tracing import _strings

    document = {"a/b": {"c~d": ["x", {"e": "y"}]}, "plain": "z", "n": 3, "list": [[], ["w"]]}
    strings = _strings(document)
    pointers = {text: strings.pointer(index) for index, text in enumerate(strings.texts)}
    assert pointers == {"x": "/a~1b/c~0d/0", "y": "/a~1b/c~0d/1/e", "z": "/plain", "w": "/list/1/0"}
    assert strings.texts == ["x", "y", "z", "w"]  # document order
    assert _strings("just text").pointer(0) == ""
