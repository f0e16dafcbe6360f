"""Data read from a text by hand (a Markdown body's lines), every value placed at its line.

A reader that finds values in prose, not in a structured syntax, builds them here as the same
node tree the YAML reader composes, so a rule's pointer (``/task_commits/0/hashes/1``) finds the
line and columns the value was read from, and a mapping read from a front matter can be set
under a key of the same tree (``/front_matter/key-files``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_handoff.read.yamldoc import Node, YamlDocument

_NOWHERE = (0, 0)


def leaf(data: Any, line: int, column: int = 1, end_column: int | None = None) -> Node:
    """A value read at ``line`` (1-based), from ``column`` to ``end_column`` (inclusive; the
    value's own length when not given)."""
    if end_column is None:
        end_column = column + max(len(str(data)), 1) - 1
    return Node((line - 1, column - 1), (line - 1, end_column), data)


def mapping(entries: Mapping[str, Node], at: Node | None = None) -> Node:
    """An object of ``entries``, placed where ``at`` is (else at its first entry)."""
    first = at or next(iter(entries.values()), None)
    start, end = (first.start, first.end) if first is not None else (_NOWHERE, _NOWHERE)
    node = Node(start, end, {key: child.data for key, child in entries.items()})
    node.entries = {key: (child.start, child.start, child) for key, child in entries.items()}
    return node


def sequence(items: Sequence[Node], at: Node | None = None) -> Node:
    """A list of ``items``, placed where ``at`` is (else at its first item)."""
    first = at or (items[0] if items else None)
    start, end = (first.start, first.end) if first is not None else (_NOWHERE, _NOWHERE)
    node = Node(start, end, [item.data for item in items])
    node.items = list(items)
    return node


def body_lines(lines: list[str], first: int) -> Node:
    """``/body``: every line of text from line ``first`` on, by its number (for the secret scan, which
    reads data: a line no reader took a value from is seen there)."""
    return mapping(
        {
            str(number): leaf(line, number)
            for number, line in enumerate(lines[first - 1 :], first)
            if line.strip()
        },
        at=leaf("", first),
    )


def unique(nodes: list[Node]) -> list[Node]:
    """``nodes`` without a value read before (the first place of each value kept)."""
    seen: set[object] = set()
    kept = []
    for node in nodes:
        if node.data not in seen:
            seen.add(node.data)
            kept.append(node)
    return kept


def placed_document(path: Path, display_path: str, text: str, root: Node, *, label: str = "") -> YamlDocument:
    """A document of ``root``'s data, each value placed where its node says, in a file of ``text``."""
    return YamlDocument(path, display_path, text, root.data, root, label=label)
