"""Deterministic text matching used by contract rules (no models, no randomness).

Handoffs are prose written by language models, so rules compare normalised
text: case-folded, dashes unified, whitespace collapsed, and reduced to content
tokens (stop words dropped, a light plural stemming).
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import chain

_DASHES = re.compile(r"[\u2010-\u2015\u2212]")
_SPACES = re.compile(r"\s+")
# Where a classification entry stops restating the property and starts adding evidence.
_HEAD_SEPARATOR = re.compile(r"\s+-{1,2}\s+|\s*\u2014\s*|\s+\u2013\s+|:\s")

STOP_WORDS = frozenset(
    """
    a an and are as at be been but by can could did do does for from had has have if in into is it
    its of on or so than that the their then there these this those to was were when where which
    while with would will not no any all also only both each it's i we they you he she our your
    because about after before over under more most other some such very just see
    """.split()  # noqa: SIM905 (a word list reads better as text)
)


@lru_cache(maxsize=16384)
def normalise(text: str) -> str:
    """Case-folded text with unified dashes and single spaces, trimmed of edge punctuation."""
    text = text.casefold()
    if not text.isascii():  # every dash but "-" is outside ASCII
        text = _DASHES.sub("-", text)
    # split() breaks at what \s matches, several times faster than a regex on non-ASCII text.
    return " ".join(text.split()).strip(" .,;:!?'\"`()[]")


def head(text: str) -> str:
    """The part of an entry before the first spaced dash or colon: the restated property."""
    match = _HEAD_SEPARATOR.search(text)
    return text[: match.start()] if match else text


def stem(token: str) -> str:
    """A light plural stemmer: ``directories`` -> ``directory``, ``tokens`` -> ``token``."""
    if len(token) > 5 and token.endswith("sses"):
        return token[:-2]
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


class _ContentWords(dict[bytes, str]):
    """Raw token -> its stem, or "" for a stop word; filled on first sight (vocabularies are small)."""

    def __missing__(self, raw: bytes) -> str:
        token = raw.decode("ascii")
        word = "" if token in STOP_WORDS or len(token) < 2 else stem(token)
        if len(self) < 100_000:  # bounded: hostile input may bring a million distinct tokens
            self[raw] = word
        return word


_CONTENT_WORDS = _ContentWords()
_BLANK_ALL_BUT_TOKENS = bytes(
    byte if chr(byte) in "abcdefghijklmnopqrstuvwxyz0123456789" else ord(" ") for byte in range(256)
)


@lru_cache(maxsize=16384)
def content_tokens(text: str) -> frozenset[str]:
    """The meaningful words of ``text``, stemmed (cached: rules ask for the same text often)."""
    # Tokens are [a-z0-9] runs of the case-folded text (so normalise() changes none of them).
    # In UTF-8 every other character is bytes outside [a-z0-9]: blanked by one table lookup per
    # byte, the tokens are what split() leaves; a regex over the text costs twice as much.
    raw = text.casefold().encode("utf-8", "surrogatepass").translate(_BLANK_ALL_BUT_TOKENS)
    words = set(map(_CONTENT_WORDS.__getitem__, raw.split()))
    words.discard("")
    return frozenset(words)


def containment(part: frozenset[str], whole: frozenset[str]) -> float:
    """Share of ``part`` found in ``whole`` (0 when ``part`` is empty)."""
    return len(part & whole) / len(part) if part else 0.0


@lru_cache(maxsize=64)
def _phrase_pattern(phrases: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(phrase) for phrase in phrases)
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])")


def find_phrases(text: str, phrases: tuple[str, ...]) -> list[str]:
    """The phrases that occur in ``text`` as whole words, in the order given."""
    folded = normalise(text)
    # The common case, answered by substring tests (the patterns compile only when one may match).
    if not any(phrase in folded for phrase in phrases) or not _phrase_pattern(phrases).search(folded):
        return []
    return [phrase for phrase in phrases if _phrase_pattern((phrase,)).search(folded)]


def quote(text: str, limit: int = 80) -> str:
    """``text`` in double quotes, cut to ``limit`` characters."""
    text = _SPACES.sub(" ", text).strip()
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f'"{text}"'


# --- words for matching prose against prose (properties, criteria, gaps) -----------------------

_WORD = re.compile(r"[^\W_]+")
# Parts of an ASCII identifier: refreshAccessToken -> refresh, Access, Token; HTTPServer -> HTTP, Server.
IDENTIFIER_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_DERIVATIONS = ("ation", "ion", "ingly", "ing", "edly", "ed", "ly", "ment", "ness")

#: Words that say the same thing about code in different words, folded into one marker word,
#: so that "X is idempotent" and "running X a second time changes nothing" share one.
CONCEPTS = {
    "~repeat": "idempotent idempotency idempotence twice again repeated repeat rerun rerunning rerun",
    "~concurrent": "concurrent concurrently concurrency parallel simultaneous simultaneously race racing "
    "threadsafe lock locking mutex",
    "~unique": "unique uniqueness duplicate duplicated collision collide",
    "~deterministic": "deterministic reproducible nondeterministic",
    "~order": "sorted ascending descending monotonic monotonically",
    "~empty": "empty blank",
    "~reject": "reject rejected rejects refuse refused deny denied",
    "~unchanged": "unchanged unaltered unmodified",
}
#: Phrases that stand for a concept of :data:`CONCEPTS` (matched in case-folded text).
PHRASE_CONCEPTS = (
    ("second time", "~repeat"),
    ("run again", "~repeat"),
    ("more than once", "~repeat"),
    ("changes nothing", "~unchanged"),
    ("no change", "~unchanged"),
    ("same result", "~unchanged"),
    ("at the same time", "~concurrent"),
    ("at once", "~concurrent"),
)


def word_stem(token: str) -> str:
    """A light stemmer for matching: plurals and common suffixes (``rejected``, ``rejection`` -> ``reject``)."""
    token = stem(token)
    if not token.isalpha() or len(token) <= 4:
        return token
    for suffix in _DERIVATIONS:
        if token.endswith(suffix) and len(token) - len(suffix) >= (4 if suffix == "ly" else 3):
            token = token[: -len(suffix)] + ("at" if suffix == "ation" else "")
            if suffix in ("ing", "ed") and token[-1] == token[-2] and token[-1] not in "lsz":
                token = token[:-1]  # running -> run, stopped -> stop
            break
    if len(token) > 4 and token.endswith("e"):
        token = token[:-1]  # validate and validation meet at "validat"
    if len(token) > 4 and token.endswith("y"):
        token = token[:-1] + "i"  # retry, retries, retried
    return token


_CONCEPT_OF = {word_stem(word): concept for concept, words in CONCEPTS.items() for word in words.split()}


class _MatchForms(dict[str, tuple[str, ...]]):
    """Case-folded word -> its stem and concept marker (none for a stop word); filled on first sight."""

    def __missing__(self, folded: str) -> tuple[str, ...]:
        if len(folded) < 2 or folded in STOP_WORDS:
            forms: tuple[str, ...] = ()
        else:
            stemmed = word_stem(folded)
            concept = _CONCEPT_OF.get(stemmed)
            forms = (stemmed,) if concept is None else (stemmed, concept)
        if len(self) < 100_000:  # bounded: hostile input may bring a million distinct words
            self[folded] = forms
        return forms


_MATCH_FORMS = _MatchForms()


class _WordForms(dict[str, tuple[str, ...]]):
    """A word as written -> every form it gives (its own, and its identifier parts'); filled on
    first sight, so that a text's words are looked up in one pass at C speed."""

    def __missing__(self, word: str) -> tuple[str, ...]:
        if word.islower():  # most words: no case to split on
            forms = _MATCH_FORMS[word]
        else:
            found = set(_MATCH_FORMS[word.casefold()])
            if word.isascii() and not (word.isupper() or word.isdigit()):
                for part in IDENTIFIER_PARTS.findall(word):
                    found.update(_MATCH_FORMS[part.casefold()])
            forms = tuple(sorted(found))
        if len(self) < 100_000:  # bounded, as _MatchForms
            self[word] = forms
        return forms


_WORD_FORMS = _WordForms()
#: _WORD on ASCII text: letters and digits kept, every other byte a blank.
_BLANK_ALL_BUT_ASCII_WORDS = bytes(
    byte if chr(byte).isalnum() and byte < 128 else ord(" ") for byte in range(256)
)


@lru_cache(maxsize=16384)
def match_words(text: str) -> frozenset[str]:
    """Content words of ``text`` for matching prose: any script, identifiers split, stems, concepts.

    Unlike :func:`content_tokens` this keeps non-ASCII letters (``café``), splits identifiers
    (``refreshAccessToken`` also gives ``refresh``, ``access``, ``token``), stems derived forms
    (``rejected`` -> ``reject``) and adds a marker for words of one concept (:data:`CONCEPTS`).
    """
    if text.isascii():
        # ASCII letter and digit runs: blanking every other byte and splitting is three times
        # as fast as the pattern (which any script needs).
        found = text.encode("ascii").translate(_BLANK_ALL_BUT_ASCII_WORDS).decode("ascii").split()
    else:
        from unicodedata import normalize  # a library module of its own: loaded for such text only

        text = normalize("NFC", text)
        found = _WORD.findall(text)
    words = set(chain.from_iterable(map(_WORD_FORMS.__getitem__, found)))
    folded = text.casefold()
    words.update(concept for phrase, concept in PHRASE_CONCEPTS if phrase in folded)
    return frozenset(words)
