"""What a Markdown handoff claims of work done, read from its prose with the line of each claim.

A handoff mixes what was done with what is next: a path under "Files Modified" is a claim, the
same path under "Next Steps" a plan. Each section gets a role from its heading (a section with no
telling heading takes its parent's): ``done`` ("Completed", "What Was Done", "Files Modified",
"Changes", "Current State"), ``next`` ("Next Steps", "TODO", "Open Issues", "Blockers", and
work left out: "Out of scope", "Phase 2 (not started)"), ``reference`` ("Architecture",
"Decisions", "Commands") or none. Only lines in a ``done`` section are read for claims, never
code (fenced or indented), and of those not a sentence that speaks of the future or of what is
missing ("will", "not yet", "TODO"), nor one that puts a condition before its work ("If you
want, I updated ..."). The words that decide are read in the prose, not in paths or code spans.

A message with no such heading (an agent's last word) is read sentence by sentence instead: a
sentence that says work was done ("I created ...", "Updated ...", "Fixed ...") holds claims, and
so do the items under a line that announces them ("Files changed:").

The claims: paths (in backticks, or bare with a ``/`` and a file extension; never a glob, a
placeholder, a URL, an absolute or home path, a file said to be removed, nor one added to an ignore
file), ``path:line`` and ``path#L12``, commit hashes where a commit is meant
(:mod:`pytest_handoff.profiles.markdown.commits`), and "all tests pass" (a verdict, judged only
against a JUnit report).
"""

from __future__ import annotations

import re

from pytest_handoff.profiles.markdown.blocks import code_lines
from pytest_handoff.profiles.markdown.commits import commit_hashes
from pytest_handoff.profiles.markdown.paths import (
    BARE_PATH,
    LIBRARY_NAME,
    LOCATION,
    TICKED,
    blank_code,
    judgeable,
    prose,
)
from pytest_handoff.read.markdown import Section, clean_path, is_path, sections
from pytest_handoff.read.placed import leaf, mapping, sequence, unique
from pytest_handoff.read.yamldoc import Node

DONE, NEXT, REFERENCE = "done", "next", "reference"

