"""The fast text helpers give what their plain definitions give, for any text."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_handoff.rules.text import STOP_WORDS, content_tokens, match_words, normalise, stem

# Letters, digits, every kind of white space and dash, and characters whose case folding
# changes their length or leaves ASCII.
TRICKY = (
    "aZz09 _.-,;:!?'\"`()[]\t\n\r\x0b\x0c\x1c\x85\xa0\u2000\u2028\u3000\u2010\u2013\u2014\u2212"
    "\xe9\xdf\u017f\u212a\u0130\u0131\ufb01\u03a3\u03c2"
)
texts = st.text(alphabet=TRICKY, max_size=40) | st.text(max_size=40)


def plain_normalise(text: str) -> str:
    text = re.sub(r"[\u2010-\u2015\u2212]", "-", text.casefold())
    return re.sub(r"\s+", " ", text).strip(" .,;:!?'\"`()[]")


def plain_content_tokens(text: str) -> frozenset[str]:
    tokens = re.findall(r"[a-z0-9]+", text.casefold())
    return frozenset(stem(t) for t in tokens if t not in STOP_WORDS and len(t) > 1)


@settings(max_examples=2000, deadline=None)
@given(texts)
def test_normalise_is_casefold_dashes_and_single_spaces(text: str) -> None:
    assert normalise.__wrapped__(text) == plain_normalise(text)


@pytest.mark.slow  # a property test of thousands of examples: seconds
@settings(max_examples=2000, deadline=None)
@given(texts)
def test_content_tokens_are_the_stemmed_words_that_are_not_stop_words(text: str) -> None:
    assert content_tokens.__wrapped__(text) == plain_content_tokens(text)


@settings(max_examples=300)
@given(text=st.text(alphabet=st.characters(max_codepoint=127), max_size=60))
def test_match_words_reads_ascii_text_as_its_pattern_does(text: str) -> None:
    # An em space (no word character, unchanged by NFC and case folding) sends the same text
    # down the pattern's path, which any script takes.
    assert match_words(text) == match_words(text + "\u2003")
