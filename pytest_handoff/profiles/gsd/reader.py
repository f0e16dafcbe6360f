"""A GSD file as one document: its front matter, what its body says, and its lines.

A Markdown file's document holds, each value at its place:

- ``/front_matter``: the YAML block as written (read leniently: see
  :func:`~pytest_handoff.read.markdown.read_front_matter_leniently`; GS001 says when it is not
  strict YAML);
- what the body and the front matter claim, read into one spelling whatever the template's
  generation: a summary's ``/files_created``, ``/files_modified`` (``key-files`` or ``key_files``
  and the files sections), ``/commits`` and ``/plan_metadata`` (hashes), ``/tasks``
  (``**Tasks:** N``) and ``/self_check``; a plan's ``/tasks`` (its ``<task>`` elements); a
  verification's ``/truths``; a UAT's ``/counts`` and ``/results``; STATE's ``/position``;
  ROADMAP's ``/plans`` (its checkboxes);
- ``/body/<line>``: every other line of text, so that the secret scan sees the prose.

``config.json`` and ``HANDOFF.json`` are JSON, read as they are.
"""

from __future__ import annotations

import re
from pathlib import Path

from pytest_handoff.profiles.gsd import body, counts
from pytest_handoff.profiles.gsd.format import (
    CONFIG,
    HANDOFF,
    PLAN,
    ROADMAP,
    STATE,
    SUMMARY,
    UAT,
    VERIFICATION,
)
from pytest_handoff.profiles.gsd.layout import Kind
from pytest_handoff.read.markdown import clean_path, is_path, read_front_matter_leniently
from pytest_handoff.read.placed import body_lines, leaf, mapping, placed_document, sequence, unique
from pytest_handoff.read.strict_json import parse_json_bytes
from pytest_handoff.read.yamldoc import Node
from pytest_handoff.values.documents import Loaded

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
#: The code of a front matter that is not strict YAML.
NOT_STRICT_YAML = "GS001"


def read_gsd(raw: bytes, path: Path, display_path: str, kind: Kind) -> Loaded:
    """The document of one GSD file (JSON files as JSON, Markdown as described above)."""
    if kind.type in (CONFIG, HANDOFF):
        return Loaded.of(parse_json_bytes(raw, path, display_path))
    front = read_front_matter_leniently(raw, path, display_path, NOT_STRICT_YAML)
    text = raw.decode("utf-8", errors="replace")
    lines = _LINE_BREAK.split(text)
    entries: dict[str, Node] = {}
    if front.root is not None:
        entries["front_matter"] = front.root
    entries.update(_facts(kind.type, lines, front.body_line, front.root))
    entries["body"] = body_lines(lines, front.body_line if front.root is not None else 1)
    document = placed_document(path, display_path, text, mapping(entries, at=leaf("", 1)))
    return Loaded((document,), front.findings)


def _facts(handoff_type: str, lines: list[str], body_line: int, root: Node | None) -> dict[str, Node]:
    """What a file of ``handoff_type`` says besides its front matter (a pause file: nothing more)."""
    facts: dict[str, Node] = {}
    if handoff_type == SUMMARY:
        created, modified = key_files(root)
        more_created, more_modified = body.claimed_files(lines, body_line)
        facts["files_created"] = sequence(unique(created + more_created))
        known = {node.data for node in facts["files_created"].items or ()}
        facts["files_modified"] = sequence(
            unique([n for n in modified + more_modified if n.data not in known])
        )
        commits, metadata = body.commit_hashes(lines, body_line)
        facts["commits"] = sequence(commits)
        facts["plan_metadata"] = sequence(metadata)
        for name, found in (
            ("tasks", body.task_count(lines, body_line)),
            ("self_check", body.self_check(lines, body_line)),
        ):
            if found is not None:
                facts[name] = found
    elif handoff_type == PLAN:
        facts.update(counts.plan_tasks(lines, body_line))
    elif handoff_type == VERIFICATION:
        facts.update(counts.truths(lines, body_line))
    elif handoff_type == UAT:
        facts.update(counts.uat(lines, body_line))
    elif handoff_type == STATE:
        facts.update(counts.position(lines, body_line))
    elif handoff_type == ROADMAP:
        facts.update(counts.roadmap_plans(lines, body_line))
    return facts


def front_value(fm: object, *names: str) -> object:
    """The first of ``names`` the front matter has (GSD's keys drift: ``key-files``, ``key_files``)."""
    if isinstance(fm, dict):
        for name in names:
            if name in fm:
                return fm[name]
    return None


def key_files(root: Node | None) -> tuple[list[Node], list[Node]]:
    """(created, modified) paths of a summary's ``key-files`` (or ``key_files``), each at its entry.

    Entries are paths, ``path - what it does`` strings, or mappings (``{path: ...}`` or
    ``{src/a.py: what it does}``); a flat list is taken as modified files.
    """
    created: list[Node] = []
    modified: list[Node] = []
    if root is None or root.entries is None:
        return created, modified
    entry = next((root.entries[name] for name in ("key-files", "key_files") if name in root.entries), None)
    if entry is None:
        return created, modified
    node = entry[2]
    if node.items is not None:
        modified.extend(_paths_of(node))
    elif node.entries is not None:
        for name, (_, _, child) in node.entries.items():
            target = created if name.lower() in ("created", "added", "new") else modified
            if name.lower() in ("created", "added", "new", "modified", "changed", "updated"):
                target.extend(_paths_of(child))
    return created, modified


def _paths_of(node: Node) -> list[Node]:
    found = []
    for item in node.items or ():
        value: object = item.data
        if isinstance(value, dict) and len(value) >= 1:
            value = value.get("path") if "path" in value else next(iter(value))
        if not isinstance(value, str):
            continue
        path = clean_path(_first_path_word(value))
        if is_path(path):
            line, column = item.start
            found.append(leaf(path, line + 1, column + 1))
    return found


def _first_path_word(text: str) -> str:
    """The path an entry names: ``src/a.py - what it does``, ``src/a.py (new)``, `` `src/a.py` ``."""
    text = text.strip()
    ticked = re.match(r"`([^`]+)`", text)
    if ticked:
        return ticked.group(1)
    return re.split(r"\s+(?:-|\u2014|\u2013|\()\s*|:\s|\s", text, maxsplit=1)[0]