# A heading of work not done: a plan, or work left out ("Out of scope", "Phase 2 (not started)").
_NEXT_HEADING = re.compile(
    r"\b(?:next|todo|to[- ]do|remaining|pending|open|plans?|planned|future|follow[- ]?ups?|blockers?|"
    r"issues?|questions?|risks?|ideas?|backlog|known|deferred|suggest\w*|recommend\w*|resume|continue|"
    r"not (?:done|yet|started|begun|implemented|attempted|addressed|finished|completed|included|in scope)|"
    r"out of scope|blocked|left|later|skipped|postponed|on hold|unfinished|incomplete|tbd)\b",
    re.IGNORECASE,
)
#: Sections of reference, not of work: what they name is neither a claim nor a plan.
_REFERENCE_HEADING = re.compile(
    r"\b(?:how to|setup|usage|architecture|decisions?|context|references?|docs|documentation|notes?|"
    r"gotchas?|warnings?|caveats?|instructions|rules|conventions|commands)\b",
    re.IGNORECASE,
)
# The same in Chinese and Japanese (no word boundaries there): to do, next step, problems, pitfalls...
_NEXT_CJK = re.compile(
    r"待做|待办|待辦|下一步|接下[来來]|待[开開]发|待[开開]發|[问問]题|阻塞|陷阱|注意|次の|残り|課題"
)
_DONE_CJK = re.compile(
    r"已完成|完成|完了|已[实實][现現作]|[进進]度|[变變]更|修改|当前状态|當前狀態|現状|状態"
)
_DONE_HEADING = re.compile(
    r"\b(?:done|completed?|accomplish\w*|implemented|what (?:was|i|we) (?:did|done|built|changed|implemented)|"
    r"changes|changed|summary|modified|created|touched|work|progress|shipped|fixed|fixes|delivered|"
    r"finished|commits?|current state|state|status|what works|built)\b",
    re.IGNORECASE,
)
#: Words of a line or sentence that speak of the future, a wish or a lack: no claim of work done.
_NOT_DONE_WORDS = re.compile(
    r"\b(?:will|would|should|could|must|todo|to[- ]do|next|later|not yet|planned|plan to|need(?:s|ed)? to|"
    r"remaining|missing|pending|won't|cannot|can't|don't|doesn't|does not|did not|didn't|isn't|to be|"
    r"may|might|consider|please|run|try)\b|\?\s*$",
    re.IGNORECASE,
)
# A condition: before the work ("If you want, I can update `a.py`"), no claim; after it ("Fixed the
# crash when the list is empty in `src/list.py`"), it says when the fix applies.
_CONDITION = re.compile(r"\b(?:if|when|whenever|unless)\b", re.IGNORECASE)
# A path a few words after a condition is what the condition is about ("when `data/a.csv` is empty").
_CONDITIONED = re.compile(r"\b(?:if|when|whenever|unless)\b\W*(?:\w+\W*){0,2}$", re.IGNORECASE)
#: A sentence that says work was done.
_DONE_VERB = re.compile(
    r"\b(?:created|added|wrote|written|modified|updated|changed|edited|fixed|implemented|refactored|"
    r"renamed|moved|deleted|removed|committed|pushed|extracted|introduced|replaced|rewrote|rewritten)\b",
    re.IGNORECASE,
)
# A section that lists what changed: its items are claims whatever their words.
_LIST_HEADING = re.compile(
    r"\b(?:files?|changes|changed|modified|created|commits?|done|completed?|accomplish\w*|finished|shipped|"
    r"delivered|implemented|what (?:was|i|we) (?:did|done|built|changed|implemented))\b|[变變]更|修改|文件|檔案|完成",
    re.IGNORECASE,
)
_DONE_CJK_WORDS = re.compile(r"已完成|已修改|已新增|已建立|已提交|已 ?commit|新增|修改|完成")
_OPEN_BOX = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[ \]")
_ANNOUNCES = re.compile(
    r"^\W*(?:files?\s+(?:changed|modified|created|touched|added|updated)|changes(?:\s+made)?|"
    r"(?:modified|created|changed|new|updated)\s+files?|commits?)\b[^.]*:\s*$",
    re.IGNORECASE,
)
_CREATED_WORDS = re.compile(r"\b(?:created|new file|wrote)\b", re.IGNORECASE)
_NEW_AFTER = re.compile(r"\s*\((?:new|created)\b", re.IGNORECASE)
#: Words before a path that make it a file taken away, not one that must exist.
_GONE = re.compile(r"\b(?:removed|deleted|dropped|renamed|moved)\b", re.IGNORECASE)
# Words that, between "removed" and a path, make the path part of other work ("removed X and
# updated `a.py`"), and the end of a clause.
_OTHER_WORK = re.compile(
    r"\b(?:created|added|wrote|written|modified|updated|changed|edited|fixed|implemented|refactored|"
    r"committed|pushed|extracted|introduced|replaced|rewrote|rewritten|kept|left)\b|[.!?;](?:\s|$)",
    re.IGNORECASE,
)
_GONE_WORDS = 8  # "removed the temporary debug script `a.py`": a phrase, not a clause
#: An ignore file (``.gitignore``, ``.dockerignore``...): the paths a sentence adds to one are
#: patterns kept out of git, not files that exist.
_IGNORE_FILE = re.compile(r"(?<![\w-])\.[a-z]*ignore\b|\bgit-?ignored?\b|\bignored by git\b", re.IGNORECASE)
# What a list of names has between and after them: commas, "and", closing punctuation.
_LIST_ONLY = re.compile(r"(?:[\s,;&+/()*.:]|\band\b)*", re.IGNORECASE)
_BUT = re.compile(r"^[^.;]{0,40}\b(?:except|but|apart from|other than)\b", re.IGNORECASE)
_ALL_PASS = re.compile(
    r"\ball\s+(?:\d+\s+)?(?:of\s+the\s+)?(?:unit\s+|the\s+)?tests?\s+(?:now\s+)?pass(?:es|ed|ing)?\b|"
    r"\btests?\s+(?:all\s+)?pass(?:es|ing)?\b(?!\s+(?:except|but))|"
    r"\btests?\b[^.;]{0,30}?\ball\s+(?:\d+\s+)?pass(?:es|ed|ing)?\b",
    re.IGNORECASE,
)
# A sentence ends at . ! ? or ; before white space or the end (not at the dot of `calc.py`).
_SENTENCE = re.compile(r"(?:[^.!?;\u3002\uff1b]|[.!?;](?!\s|$))+[.!?;\u3002\uff1b]?")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_ROW = re.compile(r"^\s*\|.*\|\s*$")
# A table cell that says its file went ("Deleted", "Removed (dead code)"), not one that says what
# was taken out of it ("Moved the `datetime` import out of TYPE_CHECKING").
_GONE_CELL = re.compile(r"\W*(?:removed|deleted|dropped|renamed|moved)\b\W*(?:\w+\W*){0,2}$", re.IGNORECASE)


