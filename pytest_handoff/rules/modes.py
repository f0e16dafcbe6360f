"""MAST failure modes, and how findings count as evidence of them (each rule row declares its modes).

The taxonomy is MAST, the Multi-Agent System Failure Taxonomy of Cemri, Pan, Yang,
Agrawal, Chopra, Tiwari, Keutzer, Parameswaran, Klein, Ramchandran, Zaharia, Gonzalez
and Stoica, "Why Do Multi-Agent LLM Systems Fail?", arXiv:2503.13657 (v3, NeurIPS 2025
Datasets and Benchmarks track); https://arxiv.org/abs/2503.13657, data and LLM judge at
https://github.com/multi-agent-systems-failure-taxonomy/MAST. Ids and names are the
paper's (v3 naming: v1 called the taxonomy MASFT, and the repository's early judge used
"action-reasoning mismatch", "no or incorrect verification" and "weak verification").
The one-line definitions are paraphrases, not the paper's wording.

A rule is tagged with a mode when a finding of the rule is, by itself, evidence that
the mode occurred in the run that wrote the handoff. Rules about how a handoff is
serialised, stored, named, numbered, dated or addressed get no mode: they stop a
message from being read or delivered, but MAST classifies what agents do and say, and
has no mode for a malformed or misdelivered message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Final, NamedTuple

if TYPE_CHECKING:
    from pytest_handoff.values.findings import Finding

CATEGORIES: Final[dict[str, str]] = {
    "FC1": "Specification and system design issues",
    "FC2": "Inter-agent misalignment",
    "FC3": "Task verification and termination",
}

FAILURE_MODES: Final[dict[str, tuple[str, str]]] = {
    # FC1: specification and system design issues
    "FM-1.1": (
        "Disobey task specification",
        "The agent's output breaks a stated requirement or constraint of its task.",
    ),
    "FM-1.2": (
        "Disobey role specification",
        "The agent steps outside its assigned responsibilities and acts as another role.",
    ),
    "FM-1.3": (
        "Step repetition",
        "Work that was already done is needlessly done again, wasting time or adding errors.",
    ),
    "FM-1.4": (
        "Loss of conversation history",
        "Recent context is dropped and the agent falls back to an earlier state of the work.",
    ),
    "FM-1.5": (
        "Unaware of termination conditions",
        "The agents miss the condition that should end their work and keep going.",
    ),
    # FC2: inter-agent misalignment
    "FM-2.1": (
        "Conversation reset",
        "The exchange restarts without cause, throwing away context and progress.",
    ),
    "FM-2.2": (
        "Fail to ask for clarification",
        "Faced with unclear or missing input, the agent guesses instead of asking.",
    ),
    "FM-2.3": (
        "Task derailment",
        "The agent drifts from the intended goal into irrelevant or unproductive work.",
    ),
    "FM-2.4": (
        "Information withholding",
        "The agent keeps back information that other agents need for their decisions.",
    ),
    "FM-2.5": (
        "Ignored other agent's input",
        "What another agent contributed or asked for is disregarded.",
    ),
    "FM-2.6": (
        "Reasoning-action mismatch",
        "What the agent states, concludes or claims does not match what it actually does.",
    ),
    # FC3: task verification and termination
    "FM-3.1": (
        "Premature termination",
        "The work is ended or declared done before its objectives are met.",
    ),
    "FM-3.2": (
        "No or incomplete verification",
        "Results are not checked, or only partly, so errors pass on unnoticed.",
    ),
    "FM-3.3": (
        "Incorrect verification",
        "A check is made but gets it wrong: it passes, scores or reports what it should not.",
    ),
}


def mode_label(mode: str) -> str:
    """``FM-3.2 no or incomplete verification``."""
    return f"{mode} {FAILURE_MODES[mode][0].lower()}" if mode in FAILURE_MODES else mode


class ModeCount(NamedTuple):
    """How often a failure mode was seen: its findings, and the groups (chains) they are in."""

    mode: str
    findings: int
    groups: int


#: A rule code's failure modes, as its rule row declares them (the registry's ``modes_of``).
ModesOf = Callable[[str], tuple[str, ...]]


def mode_counts(findings: Iterable[Finding], modes_of: ModesOf) -> dict[str, dict[str, int]]:
    """Findings and groups per failure mode, most groups first: ``{"FM-2.6": {"findings": 3, "groups": 2}}``."""
    return {
        count.mode: {"findings": count.findings, "groups": count.groups}
        for count in counted_modes(findings, modes_of)
    }


def counted_modes(findings: Iterable[Finding], modes_of: ModesOf) -> list[ModeCount]:
    """Each failure mode seen in ``findings``, with its counts, most groups first."""
    found: dict[str, int] = {}
    groups: dict[str, set[str]] = {}
    for finding in findings:
        for mode in modes_of(finding.code):
            found[mode] = found.get(mode, 0) + 1
            groups.setdefault(mode, set()).add(finding.chain)
    ranked = sorted(found, key=lambda mode: (-len(groups[mode]), -found[mode], mode))
    return [ModeCount(mode, found[mode], len(groups[mode])) for mode in ranked]
