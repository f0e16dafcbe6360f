"""Ralph (feliperyba/ralph-orchestra): agents handing off through phrases in their logs.

A group is one session: the project root (the folder holding ``.claude``), its ``prd.json``,
the session files in ``.claude/session/`` and the agents' logs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_handoff.profiles.base import Profile
from pytest_handoff.profiles.builtin import RALPH as SPEC
from pytest_handoff.profiles.ralph.protocol import (
    AGENTS,
    DEFAULT_GROUP,
    NAME,
    PHRASE_TYPE,
    PRD_FILE,
    PRD_TYPE,
    SESSION_FILES,
)
from pytest_handoff.read.files import read_head
from pytest_handoff.read.strict_json import parse_json_bytes
from pytest_handoff.rules.evidence.declared import ClaimField
from pytest_handoff.values.documents import Document, Loaded
from pytest_handoff.values.settings import NO_SETTINGS, Settings

if TYPE_CHECKING:
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.rules import Hit, Rule
    from pytest_handoff.values.settings import Settings
    from pytest_handoff.values.view_model import ChainView

_UTF8_BOM = b"\xef\xbb\xbf"
_SESSION_ID = re.compile(rb'"sessionId"\s*:\s*"([A-Za-z0-9._:-]{1,80})"')
#: Folders below a project root never holding a session's logs.
_SKIPPED = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__"})


def _in_session_folder(path: Path) -> bool:
    parent = path.parent
    return parent.name == "session" and parent.parent.name == ".claude"


def _log_root(path: Path) -> Path | None:
    """The project a log belongs to: above ``.claude/session/logs/``, else above the nearest ``logs/``."""
    parents = path.parents
    for index, folder in enumerate(parents):
        if folder.name == "logs":
            above = parents[index + 1 : index + 4]
            if len(above) == 3 and above[0].name == "session" and above[1].name == ".claude":
                return above[2]
            return folder.parent
    return None


#: The watchdog's own log in the logs folder: it quotes phrases, it writes none.
_WATCHDOG_LOG = "watchdog-summary.log"


def _is_session_log(path: Path) -> bool:
    """An agent's log of a Ralph session: in ``.claude/session/logs/``, or in a ``logs/`` folder of
    a project that has a Ralph session (``.claude/session/``). Other ``logs/`` hold other logs."""
    if path.name == _WATCHDOG_LOG:
        return False
    root = _log_root(path)
    return root is not None and (root / ".claude" / "session").is_dir()


def _session_id(root: Path) -> str:
    """The session's id as its files name it (read from their first bytes), else a fixed name."""
    session = root / ".claude" / "session"
    for name in ("coordinator-state.json", "handoff-log.json"):
        head = read_head(session / name, 4096)
        found = _SESSION_ID.search(head) if head is not None else None
        if found:
            return found.group(1).decode("ascii")
    return DEFAULT_GROUP