def section_roles(all_sections: list[Section]) -> dict[int, str]:
    """The role of each section by its first line: its heading's, else its parent's."""
    roles: dict[int, str] = {}
    stack: list[tuple[int, str]] = []  # (level, role) of the open sections above
    for section in all_sections:
        while stack and stack[-1][0] >= section.level:
            stack.pop()
        role = _heading_role(section.heading)
        if not role and stack:
            role = stack[-1][1]
        roles[section.line] = role
        stack.append((section.level, role))
    return roles


def _heading_role(heading: str) -> str:
    """The role a heading gives its section by its own words ("" when they say none)."""
    if _NEXT_HEADING.search(heading) or _NEXT_CJK.search(heading):
        return NEXT
    if _REFERENCE_HEADING.search(heading):
        return REFERENCE
    if _DONE_HEADING.search(heading) or _DONE_CJK.search(heading):
        return DONE
    return ""


def read_claims(lines: list[str], body_line: int, *, sentences: bool) -> dict[str, Node]:
    """The claims of work done of a handoff's body (``sentences``: a message, read sentence by
    sentence where no heading says), as placed facts: ``/done/...`` and ``/roles``."""
    found: dict[str, list[Node]] = {
        name: [] for name in ("paths", "created", "locations", "commits", "verdicts")
    }
    all_sections = sections("\n".join(lines[body_line - 1 :]), body_line)
    roles = section_roles(all_sections)
    role_of_line, listing = _line_roles(all_sections, roles)
    code = code_lines(lines, body_line - 1)
    announced = False
    for index in range(body_line - 1, len(lines)):
        text, number = lines[index], index + 1
        if index in code or text.lstrip().startswith("#"):
            announced = False
            continue
        role = role_of_line.get(number, "")
        if not text.strip():
            announced = False
            continue
        if role in (NEXT, REFERENCE) or (role != DONE and not sentences) or _OPEN_BOX.match(text):
            continue  # a plan, a reference, an open checkbox: no claim of work done
        if role == DONE and number in listing and _ITEM.match(text):
            # An item of a list of work done: its first sentence names the work; the rest describe it.
            first = _SENTENCE.match(text)
            if first and not _not_done(prose(first.group(0))):
                _claims_of(first.group(0), number, 0, found)
            continue
        if role == DONE and number in listing and _ROW.match(text):
            # A row of a table of work done ("| `src/a.py` | new |"): its paths in backticks (a bare
            # one in a cell is often cut short: "conversation/mod.rs"), unless the row says the
            # file went ("| `a.py` | deleted |") or the work is not done.
            words = prose(text)
            if not (_not_done(words) or any(_GONE_CELL.match(cell) for cell in words.split("|"))):
                _claims_of(text, number, 0, found, bare=False)
            continue
        if role == DONE:  # a sentence that says work was done, and nothing of the future or a lack
            for sentence in _SENTENCE.finditer(text):
                said = sentence.group(0)
                words = prose(said)
                if (_DONE_VERB.search(words) or _DONE_CJK_WORDS.search(words)) and not _not_done(words):
                    _claims_of(said, number, sentence.start(), found)
            continue
        if _ANNOUNCES.match(text):
            announced = True
            continue
        if announced and _ITEM.match(text):
            if not _not_done(prose(text)):
                _claims_of(text, number, 0, found)
            continue
        for sentence in _SENTENCE.finditer(text):
            said = sentence.group(0)
            words = prose(said)
            if _DONE_VERB.search(words) and not _not_done(words):
                _claims_of(said, number, sentence.start(), found)
    done = {name: sequence(unique(nodes)) for name, nodes in found.items()}
    counted = {role: sum(1 for value in roles.values() if value == role) for role in (DONE, NEXT)}
    return {
        "done": mapping(done, at=leaf("", body_line)),
        "roles": mapping(
            {role: leaf(count, body_line) for role, count in counted.items()}, at=leaf("", body_line)
        ),
    }


def _line_roles(all_sections: list[Section], roles: dict[int, str]) -> tuple[dict[int, str], set[int]]:
    """The role of each line (its innermost section's), and the lines of sections that list what
    changed ("Files Modified"). A subsection whose heading gives no role lists as its parent does;
    one with a role of its own ("### Out of scope" under "## Completed") lists only if its heading says so."""
    role_of_line: dict[int, str] = {}
    lists_of_line: dict[int, bool] = {}
    stack: list[tuple[int, bool]] = []  # (level, lists) of the open sections above
    for section in all_sections:
        while stack and stack[-1][0] >= section.level:
            stack.pop()
        role = roles[section.line]
        inherits = not _heading_role(section.heading) and bool(stack) and stack[-1][1]
        lists = role == DONE and (inherits or bool(_LIST_HEADING.search(section.heading)))
        stack.append((section.level, lists))
        for number in range(section.line, section.end + 1):  # a subsection comes later: its lines win
            role_of_line[number] = role
            lists_of_line[number] = lists
    return role_of_line, {number for number, lists in lists_of_line.items() if lists}


