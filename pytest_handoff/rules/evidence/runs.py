"""A test run a handoff's test claims are reconciled with: a JUnit report, or this pytest session.

A claim that says more passed, or fewer failed, than the run shows is an error (EV501) naming the
failing tests; a claim of more failures or fewer passes, or another total, a warning (EV502). This
pytest session is reconciled with only where it contradicts a claim that all passed (a ``PASS``
verdict, 0 failing, a test named as passing that failed): its other tests need not be the run the
handoff reports.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from pytest_handoff.rules.evidence.claims import Claim
    from pytest_handoff.values.findings import Finding


def shown_path(path: str, root: Path) -> str:
    """A report's path as the project shows it (relative to ``root`` when inside it)."""
    relative = os.path.relpath(path, root)
    return path if relative.startswith("..") else Path(relative).as_posix()


#: At most this many failing tests are named in a finding.
NAMED = 5


class RunOfTests(NamedTuple):
    """What a run of the tests gave: its totals and the tests that failed (or errored)."""

    shown: str  # how findings name it: a report's path, "this pytest session"
    tests: int
    failures: int
    skipped: int
    failing: tuple[str, ...]  # node ids (path::Class::test[param]) or JUnit's classname::name
    session: bool = False

    @property
    def passed(self) -> int:
        return self.tests - self.failures - self.skipped


class SessionClaim(NamedTuple):
    """A test claim of a handoff written for the current tree, kept to be reconciled with the
    pytest session it is checked in: where a finding about it goes, and what it says."""

    finding: Finding  # an EV501 finding at the claim, its message to be written
    kind: str  # test_totals, test_verdict or test_name
    value: str  # the verdict, or the test's file
    test: str = ""  # a named test's function
    totals: tuple[int | None, int | None, int | None] = (None, None, None)


def verdict(claim: Claim | SessionClaim, run: RunOfTests) -> tuple[str, str] | None:
    """The code and message of what ``run`` says against ``claim`` (None when it agrees)."""
    if claim.kind == "test_verdict":
        if claim.value.upper() == "PASS" and run.failures:
            return "EV501", f"says {claim.value}, but {run.shown} has {failing(run)}"
        return None
    if claim.kind == "test_name":
        failed = [name for name in run.failing if _names(name, claim.value, claim.test)]
        if failed:
            return (
                "EV501",
                f"names {masked(f'{claim.value}::{claim.test}')} as passing, but {run.shown} has it failing",
            )
        return None
    total, passed, failed_count = claim.totals
    if run.failures and (
        failed_count == 0
        or (failed_count is None and passed is not None and total is not None and passed == total)
    ):
        said = "failing: 0" if failed_count == 0 else f"all {passed} passing"
        return "EV501", f"says {said}, but {run.shown} has {failing(run)}"
    if run.session:
        return None  # the session need not be the run the counts report
    understated = [
        f"{name} {claimed} (report: {actual})"
        for name, claimed, actual, fewer in (
            ("failed", failed_count, run.failures, True),
            ("passed", passed, run.passed, False),
        )
        if claimed is not None and (claimed < actual if fewer else claimed > actual)
    ]
    if understated:
        return "EV501", f"says {', '.join(understated)}, but {run.shown} has {failing(run)}"
    differences = [
        f"{name} {claimed} (report: {actual})"
        for name, claimed, actual in (
            ("total", total, run.tests),
            ("passed", passed, run.passed),
            ("failed", failed_count, run.failures),
        )
        if claimed is not None and claimed != actual
    ]
    if differences:
        return "EV502", f"test counts differ from {run.shown}: {', '.join(differences)}"
    return None


def reconcile(claims: Iterable[SessionClaim], run: RunOfTests) -> list[Finding]:
    """The EV501 findings of ``claims`` that ``run`` (this session) contradicts."""
    found: list[Finding] = []
    for claim in claims:
        said = verdict(claim, run)
        if said is not None and said[0] == "EV501":
            found.append(claim.finding.replace(message=said[1]))
    return found


def session_run(outcomes: dict[str, str]) -> RunOfTests | None:
    """This session's run from its tests' outcomes (node id -> passed, failed or skipped); None
    when no test ran but the handoffs'."""
    if not outcomes:
        return None
    failing = tuple(sorted(node for node, outcome in outcomes.items() if outcome == "failed"))
    skipped = sum(1 for outcome in outcomes.values() if outcome == "skipped")
    return RunOfTests("this pytest session", len(outcomes), len(failing), skipped, failing, session=True)


def failing(run: RunOfTests) -> str:
    """The failing tests, named as the run names them, every secret in a name masked (a
    parametrised id can hold a token: ``test_login[ghp_...]``)."""
    if not run.failing:
        return f"{run.passed} passing and {run.failures} failing test(s)"
    names = [masked(name) for name in run.failing[:NAMED]]
    more = len(run.failing) - NAMED
    shown = ", ".join(names) + (f" and {more} more" if more > 0 else "")
    return f"{run.failures} failing test(s): {shown}"


def masked(text: str) -> str:
    """``text`` (a test's name) with every secret in it masked, as outputs mask them."""
    from pytest_handoff.rules.secrets import find_secrets, may_hold_secrets, secret_masker

    if not may_hold_secrets(text):
        return text
    return secret_masker([secret for _, secret in find_secrets(text)])(text)


def _names(failed: str, path: str, test: str) -> bool:
    """True when ``failed`` (a node id, or JUnit's ``dotted.module.Class::test[param]``) is the
    test ``test`` of file ``path`` (the same path: two ``tests/test_api.py`` of a monorepo are two)."""
    where, _, name = failed.rpartition("::")
    if name.partition("[")[0] != test:
        return False
    where = where.split("::")[0]  # a node id's file (its class follows)
    if where.endswith(".py"):
        return where == path
    module = path.removesuffix(".py").replace("/", ".")
    return where == module or where.startswith(module + ".")  # JUnit: the module, then its class