class RalphProfile(Profile):
    """The Ralph single-agent orchestration (github.com/feliperyba/ralph-orchestra)."""

    name = NAME
    default_globs = SPEC.default_globs
    spec = SPEC
    groups_by_folder = False  # prd.json, .claude/session/*.json and logs/ are one group
    # A handoff's context is prose: the lines its reason, task and error cite are its claims.
    claim_fields = tuple(
        ClaimField(f"/{key}", "location", handoff_types=(PHRASE_TYPE,)) for key in ("reason", "task", "error")
    )
    claim_time = "/timestamp"

    def claims(self, path: Path, settings: Settings = NO_SETTINGS) -> bool:
        name = path.name
        if name in SESSION_FILES:
            return _in_session_folder(path)
        if name == PRD_FILE:
            return self.keeps(path)
        if not name.endswith(".log"):
            return False
        from pytest_handoff.profiles.ralph.logs import has_ralph_marks  # only for a named log

        # Named explicitly, a log outside a session is Ralph's when it holds Ralph's phrases.
        return _is_session_log(path) or has_ralph_marks(path)

    def keeps(self, path: Path) -> bool:
        # Any project may have a prd.json or a logs/ folder: they are Ralph's beside a session.
        # A log your globs find in no logs/ folder was put there on purpose: it is kept.
        name = path.name
        if name == PRD_FILE:
            return (path.parent / ".claude" / "session").is_dir()
        return not name.endswith(".log") or _log_root(path) is None or _is_session_log(path)

    def group_of(self, path: Path, settings: Settings = NO_SETTINGS) -> tuple[Path, str] | None:
        name = path.name
        if name in SESSION_FILES and _in_session_folder(path):
            root: Path | None = path.parent.parent.parent
        elif name == PRD_FILE:
            root = path.parent
        elif name.endswith(".log"):
            root = _log_root(path)
        else:
            root = None
        return None if root is None else (root, _session_id(root))

    def members(
        self, directory: Path, group_id: str, listing: list[Path] | None, settings: Settings = NO_SETTINGS
    ) -> list[Path]:
        found: list[Path] = []
        session = directory / ".claude" / "session"
        prd = directory / PRD_FILE
        # Other tools write a prd.json too: it is Ralph's only beside a Ralph session.
        if session.is_dir() and ((prd in listing) if listing is not None else prd.is_file()):
            found.append(prd)
        found.extend(path for path in (session / name for name in SESSION_FILES) if path.is_file())
        found.extend(_logs_in(session / "logs", deep=False))
        found.extend(_logs_in(directory / "logs", deep=True))
        return found

    def sort_key(self, path: Path) -> tuple[int, str]:
        # The session files, the logs (by path: one agent's together), then the PRD: the group's
        # first file is one the globs find (pytest collects the group with it).
        name = path.name
        if name in SESSION_FILES:
            return (0, name)
        if name == PRD_FILE:
            return (2, name)
        return (1, path.as_posix())

    def keywords(self, paths: Iterable[Path], settings: Settings) -> list[str]:
        from pytest_handoff.profiles.ralph.logs import log_agent

        agents = {log_agent(path) for path in paths}
        return [NAME, *sorted(agent for agent in agents if agent)]

    def read(self, raw: bytes, path: Path, display_path: str, settings: Settings) -> Loaded:
        if not path.name.endswith(".json"):  # a log: kept, claimed or named under --profile ralph
            from pytest_handoff.profiles.ralph.logs import read_log

            return read_log(raw, path, display_path)
        # PowerShell's Out-File -Encoding UTF8 writes a BOM; the text after it is the JSON.
        if raw.startswith(_UTF8_BOM):
            raw = raw[len(_UTF8_BOM) :]
        return Loaded.of(parse_json_bytes(raw, path, display_path))

    def classify(self, document: Document, settings: Settings) -> tuple[str | None, Iterable[Hit]]:
        from pytest_handoff.profiles.ralph.logs import Phrase

        if isinstance(document, Phrase):
            return PHRASE_TYPE, ()
        if not document.has_text:
            return None, ()  # a completion promise: checked with the PRD, no schema of its own
        name = document.name
        if name == PRD_FILE:
            return PRD_TYPE, ()
        return SESSION_FILES.get(name), ()

    def schema_name(self, handoff_type: str) -> str:
        return f"{NAME}/{handoff_type}"

    def editor_schemas(self, settings: Settings) -> list[tuple[str, list[str]]]:
        # Not prd.json: other tools name their files so, and an editor has no session to tell them apart.
        return [
            (self.schema_name(handoff_type), [f"**/.claude/session/{name}"])
            for name, handoff_type in SESSION_FILES.items()
        ]

    def summarise(self, chain: Group) -> ChainView:
        from pytest_handoff.profiles.ralph.views import session_view

        return session_view(chain)

    def rule_table(self) -> tuple[Rule, ...]:
        from pytest_handoff.profiles.ralph.rules import RULES

        return RULES


def _logs_in(folder: Path, *, deep: bool) -> list[Path]:
    """``*.log`` files of ``folder`` (and of its subfolders when ``deep``)."""
    found: list[Path] = []
    if deep:
        for current, folders, files in os.walk(folder):
            folders[:] = sorted(name for name in folders if name not in _SKIPPED)
            found.extend(Path(current, name) for name in sorted(files) if name.endswith(".log"))
        return found
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return found
    return [folder / name for name in names if name.endswith(".log") and (folder / name).is_file()]


PROFILE = RalphProfile()

__all__ = ["AGENTS", "PROFILE", "RalphProfile"]
