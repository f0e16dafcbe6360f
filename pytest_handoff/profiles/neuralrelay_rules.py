"""NeuralRelay's contract rules: layout (NR1xx), per handoff (NR2xx) and across the chain (NR3xx)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from itertools import accumulate
from typing import TYPE_CHECKING, Any, NamedTuple

from pytest_handoff.findings import Severity
from pytest_handoff.pointers import pointer_join
from pytest_handoff.profiles.neuralrelay import (
    CHAIN_ID,
    NAME,
    NUMBERED_FILE,
    REWORK_FILE,
    STAGE,
    agents,
)
from pytest_handoff.rules import Hit, rule
from pytest_handoff.text import containment, content_tokens, find_phrases, head, normalise, quote

if TYPE_CHECKING:
    from pytest_handoff.config import Settings
    from pytest_handoff.documents import Document
    from pytest_handoff.engine import Chain

WARNING = Severity.WARNING


def _numbered(document: Document) -> re.Match[str] | None:
    return NUMBERED_FILE.fullmatch(document.name)


def _rework(document: Document) -> re.Match[str] | None:
    return REWORK_FILE.fullmatch(document.name)


def _timestamp(document: Document) -> datetime | None:
    value = document.data.get("timestamp") if isinstance(document.data, dict) else None
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None


# --- layout ------------------------------------------------------------------


@rule("NR101", "file-name", scope="chain", profile=NAME)
def check_file_names(chain: Chain, settings: Settings) -> Iterator[Hit]:
    """Files of a chain are named ``{NN}-{agent}.json`` or ``rework-{N}.json`` with a known agent.

    **What it does**: checks each file name of a chain folder against NeuralRelay's naming and the
    known agents (ba-agent, dev-agent, test-agent, security-agent, review-agent, plus any configured
    with `agents`).

    **Why is this bad?** NeuralRelay's commands find handoffs by name; a misnamed file is invisible to
    the next agent, and the agent in the name decides which contract applies.

    **Example**: `2-dev.json`, `02-developer.json`.

    **Use instead**: `02-dev-agent.json`.
    """
    if chain.ref.standalone:
        return
    known = agents(settings)
    for document in chain.documents:
        named = _numbered(document)
        if _rework(document) or (named and named.group("agent") in known):
            continue
        if named:
            message = (
                f"unknown agent {named.group('agent')!r} in file name; known agents: "
                f"{', '.join(sorted(known))} (configure more with 'agents')"
            )
        else:
            message = "file name should be {NN}-{agent}.json or rework-{N}.json"
        yield Hit(document, "", message)


@rule("NR102", "agent-type-mismatch", profile=NAME)
def check_agent_writes_its_type(document: Document, settings: Settings) -> Iterator[Hit]:
    """The agent in the file name writes the handoff type its role implies.

    **What it does**: compares `handoff_type` with the type the agent of `{NN}-{agent}.json` writes
    (ba-agent: requirements, dev-agent: dev_to_test, test-agent and security-agent: test_to_review,
    review-agent: review_final).

    **Why is this bad?** A review written into the test agent's slot means the chain skipped a stage
    or an agent overwrote another's output.

    **Example**: `03-test-agent.json` containing `"handoff_type": "review_final"`.

    **Use instead**: write the review to `04-review-agent.json`.
    """
    named = _numbered(document)
    implied = agents(settings).get(named.group("agent")) if named else None
    if implied is not None and document.handoff_type != implied:
        yield Hit(
            document,
            "/handoff_type",
            f"{named.group('agent') if named else ''} writes {implied!r} handoffs, "
            f"but this file declares {document.handoff_type!r}",
        )


@rule("NR103", "sequence-numbers", scope="chain", profile=NAME)
def check_sequence_numbers(chain: Chain, settings: Settings) -> Iterator[Hit]:
    """Sequence numbers of a chain's files are unique and have no gaps, starting at 01.

    **What it does**: reads `NN` from `{NN}-{agent}.json` and reports a number used twice or a
    number skipped.

    **Why is this bad?** A gap means a handoff was lost or deleted; a duplicate means two agents
    claim the same step and the order of the chain is ambiguous.

    **Example**: `01-ba-agent.json`, `02-dev-agent.json`, `04-review-agent.json` (03 missing).

    **Use instead**: number the files 01, 02, 03, ... in the order the agents ran.
    """
    # Every member counts, parsed or not, so an unreadable file does not look like a gap;
    # findings go only to parsed files (the others have their own load finding).
    seen: dict[int, str] = {}
    expected = 1
    for path in chain.ref.paths:
        named = NUMBERED_FILE.fullmatch(path.name)
        if named is None:
            continue
        number = int(named.group("seq"))
        document = chain.document_at(path)
        if number in seen:
            if document is not None:
                yield Hit(document, "", f"sequence number {number:02d} is also used by {seen[number]}")
            continue
        if number > expected and document is not None:
            missing = ", ".join(f"{n:02d}" for n in range(expected, number))
            yield Hit(document, "", f"sequence jumps to {number:02d}: {missing} missing")
        seen[number] = path.name
        expected = max(expected, number + 1)


@rule("NR104", "stage-order", scope="chain", profile=NAME)
def check_stage_order(chain: Chain, settings: Settings) -> Iterator[Hit]:
    """Stages follow NeuralRelay's order: requirements, dev_to_test, test_to_review, review_final.

    **What it does**: walks the numbered files in sequence order and reports a handoff whose stage
    comes before the stage of the file numbered before it.

    **Why is this bad?** Each agent consumes the previous agent's handoff; a test handoff written
    before the dev handoff tested nothing that the dev handoff describes.

    **Example**: `02-test-agent.json` followed by `03-dev-agent.json`.

    **Use instead**: run (and number) the agents in pipeline order.
    """
    previous: Document | None = None
    for document in chain.documents:
        if _numbered(document) is None or document.handoff_type not in STAGE:
            continue
        if previous is not None and STAGE[document.handoff_type] < STAGE[previous.handoff_type or ""]:
            yield Hit(
                document,
                "/handoff_type",
                f"{document.handoff_type} comes after {previous.handoff_type} ({previous.name}); "
                "expected order: " + " -> ".join(STAGE),
                related=((previous, "/handoff_type", "previous stage"),),
            )
        previous = document


@rule("NR105", "timestamp-order", scope="chain", profile=NAME)
def check_timestamp_order(chain: Chain, settings: Settings) -> Iterator[Hit]:
    """Timestamps do not go backwards along the chain's sequence.

    **What it does**: compares each handoff's `timestamp` with the latest earlier one (numbered files
    in order, then rework files).

    **Why is this bad?** A handoff stamped before the handoff it consumed was either edited by hand
    or produced from stale input.

    **Example**: `02-dev-agent.json` at `2026-03-22T14:45:18Z`, `03-test-agent.json` at
    `2026-03-22T14:02:33Z`.

    **Use instead**: stamp each handoff when it is written, in UTC.
    """
    latest: tuple[datetime, Document] | None = None
    for document in chain.valid():
        stamp = _timestamp(document)
        if stamp is None:
            continue
        if stamp.tzinfo is None:
            continue
        if latest is not None and stamp < latest[0]:
            yield Hit(
                document,
                "/timestamp",
                f"timestamp {document.data['timestamp']} is earlier than {latest[1].name}'s "
                f"{latest[1].data['timestamp']}",
                related=((latest[1], "/timestamp", "later timestamp"),),
            )
        else:
            latest = (stamp, document)


@rule("NR106", "incomplete-chain", scope="chain", severity=WARNING, profile=NAME)
def check_chain_is_complete(chain: Chain, settings: Settings) -> Iterator[Hit]:
    """A chain has every stage: requirements, dev_to_test, test_to_review and review_final.

    **What it does**: reports the stages a chain folder lacks. A chain without requirements is
    complete when its dev handoff carries `inline_requirements` (NeuralRelay's quick mode).

    **Why is this bad?** An incomplete chain is a pipeline that stopped half-way, or files that were
    never committed; its later contracts cannot be checked.

    **Example**: a chain folder with `01-ba-agent.json` and `02-dev-agent.json` only.

    **Use instead**: commit the whole chain, or finish the pipeline run.
    """
    if chain.ref.standalone or not chain.documents:
        return
    present = {doc.handoff_type for doc in chain.documents}
    known = agents(settings)
    for path in chain.ref.paths:  # a file that did not parse still stands for its agent's stage
        named = NUMBERED_FILE.fullmatch(path.name)
        if named and chain.document_at(path) is None:
            present.add(known.get(named.group("agent")))
    dev = chain.first("dev_to_test")
    quick_mode = dev is not None and bool(dev.data.get("inline_requirements"))
    missing = [
        stage for stage in STAGE if stage not in present and not (stage == "requirements" and quick_mode)
    ]
    if missing:
        anchor = chain.documents[-1]
        yield Hit(anchor, "", f"chain {chain.chain_id} is incomplete: no {', '.join(missing)} handoff")


@rule("NR107", "chain-id", scope="chain", severity=WARNING, profile=NAME)
def check_chain_id(chain: Chain, settings: Settings) -> Iterator[Hit]:
    """A chain folder is named by its start time, ``YYYYMMDD-HHmmss`` (optionally ``-N``).

    **What it does**: checks the folder name's shape and that it is a real date and time.

    **Why is this bad?** NeuralRelay sorts chains by name to find the newest run; other names break
    its history and resume commands.

    **Example**: `.neuralrelay/handoffs/oauth-login/`.

    **Use instead**: `.neuralrelay/handoffs/20260322-143052/`.
    """
    if chain.ref.standalone or not chain.documents:
        return
    match = CHAIN_ID.fullmatch(chain.chain_id)
    valid = False
    if match:
        try:
            # Not strptime: its module costs every run milliseconds to import.
            date, time = match.group("date"), match.group("time")
            datetime(
                int(date[:4]), int(date[4:6]), int(date[6:]), int(time[:2]), int(time[2:4]), int(time[4:])
            )
            valid = True
        except ValueError:
            valid = False
    if not valid:
        yield Hit(
            chain.documents[0], "", f"chain folder {chain.chain_id!r} is not a YYYYMMDD-HHmmss[-N] timestamp"
        )


# --- per handoff ---------------------------------------------------------------

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
    "tbd",
)
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


def _is_placeholder(text: str) -> bool:
    return normalise(text) in PLACEHOLDERS


@rule("NR201", "duplicate-coverage-gap", profile=NAME, handoff_types=("dev_to_test",))
def check_coverage_gaps_are_distinct(document: Document, settings: Settings) -> Iterator[Hit]:
    """Coverage gaps are pairwise distinct after normalising case and whitespace.

    **What it does**: compares every `coverage_gaps` entry with the earlier ones, ignoring case,
    spacing and edge punctuation.

    **Why is this bad?** The protocol asks for at least three gaps; repeating one pads the list and
    hides that the developer named fewer real gaps.

    **Example**: `["Race on refresh", "race on  refresh.", "Key rotation"]`.

    **Use instead**: three different, specific gaps.
    """
    first_seen: dict[str, int] = {}
    for index, gap in enumerate(document.data.get("coverage_gaps", [])):
        key = normalise(gap)
        if key in first_seen:
            earlier = first_seen[key]
            yield Hit(
                document,
                f"/coverage_gaps/{index}",
                f"coverage gap repeats entry {earlier}: {quote(gap)}",
                related=((document, f"/coverage_gaps/{earlier}", "first occurrence"),),
            )
        else:
            first_seen[key] = index


@rule("NR202", "vague-coverage-gap", profile=NAME, handoff_types=("dev_to_test",))
def check_coverage_gaps_are_specific(document: Document, settings: Settings) -> Iterator[Hit]:
    """Coverage gaps name something specific, not a placeholder or a generic wish.

    **What it does**: flags entries that are a placeholder ("none", "n/a", "TBD") or are mostly a
    vague phrase ("more tests needed", "needs more testing") with fewer than three other words.

    **Why is this bad?** Coverage gaps tell the test agent where to look; a vague gap tells it
    nothing and the real gaps go untested.

    **Example**: `"needs more testing"`.

    **Use instead**: `"race condition when two refreshAccessToken calls run for the same user"`.
    """
    for index, gap in enumerate(document.data.get("coverage_gaps", [])):
        if _is_placeholder(gap):
            yield Hit(document, f"/coverage_gaps/{index}", f"coverage gap is a placeholder: {quote(gap)}")
            continue
        phrases = find_phrases(gap, VAGUE_GAP_PHRASES)
        if phrases:
            rest = content_tokens(gap) - set().union(*(content_tokens(p) for p in phrases))
            if len(rest) < 3:
                yield Hit(
                    document,
                    f"/coverage_gaps/{index}",
                    f"coverage gap is vague ({quote(phrases[0])}): name the function, input or "
                    f"condition left untested",
                )


@rule("NR203", "vague-acceptance-criterion", severity=WARNING, profile=NAME, handoff_types=("requirements",))
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


CONCRETE_MARKERS = (
    re.compile(r"\d"),  # a number, a status code, a size
    re.compile(r"'[^']+'|\"[^\"]+\"|`[^`]+`|\u2018[^\u2019]+\u2019|\u201c[^\u201d]+\u201d"),  # a quoted value
    re.compile(r"[A-Za-z_][\w.]*\("),  # a call
    re.compile(r"\bexpected\b.*\bactual\b|\bactual\b.*\bexpected\b", re.IGNORECASE | re.DOTALL),
    re.compile(r"==|!=|=>|->|<=|>=|[=<>]"),  # an assignment, comparison or mapping
    re.compile(r"\w/\w|/\w+"),  # a path or an endpoint
)


@rule("NR204", "missing-counterexample", profile=NAME, handoff_types=("test_to_review",))
def check_counterexample_present(document: Document, settings: Settings) -> Iterator[Hit]:
    """Every bug in ``bugs_found`` has a counterexample that is not empty or a placeholder.

    **What it does**: flags counterexamples that are empty or say "N/A", "see above", "TBD" and the like.

    **Why is this bad?** A bug without a reproduction cannot be confirmed by the reviewer or turned
    into a regression test by the developer.

    **Example**: `"counterexample": "see above"`.

    **Use instead**: `"counterexample": "decryptToken('not-a-valid-ciphertext') returns '' instead of throwing"`.
    """
    for index, bug in enumerate(document.data.get("bugs_found", [])):
        if _is_placeholder(bug["counterexample"]):
            yield Hit(
                document,
                f"/bugs_found/{index}/counterexample",
                f"bug {index} has no counterexample ({quote(bug['counterexample'])})",
            )


@rule("NR205", "abstract-counterexample", profile=NAME, handoff_types=("test_to_review",))
def check_counterexample_concrete(document: Document, settings: Settings) -> Iterator[Hit]:
    """A counterexample is concrete: it gives an input, a call or a value, or an Expected/Actual pair.

    **What it does**: looks for at least one concrete marker in the counterexample: a number, a
    quoted value, a call like `f(x)`, a comparison or assignment, a path or endpoint, or the words
    "Expected" and "Actual".

    **Why is this bad?** "Fails on some inputs" does not let anybody reproduce the bug.

    **Example**: `"The function breaks with bad data"`.

    **Use instead**: `"parse_date('2024-02-30') returns March 1 instead of raising ValueError"`.
    """
    for index, bug in enumerate(document.data.get("bugs_found", [])):
        text = bug["counterexample"]
        if _is_placeholder(text):
            continue  # NR204's business
        if not any(marker.search(text) for marker in CONCRETE_MARKERS):
            yield Hit(
                document,
                f"/bugs_found/{index}/counterexample",
                "counterexample is not concrete: give the input, call or value that triggers the "
                "bug, or an Expected/Actual pair",
            )


@rule("NR206", "long-counterexample", severity=WARNING, profile=NAME, handoff_types=("test_to_review",))
def check_counterexample_minimal(document: Document, settings: Settings) -> Iterator[Hit]:
    """A counterexample is minimal: at most ``max-counterexample-length`` characters (default 600).

    **What it does**: measures each counterexample in characters.

    **Why is this bad?** The protocol asks for the smallest reproduction; a long one usually mixes
    several bugs or pastes a log.

    **Example**: a counterexample holding a 3 kB stack trace.

    **Use instead**: the shortest input that still fails, and the failure in one sentence.
    """
    limit = settings.max_counterexample_length
    for index, bug in enumerate(document.data.get("bugs_found", [])):
        length = len(bug["counterexample"])
        if length > limit:
            yield Hit(
                document,
                f"/bugs_found/{index}/counterexample",
                f"counterexample is {length} characters long; keep it under {limit} (minimal reproduction)",
            )


FILE_PATH = re.compile(
    r"(?:[\w.@\[\]-]+/)+[\w.@\[\]-]*\w(?::\d+(?:-\d+)?)?"  # a/b/c.ts, src/app/[id]/route.ts:12-30
    r"|\b[\w-]+\.(?:py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|java|kt|rb|php|cs|c|h|cc|cpp|hpp|swift|md|json|"
    r"ya?ml|toml|sql|sh|html|css|scss|vue|svelte|prisma|proto|graphql|tf)\b(?::\d+(?:-\d+)?)?"
)


@rule("NR207", "unspecific-reviewer-focus", profile=NAME, handoff_types=("test_to_review",))
def check_reviewer_focus_names_a_file(document: Document, settings: Settings) -> Iterator[Hit]:
    """``recommended_focus_for_reviewer`` names a file path (optionally with line numbers).

    **What it does**: looks for a path such as `src/lib/tokens.ts:67-89` or a file name with a known
    extension in the recommendation.

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


@rule("NR208", "test-summary-arithmetic", profile=NAME, handoff_types=("test_to_review",))
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


@rule("NR209", "unit-test-arithmetic", profile=NAME, handoff_types=("dev_to_test",))
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
            f"{tests['passing']} tests passing, but only {tests['count']} written",
        )


