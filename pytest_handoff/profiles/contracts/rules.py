"""The rule table of user contracts: reading YAML (UC0xx) and the built-in checks rules use (UC2xx)."""

from __future__ import annotations

from pytest_handoff.profiles.contracts.checks import (
    check_count_equals_sum,
    check_covered_by,
    check_min_distinct_items,
    check_no_placeholders,
    check_timestamps_forward,
)
from pytest_handoff.rules.rows import listed, reported
from pytest_handoff.values.rules import Rule

NAME = "contracts"

RULES: tuple[Rule, ...] = (
    reported(
        "UC001",
        "invalid-yaml",
        """File is not YAML that can be read safely.

        **What it does**: reports a YAML syntax error at the parser's line and column, a file with
        no document, a tag other than the standard safe ones (`!!python/object`, a custom `!tag`),
        a mapping or sequence used as a key, an alias to an undefined or enclosing anchor, and
        nesting deeper than 256 levels.

        **Why is this bad?** No agent can read the document, or reading it would run or build
        something other than data.

        **Example**: `criteria: [login works, logout works` (the flow sequence never closes).

        **Use instead**: `criteria: [login works, logout works]`.
        """,
        profile=NAME,
    ),
    reported(
        "UC002",
        "yaml-alias-bomb",
        """Aliases expand to more values than any real document holds.

        **What it does**: counts the values YAML aliases (`*name`) bring into a file, with
        everything below them, as the file is read; past 10,000 the file is refused, at the alias
        that crossed the limit, and nothing of the expansion is built.

        **Why is this bad?** A "billion laughs" file of a few hundred bytes expands to billions of
        values: whatever reads it runs out of memory or time.

        **Example**: `b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]`, nine levels deep.

        **Use instead**: write the repeated data out, or anchor a block used a few times.
        """,
        profile=NAME,
    ),
    listed("UC201", "min-distinct-items", check_min_distinct_items, profile=NAME, modes=("FM-1.1",)),
    listed("UC202", "no-placeholders", check_no_placeholders, profile=NAME, modes=("FM-2.4",)),
    listed("UC203", "covered-by", check_covered_by, scope="chain", profile=NAME, modes=("FM-2.5",)),
    listed("UC204", "count-equals-sum", check_count_equals_sum, profile=NAME),
    listed("UC205", "timestamps-forward", check_timestamps_forward, scope="chain", profile=NAME),
)
