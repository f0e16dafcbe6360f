"""How a recorded validation command shows that it failed.

Craik records commands and tests as plain strings (``"pytest"``, ``"pytest -q: 2 failed, 40
passed"``, ``"npm test (exit code 1)"``); the docs' shape may record objects
(``{"command": "pytest", "exit_code": 1}``). A failure shows as:

- a non-zero exit status: ``exit 1``, ``exit code 2``, ``exited with 127``, ``rc=1``,
  ``returncode: 1``, ``return code 3``, ``non-zero exit``;
- a non-zero count of failures or errors: ``2 failed``, ``1 error``, ``3 tests failed``,
  ``failures: 4``, ``errors=1``;
- the verdict in capitals, as test runners print it: ``FAILED``, ``FAIL``, ``ERROR``;
- the verdict in lower case where it reads as the command's outcome: at the end
  (``pytest failed``), or set off by punctuation (``pytest: failed``, ``ruff (failing)``,
  ``mypy - fails``).

Not failures: zero counts (``0 failed``, ``failed: 0``, ``no failures``), exit status 0, words
inside a name or an option (``test_login_fails``, ``--cov-fail-under=90``, ``xfailed``,
``fail-fast``), prose that mentions a failure without being an outcome (``regression test
for failed logins``), and a failure the outcome left behind (``passed (retry after failure)``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

# Patterns as text, compiled (and cached by re) on first need: most entries are plain commands
# that the quick test on _CLUES clears, and compiling costs start-up time.
_EXIT = (
    r"(?i)\b(?:(?:exit(?:ed)?(?:[ \t]+(?:with|code|status))*|exit_code|exit_status|returncode|"
    r"return[ \t]+code)[ \t]*[:=]?|rc[ \t]*[:=])[ \t]*(-?\d+)\b"
)
_NON_ZERO = r"(?i)\bnon-?zero[ \t]+(?:exit|status|return)"
_COUNT_BEFORE = r"(?i)\b(\d+)[ \t]+(?:tests?[ \t]+)?(failed|failures?|failing|errors?|errored)\b"
_COUNT_AFTER = r"(?i)\b(failed|failures?|errors?)[ \t]*[:=][ \t]*(\d+)\b"
_CAPITALS = r"(?<![-\w/.=])(FAILED|FAILURE|FAIL|ERROR)(?![-\w])"
_WORD = r"(?i)(?<![-\w/.=])(failed|failing|fails|failure)(?![-\w])"
_ZERO_BEFORE = r"(?i)(?:\b0|\bno|\bnone|\bwithout)[ \t]+(?:tests?[ \t]+)?$"
# A failure the outcome left behind (``passed (retry after failure)``, ``ok despite a failing
# fixture``): the words before it, in the same clause, say so.
_PAST_FAILURE = r"(?i)\b(?:after|despite|retr(?:y|ied|ies)|re-?run|flaky|previous(?:ly)?|earlier)\b[^:;|]*$"
_ZERO_AFTER = r"^[ \t]*[:=][ \t]*0\b"
#: Text without any of these (lower-cased) shows no failure: no pattern needs to look at it.
_CLUES = ("fail", "error", "exit", "rc", "return", "zero")
_OUTCOME_AFTER = ("", ":", "(", ")", "[", "]", ",", ";", "!", ".", "|", "-", "\u2014", "\u2013")
_OUTCOME_BEFORE = (":", "(", "[", "|", ">", "-", "=", "\u2014", "\u2013")

#: Keys of a recorded command object that hold its exit status, and those that hold its verdict.
EXIT_KEYS = ("exit_code", "exit_status", "exitcode", "returncode", "return_code", "rc", "exit")
VERDICT_KEYS = ("status", "result", "outcome", "verdict", "conclusion")
FAILED_VERDICTS = frozenset({"failed", "fail", "failure", "error", "errored", "failing"})


def failure_in(text: str) -> str | None:
    """The part of ``text`` that says the command failed, or None when nothing does."""
    lowered = text.lower()
    if not any(clue in lowered for clue in _CLUES):
        return None
    for match in re.finditer(_EXIT, text):
        if int(match.group(1)) != 0:
            return match.group(0)
    non_zero = re.search(_NON_ZERO, text)
    if non_zero:
        return non_zero.group(0)
    for match in re.finditer(_COUNT_BEFORE, text):
        if int(match.group(1)) > 0:
            return match.group(0)
    for match in re.finditer(_COUNT_AFTER, text):
        if int(match.group(2)) > 0:
            return match.group(0)
    for pattern, needs_outcome in ((_CAPITALS, False), (_WORD, True)):
        for match in re.finditer(pattern, text):
            before, after = text[: match.start()], text[match.end() :]
            if re.search(_ZERO_BEFORE, before) or re.match(_ZERO_AFTER, after):
                continue
            if needs_outcome and (not _reads_as_outcome(before, after) or re.search(_PAST_FAILURE, before)):
                continue
            return match.group(0)
    return None


def _reads_as_outcome(before: str, after: str) -> bool:
    """True when a lower-case verdict word ends the text or is set off by punctuation."""
    after = after.lstrip()
    before = before.rstrip()
    if not after or after.startswith(_OUTCOME_AFTER[1:]):
        return True
    return bool(before) and before.endswith(_OUTCOME_BEFORE)


def failures(value: Any, pointer: str) -> Iterator[tuple[str, str]]:
    """(pointer, what shows the failure) for each failed command in a recorded list.

    Strings are read with :func:`failure_in`; objects by their exit status and verdict keys
    (and their other strings as text).
    """
    if not isinstance(value, list):
        return
    for index, item in enumerate(value):
        at = f"{pointer}/{index}"
        if isinstance(item, str):
            shown = failure_in(item)
            if shown is not None:
                yield at, shown
        elif isinstance(item, dict):
            found = _object_failure(item)
            if found is not None:
                key, shown = found
                yield f"{at}/{key}", shown


def _object_failure(item: dict[str, Any]) -> tuple[str, str] | None:
    for key in EXIT_KEYS:
        code = item.get(key)
        if isinstance(code, int) and not isinstance(code, bool) and code != 0:
            return key, f"{key} {code}"
    for key in VERDICT_KEYS:
        verdict = item.get(key)
        if isinstance(verdict, str) and verdict.strip().lower() in FAILED_VERDICTS:
            return key, f"{key} {verdict.strip()!r}"
    if item.get("passed") is False:
        return "passed", "passed false"
    for key, text in item.items():
        if isinstance(text, str) and key not in VERDICT_KEYS:
            shown = failure_in(text)
            if shown is not None:
                return key, shown
    return None