def _severe_issues(document: Document) -> list[int]:
    return [i for i, issue in enumerate(document.data["issues"]) if issue["severity"] in ("critical", "high")]


@rule("NR210", "approved-with-blockers", profile=NAME, handoff_types=("review_final",))
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


SCORE_BANDS = {"approved": (7, 10), "changes_requested": (4, 6), "needs_rework": (1, 3)}


@rule("NR211", "score-verdict-mismatch", severity=WARNING, profile=NAME, handoff_types=("review_final",))
def check_score_fits_verdict(document: Document, settings: Settings) -> Iterator[Hit]:
    """The quality score lies in the verdict's band: approved 7-10, changes_requested 4-6, needs_rework 1-3.

    **What it does**: compares `quality_score` with the band NeuralRelay's review agent documents for
    each verdict (approved scores below 7 are reported by NR210).

    **Why is this bad?** Scores feed NeuralRelay's history and trend reports; a 9 that requests
    changes or a 7 that does not approve makes them meaningless.

    **Example**: `"verdict": "changes_requested", "quality_score": 7`.

    **Use instead**: `"verdict": "approved"`, or a score of 6 or lower.
    """
    verdict, score = document.data["verdict"], document.data["quality_score"]
    low, high = SCORE_BANDS[verdict]
    if verdict == "approved":
        return
    if not low <= score < high + 1:
        yield Hit(
            document,
            "/quality_score",
            f"quality score {score} does not fit verdict {verdict!r} (expected {low}-{high})",
            related=((document, "/verdict", "verdict"),),
        )


