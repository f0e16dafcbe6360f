"""Trinity rules on where a handoff sits and what its name says (TR101-TR105).

The name and the folder of a Trinity handoff carry the sender, the moment and the receiver a
second time: the receiving agent polls its own ``handoff/`` folder and may go by the name. These
rules check that the two copies agree.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator
from typing import TYPE_CHECKING

from pytest_handoff.profiles.trinity.format import (
    HANDOFF_FOLDER,
    in_handoff_folder,
    timestamp_tolerance_ms,
    workspaces,
)
from pytest_handoff.profiles.trinity.names import parse_file_name, parse_timestamp
from pytest_handoff.values.rules import Hit

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.settings import Settings


def check_file_name(chain: Group, settings: Settings) -> Iterator[Hit]:
    """A handoff's file name is ``{from}-{ISO 8601 timestamp}.json``.

    **What it does**: reads each file name of a workspace's `handoff/` folder as the sending agent, a
    hyphen and an ISO 8601 timestamp with its time zone (`developer-2026-04-02T10:00:00.000Z.json`).
    The sender may hold hyphens (`qa-lead-2026-...`): the name is split where the timestamp starts.
    On Windows, where a file name cannot hold `:`, `_` or `-` in place of every colon of the
    timestamp is read the same way (`developer-2026-04-02T10_00_00.000Z.json`). The finding is
    placed at the start of the file's JSON.

    **Why is this bad?** The receiving agent finds its pending handoffs, and their order, by name:
    a file named otherwise is either not a handoff at all, kept where handoffs are expected, or a
    handoff whose sender and time cannot be told without opening it.

    **Example**: `handoff/developer.json`, `handoff/developer-2026-04-02.json` (no time),
    `handoff/developer-2026-04-02T10:00:00.json` (no time zone), `handoff/developer-2026-13-02T10:00:00Z.json`.

    **Use instead**: `handoff/developer-2026-04-02T10:00:00.000Z.json`, as
    `new Date().toISOString()` writes it; keep files that are not handoffs out of `handoff/`.
    """
    for document in chain.documents:
        named = parse_file_name(document.name)
        if isinstance(named, str):
            yield Hit(document, "", named)


def check_sender_in_name(document: Document, settings: Settings) -> Iterator[Hit]:
    """The agent named in the file name is the handoff's ``from``.

    **What it does**: compares the agent of `{agent}-{timestamp}.json` with the `from` field
    (exactly, case included). A name that does not read is TR101's, not this rule's.

    **Why is this bad?** Trinity names a handoff after its sender; an agent looking for what
    `developer` sent goes by the name, so a handoff whose name and body disagree is either
    attributed to the wrong agent or was copied from another handoff and not fully edited.

    **Example**: `tester/handoff/developer-2026-04-02T10:00:00.000Z.json` holding `"from": "designer"`.

    **Use instead**: name the file after the agent in `from`
    (`designer-2026-04-02T10:00:00.000Z.json`), or correct `from`.
    """
    named = parse_file_name(document.name)
    sender = document.data["from"]
    if not isinstance(named, str) and named.agent != sender:
        yield Hit(
            document,
            "/from",
            f"the file name says the handoff is from {named.agent!r}, but 'from' is {sender!r}",
        )


def check_timestamp_in_name(document: Document, settings: Settings) -> Iterator[Hit]:
    """The timestamp in the file name is the handoff's ``timestamp``, as an instant.

    **What it does**: compares the moment named by the file name with the `timestamp` field as
    instants, so `Z` and `+00:00`, or `10:00:00Z` and `12:00:00+02:00`, agree, and `.5` equals
    `.500`. They may differ by up to `timestamp-tolerance-ms` (`[tool.handoff.trinity]`, default
    1000 ms, 0 for an exact match): Trinity's reference code takes the name's timestamp and the
    body's from two readings of the clock.

    **Why is this bad?** The name orders the handoffs of a workspace and the field dates the
    handoff; when they disagree by more than a moment, one of them was edited by hand or the
    file was copied from another handoff, and the history no longer says when things happened.

    **Example**: `developer-2026-04-02T10:00:00.000Z.json` holding
    `"timestamp": "2026-04-02T11:00:00.000Z"`.

    **Use instead**: the same moment in both places
    (`"timestamp": "2026-04-02T10:00:00.000Z"`, or `"2026-04-02T12:00:00.000+02:00"`).
    """
    named = parse_file_name(document.name)
    if isinstance(named, str):
        return
    stamp = document.data["timestamp"]
    written = parse_timestamp(stamp)
    if written is None:  # the schema reports it
        return
    apart = abs(written.minus(named.instant))
    tolerance = timestamp_tolerance_ms(settings)
    if apart > tolerance:
        allowed = "be the same instant" if tolerance == 0 else f"be at most {tolerance} ms apart"
        yield Hit(
            document,
            "/timestamp",
            f"'timestamp' is {stamp!r}, {_duration(apart)} away from {named.stamp!r} in the file "
            f"name; they should {allowed} ('timestamp-tolerance-ms')",
        )


def _duration(millis: int) -> str:
    if millis < 1000:
        return f"{millis} ms"
    if millis < 120_000:
        return f"{millis / 1000:g} s"
    if millis < 3_600_000:
        return f"{millis // 60_000} min"
    return f"{millis / 3_600_000:.3g} h"


def check_workspace_is_recipients(document: Document, settings: Settings) -> Iterator[Hit]:
    """A handoff sits in ``handoff/`` of the workspace of its ``to`` agent.

    **What it does**: finds the workspace a handoff sits in (the folder holding its `handoff/`
    folder) and checks it belongs to the agent in `to`. With `[tool.handoff.trinity] workspaces =
    {tester = "agents/tester"}` (folders relative to the project root) the configured folder of
    `to` is its workspace, and a workspace configured for another agent is nobody else's; for an
    agent not configured, the workspace is a folder named like the agent (`tester/handoff/`). A
    `handoff/` folder at the project root belongs to nobody in particular when not configured
    (the root's name depends on where the project is checked out), so it is not judged.

    **Why is this bad?** Each agent reads only its own `handoff/` folder: a handoff left in the
    wrong workspace never reaches the agent it is for, and the one that finds it may act on
    work that is not its own.

    **Example**: `agents/developer/handoff/designer-2026-04-02T10:00:00.000Z.json` holding
    `"to": "tester"`.

    **Use instead**: write it to `agents/tester/handoff/`, or correct `to`; configure
    `workspaces` when workspace folders are not named after their agents.
    """
    recipient = document.data["to"]
    configured = workspaces(settings)
    expected = configured.get(recipient)
    if not in_handoff_folder(document.path):
        where = expected if expected is not None else recipient
        yield Hit(
            document,
            "/to",
            f"not in a {HANDOFF_FOLDER}/ folder: a handoff to {recipient!r} belongs in "
            f"{where}/{HANDOFF_FOLDER}/, the folder of its workspace that it reads",
        )
        return
    shown = posixpath.dirname(posixpath.dirname(document.display_path))
    owners = sorted(agent for agent, folder in configured.items() if _same_folder(folder, shown, document))
    if expected is not None:
        if _same_folder(expected, shown, document):
            return
    elif owners:
        pass  # configured as another agent's workspace
    elif shown in ("", "."):
        return  # the project root: its folder's name says nothing (see the docs)
    elif posixpath.basename(shown) == recipient:
        return
    workspace = shown or "."
    whose = f" ({' and '.join(repr(owner) for owner in owners)}'s, by 'workspaces')" if owners else ""
    reads = (
        f"{expected}/{HANDOFF_FOLDER}/ (by 'workspaces')"
        if expected is not None
        else f"{recipient}/{HANDOFF_FOLDER}/ (a workspace folder named after it; "
        "configure 'workspaces' when it is named otherwise)"
    )
    yield Hit(
        document,
        "/to",
        f"handoff to {recipient!r} sits in {workspace}/{HANDOFF_FOLDER}/{whose}, but {recipient!r} reads {reads}",
    )


def _same_folder(configured: str, shown: str, document: Document) -> bool:
    """True when ``configured`` (a workspace as :func:`workspaces` gives it) is the folder ``shown``."""
    if os.path.isabs(configured) or configured.startswith("/"):
        here = os.path.realpath(document.path.parent.parent)
        return os.path.normcase(here) == os.path.normcase(os.path.realpath(configured))
    return posixpath.normpath(shown or ".") == configured


def check_not_to_oneself(document: Document, settings: Settings) -> Iterator[Hit]:
    """A handoff goes to another agent: ``to`` differs from ``from``.

    **What it does**: reports a handoff whose `to` is its `from` (exactly, case included).

    **Why is this bad?** A handoff moves context between agents; one an agent writes to itself
    lands in its own workspace as pending work that no other agent will ever accept, and usually
    means `to` was filled in from the wrong variable.

    **Example**: `{"from": "developer", "to": "developer", ...}`.

    **Use instead**: the receiving agent in `to` (`"to": "tester"`); keep notes to oneself out of
    `handoff/`.
    """
    data = document.data
    if data["to"] == data["from"]:
        yield Hit(
            document,
            "/to",
            f"handoff from {data['from']!r} to itself: 'to' must name another agent",
            related=((document, "/from", "the sender"),),
        )
