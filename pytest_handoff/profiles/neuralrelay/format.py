"""NeuralRelay's names: the format's name, its handoff types and agents, how its files are named.

The profile and the rules both read these; this module imports nothing of the format but its row.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pytest_handoff.profiles.builtin import NEURALRELAY as SPEC

if TYPE_CHECKING:
    from pytest_handoff.values.settings import Settings

NAME = SPEC.name

HANDOFF_TYPES = ("requirements", "dev_to_test", "test_to_review", "review_final", "rework")
#: Where each type stands in a chain; numbered files must not go backwards.
STAGE = {"requirements": 0, "dev_to_test": 1, "test_to_review": 2, "review_final": 3}
#: The agents NeuralRelay ships and the handoff type each writes.
AGENTS = {
    "ba-agent": "requirements",
    "dev-agent": "dev_to_test",
    "test-agent": "test_to_review",
    "security-agent": "test_to_review",
    "review-agent": "review_final",
}

NUMBERED_FILE = re.compile(r"(?P<seq>\d{2,})-(?P<agent>[a-z0-9][a-z0-9-]*)\.json")
REWORK_FILE = re.compile(r"rework-(?P<cycle>\d+)\.json")
CHAIN_ID = re.compile(r"(?P<date>[0-9]{8})-(?P<time>[0-9]{6})(?:-(?P<n>[0-9]+))?")


def agents(settings: Settings) -> dict[str, str]:
    """NeuralRelay's agents plus those configured, agent -> handoff type."""
    configured: dict[str, str] = SPEC.option(settings, "agents")
    return {**AGENTS, **configured} if configured else AGENTS


STRAY_FILE = "NR108"

STRAY_FILE_DOC = """A chain folder holds only handoffs: `{NN}-{agent}.json` and `rework-{N}.json`.

    **What it does**: reports, once, a JSON file in a chain folder (`handoffs/{chain-id}/`) whose
    name is neither `{NN}-{agent}.json` nor `rework-{N}.json`. The file is not read as a handoff:
    no schema or contract rule applies to it (only HX001 looks at it). It belongs to the chain of its
    folder, so it is never checked as a chain of its own.

    **Why is this bad?** NeuralRelay's agents find handoffs by name, so such a file is either a
    handoff no agent will read (misnamed) or something else kept where handoffs are expected.

    **Example**: `.neuralrelay/handoffs/20261103-091500/metadata.json`, `2-dev-agent.json`.

    **Use instead**: rename a handoff to `{NN}-{agent}.json` (`02-dev-agent.json`); keep other files
    outside the chain folder, or set `ignore = ["NR108"]` if they must stay.
    """
