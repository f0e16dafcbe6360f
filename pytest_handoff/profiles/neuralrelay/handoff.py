"""NeuralRelay rules on one handoff at a time (NR2xx): gaps, criteria, counts, verdicts."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING

from pytest_handoff.profiles.neuralrelay.matching import GENERIC_STEMS, identifiers
from pytest_handoff.rules.text import content_tokens, find_phrases, match_words, normalise, quote, word_stem
from pytest_handoff.values.rules import Hit
from pytest_handoff.values.wording import counted

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.settings import Settings

#: Two gaps sharing this share of their words (Dice) are one gap said twice.
DUPLICATE_GAP = 0.6


PLACEHOLDERS = frozenset(
    {
        "",
        "-",
        "--",
        "n/a",
        "na",
        "none",
        "nothing",
        "tbd",
        "todo",
        "tba",
        "unknown",
        "see above",
        "same as above",
        "see description",
        "see description above",
        "as above",
        "not applicable",
        "null",
        "...",
    }
)
VAGUE_GAP_PHRASES = (
    "more tests needed",
    "needs more testing",
    "needs more tests",
    "more testing needed",
    "need more tests",
    "need more testing",
    "more tests",
    "edge cases",
    "not fully tested",
    "not fully covered",
    "not be fully covered",
    "may not be covered",
    "corner cases",
    "some scenarios",
    "certain scenarios",
    "some cases",
    "certain cases",
    "various inputs",
    "error handling",
    "tbd",
)
# Words that pad a vague gap without saying what is untested.
GAP_FILLER = frozenset(
    """
    some may might fully covered cover coverage yet logic code handling certain various possibly
    potentially scenario scenarios case cases edge corner area areas part parts thing things stuff
    further additional properly completely entirely tested test tests testing untested needed need
    needs more well thoroughly still currently likely probably module feature features input inputs
    error errors behaviour behavior situation situations condition conditions unusual rare
    """.split()  # noqa: SIM905 (a word list reads better as text)
)


@cache
def _specific() -> re.Pattern[str]:
    """What makes a short gap specific (compiled on first use: most gaps are long enough)."""
    return re.compile(r"\d|['\"`\u2018\u201c]|\w\(|[a-z][A-Z]|\w_\w|\w\.[a-z]{1,5}\b|/\w")


VAGUE_CRITERION_PHRASES = (
    "works properly",
    "work properly",
    "working properly",
    "should work",
    "works correctly",
    "as expected",
    "user-friendly",
    "user friendly",
    "fast",
    "quickly",
    "easy to use",
    "intuitive",
    "seamless",
    "seamlessly",
    "robust",
    "good performance",
    "etc",
)


_SEGMENTS = re.compile(r"[\r\n]+|(?<=[.;!?])\s+")


# Words every coverage gap uses: they say it is a gap, not what it is about.
_GAP_WORDS = frozenset(
    word_stem(w)
    for w in ["untested", "tested", "test", "tests", "covered", "cover", "coverage", "gap", "missing", "yet"]
)


def gap_words(gap: str) -> frozenset[str]:
    """What a coverage gap is about, as words to compare."""
    return match_words(gap) - GENERIC_STEMS - _GAP_WORDS


def is_placeholder(text: str) -> bool:
    """True for a placeholder, also one padded with more placeholders ("n/a\\r\\n...")."""
    if normalise(text) in PLACEHOLDERS:
        return True
    segments = [segment for segment in _SEGMENTS.split(text) if segment.strip()]
    return len(segments) > 1 and all(normalise(segment) in PLACEHOLDERS for segment in segments)


def check_coverage_gaps_are_distinct(document: Document, settings: Settings) -> Iterator[Hit]:
    """Coverage gaps are pairwise distinct, also when one rewords another.

    **What it does**: compares every `coverage_gaps` entry with the earlier ones: the same text
    after normalising case and spacing, or the same gap reworded, by the similarity property
    matching uses (stemmed content words and concepts, identifiers split): the two share 60% of
    their words (Dice), or one restates 80% of the other's (at least three).

    **Why is this bad?** The protocol asks for at least three gaps; repeating one pads the list and
    hides that the developer named fewer real gaps. Gaps that name different identifiers or numbers
    (`parse_header` and `parse_footer`, `batch_size=499` and `501`, two dates) are different gaps,
    however alike their words. (Rewordings are looked for among the first
    500 entries, as comparing every pair of a longer list would take too long; exact repeats
    are found anywhere.)

    **Example**: `["Race on refresh", "race on  refresh.", "Key rotation"]`, or
    `"Concurrent refreshes of one token are untested"` next to `"No test runs two refreshes of one token at once"`.

    **Use instead**: three different, specific gaps.
    """
    gaps = document.data.get("coverage_gaps", [])
    first_of: dict[str, int] = {}
    words: list[frozenset[str]] = []
    specifics: list[_Specifics] = []
    for index, gap in enumerate(gaps):
        same = first_of.setdefault(normalise(gap), index)
        reworded = None
        if index < MAX_GAPS_COMPARED:  # pairwise comparison is quadratic: past it, exact repeats only
            words.append(gap_words(gap))
            specifics.append((identifiers(gap), frozenset(_NUMBER.findall(gap))))
            reworded = _reworded_from(words, specifics, index, before=same if same < index else index)
        if reworded is not None:
            earlier = reworded
            shared = words[index] & words[earlier]
            how = f" in other words (shared: {', '.join(sorted(w for w in shared if w[0] != '~')[:6])})"
        elif same < index:
            earlier, how = same, ""
        else:
            continue
        yield Hit(
            document,
            f"/coverage_gaps/{index}",
            f"coverage gap repeats entry {earlier}{how}: {quote(gap)}",
            related=((document, f"/coverage_gaps/{earlier}", "first occurrence"),),
        )


#: Coverage gaps compared pairwise for rewording; past these, only exact repeats are found.
MAX_GAPS_COMPARED = 500


#: What tells gaps about different things apart: identifiers and numbers (dates, sizes, limits).
_Specifics = tuple[frozenset[str], frozenset[str]]
_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")


def _reworded_from(
    words: list[frozenset[str]], specifics: list[_Specifics], index: int, before: int
) -> int | None:
    """The first gap before ``before`` that gap ``index`` rewords: about the same words, and not
    naming other identifiers or numbers (``parse_header`` and ``parse_footer``, ``499`` and ``501``
    make two gaps)."""
    mine = words[index]
    for earlier in range(before):
        pairs = zip(specifics[index], specifics[earlier], strict=True)
        if any(ours and theirs and ours != theirs for ours, theirs in pairs):
            continue
        shared = mine & words[earlier]
        smaller = min(len(mine), len(words[earlier]))
        dice = 2 * len(shared) / (len(mine) + len(words[earlier]) or 1)
        if dice >= DUPLICATE_GAP or (len(shared) >= 3 and len(shared) >= 0.8 * smaller):
            return earlier
    return None


def check_coverage_gaps_are_specific(document: Document, settings: Settings) -> Iterator[Hit]:
    """Coverage gaps name something specific, not a placeholder or a generic wish.

    **What it does**: flags entries that are a placeholder ("none", "n/a", "TBD") or are mostly a
    vague phrase ("more tests needed", "edge cases", "not fully covered") with fewer than three
    other words that are not filler ("some", "may", "logic", "yet") and no identifier, number,
    quoted value or path.

    **Why is this bad?** Coverage gaps tell the test agent where to look; a vague gap tells it
    nothing and the real gaps go untested.

    **Example**: `"needs more testing"`, `"Some edge cases in the refresh logic may not be fully covered yet"`.

    **Use instead**: `"race condition when two refreshAccessToken calls run for the same user"`.
    """
    for index, gap in enumerate(document.data.get("coverage_gaps", [])):
        if is_placeholder(gap):
            yield Hit(document, f"/coverage_gaps/{index}", f"coverage gap is a placeholder: {quote(gap)}")
            continue
        phrases = find_phrases(gap, VAGUE_GAP_PHRASES)
        if phrases:
            rest = content_tokens(gap) - set().union(*(content_tokens(p) for p in phrases)) - GAP_FILLER
            if len(rest) < 3 and not _specific().search(gap):
                yield Hit(
                    document,
                    f"/coverage_gaps/{index}",
                    f"coverage gap is vague ({quote(phrases[0])}): name the function, input or "
                    f"condition left untested",
                )


def check_criteria_are_testable(document: Document, settings: Settings) -> Iterator[Hit]:
    """Acceptance criteria are testable: no vague wording.

    **What it does**: flags criteria containing phrases no test can check, such as "works properly",
    "should work", "as expected", "user-friendly" or "fast", and quotes the phrase.

    **Why is this bad?** The test agent must verify every criterion; a vague one is either skipped
    or "verified" by opinion.

    **Example**: `"Login should work as expected and be fast"`.

    **Use instead**: `"POST /login returns 200 and a session cookie within 3 seconds"`.
    """
    for index, criterion in enumerate(document.data.get("acceptance_criteria", [])):
        for phrase in find_phrases(criterion, VAGUE_CRITERION_PHRASES):
            yield Hit(
                document,
                f"/acceptance_criteria/{index}",
                f"acceptance criterion uses untestable wording {quote(phrase)}: state a measurable outcome",
            )


# A single quote inside a word is an apostrophe (can't, the pet's name), not a quotation mark.
_SEGMENT = r"[\w.@-]+"
FILE_PATH = re.compile(
    rf"(?:{_SEGMENT}/)*[\w@-]+\.(?:py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|java|kt|rb|php|cs|c|h|cc|cpp|hpp|"
    r"swift|md|json|ya?ml|toml|sql|sh|html|css|scss|vue|svelte|prisma|proto|graphql|tf|lock|ini|cfg|"
    r"txt|xml|csv)\b(?::\d+(?:-\d+)?)?"  # tokens.ts, src/lib/tokens.ts:67-89
    rf"|(?<![\w/\[])(?:{_SEGMENT}/)+{_SEGMENT}\.[A-Za-z0-9]{{1,6}}\b"  # a path with any extension
    rf"|(?<![\w/\[]){_SEGMENT}(?:/{_SEGMENT}){{2,}}/?"  # src/lib/auth: three segments or more
    rf"|(?<![\w/\[]){_SEGMENT}/{_SEGMENT}/"  # lib/auth/: a folder
    rf"|(?<![\w/\[])[\w-]+(?:/{_SEGMENT})+:\d+"  # src/importer:42
)


def check_reviewer_focus_names_a_file(document: Document, settings: Settings) -> Iterator[Hit]:
    """``recommended_focus_for_reviewer`` names a file path (optionally with line numbers).

    **What it does**: looks for a path such as `src/lib/tokens.ts:67-89`, a file name with a known
    extension, a path of three segments or more, or a folder ending in `/` in the
    recommendation. Markup (`[bold red]x[/bold red]`) and `and/or` are not paths.

    **Why is this bad?** The field exists to save the reviewer from re-prioritising everything; "check
    the auth code" does not.

    **Example**: `"Look at the token handling carefully"`.

    **Use instead**: `"The refresh race in src/lib/tokens.ts:67-89 (test inconclusive)"`.
    """
    focus = document.data["recommended_focus_for_reviewer"]
    if not FILE_PATH.search(focus):
        yield Hit(
            document,
            "/recommended_focus_for_reviewer",
            "recommended focus names no file: point the reviewer at a path, e.g. src/module.py:40-55",
        )


def check_test_summary_adds_up(document: Document, settings: Settings) -> Iterator[Hit]:
    """``test_summary`` counts add up: passing + failing = total (or + skipped).

    **What it does**: accepts `total == passing + failing` (skipped not counted as run) and
    `total == passing + failing + skipped`; anything else is reported at `total`.

    **Why is this bad?** Counts that do not add up mean tests were lost or invented between the run
    and the handoff, so the reviewer cannot trust the rest.

    **Example**: `{"total": 34, "passing": 31, "failing": 1, "skipped": 1}`.

    **Use instead**: the counts the test runner printed.
    """
    summary = document.data["test_summary"]
    total, passing, failing, skipped = (summary[k] for k in ("total", "passing", "failing", "skipped"))
    if total not in (passing + failing, passing + failing + skipped):
        yield Hit(
            document,
            "/test_summary/total",
            f"test counts do not add up: passing {passing} + failing {failing} = {passing + failing}"
            f" (with skipped {skipped}: {passing + failing + skipped}), but total is {total}",
        )


def check_unit_tests_add_up(document: Document, settings: Settings) -> Iterator[Hit]:
    """``unit_tests_written.passing`` is at most ``unit_tests_written.count``.

    **What it does**: compares the two counts.

    **Why is this bad?** More tests passing than were written is impossible; the numbers were made up.

    **Example**: `{"count": 12, "passing": 14}`.

    **Use instead**: the counts the test runner printed.
    """
    tests = document.data["unit_tests_written"]
    if tests["passing"] > tests["count"]:
        yield Hit(
            document,
            "/unit_tests_written/passing",
            f"{counted(tests['passing'], 'test')} passing, but only {tests['count']} written",
        )


def _severe_issues(document: Document) -> list[int]:
    return [i for i, issue in enumerate(document.data["issues"]) if issue["severity"] in ("critical", "high")]


def check_approval_is_earned(document: Document, settings: Settings) -> Iterator[Hit]:
    """An ``approved`` review has no critical or high issue and a quality score of at least 7.

    **What it does**: reports an approval that contradicts the review's own findings.

    **Why is this bad?** NeuralRelay's review agent approves only work that is ready to merge; an
    approval over a high-severity issue merges a known bug.

    **Example**: `"verdict": "approved"` with an issue of severity `high`, or `"quality_score": 5`.

    **Use instead**: `changes_requested` (score 4-6) or `needs_rework` (below 4).
    """
    data = document.data
    if data["verdict"] != "approved":
        return
    severe = _severe_issues(document)
    if severe:
        yield Hit(
            document,
            "/verdict",
            f"approved with {len(severe)} critical/high issue(s)",
            related=tuple((document, f"/issues/{i}/severity", "severe issue") for i in severe),
        )
    if data["quality_score"] < 7:
        yield Hit(
            document,
            "/verdict",
            f"approved with quality score {data['quality_score']} (approval needs 7 or more)",
            related=((document, "/quality_score", "score"),),
        )


#: The scores NeuralRelay's review agent gives each verdict (agents/review-agent.md, its verdict
#: rules and score calibration): changes_requested 4-6, and 7-8 "approved or changes_requested
#: depending on issue count"; needs_rework below 4, or 4-6 with critical/high issues unresolved.
SCORE_BANDS = {"approved": (7, 10), "changes_requested": (4, 8), "needs_rework": (1, 6)}


def check_score_fits_verdict(document: Document, settings: Settings) -> Iterator[Hit]:
    """The quality score lies in the verdict's band: changes_requested 4-8, needs_rework 6 or below.

    **What it does**: compares `quality_score` with the scores NeuralRelay's review agent is told to
    give each verdict: `changes_requested` for 4-6 and, "depending on issue count", 7-8;
    `needs_rework` below 4, or up to 6 when critical or high issues are unresolved (approved scores
    below 7 are reported by NR210). NeuralRelay's own self-test review (`changes_requested`, 7) fits.

    **Why is this bad?** Scores feed NeuralRelay's history and trend reports; a 9 that requests
    changes or an 8 that sends the work back for rework makes them meaningless.

    **Example**: `"verdict": "changes_requested", "quality_score": 9`.

    **Use instead**: `"verdict": "approved"` for a 9, or the score the review's issues are worth.
    """
    verdict, score = document.data["verdict"], document.data["quality_score"]
    low, high = SCORE_BANDS[verdict]
    if verdict == "approved":
        return
    if not low <= score < high + 1:
        yield Hit(
            document,
            "/quality_score",
            f"quality score {score} does not fit verdict {verdict!r} (NeuralRelay's review agent gives it {low}-{high})",
            related=((document, "/verdict", "verdict"),),
        )


def check_severe_issues_need_rework(document: Document, settings: Settings) -> Iterator[Hit]:
    """A critical or high issue comes with the verdict ``needs_rework``.

    **What it does**: reports each critical/high issue of a `changes_requested` review (approvals
    are reported by NR210). NeuralRelay's review agent is told that `changes_requested` is for
    "minor issues (medium/low severity)" and `needs_rework` for "critical/high issues unresolved"
    (agents/review-agent.md). The repository's own sample review breaks this: it requests changes
    while its summary says two high-severity bugs need fixing before merge, so the rule warns on it.

    **Why is this bad?** `changes_requested` means "minor fixes needed, no full rework" (NeuralRelay's
    review schema), so using it for a feature-breaking bug understates the recorded outcome.

    **Example**: `"verdict": "changes_requested"` with an issue of severity `high`.

    **Use instead**: `"verdict": "needs_rework"`; lower the issue's severity if it is minor, or drop
    it if a rework cycle already resolved it (the review schema has no "resolved" flag to say so).
    """
    if document.data["verdict"] != "changes_requested":
        return
    for index in _severe_issues(document):
        severity = document.data["issues"][index]["severity"]
        yield Hit(
            document,
            f"/issues/{index}/severity",
            f"{severity} issue under verdict 'changes_requested'; NeuralRelay expects 'needs_rework'",
            related=((document, "/verdict", "verdict"),),
        )
