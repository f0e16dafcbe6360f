"""Where a format's handoffs make claims about the repository: the values a profile declares.

Kept apart from the reading of claims (:mod:`pytest_handoff.rules.evidence.claims`), so that a profile
declaring its claims loads nothing more on a run that checks none (evidence is asked for).
The kinds are described in :mod:`pytest_handoff.rules.evidence.claims`.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

ClaimKind = Literal[
    "path", "commit", "location", "test_file", "test_name", "test_totals", "test_verdict", "attestation"
]
Change = Literal["added", "modified", "deleted"]

#: How formats spell a change, as the three the rules know.
CHANGES: dict[str, Change] = {
    "added": "added",
    "add": "added",
    "created": "added",
    "create": "added",
    "new": "added",
    "modified": "modified",
    "modify": "modified",
    "changed": "modified",
    "updated": "modified",
    "edited": "modified",
    "deleted": "deleted",
    "delete": "deleted",
    "removed": "deleted",
}


class ClaimField(NamedTuple):
    """Where a format's documents make a claim of one kind (see the module's docs)."""

    pointer: str  # "/files_changed/*/path": "*" matches any key or index
    kind: ClaimKind
    change: str = ""  # sibling key of the claimed value holding its change type
    changed: Change | None = None  # the change every value of the field claims (a summary's files)
    line: str = ""  # sibling key holding a location's line number
    count_at: str = ""  # pointer of the document's count of test cases in these files
    handoff_types: tuple[str, ...] = ()  # only documents of these types (all when empty)
    totals: tuple[str, str, str] = ("", "", "")  # keys of total, passed and failed tests
    #: A commit named before it was made (GSD's "Plan metadata"): one that does not exist is a
    #: warning (EV203), not an error.
    tentative: bool = False
