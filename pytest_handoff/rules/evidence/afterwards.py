"""Verdicts made from other verdicts of a group: counted test cases, broken self-checks, and
paths a monorepo's package holds.

Kept apart from the judging of single claims (:mod:`pytest_handoff.rules.evidence.rules`): these
look at a group's claims together once each of them is judged.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING

from pytest_handoff.values.rules import Hit

if TYPE_CHECKING:
    from pytest_handoff.rules.evidence.claims import Claim
    from pytest_handoff.rules.evidence.gitlog import Commit
    from pytest_handoff.rules.evidence.repository import Repository
    from pytest_handoff.values.groups import Group

#: Findings that say a claim is false (not merely unconfirmed): what a self-check should have caught.
FALSE_CLAIMS = ("EV101", "EV103", "EV201", "EV301", "EV401")
#: How a handoff says it checked its own claims and found them true.
_VOUCHES = re.compile(r"^\W*(?:passed|pass|ok|verified|✓|✅)\W*$", re.IGNORECASE)


def finish_test_counts(group: Group) -> list[Hit]:
    """EV402: claimed test counts above the test cases counted in their files (see ``_test_file``)."""
    found: list[Hit] = []
    for cases, unreadable, claim in group.memo.get("evidence_test_counts", {}).values():
        if not unreadable and claim.claimed_count is not None and cases < claim.claimed_count:
            found.append(
                Hit(
                    claim.document,
                    claim.pointer,
                    f"{claim.claimed_count} test case(s) claimed, but the test files hold {cases} (counting test "
                    "functions: a heuristic)",
                )
            )
    return found


def broken_attestations(attested: list[Claim], hits: dict[str, list[Hit]]) -> list[Hit]:
    """EV601: a handoff that says it checked its claims (``Self-Check: PASSED``) with a claim found false."""
    found: list[Hit] = []
    for claim in attested:
        if not _VOUCHES.match(claim.value):
            continue
        false = [hit for code in FALSE_CLAIMS for hit in hits.get(code, ()) if hit.document is claim.document]
        if not false:
            continue
        codes = sorted(
            {code for code in FALSE_CLAIMS if any(h.document is claim.document for h in hits.get(code, ()))}
        )
        found.append(
            Hit(
                claim.document,
                claim.pointer,
                f"the handoff says its self-check passed, but {len(false)} of its claims "
                f"{'is' if len(false) == 1 else 'are'} false "
                f"({', '.join(codes)}): the check was not made, or not on these claims",
                related=tuple((hit.document, hit.pointer, "a false claim") for hit in false[:3]),
            )
        )
    return found


def not_new(
    claim: Claim, name: str, listed: Iterable[Commit | None], repository: Repository, since: int | None
) -> str:
    """EV105's message for a file claimed created that a commit older than the handoff's work (its
    window, from ``since``, the previous handoff's time) and than every commit it lists already
    touched; "" when none did. With no window (no previous handoff) a commit of the same work the
    handoff does not list cannot be told apart: nothing is said."""
    if since is None or claim.change != "added":
        return ""
    times = [commit.time for commit in listed if commit is not None]
    if not times or not repository.touched(name, None, min(min(times), since) - 1):
        return ""
    return f"{claim.value} is claimed created, but a commit older than the handoff's work and every commit it lists already touched it"


_BY_NAME: weakref.WeakKeyDictionary[Repository, dict[str, list[str]]] = weakref.WeakKeyDictionary()


def under_a_package(name: str, repository: Repository) -> bool:
    """True when ``name`` is the end of a path git knows, after a folder (``src/a.ts`` of
    ``apps/web/src/a.ts``): a path written relative to a package of a monorepo."""
    by_name = _BY_NAME.get(repository)
    if by_name is None:
        by_name = _BY_NAME[repository] = {}
        for path in {*repository.indexed, *repository.ever}:
            by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    tail = "/" + name
    return any(path.endswith(tail) for path in by_name.get(name.rsplit("/", 1)[-1], ()))
