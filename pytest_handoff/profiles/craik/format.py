"""Craik's names: the format's name, its record kinds and how Craik and its docs page spell them.

The profile and the rules both read these; this module imports nothing of the format but its row.
"""

from __future__ import annotations

from pytest_handoff.profiles.builtin import CRAIK as SPEC

NAME = SPEC.name

HANDOFF = "handoff"
HANDOFF_DOCS = "handoff_docs"
QUALITY_SCORE = "handoff_quality_score"
HANDOFF_TYPES = (HANDOFF, HANDOFF_DOCS, QUALITY_SCORE)

#: The ``schema`` field of each record kind, as Craik writes it.
SCHEMA_IDS = {"craik.handoff": HANDOFF, "craik.handoff_quality_score": QUALITY_SCORE}
#: The store's ``records.kind`` of each record kind.
STORE_KINDS = {"handoffs": HANDOFF, "handoff_quality_scores": QUALITY_SCORE}

#: Field names only Craik's docs page uses (the code calls them files_changed + artifacts,
#: commands_run + tests_run, receipt_ids, memory_proposal_ids), and statuses only it knows.
DOCS_ONLY_FIELDS = ("files_and_artifacts", "commands_and_validation", "receipts", "memory_proposals")
DOCS_ONLY_STATUSES = ("paused", "requires_review")