@rule("NR212", "severe-issue-without-rework", severity=WARNING, profile=NAME, handoff_types=("review_final",))
def check_severe_issues_need_rework(document: Document, settings: Settings) -> Iterator[Hit]:
    """A critical or high issue comes with the verdict ``needs_rework``.

    **What it does**: reports each critical/high issue of a `changes_requested` review (approvals
    are reported by NR210).

    **Why is this bad?** NeuralRelay routes `needs_rework` back to the dev agent; "changes requested"
    for a feature-breaking bug lets it through with minor fixes.

    **Example**: `"verdict": "changes_requested"` with an issue of severity `high`.

    **Use instead**: `"verdict": "needs_rework"`, or lower the issue's severity if it is minor.
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


# --- across the chain ------------------------------------------------------------

CATEGORIES = ("confirmed", "falsified", "inconclusive")
EXPLICIT_REFERENCE = re.compile(
    r"^\s*(?:\[\s*P(\d+)\s*\]|\(\s*P(\d+)\s*\)|P(\d+)\s*[:.)\-]|#(\d+)\b)", re.IGNORECASE
)


class Classification:
    """One entry of ``property_verification`` and the property it was matched to."""

    __slots__ = ("category", "index", "method", "property_index", "text")

    def __init__(self, category: str, index: int, text: str, property_index: int | None, method: str) -> None:
        self.category = category
        self.index = index
        self.text = text
        self.property_index = property_index
        self.method = method

    @property
    def pointer(self) -> str:
        return f"/property_verification/{self.category}/{self.index}"


def match_entry(entry: str, properties: list[str]) -> tuple[int | None, str]:
    """The property an entry classifies, and how it was matched.

    In order of strength: an explicit reference (``[P2]``, ``P2:``, ``#2``, 1-based); the exact
    property text; the entry starting with the property, or the property starting with the entry's
    head (text before the first spaced dash or colon); token containment of at least 80% between
    the head and the property (or the property within the whole entry). Ties go to the earlier
    property, so the result is deterministic.
    """
    explicit = EXPLICIT_REFERENCE.match(entry)
    if explicit:
        number = int(next(g for g in explicit.groups() if g))
        if 1 <= number <= len(properties):
            return number - 1, "explicit reference"
    entry_norm, head_norm = normalise(entry), normalise(head(entry))
    head_tokens, entry_tokens = content_tokens(head_norm), content_tokens(entry_norm)
    best: tuple[int, float, int] | None = None
    methods = {4: "exact text", 3: "restated prefix", 2: "shared words"}
    for index, prop in enumerate(properties):
        prop_norm = normalise(prop)
        prop_tokens = content_tokens(prop_norm)
        if not prop_norm:
            continue
        if prop_norm in (entry_norm, head_norm):
            score: tuple[int, float] = (4, 1.0)
        elif entry_norm.startswith(prop_norm) or (len(head_tokens) >= 2 and prop_norm.startswith(head_norm)):
            score = (3, len(head_norm) / len(prop_norm))
        else:
            overlap = max(
                containment(head_tokens, prop_tokens) if len(head_tokens & prop_tokens) >= 2 else 0.0,
                containment(prop_tokens, entry_tokens) if len(prop_tokens & entry_tokens) >= 2 else 0.0,
            )
            score = (2, overlap) if overlap >= 0.8 else (0, 0.0)
        if score[0] and (best is None or score > best[:2]):
            best = (score[0], score[1], index)
    if best is None:
        return None, "no match"
    return best[2], methods[best[0]]


def classifications(chain: Chain) -> tuple[Document, Document, list[Classification]] | None:
    """The dev and test handoffs and every classification entry matched to a property (cached)."""
    if "classifications" in chain.memo:
        cached: tuple[Document, Document, list[Classification]] | None = chain.memo["classifications"]
        return cached
    dev, test = chain.first("dev_to_test"), chain.first("test_to_review")
    result = None
    if dev is not None and test is not None:
        properties = [p["property"] for p in dev.data["properties_believed"]]
        entries = []
        for category in CATEGORIES:
            for index, text in enumerate(test.data["property_verification"][category]):
                matched, method = match_entry(text, properties)
                entries.append(Classification(category, index, text, matched, method))
        result = (dev, test, entries)
        for entry in entries:
            target = f"P{entry.property_index + 1}" if entry.property_index is not None else "nothing"
            chain.notes.append(
                f"property match: {test.name} {entry.category}[{entry.index}] -> {target} ({entry.method})"
            )
    chain.memo["classifications"] = result
    return result


@rule("NR301", "unclassified-property", scope="chain", profile=NAME)
def check_every_property_classified(chain: Chain, settings: Settings) -> Iterator[Hit]:
    """Every believed property of the dev handoff is classified by the test handoff.

    **What it does**: matches each entry of the test handoff's `property_verification`
    (confirmed / falsified / inconclusive) to a dev `properties_believed` entry (see `match_entry`:
    explicit `[P2]` reference, exact text, restated prefix, then shared words) and reports each
    property no entry matched, at the property in the dev handoff.

    **Why is this bad?** The test agent's job is to try to falsify each believed property; one left
    out was silently never tested.

    **Example**: five believed properties, four classifications.

    **Use instead**: classify every property, restating it: `"<property> — tested with ..."`.
    """
    found = classifications(chain)
    if found is None:
        return
    dev, test, entries = found
    matched = {entry.property_index for entry in entries}
    for index, prop in enumerate(dev.data["properties_believed"]):
        if index not in matched:
            yield Hit(
                dev,
                f"/properties_believed/{index}/property",
                f"property P{index + 1} is not classified as confirmed, falsified or inconclusive "
                f"in {test.name}: {quote(prop['property'])}",
                related=((test, "/property_verification", "classifications"),),
            )


@rule("NR302", "property-classified-twice", scope="chain", profile=NAME)
def check_property_classified_once(chain: Chain, settings: Settings) -> Iterator[Hit]:
    """A believed property is classified exactly once.

    **What it does**: reports every classification entry after the first that matches the same
    property, naming both.

    **Why is this bad?** A property both confirmed and falsified (or listed twice) leaves the
    reviewer with no verdict on it.

    **Example**: the same property under `confirmed` and under `inconclusive`.

    **Use instead**: one entry per property, in the one list that fits.
    """
    found = classifications(chain)
    if found is None:
        return
    dev, test, entries = found
    first: dict[int, Classification] = {}
    for entry in entries:
        if entry.property_index is None:
            continue
        earlier = first.setdefault(entry.property_index, entry)
        if earlier is not entry:
            yield Hit(
                test,
                entry.pointer,
                f"property P{entry.property_index + 1} is classified again as {entry.category} "
                f"(already {earlier.category}[{earlier.index}])",
                related=(
                    (test, earlier.pointer, "first classification"),
                    (dev, f"/properties_believed/{entry.property_index}/property", "property"),
                ),
            )


@rule("NR303", "orphan-classification", scope="chain", profile=NAME)
def check_classifications_have_properties(chain: Chain, settings: Settings) -> Iterator[Hit]:
    """Every classification entry refers to a believed property of the dev handoff.

    **What it does**: reports entries of `property_verification` that match no property.

    **Why is this bad?** The test agent verified something the developer never claimed, or reworded
    a property beyond recognition, so the chain loses track of what was tested.

    **Example**: `"confirmed": ["Login is secure"]` when no property mentions login.

    **Use instead**: restate the property first, or reference it explicitly: `"[P3] ..."`.
    """
    found = classifications(chain)
    if found is None:
        return
    dev, test, entries = found
    for entry in entries:
        if entry.property_index is None:
            yield Hit(
                test,
                entry.pointer,
                f"{entry.category} entry matches no believed property of {dev.name}: {quote(entry.text)}",
            )


def _best_overlap(text: str, candidates: list[str]) -> tuple[int | None, frozenset[str]]:
    wanted = content_tokens(text) - GENERIC_WORDS
    best: tuple[int, int] | None = None
    shared: frozenset[str] = frozenset()
    for index, candidate in enumerate(candidates):
        common = wanted & content_tokens(candidate)
        if len(common) >= 3 and (best is None or len(common) > best[0]):
            best, shared = (len(common), index), common
    return (best[1] if best else None), shared


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
    }
)


@rule("NR304", "falsified-without-bug", scope="chain", profile=NAME)
def check_falsified_properties_have_bugs(chain: Chain, settings: Settings) -> Iterator[Hit]:
    """Every falsified property has a bug in ``bugs_found`` with a counterexample.

    **What it does**: for each `falsified` entry, looks for a bug whose description, location or
    counterexample shares at least three content words with the entry.

    **Why is this bad?** A falsified property is a real bug; without a bug entry it has no severity,
    no counterexample and no suggested fix, and the reviewer may never see it.

    **Example**: `"falsified": ["retry is idempotent — FALSIFIED"]` with `"bugs_found": []`.

    **Use instead**: add a bug with a minimal counterexample for it.
    """
    test = chain.first("test_to_review")
    if test is None:
        return
    bugs = [" ".join((b["description"], b["location"], b["counterexample"])) for b in test.data["bugs_found"]]
    for index, entry in enumerate(test.data["property_verification"]["falsified"]):
        matched, shared = _best_overlap(entry, bugs)
        pointer = f"/property_verification/falsified/{index}"
        if matched is None:
            words = ", ".join(sorted(content_tokens(head(entry)) - GENERIC_WORDS)[:8])
            yield Hit(
                test,
                pointer,
                f"falsified property has no matching bug in bugs_found (looked for a bug sharing "
                f"three of: {words})",
            )
        else:
            chain.notes.append(
                f"falsified[{index}] -> bugs_found[{matched}] (shared: {', '.join(sorted(shared)[:6])})"
            )


@rule("NR305", "inconclusive-unexplained", scope="chain", severity=WARNING, profile=NAME)
def check_inconclusive_properties_explained(chain: Chain, settings: Settings) -> Iterator[Hit]:
    """Every inconclusive property is explained in ``remaining_risks``.

    **What it does**: for each `inconclusive` entry, looks for a `remaining_risks` entry sharing at
    least three content words with it.

    **Why is this bad?** An inconclusive property is an open risk; if it is not carried into the
    remaining risks, the reviewer treats the feature as tested.

    **Example**: `"inconclusive": ["state is single-use — needs an HTTP server"]`, no risk mentions it.

    **Use instead**: `"remaining_risks": ["State replay within the 5-minute window is untested"]`.
    """
    test = chain.first("test_to_review")
    if test is None:
        return
    risks = test.data["remaining_risks"]
    for index, entry in enumerate(test.data["property_verification"]["inconclusive"]):
        matched, shared = _best_overlap(entry, risks)
        if matched is None:
            yield Hit(
                test,
                f"/property_verification/inconclusive/{index}",
                "inconclusive property is not explained in remaining_risks",
            )
        else:
            chain.notes.append(
                f"inconclusive[{index}] -> remaining_risks[{matched}] (shared: {', '.join(sorted(shared)[:6])})"
            )


# The look-behind follows the literal "/" so the regex engine can skip ahead to each "/".
ENDPOINT = re.compile(r"/(?<![\w.]/)[A-Za-z0-9_\-{}\[\]:.]+(?:/[A-Za-z0-9_\-{}\[\]:.]+)*")
QUOTED = re.compile(r"'([^']{2,})'|\"([^\"]{2,})\"|`([^`]{2,})`")
IDENTIFIER = re.compile(r"\b(?:[a-z]+[A-Z]\w*|\w+_\w+|[\w-]+\.[a-z]{2,5})\b")


def _identifiers(text: str) -> list[str]:
    """IDENTIFIER's matches in ``text``, searched only in the words that can hold one.

    A match never spans white space, so each word is searched on its own; a word can hold one only
    with an underscore, a dot before its last character, or a lower-case letter before an upper-case
    one (which no all-lower, all-upper or title-case word has). Most words have none of these, and
    the pattern costs far more tried at every position of the criterion.
    """
    return [
        match.group(0)
        for word in text.split()
        if "_" in word or "." in word[:-1] or not (word.islower() or word.isupper() or word.istitle())
        for match in IDENTIFIER.finditer(word)
    ]


# "AC3", "criterion 3", "acceptance criterion 3" in case-folded text. Two patterns that start with
# a literal (the word boundary is a look-behind) let the regex engine skip ahead at C speed.
CRITERION_REFERENCES = (
    re.compile(r"ac(?<!\wac)\s*[-#]?\s*(\d+)\b"),
    re.compile(r"criterion(?<!\wcriterion)\s*[-#]?\s*(\d+)\b"),
)


def _criterion_demands(criterion: str, glossary: list[tuple[str, str]]) -> list[str]:
    """What a criterion demands that later handoffs should mention, most specific first.

    An endpoint with three or more segments also demands its parent folder (``/api/auth/signin/``),
    which finds routes implemented with a dynamic segment (``[provider]``, ``{id}``, ``:id``).
    ``glossary`` holds (term, case-folded term) pairs.
    """
    demands: list[str] = []
    parents: list[str] = []
    for match in ENDPOINT.finditer(criterion):
        endpoint = match.group(0).rstrip(".,:")
        demands.append(endpoint)
        if endpoint.count("/") >= 3:
            parents.append(endpoint.rsplit("/", 1)[0] + "/")
    demands.extend(next(g for g in m.groups() if g) for m in QUOTED.finditer(criterion))
    demands.extend(_identifiers(criterion))
    lowered = criterion.casefold()
    demands.extend(term for term, folded in glossary if folded in lowered)
    unique: list[str] = []
    for demand in [*demands, *parents]:
        folded = demand.casefold().strip()
        if len(folded) >= 3 and folded not in unique:
            unique.append(folded)
    return unique


class _Strings(NamedTuple):
    """Every string value of a document, in document order, and where each sits.

    Places are (container, key or index), containers (parent container, key or index) with the
    root first; :meth:`pointer` joins them. Formatting every pointer up front costs more than
    the rest of the walk, and few are ever shown.
    """

    texts: list[str]
    places: list[tuple[int, str | int]]
    containers: list[tuple[int, str | int]]

    def pointer(self, index: int) -> str:
        container, key = self.places[index]
        if container < 0:
            return ""  # the document is the string
        keys = [key]
        parent, key = self.containers[container]
        while parent >= 0:
            keys.append(key)
            parent, key = self.containers[parent]
        pointer = ""
        for key in reversed(keys):
            pointer = pointer_join(pointer, key)
        return pointer


def _strings(root: Any) -> _Strings:
    """The string values of a document (see :class:`_Strings`)."""
    texts: list[str] = []
    places: list[tuple[int, str | int]] = []
    containers: list[tuple[int, str | int]] = []
    stack: list[tuple[int, str | int, Any]] = [(-1, "", root)]
    while stack:  # iterative: this runs on every chain, and generators cost more
        parent, key, node = stack.pop()
        kind = type(node)
        if kind is str:
            texts.append(node)
            places.append((parent, key))
        elif kind is dict:
            here = len(containers)
            containers.append((parent, key))
            stack.extend([(here, name, value) for name, value in reversed(node.items())])
        elif kind is list:
            here = len(containers)
            containers.append((parent, key))
            stack.extend([(here, index, node[index]) for index in range(len(node) - 1, -1, -1)])
    return _Strings(texts, places, containers)


@rule("NR306", "untraced-criterion", scope="chain", severity=WARNING, profile=NAME)
def check_criteria_are_traced(chain: Chain, settings: Settings) -> Iterator[Hit]:
    """Every acceptance criterion is traced: a later handoff refers to what it demands.

    **What it does**: extracts what each criterion demands (endpoints and paths, quoted values,
    identifiers and file names, glossary terms) and searches the later handoffs' text for them; an
    explicit reference (`AC3`, `acceptance criterion 3`, 1-based) also traces, and so does a
    later sentence sharing half of the criterion's words (at least three). A demand most criteria
    share (the command's own name) traces none of them. The output shows where each criterion was
    traced, or what was looked for.

    **Why is this bad?** A criterion no dev, test or review handoff mentions was probably never
    built or tested.

    **Example**: `"GET /api/auth/signout clears the session cookie"` when no later handoff mentions
    `/api/auth/signout`.

    **Use instead**: have the dev and test handoffs name the endpoint, function or value they
    implemented and tested.
    """
    for trace in criterion_traces(chain):
        if trace.document is not None:
            chain.notes.append(f"{trace.label} traced: {trace.what} in {trace.document.name} {trace.pointer}")
            continue
        chain.notes.append(f"{trace.label} untraced: looked for {trace.what}")
        yield Hit(
            trace.requirements,
            f"/acceptance_criteria/{trace.at}",
            f"{trace.label} is not traced: no later handoff mentions {trace.what}",
        )


class CriterionTrace(NamedTuple):
    """Where an acceptance criterion was traced (``document`` None: nowhere) and by what."""

    requirements: Document
    at: int  # the criterion's index in acceptance_criteria
    criterion: str
    #: The later handoff and the string in it that traces the criterion.
    document: Document | None
    pointer: str
    #: What matched (a quoted demand, "explicit reference", shared words), or what was looked for.
    what: str

    @property
    def label(self) -> str:
        return f"AC{self.at + 1}"


def criterion_traces(chain: Chain) -> list[CriterionTrace]:
    """How each acceptance criterion of the chain's requirements is traced (NR306's data, for views)."""
    requirements = chain.first("requirements")
    if requirements is None:
        return []
    later = [doc for doc in chain.valid() if doc is not requirements and doc.handoff_type != "requirements"]
    if not later:
        return []
    traces = []
    haystack = _Haystack(later)
    references: dict[int, tuple[Document, str]] = {}
    matches = [match for pattern in CRITERION_REFERENCES for match in pattern.finditer(haystack.text)]
    for match in sorted(matches, key=lambda m: m.start()):
        references.setdefault(int(match.group(1)), haystack.locate(match.start()))
    glossary = [(term, term.casefold()) for term in requirements.data.get("domain_glossary", {})]
    criteria = requirements.data["acceptance_criteria"]
    all_demands = [_criterion_demands(criterion, glossary) for criterion in criteria]
    # A demand most criteria share (the command's own name) traces none of them in particular.
    frequency = Counter(d for demands in all_demands for d in set(demands))
    common = {d for d, n in frequency.items() if n > 1 and n * 2 > len(criteria)}
    for index, criterion in enumerate(criteria):
        demands = [d for d in all_demands[index] if d not in common]
        where = _trace(index, criterion, demands, haystack, references)
        if where is not None:
            traces.append(CriterionTrace(requirements, index, criterion, *where))
            continue
        words = sorted(content_tokens(criterion) - GENERIC_WORDS)
        looked_for = ", ".join(quote(d, 40) for d in demands[:6])
        looked_for = (looked_for + " or " if looked_for else "") + "half the words " + ", ".join(words[:8])
        traces.append(CriterionTrace(requirements, index, criterion, None, "", looked_for))
    return traces


class _Haystack:
    """The strings of the later handoffs as one case-folded text, searched at C speed.

    ``texts`` are the strings as written; an offset in ``text`` or an index in ``texts`` finds
    the document and pointer of its string.
    """

    def __init__(self, documents: list[Document]) -> None:
        self.blocks: list[tuple[int, Document, _Strings]] = []  # (index of its first string, ...)
        self.texts: list[str] = []
        for doc in documents:
            strings = _strings(doc.data)
            self.blocks.append((len(self.texts), doc, strings))
            self.texts.extend(strings.texts)
        self._block_starts = [first for first, _, _ in self.blocks]
        # Folded one by one: most strings are ASCII, which casefold() does fast, while the joined
        # text is not. NUL cannot occur in a demand, so no match spans two strings.
        folded = [text.casefold() for text in self.texts]
        self.text = "\0".join(folded)
        self.starts = list(accumulate((len(text) + 1 for text in folded[:-1]), initial=0))

    def entry(self, index: int) -> tuple[Document, str]:
        """The document and pointer of the ``index``-th string."""
        first, doc, strings = self.blocks[bisect_right(self._block_starts, index) - 1]
        return doc, strings.pointer(index - first)

    def locate(self, offset: int) -> tuple[Document, str]:
        return self.entry(bisect_right(self.starts, offset) - 1)

    def find(self, needle: str) -> tuple[Document, str] | None:
        offset = self.text.find(needle)
        return None if offset < 0 else self.locate(offset)


def _trace(
    index: int,
    criterion: str,
    demands: list[str],
    haystack: _Haystack,
    references: dict[int, tuple[Document, str]],
) -> tuple[Document, str, str] | None:
    """Where a later handoff refers to criterion ``index``: explicitly, by a demand, or by its words."""
    if index + 1 in references:
        return (*references[index + 1], "explicit reference")
    for demand in demands:
        found = haystack.find(demand)
        if found is not None:
            return (*found, quote(demand))
    words = content_tokens(criterion) - GENERIC_WORDS
    for index, text in enumerate(haystack.texts):
        shared = words & content_tokens(text)
        if len(shared) >= 3 and containment(words, shared) >= 0.5:
            return (*haystack.entry(index), "shared words: " + ", ".join(sorted(shared)[:6]))
    return None


@rule("NR307", "token-total", scope="chain", profile=NAME)
def check_token_total(chain: Chain, settings: Settings) -> Iterator[Hit]:
    """The review's ``total_tokens`` is at least the sum of the agents' ``tokens_used``.

    **What it does**: adds `tokens_used` of every dev and test (and security) handoff of the chain
    and compares it with the review's `total_tokens`.

    **Why is this bad?** NeuralRelay reports pipeline cost from `total_tokens`; a total below its
    parts under-reports what the run cost.

    **Example**: dev 45,200 + test 28,400 tokens, review `"total_tokens": 50000`.

    **Use instead**: the sum of every agent's tokens, the review agent's own included.
    """
    review = chain.first("review_final")
    if review is None:
        return
    parts = [doc for doc in chain.valid() if doc.handoff_type in ("dev_to_test", "test_to_review")]
    spent = sum(doc.data["tokens_used"] for doc in parts)
    if parts and review.data["total_tokens"] < spent:
        breakdown = " + ".join(f"{doc.name} {doc.data['tokens_used']:,}" for doc in parts)
        yield Hit(
            review,
            "/total_tokens",
            f"total_tokens {review.data['total_tokens']:,} is less than the agents' own "
            f"{spent:,} ({breakdown})",
            related=tuple((doc, "/tokens_used", "tokens_used") for doc in parts),
        )


@rule("NR308", "rework-without-request", scope="chain", profile=NAME)
def check_rework_follows_request(chain: Chain, settings: Settings) -> Iterator[Hit]:
    """A rework file follows a review that asked for changes, and agrees with it.

    **What it does**: requires a review in the chain whose verdict is `changes_requested` or
    `needs_rework`, that the rework's `verdict` is that review's verdict, and that `rework_cycle`
    is the `N` of `rework-{N}.json`.

    **Why is this bad?** Rework after an approval, or a rework that misstates the review, means the
    pipeline was re-run by hand on the wrong input.

    **Example**: `rework-1.json` in a chain whose review says `"verdict": "approved"`.

    **Use instead**: start rework only from a review that requested it.
    """
    reworks = chain.valid("rework")
    if not reworks:
        return
    review = chain.first("review_final")
    for rework in reworks:
        named = _rework(rework)
        if named and rework.data["rework_cycle"] != int(named.group("cycle")):
            yield Hit(
                rework,
                "/rework_cycle",
                f"rework_cycle {rework.data['rework_cycle']} does not match the file name {rework.name}",
            )
        if review is None:
            yield Hit(rework, "", "rework without a review handoff in the chain")
        elif review.data["verdict"] == "approved":
            yield Hit(
                rework,
                "",
                "rework after a review that approved the change",
                related=((review, "/verdict", "verdict"),),
            )
        elif rework.data["verdict"] != review.data["verdict"]:
            yield Hit(
                rework,
                "/verdict",
                f"rework says the review's verdict was {rework.data['verdict']!r}, "
                f"but {review.name} says {review.data['verdict']!r}",
                related=((review, "/verdict", "verdict"),),
            )


@rule("NR309", "too-many-rework-cycles", scope="chain", profile=NAME)
def check_rework_cycles(chain: Chain, settings: Settings) -> Iterator[Hit]:
    """A chain goes through at most ``max-rework-cycles`` rework cycles (default 2).

    **What it does**: counts `rework-{N}.json` files and reports each cycle over the limit.

    **Why is this bad?** NeuralRelay stops after two rework cycles and hands over to a human; a third
    cycle means the loop is not converging and tokens are being burnt.

    **Example**: `rework-1.json`, `rework-2.json`, `rework-3.json`.

    **Use instead**: escalate to a human after the second cycle.
    """
    limit = settings.max_rework_cycles
    reworks = [doc for doc in chain.documents if _rework(doc)]
    for count, rework in enumerate(reworks, start=1):
        if count > limit:
            yield Hit(rework, "", f"rework cycle {count} exceeds the limit of {limit}")
