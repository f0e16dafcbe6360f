"""MAST failure modes and the pytest-handoff rules that detect them (a table, read by the rule tables).

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

from collections.abc import Iterable
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

RULE_MODES: Final[dict[str, tuple[str, ...]]] = {
    # Craik
    "CK001": (),
    "CK002": (),
    "CK003": (),
    "CK010": ("FM-1.1",),
    "CK101": ("FM-3.2", "FM-3.3"),
    "CK102": ("FM-3.2", "FM-3.3"),
    "CK103": ("FM-2.4",),
    "CK104": ("FM-2.6", "FM-3.1", "FM-3.3"),
    "CK105": ("FM-3.3",),
    "CK106": ("FM-2.4",),
    "CK201": ("FM-3.3",),
    "CK202": ("FM-2.4",),
    "CK203": ("FM-3.3",),
    "CK204": ("FM-3.3",),
    "CK205": (),
    # Evidence: claims checked against git and test runs
    "EV001": (),
    "EV101": ("FM-2.6",),
    "EV102": ("FM-2.6",),
    "EV103": ("FM-2.6",),
    "EV201": ("FM-2.6",),
    "EV202": ("FM-2.6",),
    "EV301": ("FM-3.3",),
    "EV401": ("FM-2.6", "FM-3.2"),
    "EV402": ("FM-2.6", "FM-3.2"),
    "EV403": ("FM-2.6", "FM-3.2"),
    "EV501": ("FM-3.3",),
    "EV502": ("FM-3.3",),
    # Core: file reading, schema, secrets
    "HF001": (),
    "HF002": (),
    "HF003": (),
    "HF004": (),
    "HF005": (),
    "HF006": (),
    "HF007": (),
    "HS001": ("FM-1.1",),
    "HS002": ("FM-1.1",),
    "HX001": (),
    # NeuralRelay
    "NR101": (),
    "NR102": ("FM-1.2",),
    "NR103": (),
    "NR104": (),
    "NR105": (),
    "NR106": ("FM-3.1",),
    "NR107": (),
    "NR108": (),
    "NR201": ("FM-1.1",),
    "NR202": ("FM-2.4",),
    "NR203": ("FM-2.4",),
    "NR204": ("FM-2.4",),
    "NR205": ("FM-2.4",),
    "NR206": (),
    "NR207": ("FM-2.4",),
    "NR208": ("FM-3.3",),
    "NR209": ("FM-3.3",),
    "NR210": ("FM-2.6", "FM-3.3"),
    "NR211": ("FM-2.6",),
    "NR212": ("FM-2.6", "FM-3.3"),
    "NR301": ("FM-2.5", "FM-3.2"),
    "NR302": ("FM-3.3",),
    "NR303": ("FM-2.3",),
    "NR304": ("FM-2.4", "FM-2.6"),
    "NR305": ("FM-2.4",),
    "NR306": ("FM-1.1", "FM-2.5", "FM-3.2"),
    "NR307": (),
    "NR308": ("FM-1.3", "FM-2.5"),
    "NR309": ("FM-1.5",),
    # Ralph
    "RL001": (),
    "RL002": (),
    "RL003": ("FM-1.1",),
    "RL004": ("FM-1.1", "FM-1.4"),
    "RL101": ("FM-1.1",),
    "RL102": ("FM-1.5",),
    "RL103": (),
    "RL104": (),
    "RL201": ("FM-3.1",),
    "RL202": (),
    "RL203": (),
    "RL204": (),
    "RL205": (),
    # Trinity
    "TR101": (),
    "TR102": (),
    "TR103": (),
    "TR104": (),
    "TR105": (),
    "TR106": ("FM-2.5",),
    # User contracts
    "UC001": (),
    "UC002": (),
    "UC201": ("FM-1.1",),
    "UC202": ("FM-2.4",),
    "UC203": ("FM-2.5",),
    "UC204": (),
    "UC205": (),
    # YOLO
    "YL101": ("FM-3.3",),
    "YL102": ("FM-3.3",),
    "YL103": (),
    "YL104": (),
    "YL105": ("FM-2.6", "FM-3.1", "FM-3.3"),
    "YL106": (),
    "YL111": ("FM-2.6", "FM-3.3"),
    "YL112": ("FM-1.1",),
    "YL113": (),
    "YL200": ("FM-3.2",),
    "YL201": ("FM-1.1",),
    "YL202": ("FM-1.2",),
    "YL203": (),
    "YL204": ("FM-1.1",),
    "YL205": ("FM-1.1",),
    "YL301": (),
    "YL302": (),
    "YL303": ("FM-2.5", "FM-3.3"),
    "YL304": ("FM-3.1",),
    "YL305": ("FM-2.4",),
    "YL306": ("FM-2.6", "FM-3.3"),
    "YL307": ("FM-2.5",),
    "YL308": ("FM-1.1", "FM-3.2"),
    "YL309": ("FM-2.5", "FM-3.1"),
    "YL310": ("FM-3.3",),
    "YL311": ("FM-3.1", "FM-3.3"),
}


def modes_of(code: str) -> tuple[str, ...]:
    """The failure modes rule ``code`` detects (none for a code of no built-in rule)."""
    return RULE_MODES.get(code, ())


def mode_label(mode: str) -> str:
    """``FM-3.2 no or incomplete verification``."""
    return f"{mode} {FAILURE_MODES[mode][0].lower()}" if mode in FAILURE_MODES else mode


class ModeCount(NamedTuple):
    """How often a failure mode was seen: its findings, and the groups (chains) they are in."""

    mode: str
    findings: int
    groups: int


def mode_counts(findings: Iterable[Finding]) -> dict[str, dict[str, int]]:
    """Findings and groups per failure mode, most groups first: ``{"FM-2.6": {"findings": 3, "groups": 2}}``."""
    return {
        count.mode: {"findings": count.findings, "groups": count.groups} for count in counted_modes(findings)
    }


def counted_modes(findings: Iterable[Finding]) -> list[ModeCount]:
    """Each failure mode seen in ``findings``, with its counts, most groups first."""
    found: dict[str, int] = {}
    groups: dict[str, set[str]] = {}
    for finding in findings:
        for mode in modes_of(finding.code):
            found[mode] = found.get(mode, 0) + 1
            groups.setdefault(mode, set()).add(finding.chain)
    ranked = sorted(found, key=lambda mode: (-len(groups[mode]), -found[mode], mode))
    return [ModeCount(mode, found[mode], len(groups[mode])) for mode in ranked]
