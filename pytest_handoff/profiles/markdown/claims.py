"""What a Markdown handoff claims of work done, read from its prose with the line of each claim.

A handoff mixes what was done with what is next: a path under "Files Modified" is a claim, the
same path under "Next Steps" a plan. Each section gets a role from its heading (a section with no
telling heading takes its parent's): ``done`` ("Completed", "What Was Done", "Files Modified",
"Changes", "Current State"), ``next`` ("Next Steps", "TODO", "Open Issues", "Blockers"),
``reference`` ("Architecture", "Decisions", "Commands") or none. Only lines in a ``done``
section are read for claims, and of those not a sentence that speaks of the future or of what is
missing ("will", "not yet", "TODO").

A message with no such heading (an agent's last word) is read sentence by sentence instead: a
sentence that says work was done ("I created ...", "Updated ...", "Fixed ...") holds claims, and
so do the items under a line that announces them ("Files changed:").

The claims: paths (in backticks, or bare with a ``/`` and a file extension; never a glob, a
placeholder, a URL, an absolute or home path), ``path:line`` and ``path#L12``, commit hashes where
a commit is meant (a hash in backticks on a line that says commit, or after ``commit``), and "all
tests pass" (a verdict, judged only against a JUnit report).
"""

from __future__ import annotations

import re

from pytest_handoff.read.markdown import Section, clean_path, is_path, sections
from pytest_handoff.read.placed import leaf, mapping, sequence, unique
from pytest_handoff.read.yamldoc import Node

DONE, NEXT, REFERENCE = "done", "next", "reference"

