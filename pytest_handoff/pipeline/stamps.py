"""Each handoff's stamp (its place, its writer and its time), so that a failing group can name the
first handoff that broke it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_handoff.read.times import parse_timestamp
from pytest_handoff.rules.secrets import may_hold_secrets
from pytest_handoff.values.documents import Document
from pytest_handoff.values.groups import Stamp

if TYPE_CHECKING:
    from pytest_handoff.profiles.base import Profile


def stamps_of(
    members: list[tuple[Path, str, bool]],
    documents: list[Document],
    profile: Profile,
    shown_paths: Mapping[str, str],
) -> tuple[Stamp, ...]:
    """Each handoff's stamp in the group's order; a member file that gave no document (it did not
    parse) stands for itself, so that it can be the first broken one."""
    by_path: dict[str, list[Document]] = {}
    for document in documents:
        by_path.setdefault(document.display_path, []).append(document)
    stamps: list[Stamp] = []
    for _, display, _ in members:
        found = by_path.pop(display, None)
        if found:
            stamps.extend(stamp_of(document, profile, shown_paths) for document in found)
        else:
            stamps.append(Stamp(shown_paths.get(display, display), 1, "", ""))
    return tuple(stamps)


_AGENT = re.compile(r"[A-Za-z][\w.-]{0,39}")


def stamp_of(document: Document, profile: Profile, shown_paths: Mapping[str, str]) -> Stamp:
    """A document's :class:`Stamp`: an agent's name and a time only when they read as one (nothing
    else of a handoff's text is shown, so no secret and no line of its own can get out)."""
    agent = profile.author_of(document)
    if may_hold_secrets(agent):
        agent = ""  # a name shaped like a secret is not shown
    time = ""
    if profile.claim_time and isinstance(document.data, dict):
        value = document.data.get(profile.claim_time.strip("/"))
        if parse_timestamp(value) is not None and isinstance(value, str):
            time = value.strip()
    path = shown_paths.get(document.display_path, document.display_path)
    return Stamp(path, document.origin[0], agent if _AGENT.fullmatch(agent) else "", time)
