"""NeuralRelay criterion tracing (NR306): every acceptance criterion is referred to by a later handoff."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterator
from itertools import accumulate
from typing import TYPE_CHECKING, Any, NamedTuple

from pytest_handoff.places.pointers import pointer_join
from pytest_handoff.profiles.neuralrelay.matching import GENERIC_STEMS
from pytest_handoff.rules.selection import decision_for
from pytest_handoff.rules.text import containment, match_words, quote
from pytest_handoff.values.findings import Severity
from pytest_handoff.values.rules import Hit

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.settings import Settings


ENDPOINT = re.compile(r"/(?<![\w.]/)[A-Za-z0-9_\-{}\[\]:.]+(?:/[A-Za-z0-9_\-{}\[\]:.]+)*")
# A single quote inside a word is an apostrophe (the owner's, don't), not a quotation mark.
QUOTED = re.compile(r"(?<!\w)'([^']{2,})'(?!\w)|\"([^\"]{2,})\"|`([^`]{2,})`")
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


def check_criteria_are_traced(chain: Group, settings: Settings) -> Iterator[Hit]:
    """Every acceptance criterion is traced: a later handoff refers to what it demands.

    **What it does**: extracts what each criterion demands (endpoints and paths, quoted values,
    identifiers and file names, glossary terms) and searches the later handoffs' text for them; an
    explicit reference (`AC3`, `acceptance criterion 3`, 1-based) also traces, and so do the
    criterion's words (any script, stemmed, paraphrases folded into concepts): a later string
    sharing half of them (at least three; 40% when four or more), one entry (a bug, a property,
    a file) whose strings together share 60%, or one handoff whose strings share more than half
    (at least four). A demand most criteria share (the command's own name) traces a criterion
    only with two more of its words in the same string. The output shows where each criterion
    was traced, or what was looked for.

    An error by default: dropping a criterion is one of the broken contracts a handoff chain exists
    to prevent. While a later handoff of the chain is invalid (its own findings say why), an
    untraced criterion is not reported: the invalid handoff may be the one that traces it.
    NeuralRelay's own sample chain (`examples/sample-handoffs`) fails it, rightly: its AC6 asks
    for a session cookie that persists across page reloads, and no later handoff says that was
    built or tested (the dev handoff names only the sign-out handler that clears the cookie).

    **Why is this bad?** A criterion no dev, test or review handoff mentions was probably never
    built or tested.

    **Example**: `"GET /api/auth/signout clears the session cookie"` when no later handoff mentions
    `/api/auth/signout`.

    **Use instead**: have the dev and test handoffs name the endpoint, function or value they
    implemented and tested.
    """
    invalid = _later_invalid(chain, settings)
    for trace in criterion_traces(chain):
        if trace.document is not None:
            chain.notes.append(f"{trace.label} traced: {trace.what} in {trace.document.name} {trace.pointer}")
            continue
        chain.notes.append(f"{trace.label} untraced: looked for {trace.what}")
        if invalid:  # a knock-on otherwise: the invalid handoff may trace it
            chain.notes.append(f"{trace.label} not reported while {', '.join(invalid)} is invalid")
            continue
        yield Hit(
            trace.requirements,
            f"/acceptance_criteria/{trace.at}",
            f"{trace.label} is not traced: no later handoff mentions {trace.what}",
        )


def _later_invalid(chain: Group, settings: Settings) -> list[str]:
    """The later handoffs of the chain that are invalid or unreadable, while their own findings
    fail the chain (HS001/HS002, HF001/HF002 reported as errors): one of them may trace a criterion."""

    def fails(code: str) -> bool:
        return decision_for(code, Severity.ERROR, settings) == Severity.ERROR

    parsed = {doc.path for doc in chain.documents}
    found = []
    if fails("HS001") and fails("HS002"):
        found += [
            doc.name for doc in chain.documents if doc.handoff_type != "requirements" and not doc.schema_valid
        ]
    if fails("HF001") and fails("HF002"):
        found += [path.name for path in chain.ref.paths if path not in parsed]
    return found


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


def criterion_traces(chain: Group) -> list[CriterionTrace]:
    """How each acceptance criterion of the chain's requirements is traced (NR306's data, for views)."""
    requirements = chain.first("requirements")
    if requirements is None:
        return []
    later = [doc for doc in chain.valid() if doc is not requirements and doc.handoff_type != "requirements"]
    if not later:
        return []
    traces: list[CriterionTrace] = []
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
        shared_demands = [d for d in all_demands[index] if d in common]
        where = _trace(index, criterion, demands, shared_demands, haystack, references)
        if where is not None:
            traces.append(CriterionTrace(requirements, index, criterion, *where))
            continue
        words = sorted(w for w in criterion_words(criterion) if not w.startswith("~"))
        looked_for = ", ".join(quote(d, 40) for d in demands[:6])
        looked_for = (looked_for + " or " if looked_for else "") + "half the words " + ", ".join(words[:8])
        traces.append(CriterionTrace(requirements, index, criterion, None, "", looked_for))
    return traces


#: Strings longer than this (characters) are not put in the word index: their words are found only
#: when every string before them has failed, as a criterion is traced by its first match.
_INDEXED = 64 * 1024


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
        self._document_words: dict[tuple[int, int], frozenset[str]] = {}
        self.starts = list(accumulate((len(text) + 1 for text in folded[:-1]), initial=0))
        self._holding: dict[str, list[int]] | None = None
        self._long: list[int] = []  # strings too long to index, in order

    def first_sharing(self, words: frozenset[str], enough: Callable[[int], bool]) -> int | None:
        """The index of the first string sharing ``enough`` of ``words`` (by how many it shares),
        or None: counted through a word -> strings index, so only strings sharing a word are
        looked at, and each string's words are found once for every criterion of the chain."""
        if self._holding is None:
            holding: dict[str, list[int]] = {}
            for at, text in enumerate(self.texts):
                if len(text) > _INDEXED:
                    self._long.append(at)
                    continue
                for word in match_words(text):
                    holding.setdefault(word, []).append(at)
            self._holding = holding
        shared: Counter[int] = Counter()
        for word in words:
            shared.update(self._holding.get(word, ()))
        first = min((at for at, count in shared.items() if enough(count)), default=None)
        for at in self._long:  # a long string's words only when no string before it will do
            if first is not None and at > first:
                break
            if enough(len(words & match_words(self.texts[at]))):
                return at
        return first

    def entry(self, index: int) -> tuple[Document, str]:
        """The document and pointer of the ``index``-th string."""
        first, doc, strings = self.blocks[bisect_right(self._block_starts, index) - 1]
        return doc, strings.pointer(index - first)

    def locate(self, offset: int) -> tuple[Document, str]:
        return self.entry(bisect_right(self.starts, offset) - 1)

    def find(self, needle: str) -> tuple[Document, str] | None:
        offset = self.text.find(needle)
        return None if offset < 0 else self.locate(offset)

    def find_all(self, needle: str) -> Iterator[int]:
        """Indexes of the strings holding ``needle`` (case-folded), in order."""
        offset = self.text.find(needle)
        while offset >= 0:
            at = bisect_right(self.starts, offset) - 1
            yield at
            offset = self.text.find(
                needle, self.starts[at + 1] if at + 1 < len(self.starts) else len(self.text)
            )

    def document_words(self, first: int, count: int) -> frozenset[str]:
        """The words of the ``count`` strings from ``first`` (one document's), cached."""
        key = (first, count)
        found = self._document_words.get(key)
        if found is None:
            found = self._document_words[key] = frozenset().union(
                *(match_words(text) for text in self.texts[first : first + count])
            )
        return found

    def groups(self) -> dict[tuple[int, int], list[int]]:
        """String indexes by entry: the object or list two levels below a document's root."""
        found: dict[tuple[int, int], list[int]] = {}
        for number, (first, _, strings) in enumerate(self.blocks):
            containers = strings.containers
            for offset, (container, _) in enumerate(strings.places):
                # Walk up to the container whose parent's parent is the root (depth 2).
                path = [container]
                while path[-1] >= 0:
                    path.append(containers[path[-1]][0])
                # path ends [..., depth-1 container, root (0), -1]
                key = path[-4] if len(path) >= 4 else (path[-3] if len(path) >= 3 else -1)
                found.setdefault((number, key), []).append(first + offset)
        return found


