"""Masking: every secret found in a group is hidden from whatever the run prints.

A pipeline step that always runs, whatever rules are selected: messages quote values (in part),
excerpts show lines, notes quote matched text, ids name records and file names name files, and
none of them may show a secret.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from pytest_handoff.read.files import NO_OVERRIDES, read_bounded
from pytest_handoff.rules.secrets import secret_masker
from pytest_handoff.values.documents import Document
from pytest_handoff.values.findings import Finding
from pytest_handoff.values.settings import DEFAULT_MAX_FILE_SIZE

if TYPE_CHECKING:
    from pytest_handoff.values.groups import Group

_T = TypeVar("_T")


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def excerpt_sources(
    findings: Sequence[Finding],
    documents: Sequence[Document],
    members: Sequence[tuple[Path, str, bool]],
    secrets: list[str],
    overrides: Mapping[Path, bytes] = NO_OVERRIDES,
) -> dict[str, tuple[str, ...]]:
    """Lines of each file that has a positioned finding (decoded leniently if it did not parse).

    ``members`` are the group's files as (path, display path, opened by its profile). Secrets in
    a file that did not parse, or outside the documents of a file of many (HX001 sees only
    documents), are added to ``secrets``.
    """
    from pytest_handoff.rules.secrets import find_secrets, may_hold_secrets

    wanted = {f.path for f in findings if f.line > 0}
    sources: dict[str, tuple[str, ...]] = {}
    for document in documents:
        if document.display_path in wanted and document.display_path not in sources:
            lines = sources[document.display_path] = tuple(_LINE_BREAK.split(document.source_text))
            # A file of many documents (a log, JSONL) has text outside them: HX001 never saw it.
            if document.source_text is not document.text and may_hold_secrets(document.source_text):
                secrets.extend(secret for line in lines for _, secret in find_secrets(line))
    for path, display, opened in members:
        if display in wanted and display not in sources and not opened:
            try:
                raw = overrides[path] if path in overrides else read_bounded(path, DEFAULT_MAX_FILE_SIZE)
            except OSError:
                continue
            text = raw.decode("utf-8", errors="replace")
            sources[display] = tuple(_LINE_BREAK.split(text))
            if may_hold_secrets(text):
                secrets.extend(secret for line in sources[display] for _, secret in find_secrets(line))
    return sources


def shown_path(display_path: str) -> str:
    """A path (or a group's id, a folder's name) with any secret it holds masked, as every output
    shows it.

    Made from the path alone, so that a named file's findings are found again under it; a short
    digest of the whole path keeps two paths apart that differ only in their secrets.
    """
    from pytest_handoff.rules.secrets import find_secrets, may_hold_secrets

    if not may_hold_secrets(display_path):
        return display_path
    found = [secret for _, secret in find_secrets(display_path)]
    if not found:
        return display_path
    import hashlib  # only for a path that holds a secret

    digest = hashlib.sha256(display_path.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{secret_masker(found)(display_path)} (#{digest})"


def masked(
    findings: Sequence[Finding],
    notes: Sequence[str],
    sources: Mapping[str, tuple[str, ...]],
    secrets: Sequence[str],
    shown_paths: Mapping[str, str],
) -> tuple[list[Finding], list[str], dict[str, tuple[str, ...]]]:
    """Findings, notes and source lines with every secret hidden.

    Whatever rules ran: messages quote values (in part), excerpts show lines, notes quote
    matched text, logical places name records by their ids, paths name files, and none of them
    may show a secret. ``shown_paths`` are the group's display paths that hold a secret, masked.
    """
    if not secrets and not shown_paths:
        return list(findings), list(notes), dict(sources)
    hide = secret_masker(secrets) if secrets else _as_is
    return (
        [
            f.replace(
                path=shown_paths.get(f.path, f.path),
                chain=hide(f.chain),
                message=hide(f.message),
                pointer=hide(f.pointer),
                logical=hide(f.logical),
                related=tuple(
                    (shown_paths.get(path, path), line, column, hide(label))
                    for path, line, column, label in f.related
                ),
            )
            for f in findings
        ],
        [hide(note) for note in notes],
        {shown_paths.get(path, path): tuple(hide(line) for line in lines) for path, lines in sources.items()},
    )


def _as_is(text: str) -> str:
    return text


def masked_value(chain: Group, value: _T) -> _T:
    """``value`` (a view, a document's data) with every secret of the chain masked in its strings,
    as findings and notes are masked: before any rendering or escaping."""
    from pytest_handoff.rules.secrets import secrets_to_mask
    from pytest_handoff.values.view_model import map_strings

    secrets = secrets_to_mask(chain)
    if not secrets:
        return value
    hidden: _T = map_strings(value, secret_masker(secrets))
    return hidden
