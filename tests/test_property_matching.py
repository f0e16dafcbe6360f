"""Classifications are matched to believed properties by a scored one-to-one assignment."""

from __future__ import annotations

import itertools
import re
import shutil
import unicodedata
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_handoff.pipeline.check import check_group
from pytest_handoff.pipeline.config import load_settings
from pytest_handoff.pipeline.discovery import discover
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.profiles.neuralrelay.matching import EXACT_LIMIT, FLOOR, Properties, assign, identifiers
from pytest_handoff.profiles.neuralrelay.profile import NeuralRelayProfile
from pytest_handoff.rules.text import _MATCH_FORMS, PHRASE_CONCEPTS, match_words, word_stem

FIXTURES = Path(__file__).parent / "fixtures" / "neuralrelay"


def best_total(scores: list[list[float]]) -> float:
    """The best total score of any one-to-one assignment, by trying them all."""
    rows, columns = len(scores), len(scores[0])
    allowed = [[v if v >= FLOOR else 0.0 for v in row] for row in scores]
    best = 0.0
    for columns_of_rows in itertools.permutations(range(max(rows, columns)), rows):
        best = max(best, sum(allowed[r][c] for r, c in enumerate(columns_of_rows) if c < columns))
    return best


matrices = st.integers(1, 5).flatmap(
    lambda rows: st.integers(1, 5).flatmap(
        lambda columns: st.lists(
            st.lists(
                st.sampled_from([0.0, 0.1, 0.3, 0.34, 0.5, 0.9, 1.0, 2.0, 3.0]),
                min_size=columns,
                max_size=columns,
            ),
            min_size=rows,
            max_size=rows,
        )
    )
)


@settings(max_examples=300, deadline=None)
@given(matrices)
def test_the_assignment_has_the_best_total_score_and_is_one_to_one(scores: list[list[float]]) -> None:
    chosen = assign(scores)
    assert len(set(chosen.values())) == len(chosen)
    assert all(scores[r][c] >= FLOOR for r, c in chosen.items())
    assert abs(sum(scores[r][c] for r, c in chosen.items()) - best_total(scores)) < 1e-6


def test_a_large_matrix_is_assigned_greedily_and_still_one_to_one() -> None:
    size = EXACT_LIMIT + 5
    scores = [[1.0 if r == c else 0.5 for c in range(size)] for r in range(size)]
    chosen = assign(scores)
    assert chosen == {r: r for r in range(size)}


def test_on_equal_scores_the_earlier_entry_keeps_the_property() -> None:
    assert assign([[1.0], [1.0]]) == {0: 0}


def test_entries_sharing_domain_words_each_get_their_own_property() -> None:
    # Entry by entry, both entries' best property is P1 (the tie went to the earlier property);
    # the assignment gives the second entry P2, whose own words it carries.
    properties = Properties(
        [
            "The invoice total equals the sum of its line amounts",
            "The invoice total is rounded to the currency's minor unit",
        ]
    )
    entries = [
        "Invoice total: sum of line amounts matches on 10,000 generated invoices",
        "Invoice total rounding: JPY totals have no minor unit and are rounded to whole yen",
    ]
    scores = [[properties.score(e, p).value for p in range(2)] for e in entries]
    assert assign(scores) == {0: 0, 1: 1}


def test_a_paraphrase_of_an_idempotent_property_matches_it() -> None:
    properties = Properties(["SyncFeed is idempotent", "ParseSKU rejects SKUs longer than 32 bytes"])
    entry = "Running SyncFeed a second time on the same feed changes nothing"
    assert properties.score(entry, 0).value >= FLOOR > properties.score(entry, 1).value


def test_an_explicit_reference_decides_whatever_the_words() -> None:
    properties = Properties(["Totals add up", "Totals are rounded"])
    assert properties.score("[P2] totals add up after rounding", 1).method == "explicit reference"
    assert properties.score("[P2] totals add up after rounding", 0).value == 0.0


def test_matching_words_keep_non_ascii_letters_and_split_identifiers() -> None:
    assert "café" in match_words("Café crème")
    assert {"refresh", "access", "token"} <= match_words("refreshAccessToken")
    assert word_stem("rejected") == word_stem("rejection") == word_stem("rejects")
    assert "~repeat" in match_words("x is idempotent") & match_words("run it a second time")


def test_a_rework_file_sorts_between_the_cycles_it_separates(tmp_path: Path) -> None:
    names = ["01-ba-agent.json", "02-dev-agent.json", "03-test-agent.json", "04-review-agent.json"]
    names += [
        "rework-1.json",
        "05-dev-agent.json",
        "06-test-agent.json",
        "07-review-agent.json",
        "rework-2.json",
    ]
    names += ["08-dev-agent.json", "rework-3.json"]
    for name in names:
        (tmp_path / name).write_text("{}")
    profile = NeuralRelayProfile()
    ordered = sorted((tmp_path / name for name in reversed(names)), key=profile.sort_key)
    # rework-3 has no third review before it: it goes last.
    assert [path.name for path in ordered] == names


