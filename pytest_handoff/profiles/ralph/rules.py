"""The Ralph profile's rule table (RL codes).

RL0xx are reported while a log is read (a phrase the watchdog cannot use, or that comes
unannounced); RL1xx check one handoff's context; RL2xx check the session as a whole.
"""

from __future__ import annotations

from pytest_handoff.profiles.ralph import phrase_checks, session_checks
from pytest_handoff.profiles.ralph.protocol import NAME, PHRASE_TYPE, PRD_TYPE
from pytest_handoff.rules.rows import listed, reported
from pytest_handoff.values.findings import Severity
from pytest_handoff.values.rules import Rule

RL001 = """A handoff phrase names an agent the watchdog does not start.

**What it does**: reports `HANDOFF:<agent>:...` in a log when the agent is not pm, developer
or qa, at the agent's name.

**Why is this bad?** The watchdog's pattern admits only those three: it ignores the phrase,
no agent takes over, and the session stalls.

**Example**: `HANDOFF:tester:eyJmcm9tIjoi...`.

**Use instead**: `HANDOFF:qa:eyJmcm9tIjoi...`.
"""

RL002 = """A handoff's context cannot be read: no context, or base64 that is not a JSON object.

**What it does**: reports, at the context, a phrase with no context, and a context that looks
like base64 (its alphabet only, 16 characters or more) but is not valid base64, does not
decode to UTF-8, is not JSON, or is JSON but not an object; and one that starts as base64 of a
JSON object (`eyJ…`) but breaks off into other characters (corrupted, not plain text).

**Why is this bad?** The next agent gets garbage instead of who handed over, why, and which
task; the watchdog ignores a phrase with no context at all.

**Example**: `HANDOFF:developer:eyJmcm9tIjoicG0i` (cut short: not a whole JSON object).

**Use instead**: the base64 of the whole UTF-8 JSON object, on one line:
`HANDOFF:developer:<base64 of {"from": "pm", "reason": "task_assignment", ...}>`.
"""

RL003 = """A handoff's context is plain text instead of base64 JSON.

**What it does**: reports a context that is not base64 (it has spaces or other characters).

**Why is this bad?** The watchdog passes plain text on, but the protocol asks for a JSON
object (`from`, `reason`, `timestamp`, `task`); without it the next agent must guess the
task, and nothing about the handoff can be checked.

**Example**: `HANDOFF:qa:feature done, please test`.

**Use instead**: `HANDOFF:qa:<base64 of {"from": "developer", "reason": "ready_for_qa", ...}>`.
"""

RL004 = """A handoff phrase comes without `AGENT_READY_FOR_HANDOFF` before it.

**What it does**: reports a phrase with no `AGENT_READY_FOR_HANDOFF` earlier in the same log
since the log's previous phrase (the same line counts when it comes first).

**Why is this bad?** The agent signals with it that its state is saved; the watchdog waits
30 seconds for it, then stops the agent by force, and unsaved work is lost.

**Example**: a log whose last lines are the commit and then `HANDOFF:qa:...`.

**Use instead**: save prd.json and commit, print `AGENT_READY_FOR_HANDOFF`, then the phrase.
"""

RULES: tuple[Rule, ...] = (
    reported("RL001", "unknown-handoff-agent", RL001, profile=NAME),
    reported("RL002", "unreadable-handoff-context", RL002, profile=NAME),
    reported(
        "RL003",
        "plain-text-handoff-context",
        RL003,
        severity=Severity.WARNING,
        profile=NAME,
        modes=("FM-1.1",),
    ),
    reported("RL004", "handoff-without-ready", RL004, profile=NAME, modes=("FM-1.1", "FM-1.4")),
    listed(
        "RL101",
        "unknown-handoff-reason",
        phrase_checks.unknown_reason,
        profile=NAME,
        handoff_types=(PHRASE_TYPE,),
        modes=("FM-1.1",),
    ),
    listed(
        "RL102",
        "all-complete-handoff",
        phrase_checks.all_complete_handoff,
        profile=NAME,
        handoff_types=(PHRASE_TYPE,),
        modes=("FM-1.5",),
    ),
    listed(
        "RL103",
        "route-does-not-fit-reason",
        phrase_checks.route_fits_reason,
        profile=NAME,
        handoff_types=(PHRASE_TYPE,),
    ),
    listed(
        "RL104",
        "sender-is-not-log-agent",
        phrase_checks.sender_is_log_agent,
        profile=NAME,
        handoff_types=(PHRASE_TYPE,),
    ),
    listed(
        "RL201",
        "complete-with-open-items",
        session_checks.complete_with_open_items,
        scope="chain",
        profile=NAME,
        modes=("FM-3.1",),
    ),
    listed("RL202", "task-not-in-prd", session_checks.task_in_prd, scope="chain", profile=NAME),
    listed(
        "RL203",
        "handoff-log-route",
        session_checks.logged_routes,
        severity=Severity.WARNING,
        profile=NAME,
        handoff_types=("handoff_log",),
    ),
    listed(
        "RL204", "duplicate-item-id", session_checks.unique_item_ids, profile=NAME, handoff_types=(PRD_TYPE,)
    ),
    listed(
        "RL205",
        "unknown-dependency",
        session_checks.known_dependencies,
        severity=Severity.WARNING,
        profile=NAME,
        handoff_types=(PRD_TYPE,),
    ),
)
