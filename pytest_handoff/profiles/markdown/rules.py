"""The Markdown handoff profile's rule table (codes MD): few and mild; its value is evidence."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pytest_handoff.profiles.markdown.format import HANDOFF, NAME, NOT_STRICT_YAML
from pytest_handoff.rules.rows import listed, reported
from pytest_handoff.values.findings import Severity
from pytest_handoff.values.rules import Hit, Rule

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.settings import Settings

WARNING = Severity.WARNING

NOT_STRICT_YAML_DOC = """
A Markdown handoff's front matter that is not strict YAML is read leniently, and says so.

**What it does**: reports, at its line, the first place the block between a handoff's opening
`---` lines is not strict YAML (an unquoted value starting with `@`, a value holding `: `). The
block is still read, the failing values as the text they are written as; the body is read either way.

**Why is this bad?** Any YAML reader but a lenient one (an editor, a script, another agent's
tool) refuses the whole block, and every key of it with it.

**Example**: `branch: feat: login`.

**Use instead**: quote the value: `branch: "feat: login"`.
"""


def check_says_what_was_done_or_what_is_next(document: Document, settings: Settings) -> Iterator[Hit]:
    """A handoff says what was done, or what is next.

    **What it does**: reports a Markdown handoff file with no section about work done
    ("Completed", "What Was Done", "Files Modified", "Changes", "Current State") and none about
    what comes next ("Next Steps", "TODO", "Remaining", "Blockers"). A warning.

    **Why is this bad?** The next agent reads a handoff to learn where the work stands and what to
    do; one that says neither is notes, and the next agent starts by reconstructing the state.

    **Example**: a `HANDOFF.md` of only "## Architecture" and "## Commands".

    **Use instead**: a "## Done" section (with the files and commits of the work) and a
    "## Next Steps" section.
    """
    roles = document.data.get("roles")
    if isinstance(roles, dict) and not roles.get("done") and not roles.get("next"):
        yield Hit(
            document, "", "the handoff has no section saying what was done and none saying what is next"
        )


RULES: tuple[Rule, ...] = (
    reported(NOT_STRICT_YAML, "front-matter-not-strict-yaml", NOT_STRICT_YAML_DOC, severity=WARNING, profile=NAME),
    listed(
        "MD101", "no-done-or-next", check_says_what_was_done_or_what_is_next, profile=NAME,
        handoff_types=(HANDOFF,), severity=WARNING, modes=("FM-1.4",),
    ),
)  # fmt: skip