def _not_done(words: str) -> bool:
    """Whether a sentence's prose speaks of the future, a wish or a lack, or puts a condition
    before the work it names."""
    if _NOT_DONE_WORDS.search(words):
        return True
    condition = _CONDITION.search(words)
    if condition is None:
        return False
    work = _DONE_VERB.search(words) or _DONE_CJK_WORDS.search(words)
    return work is None or work.start() > condition.start()


def _claims_of(
    text: str, number: int, offset: int, found: dict[str, list[Node]], *, bare: bool = True
) -> None:
    """Add the claims of one line's (or sentence's) ``text``, starting at column ``offset`` (``bare``:
    paths out of backticks too)."""
    words = prose(text)
    paths_claimed = not _ignored(text, words)
    for ticked in TICKED.finditer(text):
        value, at = ticked.group(1).strip(), offset + ticked.start(1)
        kind, claim = _ticked_claim(value)
        if not kind or not paths_claimed or _taken_away(words, ticked.start()):
            continue  # "removed `src/old.py`": a file taken away need not exist
        if _CONDITIONED.search(words[max(0, ticked.start() - 40) : ticked.start()]):
            continue  # "when `data/a.csv` is empty": what the condition is about, not the work
        before, after = (
            words[max(0, ticked.start() - 24) : ticked.start()],
            text[ticked.end() : ticked.end() + 16],
        )
        if kind == "paths" and (_CREATED_WORDS.search(before) or _NEW_AFTER.match(after)):
            kind = "created"  # "created `a.py`", "`a.py` (new file)": a path claimed new
        found[kind].append(leaf(claim, number, at + 1, at + len(value)))
    # The rest of the line without its backticked words (blanked, so that columns stay the same).
    bare_text = blank_code(text)
    for unticked in BARE_PATH.finditer(bare_text) if paths_claimed and bare else ():
        path = unticked.group(1)
        if not judgeable(path) or LIBRARY_NAME.fullmatch(path.rsplit("/", 1)[-1]):
            continue  # "SceneView/Filament.js canvas": a library's name in prose, not a file
        if _taken_away(words, unticked.start()) or _CONDITIONED.search(
            words[max(0, unticked.start() - 40) : unticked.start()]
        ):
            continue
        at = offset + unticked.start(1)
        if unticked.group(2) or unticked.group(3):
            whole = unticked.group(0)
            found["locations"].append(leaf(whole, number, at + 1, at + len(whole)))
        else:
            found["paths"].append(leaf(clean_path(path), number, at + 1, at + len(path)))
    for value, start in commit_hashes(text, words):
        found["commits"].append(leaf(value, number, offset + start + 1))
    verdict = _ALL_PASS.search(text)
    if verdict and not _BUT.match(text[verdict.end() :]):  # "all tests pass except the flaky one": no
        found["verdicts"].append(leaf("PASS", number, offset + verdict.start() + 1, offset + verdict.end()))


def _ignored(text: str, words: str) -> bool:
    """Whether a sentence adds its paths to an ignore file ("Added `config/secrets.toml` to
    `.gitignore`"): they are patterns kept out of git, not files that exist. A plain list of files
    that names one too ("`src/a.py`, `.gitignore`") still claims its paths."""
    if not _IGNORE_FILE.search(text):
        return False
    names = [match.start() for match in (TICKED.search(text), BARE_PATH.search(text)) if match]
    return not _LIST_ONLY.fullmatch(_IGNORE_FILE.sub(" ", words[min(names) :] if names else words))


def _taken_away(words: str, start: int) -> bool:
    """Whether the path at ``start`` is one a phrase says was removed, deleted, renamed or moved
    ("removed the temporary debug script `a.py`"): the verb at most a few words before it, with no
    other work and no end of a clause between."""
    before = words[max(0, start - 120) : start]
    verbs = list(_GONE.finditer(before))
    if not verbs:
        return False
    between = before[verbs[-1].end() :]
    return len(between.split()) <= _GONE_WORDS and not _OTHER_WORK.search(between)


def _ticked_claim(value: str) -> tuple[str, str]:
    """(kind, value) of a backticked word naming a file: a location, a path; ("", "") for none."""
    located = LOCATION.match(value)
    if located and judgeable(located.group("path")) and is_path(located.group("path")):
        return "locations", value
    if judgeable(value) and is_path(value) and ("/" in value or "." in value.lstrip(".")):
        return "paths", clean_path(value)
    return "", ""