def _trace(
    index: int,
    criterion: str,
    demands: list[str],
    shared_demands: list[str],
    haystack: _Haystack,
    references: dict[int, tuple[Document, str]],
) -> tuple[Document, str, str] | None:
    """Where a later handoff refers to criterion ``index``, or None.

    In order: an explicit reference; a demand of its own; a string sharing half of its words
    (at least three; or 40% and four); a demand it shares with other criteria in a string that shares two more of
    its words; an entry (one bug, one property, one file) whose strings together share 60% of them
    (at least three); a handoff whose strings together share more than half of them (at least
    four). Each test reads only the criterion and the strings it compares, so a criterion's trace
    does not change when another handoff is added or removed.
    """
    if index + 1 in references:
        return (*references[index + 1], "explicit reference")
    for demand in demands:
        found = haystack.find(demand)
        if found is not None:
            return (*found, quote(demand))
    words = criterion_words(criterion)
    if not words:
        return None
    texts = haystack.texts
    # The first string sharing half of the words (at least three), or 40% and four.
    at = haystack.first_sharing(
        words, lambda count: count >= 3 and count / len(words) >= (0.5 if count < 4 else 0.4)
    )
    if at is not None:
        return (*haystack.entry(at), "shared words: " + _listed(words & match_words(texts[at])))
    for demand in shared_demands:
        demand_words = match_words(demand)
        for at in haystack.find_all(demand):
            shared = (words - demand_words) & match_words(texts[at])
            if len(shared) >= 2:
                return (*haystack.entry(at), f"{quote(demand)} with words: " + _listed(shared))
    for members in haystack.groups().values():
        if len(members) < 2:
            continue
        found_words: set[str] = set()
        for at in members:
            found_words |= match_words(texts[at])
        shared = words & found_words
        if len(shared) >= 3 and containment(words, shared) >= 0.6:
            return (*haystack.entry(members[0]), "shared words across one entry: " + _listed(shared))
    for first, doc, strings in haystack.blocks:
        shared = words & haystack.document_words(first, len(strings.texts))
        if len(shared) >= 4 and containment(words, shared) > 0.5:
            return (doc, "", "shared words across the handoff: " + _listed(shared))
    return None


def criterion_words(criterion: str) -> frozenset[str]:
    """The words of a criterion to look for, without quoted values (looked for whole, as demands)."""
    words = match_words(QUOTED.sub(" ", criterion)) - GENERIC_STEMS
    return words if len(words) >= 3 else match_words(criterion) - GENERIC_STEMS


def _listed(words: set[str] | frozenset[str]) -> str:
    return ", ".join(sorted(w for w in words if not w.startswith("~"))[:6])