def test_the_trace_shows_the_assignment_with_its_scores(tmp_path: Path) -> None:
    chain = "20260513-101500"
    shutil.copytree(FIXTURES / chain, tmp_path / ".neuralrelay" / "handoffs" / chain)
    settings_ = load_settings(tmp_path, tables=default_registry())
    (ref,) = discover([], tmp_path, settings_, registry=default_registry()).groups
    notes = check_group(ref, settings_, tmp_path, registry=default_registry()).notes
    matches = [note for note in notes if note.startswith("property match:")]
    assert matches
    assert all(" score " in note and "; next: " in note for note in matches)
    assert any("confirmed[0] -> P1" in note for note in matches)


def _most_pairs(allowed: list[list[bool]]) -> int:
    """The size of a maximum one-to-one matching (plain DFS augmenting paths), for comparison."""
    owner: dict[int, int] = {}

    def reach(row: int, seen: set[int]) -> bool:
        for column, ok in enumerate(allowed[row]):
            if ok and column not in seen:
                seen.add(column)
                if column not in owner or reach(owner[column], seen):
                    owner[column] = row
                    return True
        return False

    return sum(reach(row, set()) for row in range(len(allowed)))


def test_above_the_cap_no_entry_is_left_out_while_a_one_to_one_matching_exists() -> None:
    import random

    from pytest_handoff.profiles.neuralrelay.matching import EXACT_LIMIT, FLOOR, assign

    chooser = random.Random(7)
    for _ in range(200):
        size = chooser.randint(EXACT_LIMIT + 1, EXACT_LIMIT + 20)
        scores = [
            [chooser.choice([0.0, 0.0, 0.0, 0.0, 0.5, 0.9, 1.2]) for _ in range(size)] for _ in range(size)
        ]
        found = assign(scores)
        assert len(set(found.values())) == len(found)
        assert all(scores[row][column] >= FLOOR for row, column in found.items())
        assert len(found) == _most_pairs([[value >= FLOOR for value in row] for row in scores])
    # The review's case: the second entry's only property went to the first, which had another.
    padded = [[0.9, 0.8, *[0.0] * (EXACT_LIMIT - 1)], [0.85, *[0.0] * EXACT_LIMIT]]
    padded += [[0.0] * (EXACT_LIMIT + 1) for _ in range(EXACT_LIMIT - 1)]
    assert assign(padded) == {0: 1, 1: 0}


_TEXT_PIECES = st.sampled_from(["a", "B", "_", ".", "-", "`", " ", "\n", "9", "é", "py", "Id", "x.js"])


@given(st.lists(_TEXT_PIECES, max_size=16).map("".join))
@settings(max_examples=400, deadline=None)
def test_identifiers_searched_word_by_word_agree_with_one_search_of_the_whole_text(text: str) -> None:
    whole = re.compile(r"`([^`]{2,})`|\b([a-z]+[A-Z]\w*|[A-Za-z]\w*_\w+|[\w-]+\.[a-z]{2,5})\b")
    expected = frozenset(next(g for g in m.groups() if g).casefold() for m in whole.finditer(text))
    assert identifiers(text) == expected


@given(st.lists(_TEXT_PIECES, max_size=16).map("".join))
@settings(max_examples=400, deadline=None)
def test_matching_words_looked_up_per_written_word_agree_with_folding_each_word(text: str) -> None:
    # The reference folds every word, then adds its identifier parts, one at a time.
    expected: set[str] = set()
    for word in re.findall(r"[^\W_]+", unicodedata.normalize("NFC", text)):
        expected.update(_MATCH_FORMS[word.casefold()])
        if word.isascii() and not (word.islower() or word.isupper() or word.isdigit()):
            for part in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+", word):
                expected.update(_MATCH_FORMS[part.casefold()])
    folded = text.casefold()
    expected.update(concept for phrase, concept in PHRASE_CONCEPTS if phrase in folded)
    assert match_words(text) == expected


@given(
    texts=st.lists(st.text(alphabet="abc xyz", max_size=12), max_size=12),
    criterion=st.text(alphabet="abc xyz", max_size=20),
    long_from=st.integers(min_value=0, max_value=13),
)
def test_nr306_the_word_index_finds_the_same_first_string_as_looking_at_every_string(
    texts: list[str], criterion: str, long_from: int
) -> None:
    from types import SimpleNamespace
    from unittest.mock import patch

    from pytest_handoff.profiles.neuralrelay.tracing import _Haystack
    from pytest_handoff.rules.text import match_words

    haystack = _Haystack([SimpleNamespace(data={"notes": texts})])  # type: ignore[list-item]
    words = match_words(criterion)

    def enough(count: int) -> bool:
        return count >= 1 and count / max(1, len(words)) >= 0.5

    looked_at_every = next(
        (at for at, text in enumerate(haystack.texts) if enough(len(words & match_words(text)))), None
    )
    with patch("pytest_handoff.profiles.neuralrelay.tracing._INDEXED", long_from):  # some strings "long"
        assert haystack.first_sharing(words, enough) == looked_at_every