_NEXT_HEADING = re.compile(
    r"\b(?:next|todo|to[- ]do|remaining|pending|open|plans?|planned|future|follow[- ]?ups?|blockers?|"
    r"issues?|questions?|risks?|ideas?|backlog|known|not (?:done|yet)|deferred|suggest\w*|"
    r"recommend\w*|resume|continue)\b",
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
_NOT_DONE = re.compile(
    r"\b(?:will|would|should|could|must|todo|to[- ]do|next|later|not yet|planned|plan to|need(?:s|ed)? to|"
    r"remaining|missing|pending|won't|cannot|can't|don't|doesn't|does not|did not|didn't|isn't|to be|if|when|"
    r"may|might|consider|please|run|try)\b|\?\s*$",
    re.IGNORECASE,
)
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
#: File endings a claimed path has (a path ending otherwise is a branch, a host, a version, a name).
_EXTENSIONS = frozenset(
    [
        "py",
        "pyi",
        "js",
        "jsx",
        "ts",
        "tsx",
        "mjs",
        "cjs",
        "json",
        "jsonl",
        "yaml",
        "yml",
        "toml",
        "ini",
        "cfg",
        "conf",
        "md",
        "mdx",
        "rst",
        "txt",
        "csv",
        "tsv",
        "xml",
        "html",
        "htm",
        "css",
        "scss",
        "sass",
        "less",
        "vue",
        "svelte",
        "astro",
        "rs",
        "go",
        "java",
        "kt",
        "kts",
        "scala",
        "swift",
        "m",
        "mm",
        "c",
        "cc",
        "cpp",
        "cxx",
        "h",
        "hh",
        "hpp",
        "cs",
        "fs",
        "rb",
        "php",
        "pl",
        "lua",
        "r",
        "dart",
        "ex",
        "exs",
        "erl",
        "hs",
        "clj",
        "sql",
        "graphql",
        "gql",
        "proto",
        "tf",
        "hcl",
        "sh",
        "bash",
        "zsh",
        "ps1",
        "bat",
        "gradle",
        "lock",
        "env",
        "properties",
        "plist",
        "xcconfig",
        "pbxproj",
        "ipynb",
        "dockerfile",
        "mk",
        "cmake",
        "glb",
        "gltf",
        "usdz",
        "png",
        "jpg",
        "jpeg",
        "svg",
        "gif",
        "webp",
        "ico",
        "pdf",
        "wasm",
        "zig",
        "nim",
        "jl",
    ]
)
_ANNOUNCES = re.compile(
    r"^\W*(?:files?\s+(?:changed|modified|created|touched|added|updated)|changes(?:\s+made)?|"
    r"(?:modified|created|changed|new|updated)\s+files?|commits?)\b[^.]*:\s*$",
    re.IGNORECASE,
)
_CREATED_WORDS = re.compile(r"\b(?:created|new file|wrote)\b", re.IGNORECASE)
_NEW_AFTER = re.compile(r"\s*\((?:new|created)\b", re.IGNORECASE)
_TICKED = re.compile(r"`([^`\n]+)`")
_BARE_PATH = re.compile(
    r"(?<![\w/.`@:-])((?:[\w.-]+/)+[\w.-]+\.[A-Za-z][A-Za-z0-9]{0,9})(?::(\d{1,9})(?:-\d{1,9})?|#L(\d{1,9}))?(?![\w/`])"
)
# A line number of at most nine digits: a longer one is no line of any file.
_LOCATION = re.compile(
    r"^(?P<path>[^\s:#]+?)(?::(?P<colon>\d{1,9})(?:-\d{1,9})?|#L(?P<anchor>\d{1,9})(?:-L?\d{1,9})?)$"
)
_HASH = re.compile(r"(?<![\w/#@.-])((?=[0-9]{0,39}[a-f])[0-9a-f]{7,40})(?![\w-])")
#: A line about commits kept on the writer's machine only (a reflog, a stash, a local tag): not
#: in the shared history, so not judged there.
_LOCAL_ONLY = re.compile(
    r"\b(?:reflog|stash|worktree|local(?:ly)?|unpushed|not pushed|dangling|lost)\b", re.IGNORECASE
)
#: A library's name written like a path in prose (``SceneView/Filament.js``, ``Three.js``).
_LIBRARY_NAME = re.compile(r"[A-Z][A-Za-z0-9]*\.js")
_COMMIT_WORD = re.compile(r"\b(?:commit(?:ted|s)?)\b", re.IGNORECASE)
#: A line naming another project's or a tool's revision (a pinned upstream commit, an image digest).
_NOT_OURS = re.compile(
    r"\b(?:upstream|pin(?:ned|s)?|submodule|vendor(?:ed)?|dependency|image|digest|docker)\b", re.IGNORECASE
)
#: Words before a path that make it a file taken away, not one that must exist.
_GONE = re.compile(r"\b(?:removed|deleted|dropped|renamed|moved)\b(?:\s+\w+){0,3}\s*$", re.IGNORECASE)
_BUT = re.compile(r"^[^.;]{0,40}\b(?:except|but|apart from|other than)\b", re.IGNORECASE)
_ALL_PASS = re.compile(
    r"\ball\s+(?:\d+\s+)?(?:of\s+the\s+)?(?:unit\s+|the\s+)?tests?\s+(?:now\s+)?pass(?:es|ed|ing)?\b|"
    r"\btests?\s+(?:all\s+)?pass(?:es|ing)?\b(?!\s+(?:except|but))|"
    r"\btests?\b[^.;]{0,30}?\ball\s+(?:\d+\s+)?pass(?:es|ed|ing)?\b",
    re.IGNORECASE,
)
# A sentence ends at . ! ? or ; before white space or the end (not at the dot of `calc.py`).
_SENTENCE = re.compile(r"(?:[^.!?;\u3002\uff1b]|[.!?;](?!\s|$))+[.!?;\u3002\uff1b]?")
_FENCE = re.compile(r"^\s*(?:```|~~~)")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def section_roles(all_sections: list[Section]) -> dict[int, str]:
    """The role of each section by its first line: its heading's, else its parent's."""
    roles: dict[int, str] = {}
    stack: list[tuple[int, str]] = []  # (level, role) of the open sections above
    for section in all_sections:
        while stack and stack[-1][0] >= section.level:
            stack.pop()
        heading = section.heading
        if _NEXT_HEADING.search(heading) or _NEXT_CJK.search(heading):
            role = NEXT
        elif _REFERENCE_HEADING.search(heading):
            role = REFERENCE
        elif _DONE_HEADING.search(heading) or _DONE_CJK.search(heading):
            role = DONE
        else:
            role = ""
        if not role and stack:
            role = stack[-1][1]
        roles[section.line] = role
        stack.append((section.level, role))
    return roles


def read_claims(lines: list[str], body_line: int, *, sentences: bool) -> dict[str, Node]:
    """The claims of work done of a handoff's body (``sentences``: a message, read sentence by
    sentence where no heading says), as placed facts: ``/done/...`` and ``/roles``."""
    found: dict[str, list[Node]] = {
        name: [] for name in ("paths", "created", "locations", "commits", "verdicts")
    }
    all_sections = sections("\n".join(lines[body_line - 1 :]), body_line)
    roles = section_roles(all_sections)
    role_of_line: dict[int, str] = {}
    listing: set[int] = set()  # lines of a section that lists what changed ("Files Modified")
    for section in all_sections:
        lists = roles[section.line] == DONE and bool(_LIST_HEADING.search(section.heading))
        for number in range(section.line, section.end + 1):
            role_of_line[number] = roles[section.line]
            if lists:
                listing.add(number)
    fence = False
    announced = False
    for index in range(body_line - 1, len(lines)):
        text, number = lines[index], index + 1
        if _FENCE.match(text):
            fence = not fence
            continue
        if fence or text.lstrip().startswith("#"):
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
            if first and not _NOT_DONE.search(first.group(0)):
                _claims_of(first.group(0), number, 0, found)
            continue
        if role == DONE:  # a sentence that says work was done, and nothing of the future or a lack
            for sentence in _SENTENCE.finditer(text):
                said = sentence.group(0)
                if (_DONE_VERB.search(said) or _DONE_CJK_WORDS.search(said)) and not _NOT_DONE.search(said):
                    _claims_of(said, number, sentence.start(), found)
            continue
        if _ANNOUNCES.match(text):
            announced = True
            continue
        if announced and _ITEM.match(text):
            if not _NOT_DONE.search(text):
                _claims_of(text, number, 0, found)
            continue
        for sentence in _SENTENCE.finditer(text):
            said = sentence.group(0)
            if _DONE_VERB.search(said) and not _NOT_DONE.search(said):
                _claims_of(said, number, sentence.start(), found)
    done = {name: sequence(unique(nodes)) for name, nodes in found.items()}
    counted = {role: sum(1 for value in roles.values() if value == role) for role in (DONE, NEXT)}
    return {
        "done": mapping(done, at=leaf("", body_line)),
        "roles": mapping(
            {role: leaf(count, body_line) for role, count in counted.items()}, at=leaf("", body_line)
        ),
    }


def _claims_of(text: str, number: int, offset: int, found: dict[str, list[Node]]) -> None:
    """Add the claims of one line's (or sentence's) ``text``, starting at column ``offset``."""
    commit_line = bool(_COMMIT_WORD.search(text)) and not (_LOCAL_ONLY.search(text) or _NOT_OURS.search(text))
    for ticked in _TICKED.finditer(text):
        value, at = ticked.group(1).strip(), offset + ticked.start(1)
        kind, claim = _ticked_claim(value, commit_line)
        if kind in ("paths", "locations") and _GONE.search(
            text[max(0, ticked.start() - 40) : ticked.start()]
        ):
            continue  # "removed `src/old.py`": a file taken away need not exist
        before, after = (
            text[max(0, ticked.start() - 24) : ticked.start()],
            text[ticked.end() : ticked.end() + 16],
        )
        if kind == "paths" and (_CREATED_WORDS.search(before) or _NEW_AFTER.match(after)):
            kind = "created"  # "created `a.py`", "`a.py` (new file)": a path claimed new
        if kind:
            found[kind].append(leaf(claim, number, at + 1, at + len(value)))
    # The rest of the line without its backticked words (blanked, so that columns stay the same).
    bare_text = _TICKED.sub(lambda ticked: " " * len(ticked.group(0)), text)
    for bare in _BARE_PATH.finditer(bare_text):
        path = bare.group(1)
        if not _judgeable(path) or _LIBRARY_NAME.fullmatch(path.rsplit("/", 1)[-1]):
            continue  # "SceneView/Filament.js canvas": a library's name in prose, not a file
        if _GONE.search(bare_text[max(0, bare.start() - 40) : bare.start()]):
            continue
        at = offset + bare.start(1)
        if bare.group(2) or bare.group(3):
            whole = bare.group(0)
            found["locations"].append(leaf(whole, number, at + 1, at + len(whole)))
        else:
            found["paths"].append(leaf(clean_path(path), number, at + 1, at + len(path)))
    if commit_line:
        for hashed in _HASH.finditer(bare_text):
            if any(c.isdigit() for c in hashed.group(1)):
                found["commits"].append(leaf(hashed.group(1), number, offset + hashed.start(1) + 1))
    verdict = _ALL_PASS.search(text)
    if verdict and not _BUT.match(text[verdict.end() :]):  # "all tests pass except the flaky one": no
        found["verdicts"].append(leaf("PASS", number, offset + verdict.start() + 1, offset + verdict.end()))


def _ticked_claim(value: str, commit_line: bool) -> tuple[str, str]:
    """(kind, value) of a backticked word: a location, a path, a commit; ("", "") for none."""
    located = _LOCATION.match(value)
    if located and _judgeable(located.group("path")) and is_path(located.group("path")):
        return "locations", value
    if _judgeable(value) and is_path(value) and ("/" in value or "." in value.lstrip(".")):
        return "paths", clean_path(value)
    if commit_line and _HASH.fullmatch(value) and any(c.isdigit() for c in value):
        return "commits", value
    return "", ""


def _judgeable(path: str) -> bool:
    """A relative path of a file inside the project, as handoffs name one: a folder and a file name with
    a file's ending (not a branch ``feat/login-v1.2``, a host ``docs.example.io/a.html``, an address,
    a glob, a placeholder, an elision ``src/.../a.py``, a home or absolute path)."""
    if path.startswith(("/", "~", "$", "<", "{")) or any(c in path for c in "*?<>{}|@") or "..." in path:
        return False
    *folders, name = path.split("/")
    if not folders or ".." in folders or any("." in folder.lstrip(".") for folder in folders):
        return False
    stem, dot, ending = name.rpartition(".")
    return bool(dot and stem) and ending.lower() in _EXTENSIONS
