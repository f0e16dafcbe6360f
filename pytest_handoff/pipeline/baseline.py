"""A baseline: the findings a project had when it adopted the tool, left out of every later run so
that only new ones fail.

A finding is known when an entry has its code, its file (as outputs show it, masked), its JSON
pointer and its message with line numbers taken out (lines move as a file is edited). Entries
are counted: two equal findings need two. Matching is per group (a finding's file is one of its
group's), so a group checked alone, in a worker or from the cache is judged as in a whole run.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from pytest_handoff.values.errors import ConfigError
from pytest_handoff.values.findings import Finding
from pytest_handoff.values.groups import GroupResult

#: The baseline file's own version; another is refused rather than misread.
VERSION = 1

#: A baseline larger than this is refused (bytes): some 200,000 findings.
MAX_BASELINE = 64 * 1024 * 1024

#: What identifies a finding across runs: code, shown path, pointer, message without lines.
Key = tuple[str, str, str, str]

# "line 12", "lines 3-5", "L12", and a place "file.json:12:3" in a message.
_LINES = re.compile(r"\b(lines?|L) ?\d+(?:\s*[-\u2013,]\s*\d+)*\b|(?<=\S):\d+(?::\d+)?\b")


def without_lines(message: str) -> str:
    """``message`` with the line numbers it quotes replaced, so that moved lines still match."""
    return _LINES.sub(lambda m: f"{m.group(1)} N" if m.group(1) else ":N", message)


# A list position in a pointer: it moves when an earlier item goes, the finding does not.
_POSITION = re.compile(r"/\d+(?=/|$)")


def key_of(finding: Finding, shown_paths: Mapping[str, str]) -> Key:
    """What identifies ``finding`` across runs: code, shown path, pointer and message without its
    line numbers."""
    path = shown_paths.get(finding.path, finding.path)
    return (finding.code, path, finding.pointer, without_lines(finding.message))


# The list position a message names of another item: RL204's "already used by item 1" (an item of
# the finding's own list), NR302's "(already confirmed[0]; ...)" (an item of the list it names).
# Only these phrasings: a bracketed number in quoted text or a value ("test_status[404]") is what
# the finding is about.
_NAMED_POSITION = re.compile(r"\b(?:by item |already ([a-z_]+)\[)(\d+)")
# A list position of a pointer and the name of its list (the last one counts): /property_verification/falsified/0.
_LIST_POSITION = re.compile(r"/([^/]*)/(\d+)(?=/|$)")


def _moved(key: Key) -> Key:
    """``key`` with the list positions of its pointer read as ``/*``: how a finding whose item
    moved up or down its list is still known (the message tells the items apart)."""
    code, path, pointer, message = key
    return (code, path, _POSITION.sub("/*", pointer), message)


def _renumbered(key: Key) -> Key:
    """:func:`_moved`, with the position of another item that the message names read as ``*``."""
    code, path, pointer, message = _moved(key)
    return (
        code,
        path,
        pointer,
        _NAMED_POSITION.sub(lambda m: m.group(0)[: m.start(2) - m.start()] + "*", message),
    )


def _moved_with(entry: Key, key: Key) -> bool:
    """Whether ``key`` is ``entry`` after earlier items went: the item its message names moved, and
    its own item moved by as much when that item is in its own list, or stayed in its place."""
    named = [_NAMED_POSITION.search(k[3]) for k in (entry, key)]
    places = [next(reversed(list(_LIST_POSITION.finditer(k[2]))), None) for k in (entry, key)]
    if named[0] is None or named[1] is None or places[0] is None or places[1] is None:
        return False
    list_named, list_own = named[0].group(1), places[0].group(1)
    named_shift = int(named[1].group(2)) - int(named[0].group(2))
    own_shift = int(places[1].group(2)) - int(places[0].group(2))
    if list_named is None or list_named == list_own:  # "by item N", or its own list named
        return own_shift == named_shift != 0
    return named_shift != 0 and own_shift == 0  # another list's item moved; its own stayed


def known_in(result: GroupResult, baseline: Mapping[Key, int]) -> GroupResult:
    """``result`` without the findings ``baseline`` knows (each entry used once), their number in
    ``baselined``. Findings at their very place are matched first; then those whose list item
    moved, so that a new item is not taken for a known one that only moved; then those whose item
    moved along with the other item their message names (an earlier item went)."""
    if not baseline or not result.findings:
        return result
    left = Counter({key: count for key, count in baseline.items() if count > 0})
    keys = [key_of(finding, result.shown_paths) for finding in result.findings]
    known = [False] * len(keys)
    for index, key in enumerate(keys):
        if left[key] > 0:
            left[key] -= 1
            known[index] = True
    moved: dict[Key, list[Key]] = {}  # entries left, by their key once moved
    for key, count in left.items():
        moved.setdefault(_moved(key), []).extend([key] * count)
    for index, key in enumerate(keys):
        entries = moved.get(_moved(key))
        if not known[index] and entries:
            entries.pop(0)
            known[index] = True
    renumbered: dict[Key, list[Key]] = {}
    for entries in moved.values():
        for key in entries:
            renumbered.setdefault(_renumbered(key), []).append(key)
    for index, key in enumerate(keys):
        if known[index]:
            continue
        entries = renumbered.get(_renumbered(key), [])
        found = next((at for at, entry in enumerate(entries) if _moved_with(entry, key)), None)
        if found is not None:
            del entries[found]
            known[index] = True
    kept = tuple(finding for finding, was in zip(result.findings, known, strict=True) if not was)
    if len(kept) == len(result.findings):
        return result
    return result._replace(findings=kept, baselined=result.baselined + len(result.findings) - len(kept))


def without_known(results: Iterable[GroupResult], baseline: Mapping[Key, int]) -> list[GroupResult]:
    return [known_in(result, baseline) for result in results]


def read_baseline(path: Path, shown: str) -> dict[Key, int]:
    """The entries of the baseline file at ``path`` (``ConfigError`` naming ``shown`` when it
    cannot be used: a baseline silently ignored would fail a build on every old finding)."""
    from pytest_handoff.read.files import read_bounded

    try:
        text = read_bounded(path, MAX_BASELINE).decode("utf-8-sig")
    except FileNotFoundError:
        raise ConfigError(
            f"{shown}: baseline file not found (write it with --write-baseline {shown})"
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{shown}: cannot read the baseline: {error}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(
            f"{shown}:{error.lineno}:{error.colno}: the baseline is not JSON ({error.msg})"
        ) from None
    except RecursionError:
        raise ConfigError(f"{shown}: the baseline nests too deep to be one") from None
    if (
        not isinstance(data, dict)
        or data.get("version") != VERSION
        or not isinstance(data.get("findings"), list)
    ):
        raise ConfigError(f"{shown}: not a baseline of version {VERSION} (rewrite it with --write-baseline)")
    entries: Counter[Key] = Counter()
    for index, entry in enumerate(data["findings"]):
        fields = [
            entry.get(name) if isinstance(entry, dict) else None
            for name in ("code", "path", "pointer", "message")
        ]
        count = entry.get("count", 1) if isinstance(entry, dict) else None
        if (
            not all(isinstance(field, str) for field in fields)
            or not isinstance(count, int)
            or isinstance(count, bool)
            or count < 1
        ):
            raise ConfigError(
                f"{shown}: findings[{index}] is not a baseline entry (code, path, pointer, message, count)"
            )
        code, file, pointer, message = (str(field) for field in fields)
        entries[(code, file, pointer, message)] += count
    return dict(entries)


def baseline_text(results: Sequence[GroupResult]) -> str:
    """The baseline of ``results``: every finding's key with its count, sorted, as JSON. Messages
    and paths are the masked ones every output shows, so the file holds no secret."""
    counts: Counter[Key] = Counter(
        key_of(f, result.shown_paths) for result in results for f in result.findings
    )
    findings = [
        {"code": code, "path": path, "pointer": pointer, "message": message, "count": count}
        for (code, path, pointer, message), count in sorted(counts.items())
    ]
    body = {"version": VERSION, "tool": "handoff-lint", "findings": findings}
    return json.dumps(body, indent=1, ensure_ascii=False) + "\n"


def write_baseline(path: Path, results: Sequence[GroupResult]) -> int:
    """Write the baseline of ``results`` to ``path`` at once; the number of findings it holds."""
    from pytest_handoff.read.files import replace_file

    replace_file(path, baseline_text(results))
    return sum(len(result.findings) for result in results)
