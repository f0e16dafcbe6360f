"""Handoffs' test claims reconciled with this pytest session's own outcomes.

Under ``pytest --handoffs`` with evidence on, the tests that ran in the same session are the run a
handoff of the current tree is held to (no JUnit report needed): a handoff that names a test as
passing, says ``PASS`` or reports 0 failing while a test failed in this session fails its item,
naming the test. Handoff items run after the other tests for this. Under xdist, a worker cannot see
the others' tests: the items send their test claims with their reports, and the controller
reconciles once every worker is done, reporting a contradiction as a failure of the handoff item
(at its teardown, as pytest reports an error after a test's call).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_handoff.rules.evidence.runs import SessionClaim
    from pytest_handoff.values.findings import Finding

#: Where the session's outcomes are kept on pytest's config.
SESSION_KEY = pytest.StashKey["SessionOutcomes"]()


class SessionOutcomes:
    """The outcome of every test of the session but the handoff items, as reports arrive."""

    def __init__(self, controller: bool) -> None:
        self.controller = controller  # the xdist controller: it reconciles at the session's end
        self.outcomes: dict[str, str] = {}
        self.handoff_items: set[str] = set()
        self.claims: dict[
            str, tuple[tuple[str, int | None], list[Any]]
        ] = {}  # node id -> location, wire claims

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if getattr(report, "handoff_chain", None) is not None:
            self.handoff_items.add(report.nodeid)
            claims = getattr(report, "handoff_session_claims", None)
            if claims and self.controller:
                self.claims[report.nodeid] = ((report.location[0], report.location[1]), list(claims))
            return
        if report.nodeid in self.handoff_items:
            return
        if report.failed:
            self.outcomes[report.nodeid] = "failed"
        elif report.when == "call" or (report.skipped and report.nodeid not in self.outcomes):
            self.outcomes.setdefault(report.nodeid, report.outcome)

    def contradicted(self, claims: Sequence[SessionClaim]) -> list[Finding]:
        """The EV501 findings of ``claims`` that this session's outcomes so far contradict."""
        from pytest_handoff.rules.evidence.runs import reconcile, session_run

        run = session_run({node: o for node, o in self.outcomes.items() if node not in self.handoff_items})
        return reconcile(claims, run) if run is not None and claims else []

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """On the xdist controller: reconcile each handoff item's claims with every worker's tests."""
        if not self.controller or not self.claims:
            return
        from pytest_handoff.rules.evidence.runs import SessionClaim
        from pytest_handoff.values.findings import Finding

        for nodeid, (location, wire) in sorted(self.claims.items()):
            claims = [
                SessionClaim(Finding.from_wire(f), kind, value, test, tuple(totals))
                for f, kind, value, test, totals in wire
            ]
            found = self.contradicted(claims)
            if not found:
                continue
            report = pytest.TestReport(
                nodeid,
                (location[0], location[1], nodeid),
                {},
                "failed",
                render_findings(nodeid, found),
                "teardown",
            )
            session.config.hook.pytest_runtest_logreport(report=report)
            session.testsfailed += 1
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED


def register(config: pytest.Config) -> None:
    """Keep this session's outcomes (when evidence is on): the controller's under xdist reconciles."""
    controller = not hasattr(config, "workerinput") and getattr(config.option, "dist", "no") != "no"
    outcomes = SessionOutcomes(controller)
    config.stash[SESSION_KEY] = outcomes
    config.pluginmanager.register(outcomes, "handoff-session-outcomes")


def render_findings(nodeid: str, findings: Sequence[Finding]) -> str:
    """The failure text of findings made after the item ran (the controller's reconciliation)."""
    from pytest_handoff.reporters.excerpt import format_findings, summary_counts
    from pytest_handoff.values.boundary import inert

    headline = f"{inert(nodeid)}: {summary_counts(findings)} against this session's test outcomes"
    return "\n".join([headline, "", *format_findings(findings, {})]).rstrip()


def wire(claims: Sequence[SessionClaim]) -> list[Any]:
    """``claims`` as plain data (xdist serialises reports)."""
    return [
        [claim.finding.to_wire(), claim.kind, claim.value, claim.test, list(claim.totals)] for claim in claims
    ]
