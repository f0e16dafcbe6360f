"""A Markdown handoff as one document: its front matter, its claims of work done, its lines.

- ``/front_matter``: the YAML block, when the file opens with one (read leniently; MD001 says where
  it is not strict YAML);
- ``/done/paths``, ``/done/created``, ``/done/locations``, ``/done/commits``, ``/done/verdicts``:
  the claims of work done (:mod:`pytest_handoff.profiles.markdown.claims`), each at its place;
- ``/roles``: how many sections say what was done and what is next;
- ``/body/<line>``: every other line of text, so that the secret scan sees the prose.
"""

from __future__ import annotations

import re
from pathlib import Path

from pytest_handoff.profiles.markdown.claims import read_claims
from pytest_handoff.profiles.markdown.format import NOT_STRICT_YAML
from pytest_handoff.read.markdown import read_front_matter_leniently
from pytest_handoff.read.placed import body_lines, leaf, mapping, placed_document
from pytest_handoff.read.yamldoc import Node
from pytest_handoff.values.documents import Loaded

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def read_markdown_handoff(raw: bytes, path: Path, display_path: str, *, message: bool) -> Loaded:
    """The document of a Markdown handoff (``message``: an agent's last message, read sentence by
    sentence where no heading says what a part is)."""
    front = read_front_matter_leniently(raw, path, display_path, NOT_STRICT_YAML)
    text = raw.decode("utf-8", errors="replace")
    lines = _LINE_BREAK.split(text)
    entries: dict[str, Node] = {}
    if front.root is not None:
        entries["front_matter"] = front.root
    entries.update(read_claims(lines, front.body_line, sentences=message))
    entries["body"] = body_lines(lines, front.body_line if front.root is not None else 1)
    document = placed_document(path, display_path, text, mapping(entries, at=leaf("", 1)))
    return Loaded((document,), front.findings)
