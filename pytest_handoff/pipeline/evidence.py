"""What a group's evidence leaves in its result besides findings: how many claims it judged, and the
test claims of its handoffs of the current tree, for the pytest plugin to reconcile with the session
it runs in (:mod:`pytest_handoff.plugin.session`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_handoff.rules.selection import decision_for
from pytest_handoff.values.rules import finding_of

if TYPE_CHECKING:
    from pytest_handoff.pipeline.registry import RuleSet
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.settings import Settings


def evidence_parts(
    group: Group, rules: RuleSet, settings: Settings, shown_paths: Mapping[str, str]
) -> dict[str, Any]:
    """How many claims the group's evidence judged, and its test claims of the current tree, kept to
    be reconciled with a pytest session (each as an EV501 finding at its place, message to come)."""
    verdicts = group.memo.get("evidence")
    if verdicts is None:
        return {}
    rule = rules.by_code.get("EV501")
    severity = decision_for(rule.code, rule.severity, settings) if rule is not None else None
    session: list[Any] = []
    if rule is not None and severity is not None and verdicts.session and settings.evidence_session:
        from pytest_handoff.rules.evidence.runs import SessionClaim

        for hit, claim in verdicts.session:
            placed = finding_of(rule, hit, severity, group.group_id)
            placed = placed.replace(path=shown_paths.get(placed.path, placed.path), chain=group.group_id)
            session.append(SessionClaim(placed, claim.kind, claim.value, claim.test, claim.totals))
    return {"claims_judged": verdicts.judged[0], "session_claims": tuple(session)}


def start_asking_git(root: Path, paths: Sequence[Path]) -> None:
    """Start git's answers to what claims need while the run discovers and reads (evidence on). A
    run of folders (the whole project) will want the whole history; one of named files, a hook's,
    asks about their claims' paths only (see ``Repository.load``)."""
    from pytest_handoff.rules.evidence.repository import GitError, repository_for

    try:
        repository = repository_for(root)
        if not repository.problem:
            repository.start(whole=not paths or any(path.is_dir() for path in paths))
    except GitError:
        pass  # said where a claim needs git


def prepare_git(root: Path) -> None:
    """Read git's answers now, before a process pool forks: every worker inherits them."""
    from pytest_handoff.rules.evidence.repository import repository_for

    repository = repository_for(root)
    if not repository.problem:
        repository.prepare()


def forget_git() -> None:
    """Drop what git said to earlier runs of this process."""
    from pytest_handoff.rules.evidence.repository import forget_repositories

    forget_repositories()
