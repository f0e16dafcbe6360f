"""What a cited file says against a claim: each a function of the file's bytes (None when there is no
such file) giving why the claim fails, or None; and the test cases of a test file, by language."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from pytest_handoff.values.wording import counted

if TYPE_CHECKING:
    from pytest_handoff.rules.evidence.claims import Claim

# Test cases by language, counted as a documented heuristic (EV402).
TEST_CASES: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = (
    ((".py",), re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+test\w*[ \t]*\(", re.MULTILINE)),
    (
        (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs"),
        re.compile(r"(?<![\w.])(?:it|test)(?:\.(?:only|skip|each\([^)]*\)))?[ \t]*\(", re.MULTILINE),
    ),
    ((".go",), re.compile(r"^func[ \t]+Test\w*[ \t]*\(", re.MULTILINE)),
    ((".rs",), re.compile(r"#\[(?:\w+::)?test\]")),
    ((".java", ".kt"), re.compile(r"@Test\b")),
    ((".rb",), re.compile(r"^[ \t]*(?:it[ \t]+['\"]|def[ \t]+test_)", re.MULTILINE)),
)


#: What a cited file's content (None: no file) says against a claim: why it fails, or None.
Fact = Callable[["bytes | None"], "str | None"]


def past_the_end(claim: Claim) -> Fact:
    def fact(raw: bytes | None) -> str | None:
        if raw is None:
            return f"{claim.value}:{claim.line} cites a file that does not exist"
        lines = raw.count(b"\n") + (0 if raw.endswith(b"\n") or not raw else 1)
        if claim.line is not None and claim.line > lines:
            return f"{claim.value}:{claim.line} is past the end of the file ({counted(lines, 'line')})"
        return None

    return fact


def undefined(claim: Claim) -> Fact:
    def fact(raw: bytes | None) -> str | None:
        if raw is None:
            return f"{claim.value}::{claim.test} names a test in a file that does not exist"
        defined = re.search(
            rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{re.escape(claim.test)}[ \t]*\(",
            raw.decode("utf-8", "replace"),
            re.M,
        )
        return (
            None
            if defined
            else f"{claim.value}::{claim.test} names a test that {claim.value} does not define"
        )

    return fact


def not_written(claim: Claim) -> Fact:
    def fact(raw: bytes | None) -> str | None:
        return f"test file {claim.value} is claimed written, but it does not exist" if raw is None else None

    return fact


def still_there(claim: Claim) -> Fact:
    def fact(raw: bytes | None) -> str | None:
        return None if raw is None else f"{claim.value} is claimed deleted, but it is still there"

    return fact
