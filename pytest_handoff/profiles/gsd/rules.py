"""The GSD profile's rule table (codes GS)."""

from __future__ import annotations

from pytest_handoff.profiles.gsd import contracts, project
from pytest_handoff.profiles.gsd.format import NAME
from pytest_handoff.profiles.gsd.reader import NOT_STRICT_YAML
from pytest_handoff.rules.rows import listed, reported
from pytest_handoff.values.findings import Severity
from pytest_handoff.values.rules import Rule

WARNING = Severity.WARNING

NOT_STRICT_YAML_DOC = """
A front matter that is not strict YAML is read leniently, and says so.

**What it does**: reports, at its line, the first place a GSD file's front matter (the block
between `---` lines) is not strict YAML, such as an unquoted value starting with `@` or holding
`: `. The file is still read: the failing values as the text they are written as, then the body.

**Why is this bad?** GSD's own tools read the block line by line and accept it, but any YAML
reader (an editor, a script, another agent's tool) refuses the whole block and loses every key
of it, `key-files` and `requirements-completed` with them.

**Example**: `added: [@tanstack/react-query@5, zod@3]`.

**Use instead**: quote the value: `added: ["@tanstack/react-query@5", "zod@3"]`.
"""

RULES: tuple[Rule, ...] = (
    reported(NOT_STRICT_YAML, "front-matter-not-strict-yaml", NOT_STRICT_YAML_DOC, severity=WARNING, profile=NAME),
    # One phase: the plan -> executor -> verifier contracts.
    listed("GS101", "verification-status-contradicts-findings", contracts.check_verification_status, scope="chain", profile=NAME, modes=("FM-3.3",)),
    listed("GS102", "verification-score-contradicts-status", contracts.check_verification_score, scope="chain", profile=NAME, modes=("FM-3.3",)),
    listed("GS201", "requirement-outside-plan", contracts.check_requirements_within_plan, scope="chain", profile=NAME, severity=WARNING, modes=("FM-2.4",)),
    listed("GS202", "task-count-differs-from-plan", contracts.check_task_count_matches_plan, scope="chain", profile=NAME, severity=WARNING, modes=("FM-3.1",)),
    listed("GS203", "uat-counts-disagree", project.check_uat_counts, scope="chain", profile=NAME, modes=("FM-3.3",)),
    listed("GS204", "pause-task-past-plan", project.check_pause_tasks, scope="chain", profile=NAME),
    # The project: ROADMAP and STATE against the phase folders.
    listed("GS301", "roadmap-tick-without-summary", project.check_roadmap_ticks, scope="chain", profile=NAME, modes=("FM-3.1",)),
    listed("GS302", "summary-not-ticked", project.check_summaries_ticked, scope="chain", profile=NAME, severity=WARNING),
    listed("GS303", "state-position-unknown", project.check_state_position, scope="chain", profile=NAME),
)  # fmt: skip
