"""GSD's names: the format's name, its file types, and the dates its templates changed.

The profile, the reader and the rules read these; this module imports nothing of the format.
"""

from __future__ import annotations

NAME = "gsd"
PLANNING = ".planning"

# File types (a document's handoff type).
PLAN = "plan"
SUMMARY = "summary"
VERIFICATION = "verification"
UAT = "uat"
CONTINUE_HERE = "continue_here"
STATE = "state"
ROADMAP = "roadmap"
REQUIREMENTS = "requirements"
CONFIG = "config"
HANDOFF = "handoff"

MARKDOWN_TYPES = (PLAN, SUMMARY, VERIFICATION, UAT, CONTINUE_HERE, STATE, ROADMAP, REQUIREMENTS)
TYPES = (*MARKDOWN_TYPES, CONFIG, HANDOFF)

#: When GSD's templates gained what a rule reads (gsd-build/get-shit-done's history), so that a
#: finding can say which generation of the template it expected.
GENERATIONS = {
    "front matter": "2026-01-05",
    "Task Commits": "2026-01-05",
    "verification report": "2026-01-15",
    "Self-Check": "2026-02-04",
    "requirements-completed": "2026-02-16",
    "STATE.md front matter": "2026-02-25",
    "HANDOFF.json": "2026-03-18",
}


def since(feature: str) -> str:
    """``(GSD's template since 2026-02-04)``: the generation a finding about ``feature`` expects."""
    return f"(GSD's template since {GENERATIONS[feature]})"
