"""NeuralRelay's rule table: every NR code with its check, one module per idea.

- :mod:`~pytest_handoff.profiles.neuralrelay.layout`: file names and order (NR1xx)
- :mod:`~pytest_handoff.profiles.neuralrelay.handoff`: one handoff at a time (NR2xx)
- :mod:`~pytest_handoff.profiles.neuralrelay.classification`: property classifications (NR301-NR305),
  on the assignment of :mod:`~pytest_handoff.profiles.neuralrelay.matching`
- :mod:`~pytest_handoff.profiles.neuralrelay.tracing`: acceptance criteria traced (NR306)
- :mod:`~pytest_handoff.profiles.neuralrelay.cycles`: rework cycles, tokens (NR307-NR309)
- :mod:`~pytest_handoff.profiles.neuralrelay.profile`: stray files in a chain folder (NR108)

Importing this module registers nothing: the engine tables it when it loads the profile
(:meth:`~pytest_handoff.profiles.neuralrelay.profile.NeuralRelayProfile.rule_table`).
A rule's docs are its check's docstring.
"""

from __future__ import annotations

from pytest_handoff.profiles.neuralrelay import (
    classification,
    counterexamples,
    cycles,
    handoff,
    layout,
    tracing,
)
from pytest_handoff.profiles.neuralrelay.format import NAME, STRAY_FILE, STRAY_FILE_DOC
from pytest_handoff.rules.rows import listed, reported
from pytest_handoff.values.findings import Severity
from pytest_handoff.values.rules import Rule

WARNING = Severity.WARNING

RULES: tuple[Rule, ...] = (
    # Layout: file names and order.
    listed("NR101", "file-name", layout.check_file_names, scope="chain", profile=NAME),
    listed(
        "NR102", "agent-type-mismatch", layout.check_agent_writes_its_type, profile=NAME, modes=("FM-1.2",)
    ),
    listed("NR103", "sequence-numbers", layout.check_sequence_numbers, scope="chain", profile=NAME),
    listed("NR104", "stage-order", layout.check_stage_order, scope="chain", profile=NAME),
    listed("NR105", "timestamp-order", layout.check_timestamp_order, scope="chain", profile=NAME),
    listed(
        "NR106",
        "incomplete-chain",
        layout.check_chain_is_complete,
        scope="chain",
        severity=WARNING,
        profile=NAME,
        modes=("FM-3.1",),
    ),
    listed("NR107", "chain-id", layout.check_chain_id, scope="chain", severity=WARNING, profile=NAME),
    reported(STRAY_FILE, "stray-file", STRAY_FILE_DOC, severity=WARNING, profile=NAME),
    # One handoff at a time.
    listed(
        "NR201",
        "duplicate-coverage-gap",
        handoff.check_coverage_gaps_are_distinct,
        handoff_types=("dev_to_test",),
        profile=NAME,
        modes=("FM-1.1",),
    ),
    listed(
        "NR202",
        "vague-coverage-gap",
        handoff.check_coverage_gaps_are_specific,
        handoff_types=("dev_to_test",),
        profile=NAME,
        modes=("FM-2.4",),
    ),
    listed(
        "NR203",
        "vague-acceptance-criterion",
        handoff.check_criteria_are_testable,
        severity=WARNING,
        handoff_types=("requirements",),
        profile=NAME,
        modes=("FM-2.4",),
    ),
    listed(
        "NR204",
        "missing-counterexample",
        counterexamples.check_counterexample_present,
        handoff_types=("test_to_review",),
        profile=NAME,
        modes=("FM-2.4",),
    ),
    listed(
        "NR205",
        "abstract-counterexample",
        counterexamples.check_counterexample_concrete,
        handoff_types=("test_to_review",),
        profile=NAME,
        modes=("FM-2.4",),
    ),
    listed(
        "NR206",
        "long-counterexample",
        counterexamples.check_counterexample_minimal,
        severity=WARNING,
        handoff_types=("test_to_review",),
        profile=NAME,
    ),
    listed(
        "NR207",
        "unspecific-reviewer-focus",
        handoff.check_reviewer_focus_names_a_file,
        handoff_types=("test_to_review",),
        profile=NAME,
        modes=("FM-2.4",),
    ),
    listed(
        "NR208",
        "test-summary-arithmetic",
        handoff.check_test_summary_adds_up,
        handoff_types=("test_to_review",),
        profile=NAME,
        modes=("FM-3.3",),
    ),
    listed(
        "NR209",
        "unit-test-arithmetic",
        handoff.check_unit_tests_add_up,
        handoff_types=("dev_to_test",),
        profile=NAME,
        modes=("FM-3.3",),
    ),
    listed(
        "NR210",
        "approved-with-blockers",
        handoff.check_approval_is_earned,
        handoff_types=("review_final",),
        profile=NAME,
        modes=("FM-2.6", "FM-3.3"),
    ),
    listed(
        "NR211",
        "score-verdict-mismatch",
        handoff.check_score_fits_verdict,
        severity=WARNING,
        handoff_types=("review_final",),
        profile=NAME,
        modes=("FM-2.6",),
    ),
    listed(
        "NR212",
        "severe-issue-without-rework",
        handoff.check_severe_issues_need_rework,
        severity=WARNING,
        handoff_types=("review_final",),
        profile=NAME,
        modes=("FM-2.6", "FM-3.3"),
    ),
    # Property classifications, criteria traced, rework cycles: across the chain.
    listed(
        "NR301",
        "unclassified-property",
        classification.check_every_property_classified,
        scope="chain",
        profile=NAME,
        modes=("FM-2.5", "FM-3.2"),
    ),
    listed(
        "NR302",
        "property-classified-twice",
        classification.check_property_classified_once,
        scope="chain",
        profile=NAME,
        modes=("FM-3.3",),
    ),
    listed(
        "NR303",
        "orphan-classification",
        classification.check_classifications_have_properties,
        scope="chain",
        profile=NAME,
        modes=("FM-2.3",),
    ),
    listed(
        "NR304",
        "falsified-without-bug",
        classification.check_falsified_properties_have_bugs,
        scope="chain",
        profile=NAME,
        modes=("FM-2.4", "FM-2.6"),
    ),
    listed(
        "NR305",
        "inconclusive-unexplained",
        classification.check_inconclusive_properties_explained,
        scope="chain",
        severity=WARNING,
        profile=NAME,
        modes=("FM-2.4",),
    ),
    listed(
        "NR306",
        "untraced-criterion",
        tracing.check_criteria_are_traced,
        scope="chain",
        severity=Severity.ERROR,
        profile=NAME,
        modes=("FM-1.1", "FM-2.5", "FM-3.2"),
    ),
    listed("NR307", "token-total", cycles.check_token_total, scope="chain", profile=NAME),
    listed(
        "NR308",
        "rework-without-request",
        cycles.check_rework_follows_request,
        scope="chain",
        profile=NAME,
        modes=("FM-1.3", "FM-2.5"),
    ),
    listed(
        "NR309",
        "too-many-rework-cycles",
        cycles.check_rework_cycles,
        scope="chain",
        profile=NAME,
        modes=("FM-1.5",),
    ),
)
