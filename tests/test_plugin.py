"""How ``pytest --handoffs`` collects, names, runs and reports handoff chains."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import (
    CHAIN_ID,
    EXAMPLES,
    OTHER_CHAIN,
    OTHER_CHAIN_ID,
    SAMPLE_CHAIN,
    ChainFolder,
    a_test_breaking_the_review,
    copy_chain,
)

Run = Callable[..., pytest.RunResult]
DEV, TEST, REVIEW = "02-dev-agent.json", "03-test-agent.json", "04-review-agent.json"


def break_review(chain: ChainFolder) -> None:
    chain.edit(REVIEW, lambda d: d.update(total_tokens=10))


def warn_on_review(chain: ChainFolder) -> None:
    """A high issue under 'changes_requested': one NR212 warning."""
    chain.edit(REVIEW, lambda d: d["issues"][0].update(severity="high"))


def add_other_chain(pytester: pytest.Pytester, group_id: str = OTHER_CHAIN_ID) -> None:
    copy_chain(OTHER_CHAIN, pytester.path / ".neuralrelay" / "handoffs" / group_id)


def test_plain_pytest_does_not_collect_handoffs(sample_chain: ChainFolder, pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


@pytest.mark.slow
def test_plain_pytest_loads_nothing_of_the_engine(
    sample_chain: ChainFolder, pytester: pytest.Pytester
) -> None:
    """Every pytest run loads the plugin; without --handoffs it must not cost the engine's imports."""
    pytester.makepyfile(
        test_modules="""
        import sys

        def test_only_the_plugin_module_is_loaded():
            loaded = {name for name in sys.modules if name.startswith("pytest_handoff")}
            assert "pytest_handoff.plugin" in loaded  # the plugin is loaded: its imports are what is seen
            assert loaded <= {
                "pytest_handoff", "pytest_handoff.version", "pytest_handoff.values", "pytest_handoff.values.errors", "pytest_handoff.plugin.hookspecs",
                "pytest_handoff.plugin", "pytest_handoff.plugin.base",
                "pytest_handoff.plugin.ending",  # every session counts (it imports only gc)
            }, sorted(loaded)
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:hypothesispytest")
    result.assert_outcomes(passed=1)


def test_it_collects_one_item_per_chain_from_the_repository_root(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    add_other_chain(pytester)
    result = run_handoffs("--collect-only", "-q")
    result.stdout.fnmatch_lines(
        [
            f".neuralrelay/handoffs/{CHAIN_ID}::{CHAIN_ID}",
            f".neuralrelay/handoffs/{OTHER_CHAIN_ID}::{OTHER_CHAIN_ID}",
            "2 tests collected*",
        ]
    )


def test_it_collects_a_chain_directory_named_on_the_command_line(
    sample_chain: ChainFolder, run_handoffs: Run
) -> None:
    result = run_handoffs(str(sample_chain.directory), "--collect-only", "-q")
    result.stdout.fnmatch_lines([f"*::{CHAIN_ID}", "1 test collected*"])


def test_naming_one_file_narrows_the_report_to_that_file(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.edit(DEV, lambda d: d["unit_tests_written"].update(passing=99))
    # A break of the review alone: nothing in it points at the dev handoff.
    sample_chain.edit(REVIEW, lambda d: d.update(verdict="maybe"))
    result = run_handoffs(str(sample_chain.path(DEV)))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*02-dev-agent.json:*: NR209 *", f"*::{CHAIN_ID}[[]02-dev-agent.json[]]*"])
    result.stdout.no_fnmatch_line("*04-review-agent.json*")


def test_cross_handoff_findings_are_located_in_the_named_file(
    sample_chain: ChainFolder, run_handoffs: Run
) -> None:
    sample_chain.edit(
        DEV,
        lambda d: d["properties_believed"].append(
            {
                "property": "cancel_appointment emails the owner a cancellation notice",
                "confidence": "low",
                "evidence": "manual",
            }
        ),
    )
    run_handoffs(str(sample_chain.path(DEV))).assert_outcomes(failed=1)
    run_handoffs(str(sample_chain.path(REVIEW))).assert_outcomes(passed=1)


def test_keywords_select_chains_by_agent_and_handoff_type(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    quick = ChainFolder(pytester.path / ".neuralrelay" / "handoffs" / "20260401-090000")
    quick.directory.mkdir(parents=True)
    quick.write("01-dev-agent.json", sample_chain.load(DEV))
    result = run_handoffs("--collect-only", "-q", "-k", "ba-agent")
    result.stdout.fnmatch_lines([f"*{CHAIN_ID}*", "1/2 tests collected (1 deselected)*"])
    result = run_handoffs("--collect-only", "-q", "-k", "review_final")
    result.stdout.fnmatch_lines([f"*{CHAIN_ID}*", "1/2 tests collected (1 deselected)*"])
    run_handoffs("--collect-only", "-q", "-k", "20260401").stdout.fnmatch_lines(["1/2 tests collected*"])


def test_a_failure_names_file_line_column_rule_and_pointer_and_shows_the_source(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    break_review(sample_chain)
    warn_on_review(sample_chain)
    line = sample_chain.line_of(REVIEW, '"total_tokens"')
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"handoff chain {CHAIN_ID}: 1 error, 1 warning in 1 file",
            f"*.neuralrelay/handoffs/{CHAIN_ID}/04-review-agent.json (1 error, 1 warning)",
            f"*.neuralrelay/handoffs/{CHAIN_ID}/04-review-agent.json:{line}:19: NR307 token-total [[]error[]] at /total_tokens",
            "*total_tokens 10 is less than the agents' own 65,500*",
            f'*{line} |   "total_tokens": 10,',
            "*|                   ^^",
        ]
    )
    assert "Traceback" not in result.stdout.str()
    assert "def runtest" not in result.stdout.str()


def test_errors_fail_the_item_and_warnings_become_pytest_warnings(
    sample_chain: ChainFolder, run_handoffs: Run
) -> None:
    run_handoffs("-W", "error::pytest_handoff.plugin.HandoffContractWarning").assert_outcomes(passed=1)
    warn_on_review(sample_chain)
    result = run_handoffs("-W", "error::pytest_handoff.plugin.HandoffContractWarning")
    result.assert_outcomes(failed=1)


def test_every_finding_is_in_the_junit_xml(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    break_review(sample_chain)
    warn_on_review(sample_chain)
    run_handoffs("--junitxml=report.xml")
    xml = (pytester.path / "report.xml").read_text()
    assert 'name="handoff_finding"' in xml
    assert "NR307 token-total /total_tokens" in xml
    assert "NR212 severe-issue-without-rework" in xml  # a warning
    assert "<failure" in xml


@pytest.mark.slow
def test_it_runs_unchanged_under_xdist(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    add_other_chain(pytester)
    break_review(sample_chain)
    result = run_handoffs("-n", "2")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*NR307 token-total*"])


def test_last_failed_reruns_only_the_broken_chain(
    sample_chain: ChainFolder, pytester: pytest.Pytester
) -> None:
    add_other_chain(pytester)
    break_review(sample_chain)
    pytester.runpytest("--handoffs").assert_outcomes(passed=1, failed=1)
    result = pytester.runpytest("--handoffs", "--lf")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*run-last-failure*"])


def test_a_root_conftest_hooks_reach_the_chain_items(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    # A chain folder holding only its handoffs is collected without pytest's conftest walk.
    pytester.makeconftest(
        """
        import pytest

        def pytest_runtest_setup(item):
            if item.get_closest_marker("handoff"):
                pytest.skip("skipped by the root conftest")
        """
    )
    run_handoffs("-rs").stdout.fnmatch_lines(["*skipped by the root conftest*", "*1 skipped*"])


def test_a_conftest_inside_a_chain_folder_is_honoured(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    (sample_chain.directory / "conftest.py").write_text(
        "import pytest\n\n"
        "def pytest_runtest_setup(item):\n"
        "    pytest.skip('skipped by the chain folder conftest')\n"
    )
    run_handoffs("-rs").stdout.fnmatch_lines(["*skipped by the chain folder conftest*", "*1 skipped*"])


@pytest.mark.parametrize(
    ("report", "shown"), [((), False), (("-rA",), True), (("-rP",), True), (("-rAN",), False)]
)
def test_a_passing_chain_carries_its_trace_only_when_the_report_shows_passes(
    sample_chain: ChainFolder, pytester: pytest.Pytester, report: tuple[str, ...], shown: bool
) -> None:
    # Under xdist every report section travels to the controller: a passing chain's trace only when shown.
    reports = pytester.inline_run("--handoffs", "-p", "no:cacheprovider", *report).getreports(
        "pytest_runtest_logreport"
    )
    calls = [r for r in reports if r.when == "call"]
    assert [r.passed for r in calls] == [True]
    assert any(title.startswith("Captured handoff trace") for title, _ in calls[0].sections) is shown


def test_a_conftest_of_another_folder_stays_out_of_the_chain_items(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    elsewhere = pytester.mkdir("zzz")
    (elsewhere / "conftest.py").write_text(
        "import pytest\n\ndef pytest_runtest_setup(item):\n    pytest.skip('the zzz conftest')\n"
    )
    (elsewhere / "test_z.py").write_text("def test_z():\n    pass\n")
    run_handoffs().assert_outcomes(passed=1, skipped=1)


def test_a_handoff_outside_any_chain_is_an_item_of_its_own(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    loose = pytester.path / ".neuralrelay" / "handoffs" / "draft-review.json"
    loose.write_text(json.dumps({**sample_chain.load(REVIEW), "quality_score": 42}, indent=2))
    result = run_handoffs()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*draft-review.json:*: HS001 *at /quality_score*"])


def test_projects_add_their_own_invariants_with_a_hook(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    pytester.makeconftest(
        """
        def pytest_handoff_check_chain(chain, settings):
            review = chain.first("review_final")
            if review is not None and review.data["quality_score"] < 8:
                return [chain.hit(review, "/quality_score", "our team's bar is 8")]
        """
    )
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    line = sample_chain.line_of(REVIEW, '"quality_score"')
    result.stdout.fnmatch_lines(
        [f"*04-review-agent.json:{line}:20: USER user-invariant*", "*our team's bar is 8*"]
    )


def test_rules_can_be_ignored_from_the_ini_file_and_the_command_line(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    break_review(sample_chain)
    run_handoffs("--handoff-ignore", "NR307").assert_outcomes(passed=1)
    pytester.makeini("[pytest]\nhandoff_ignore = NR3\n")
    run_handoffs().assert_outcomes(passed=1)


def test_settings_are_read_from_tool_handoff_in_pyproject(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    sample_chain.path(REVIEW).unlink()
    pytester.makepyprojecttoml('[tool.handoff]\nseverity = { NR106 = "error" }\n')
    run_handoffs().assert_outcomes(failed=1)


@pytest.mark.parametrize(
    ("ini_line", "message"),
    [
        ("handoff_severity = NR106=fatal", "*pytest-handoff*severity*NR106 = 'fatal' is not a severity*"),
        ("handoff_jobs = many", "*pytest-handoff: handoff_jobs must be a whole number, got 'many'*"),
    ],
)
def test_a_bad_setting_is_a_usage_error_not_a_traceback(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run, ini_line: str, message: str
) -> None:
    pytester.makeini(f"[pytest]\n{ini_line}\n")
    result = run_handoffs()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_the_neuralrelay_examples_show_a_clean_and_a_broken_chain(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--handoffs", "-p", "no:cacheprovider", str(EXAMPLES / "neuralrelay"))
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*handoff chain 20261104-132000: 10 errors in 4 files*"])


@pytest.mark.slow
def test_in_github_actions_annotations_are_printed_once_under_xdist(
    sample_chain: ChainFolder, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    break_review(sample_chain)
    warn_on_review(sample_chain)
    summary = pytester.path / "step-summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_WORKSPACE", str(pytester.path))
    result = pytester.runpytest_subprocess("--handoffs", "-p", "no:cacheprovider", "-n", "2")
    errors = [line for line in result.stdout.lines if line.startswith("::error ")]
    assert len(errors) == 1
    assert errors[0].startswith(f"::error file=.neuralrelay/handoffs/{CHAIN_ID}/04-review-agent.json,line=")
    assert "title=NR307 token-total::" in errors[0]
    assert len([line for line in result.stdout.lines if line.startswith("::warning ")]) == 1
    assert "NR307" in summary.read_text()


def test_comma_separated_selections_work_in_the_ini_file(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    break_review(sample_chain)
    pytester.makeini("[pytest]\nhandoff_select = HS,NR2\n")
    run_handoffs().assert_outcomes(passed=1)
    pytester.makeini("[pytest]\nhandoff_select = HS,NR3\n")
    run_handoffs().assert_outcomes(failed=1)


def test_collected_chains_are_checked_together_on_the_configured_processes(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_handoff.pipeline import parallel as engine

    add_other_chain(pytester)
    break_review(sample_chain)
    monkeypatch.setattr(engine, "PARALLEL_THRESHOLD", 2)  # so two chains go to the process pool
    batches: list[tuple[str, int, int | None]] = []
    check_groups, start_checks = engine.check_groups, engine.start_checks

    def recording_after(refs: list[Any], *args: Any, **kwargs: Any) -> Any:
        batches.append(("after collection", len(refs), kwargs.get("jobs")))
        return check_groups(refs, *args, **kwargs)

    def recording_early(refs: list[Any], *args: Any, **kwargs: Any) -> Any:
        batches.append(("while collecting", len(refs), kwargs.get("jobs")))
        return start_checks(refs, *args, **kwargs)

    monkeypatch.setattr(engine, "check_groups", recording_after)
    monkeypatch.setattr(engine, "start_checks", recording_early)
    for jobs in (1, 2):
        pytester.makeini(f"[pytest]\nhandoff_jobs = {jobs}\n")
        result = run_handoffs()
        result.assert_outcomes(passed=1, failed=1)
        result.stdout.fnmatch_lines(["*04-review-agent.json:*: NR307 token-total*"])
    # One process checks after collection; two start checking on workers as collection starts.
    assert batches == [("after collection", 2, 1), ("while collecting", 2, 2)]


def test_collect_only_checks_no_chain(
    sample_chain: ChainFolder, run_handoffs: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_handoff.pipeline import check, parallel

    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("a chain was checked")

    monkeypatch.setattr(parallel, "check_groups", fail)
    monkeypatch.setattr(check, "check_group", fail)
    result = run_handoffs("--collect-only", "-q")
    result.stdout.fnmatch_lines(["1 test collected*"])


def test_naming_one_file_of_a_chain_outside_the_globs_still_reads_the_whole_chain(
    pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    chain = copy_chain(SAMPLE_CHAIN, pytester.path / "examples" / "sample-handoffs")
    result = run_handoffs(str(chain / TEST))
    result.assert_outcomes(passed=1)  # no NR103/NR106 for "missing" siblings


def test_a_handoff_written_by_an_earlier_test_is_checked_as_it_is_then(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    pytester.makepyfile(test_pipeline=a_test_breaking_the_review(sample_chain))
    result = run_handoffs("test_pipeline.py", ".neuralrelay")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*04-review-agent.json:*: NR307 token-total*"])


def test_a_project_rule_that_raises_fails_only_its_own_chain(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    add_other_chain(pytester)
    pytester.makeconftest(
        """
        def pytest_handoff_check_chain(chain, settings):
            if chain.chain_id == "20261103-091500":
                raise ValueError("bug in a project rule")
            return None
        """
    )
    result = run_handoffs()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*ValueError: bug in a project rule*"])
    assert "INTERNALERROR" not in result.stdout.str()


def test_items_report_the_results_checked_at_collection_end(
    sample_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_handoff.pipeline import check as engine

    add_other_chain(pytester)
    checked: list[str] = []
    check_contents = engine._check_contents

    def counting(ref: Any, *args: Any) -> Any:
        checked.append(ref.group_id)
        return check_contents(ref, *args)

    monkeypatch.setattr(engine, "_check_contents", counting)
    run_handoffs().assert_outcomes(passed=2)
    assert sorted(checked) == [CHAIN_ID, OTHER_CHAIN_ID]  # once each, not again per item
