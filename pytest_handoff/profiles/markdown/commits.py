"""The commits a sentence of a Markdown handoff claims: a hash where a commit is meant.

A sentence that says commit ("Committed as `3f9a2c1`") claims the hashes it puts in a commit's
place: right after "commit", "committed as", "in" or "sha"; in backticks; in parentheses
(``(3f9a2c1)``); or listed after one of those ("commits 3f9a2c1 and 8b04d7e"). Any other word of
hexadecimal letters is a name (a migration ``20240115a``, a colour, an id). A year's digits and
one letter are a date more often than a hash: a commit only in backticks right after "commit".
Not a commit of the shared history: a pinned upstream or submodule revision, an image digest, one
kept in a reflog, a stash or a worktree.
"""

from __future__ import annotations

import re

_HASH = re.compile(r"(?<![\w/#@.-])((?=[0-9]{0,39}[a-f])[0-9a-f]{7,40})(?![\w-])")
_COMMIT_WORD = re.compile(r"\b(?:commit(?:ted|s)?)\b", re.IGNORECASE)
#: A line about commits kept on the writer's machine only (a reflog, a stash, a local tag): not
#: in the shared history, so not judged there.
_LOCAL_ONLY = re.compile(
    r"\b(?:reflog|stash|worktree|local(?:ly)?|unpushed|not pushed|dangling|lost)\b", re.IGNORECASE
)
#: A line naming another project's or a tool's revision (a pinned upstream commit, an image digest).
_NOT_OURS = re.compile(
    r"\b(?:upstream|pin(?:ned|s)?|submodule|vendor(?:ed)?|dependency|image|digest|docker)\b", re.IGNORECASE
)
# The words a hash follows in a commit's place ("commit abc1234", "**Commit:** `abc1234`", "in abc1234").
_AFTER_COMMIT = re.compile(
    r"\b(?:commit(?:ted|s)?(?:\s+(?:as|in|to|at|is|was|hash|id|sha))?|in|sha|hash)[\s:*#=`]{1,6}$",
    re.IGNORECASE,
)
# Between two hashes of one list ("abc1234, def5678 and 0a1b2c3").
_BETWEEN_HASHES = re.compile(r"^[\s`)]*(?:,|\+|&|/|\band\b)[\s`(]*$", re.IGNORECASE)
# A date with one letter (a migration's "20240115a"), not a hash but where a commit stands.
_DATE_LIKE = re.compile(r"(?=[a-f]?(?:19|20)[0-9]{2})[0-9]*[a-f][0-9]*")


def says_commit(words: str) -> bool:
    """Whether a sentence's ``words`` (its prose, names blanked) speak of a commit of our history."""
    return bool(_COMMIT_WORD.search(words)) and not (_LOCAL_ONLY.search(words) or _NOT_OURS.search(words))


def commit_hashes(text: str, words: str) -> list[tuple[str, int]]:
    """(hash, column) of each commit a sentence claims, ``text`` as written, ``words`` its prose
    (the same length, its code spans blanked); none unless :func:`says_commit`."""
    if not says_commit(words):
        return []
    found: list[tuple[str, int]] = []
    last_end = -1  # where the last claimed hash ends: a hash listed after it is one too
    for hashed in _HASH.finditer(text):
        value, start, end = hashed.group(1), hashed.start(1), hashed.end(1)
        if not any(c.isdigit() for c in value):
            continue  # a word ("deadbeef", "facade"), not a hash
        ticked = text[start - 1 : start] == "`" and text[end : end + 1] == "`"
        if not ticked and words[start:end] != value:
            continue  # inside a code span with more in it (a command, a path)
        after_commit = bool(_AFTER_COMMIT.search(text[max(0, start - 40) : start]))
        if _DATE_LIKE.fullmatch(value):
            placed = ticked and after_commit  # "20240115a": a date's digits, unless it stands as a commit
        else:
            placed = (
                ticked
                or after_commit
                or (text[start - 1 : start] == "(" and text[end : end + 1] == ")")
                or (last_end >= 0 and bool(_BETWEEN_HASHES.match(text[last_end:start])))
            )
        if placed:
            found.append((value, start))
            last_end = end
    return found
