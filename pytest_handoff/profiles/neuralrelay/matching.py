"""Which classification restates which believed property: scores and a one-to-one assignment.

Test agents restate properties verbatim, paraphrase them, shorten them to a few words before
``: ``, or refer to them (``[P2]``). Matching entry by entry fails when several properties share
domain words, so every (entry, property) pair is scored and the assignment with the best total
score is chosen; only what the assignment cannot place is reported.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from pytest_handoff.rules.text import head, match_words, normalise, word_stem

EXPLICIT_REFERENCE = re.compile(
    r"^\s*(?:\[\s*P(\d+)\s*\]|\(\s*P(\d+)\s*\)|P(\d+)\s*[:.)\-]|#(\d+)\b|property\s*#?\s*(\d+)\s*[:.)\-])",
    re.IGNORECASE,
)
#: A pair scoring below this is no match: the entry is an orphan or a repeat, the property unclassified.
FLOOR = 0.34
#: Above this many rows or columns the assignment is greedy (best pairs first) instead of exact.
EXACT_LIMIT = 40

EXPLICIT, RESTATED, EXACT = 3.0, 2.0, 2.5
# Identifiers and backquoted names: refreshAccessToken, parse_date, tokens.ts, `retry()`.
_BACKQUOTED = re.compile(r"`([^`]{2,})`")
# An identifier never spans white space or a backquote: it is searched word by word (see identifiers).
_IDENTIFIER = re.compile(r"\b(?:[a-z]+[A-Z]\w*|[A-Za-z]\w*_\w+|[\w-]+\.[a-z]{2,5})\b")


#: Words every test handoff uses whatever it is about: no evidence of what an entry is about.
GENERIC_WORDS = frozenset(
    {
        "test",
        "tested",
        "testing",
        "confirmed",
        "falsified",
        "inconclusive",
        "property",
        "could",
        "case",
        "should",
        "using",
        "used",
        "use",
        "call",
        "value",
        "return",
        "returned",
        "returns",
        "work",
        "same",
        "different",
        "one",
        "two",
        "three",
        "instead",
        "rather",
        "without",
        "within",
        "must",
        "still",
        "even",
        "like",
        "make",
        "made",
        "give",
        "given",
        "first",
        "second",
        "new",
        "old",
        "way",
        "get",
        "set",
        "line",
        "lines",
        "byte",
        "bytes",
        "bug",
        "error",
        "fail",
        "fails",
        "failed",
        "check",
        "checked",
    }
)


class Score(NamedTuple):
    """How well an entry restates a property: a value and what gave it."""

    value: float
    method: str

    def __str__(self) -> str:
        return f"{self.method} {self.value:.2f}"


NO_MATCH = Score(0.0, "no match")


@lru_cache(maxsize=4096)
def identifiers(text: str) -> frozenset[str]:
    """Identifiers, file names and backquoted names in ``text``, case-folded (cached)."""
    if "`" not in text and "_" not in text and "." not in text and (text.islower() or text.isupper()):
        return frozenset()  # no backquote, underscore, dot or lower-upper pair: no identifier
    found: set[str] = set()
    if "`" in text:
        found.update(match.group(1).casefold() for match in _BACKQUOTED.finditer(text))
        text = _BACKQUOTED.sub(" ", text)
    # Only a word with an underscore, a dot before its end or a lower-upper pair can hold one;
    # the pattern costs far more tried at every position of the text.
    for word in text.split():
        if "_" in word or "." in word[:-1] or not (word.islower() or word.isupper() or word.istitle()):
            found.update(match.group(0).casefold() for match in _IDENTIFIER.finditer(word))
    return frozenset(found)


def explicit_reference(entry: str) -> int | None:
    """The 1-based property number an entry names at its start (``[P2]``, ``P2:``, ``#2``)."""
    match = EXPLICIT_REFERENCE.match(entry)
    return int(next(g for g in match.groups() if g)) if match else None


class Properties:
    """Believed properties prepared for scoring: words, identifiers, and how rare each word is."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts = list(texts)
        self.normalised = [normalise(text) for text in texts]
        self.words = [match_words(text) for text in texts]
        self.identifiers = [identifiers(text) for text in texts]
        frequency = Counter(word for words in self.words for word in words)
        # A word in several properties tells them apart less: weight 1/df; numbers count half.
        self.weight = {word: (0.5 if word.isdigit() else 1.0) / n for word, n in frequency.items()}
        self.masses = [self._mass(words) for words in self.words]
        ids = Counter(i for found in self.identifiers for i in found)
        self.identifier_weight = {i: 1.0 / n for i, n in ids.items()}

    def __len__(self) -> int:
        return len(self.texts)

    def _mass(self, words: frozenset[str] | set[str]) -> float:
        return sum(self.weight.get(word, 1.0) for word in words)

    def score(self, entry: str, index: int) -> Score:
        """How well ``entry`` restates property ``index`` (0 when it does not)."""
        return self.scores(entry)[index]

    def scores(self, entry: str) -> list[Score]:
        """How well ``entry`` restates each property (0 where it does not)."""
        number = explicit_reference(entry)
        if number is not None and 1 <= number <= len(self.texts):
            return [
                Score(EXPLICIT, "explicit reference") if i == number - 1 else NO_MATCH
                for i in range(len(self))
            ]
        entry_norm = normalise(entry)
        head_norm = normalise(head(entry))
        exact = [self._restated(index, entry_norm, head_norm) for index in range(len(self))]
        if any(exact):
            # A restated property outscores any sharing of words: the words need not be weighed.
            return [score or NO_MATCH for score in exact]
        head_words = match_words(head_norm)
        entry_words = match_words(entry)
        entry_ids = identifiers(entry)
        head_mass = self._mass(head_words) if head_norm != entry_norm else 0.0
        return [
            self._score(index, entry_norm, head_norm, head_words, entry_words, entry_ids, head_mass)
            for index in range(len(self))
        ]

    def _restated(self, index: int, entry_norm: str, head_norm: str) -> Score | None:
        """The property's text as the entry (or its head) or the start of it, or None."""
        prop = self.normalised[index]
        if not prop:
            return None
        if prop in (entry_norm, head_norm):
            return Score(EXACT, "exact text")
        # A head of two words or more (and a dozen characters) that the property starts with.
        if entry_norm.startswith(prop) or (
            prop.startswith(head_norm) and " " in head_norm and len(head_norm) >= 12
        ):
            return Score(RESTATED, "restated prefix")
        return None

    def _score(
        self,
        index: int,
        entry_norm: str,
        head_norm: str,
        head_words: frozenset[str],
        entry_words: frozenset[str],
        entry_ids: frozenset[str],
        head_mass: float,
    ) -> Score:
        if not self.normalised[index]:
            return NO_MATCH
        words = self.words[index]
        mass = self.masses[index]
        if not mass:
            return NO_MATCH
        # How much of the property the entry restates, and how much of the entry's head
        # (a shortened restatement before ": ") comes from the property.
        restated = self._mass(words & entry_words) / mass
        short = 0.0
        if head_mass:
            shared = self._mass(head_words & words)
            short = shared / head_mass * min(1.0, shared)
        value = max(restated, short)
        method = "shared words" if restated >= short else "short restatement"
        shared_ids = self.identifiers[index] & entry_ids
        if shared_ids:
            value += 0.3 * min(2.0, sum(self.identifier_weight[i] for i in shared_ids))
            method += " + identifier"
        return Score(round(value, 4), method)


def assign(scores: list[list[float]], floor: float = FLOOR) -> dict[int, int]:
    """Rows -> columns, one to one, with the best total score; pairs below ``floor`` are left out."""
    rows = len(scores)
    columns = len(scores[0]) if rows else 0
    if not rows or not columns:
        return {}
    allowed = [[value if value >= floor else 0.0 for value in row] for row in scores]
    if max(rows, columns) > EXACT_LIMIT:
        return _greedy(allowed)
    size = max(rows, columns)
    # On equal scores the earlier entry keeps the property: the later one is the repeat.
    cost = [
        [
            -(allowed[r][c] - r * 1e-9 if r < rows and c < columns and allowed[r][c] else 0.0)
            for c in range(size)
        ]
        for r in range(size)
    ]
    matched = _hungarian(cost)
    return {r: c for r, c in enumerate(matched) if r < rows and c < columns and allowed[r][c] > 0.0}


def _greedy(allowed: list[list[float]]) -> dict[int, int]:
    pairs = sorted(
        ((value, r, c) for r, row in enumerate(allowed) for c, value in enumerate(row) if value > 0.0),
        key=lambda pair: (-pair[0], pair[1], pair[2]),
    )
    result: dict[int, int] = {}
    taken: set[int] = set()
    for _, r, c in pairs:
        if r not in result and c not in taken:
            result[r] = c
            taken.add(c)
    _augment(allowed, result)
    return result


def _augment(allowed: list[list[float]], result: dict[int, int]) -> None:
    """Give every row left out a column, where moving others along allowed pairs frees one.

    Greedy pairing can leave a row out that a one-to-one assignment would match (its only
    property went to a row with another choice); a breadth-first search for an augmenting path
    (Kuhn's method) finds it, so no entry is reported unmatched while a matching exists.
    """
    owner = {c: r for r, c in result.items()}
    options = [[c for c, value in enumerate(row) if value > 0.0] for row in allowed]
    for start in range(len(allowed)):
        if start in result or not options[start]:
            continue
        came_from: dict[int, int] = {}  # column -> the row that reached it
        frontier = [start]
        free: int | None = None
        while frontier and free is None:
            following: list[int] = []
            for row in frontier:
                for column in options[row]:
                    if column in came_from:
                        continue
                    came_from[column] = row
                    if column not in owner:
                        free = column
                        break
                    following.append(owner[column])
                if free is not None:
                    break
            frontier = following
        reached: int | None = free
        while reached is not None:  # shift each row along the path to its new column
            shifted = came_from[reached]
            previous = result.get(shifted)
            result[shifted] = reached
            owner[reached] = shifted
            reached = previous if shifted != start else None


def _hungarian(cost: list[list[float]]) -> list[int]:
    """The column of each row in a minimum-cost perfect assignment of a square matrix (O(n^3))."""
    n = len(cost)
    inf = float("inf")
    u, v = [0.0] * (n + 1), [0.0] * (n + 1)
    owner = [0] * (n + 1)  # column -> row, 1-based; 0 is free
    way = [0] * (n + 1)
    for row in range(1, n + 1):
        owner[0] = row
        column = 0
        least = [inf] * (n + 1)
        used = [False] * (n + 1)
        while True:
            used[column] = True
            current, delta, nxt = owner[column], inf, 0
            for c in range(1, n + 1):
                if not used[c]:
                    reduced = cost[current - 1][c - 1] - u[current] - v[c]
                    if reduced < least[c]:
                        least[c], way[c] = reduced, column
                    if least[c] < delta:
                        delta, nxt = least[c], c
            for c in range(n + 1):
                if used[c]:
                    u[owner[c]] += delta
                    v[c] -= delta
                else:
                    least[c] -= delta
            column = nxt
            if owner[column] == 0:
                break
        while column:
            previous = way[column]
            owner[column] = owner[previous]
            column = previous
    result = [0] * n
    for c in range(1, n + 1):
        result[owner[c] - 1] = c - 1
    return result


#: :data:`GENERIC_WORDS` as :func:`~pytest_handoff.rules.text.match_words` gives them.
GENERIC_STEMS = frozenset(word_stem(word) for word in GENERIC_WORDS)
