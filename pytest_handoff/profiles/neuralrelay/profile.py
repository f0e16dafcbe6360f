"""NeuralRelay: BA, dev, test and review agents writing ``.neuralrelay/handoffs/{chain-id}/NN-agent.json``."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_handoff.profiles.base import Profile
from pytest_handoff.profiles.builtin import NEURALRELAY as SPEC
from pytest_handoff.profiles.neuralrelay.format import (
    AGENTS,
    NAME,
    NUMBERED_FILE,
    REWORK_FILE,
    STAGE,
    STRAY_FILE,
    agents,
)
from pytest_handoff.read.strict_json import parse_json_bytes
from pytest_handoff.rules.evidence.declared import ClaimField
from pytest_handoff.values.documents import Document, LoadResult
from pytest_handoff.values.findings import Finding, Severity
from pytest_handoff.values.rules import Hit
from pytest_handoff.values.settings import NO_SETTINGS, Settings
from pytest_handoff.values.wording import did_you_mean

if TYPE_CHECKING:
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.rules import Rule
    from pytest_handoff.values.view_model import ChainView

_HANDOFFS_FOLDER = f"{os.sep}.neuralrelay{os.sep}handoffs{os.sep}"


def _inside_handoffs(path: Path) -> bool:
    # Text, not path.parts: this runs for every file found (Path joins with single separators).
    return _HANDOFFS_FOLDER in f"{os.sep}{path}{os.sep}"


def _review_numbers(folder: Path) -> list[int]:
    """Sequence numbers of the review handoffs in ``folder``, by file name, ascending."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    numbers = []
    for name in names:
        named = NUMBERED_FILE.fullmatch(name)
        if named and (AGENTS.get(named.group("agent")) == "review_final" or "review" in named.group("agent")):
            numbers.append(int(named.group("seq")))
    return sorted(numbers)


class NeuralRelayProfile(Profile):
    """The NeuralRelay protocol (github.com/drago-codes-21/NeuralRelay)."""

    name = NAME
    default_globs = SPEC.default_globs
    spec = SPEC
    # Numbering (gaps, duplicates), missing stages, the folder's name.
    group_wide_codes = frozenset({"NR103", "NR106", "NR107"})
    claim_fields = (
        ClaimField("/affected_modules/*", "path", handoff_types=("requirements",)),
        ClaimField("/files_changed/*/path", "path", change="change_type", handoff_types=("dev_to_test",)),
        ClaimField("/functions_added/*/file", "path", handoff_types=("dev_to_test",)),
        ClaimField(
            "/unit_tests_written/files/*",
            "test_file",
            count_at="/unit_tests_written/count",
            handoff_types=("dev_to_test",),
        ),
        ClaimField("/test_files_created/*", "test_file", handoff_types=("test_to_review",)),
        ClaimField("/unit_tests_written/summary", "test_name", handoff_types=("dev_to_test",)),
        ClaimField("/bugs_found/*/location", "location", handoff_types=("test_to_review",)),
        ClaimField("/recommended_focus_for_reviewer", "location", handoff_types=("test_to_review",)),
        ClaimField("/issues/*/location", "location", handoff_types=("review_final",)),
        ClaimField(
            "/test_summary",
            "test_totals",
            totals=("total", "passing", "failing"),
            handoff_types=("test_to_review",),
        ),
    )
    claim_time = "/timestamp"

    def author_of(self, document: Document) -> str:
        named = NUMBERED_FILE.fullmatch(document.path.name)  # 02-dev-agent.json: the dev agent's
        return named.group("agent") if named else ""

    def claims(self, path: Path, settings: Settings = NO_SETTINGS) -> bool:
        if path.suffix != ".json":
            return False
        return _inside_handoffs(path) or bool(
            NUMBERED_FILE.fullmatch(path.name) or REWORK_FILE.fullmatch(path.name)
        )

    def group_of(self, path: Path, settings: Settings = NO_SETTINGS) -> tuple[Path, str] | None:
        name = path.name  # pathlib computes it on every access
        parent = path.parent
        group_id = parent.name
        if not (NUMBERED_FILE.fullmatch(name) or REWORK_FILE.fullmatch(name)):
            # Any other JSON file in a chain folder (handoffs/{chain-id}/) belongs to that chain as a
            # stray file (NR108), reported once with it, not as a chain of its own.
            return (parent, group_id) if _is_stray(path) else None
        # Files directly in handoffs/ (or anywhere without a chain folder) stand alone.
        return None if group_id == "handoffs" else (parent, group_id)

    def parse(self, raw: bytes, path: Path, display_path: str, settings: Settings) -> LoadResult:
        if not _is_stray(path):
            return parse_json_bytes(raw, path, display_path)
        # Not a handoff, so no schema or contract applies; only secrets are looked for (by the
        # pipeline), as the file is committed beside the handoffs.
        return LoadResult(None, (_stray_finding(display_path),), _secrets_only(raw, path, display_path))

    def classify(self, document: Document, settings: Settings) -> tuple[str | None, Iterable[Hit]]:
        if REWORK_FILE.fullmatch(document.name):
            return "rework", ()
        data = document.data
        declared = data.get("handoff_type") if isinstance(data, dict) else None
        named = NUMBERED_FILE.fullmatch(document.name)
        implied = agents(settings).get(named.group("agent")) if named else None
        if isinstance(declared, str) and declared in STAGE:
            return declared, ()
        if declared is None and implied is not None:
            # The schema reports the missing field; the file name still tells which schema.
            return implied, ()
        known = ", ".join(STAGE)
        if not isinstance(data, dict):
            what = type(data).__name__ if data is not None else "null"
            return None, (Hit(document, "", f"a handoff must be a JSON object, got {what}"),)
        if declared is None:
            return None, (
                Hit(
                    document,
                    "",
                    f"no 'handoff_type' and no known agent in the file name; expected one of {known}",
                ),
            )
        return None, (
            Hit(
                document,
                "/handoff_type",
                f"unknown handoff_type {declared!r}; expected one of {known}" + did_you_mean(declared, STAGE),
            ),
        )

    def schema_name(self, handoff_type: str) -> str:
        return f"neuralrelay/{handoff_type}"

    def sort_key(self, path: Path) -> tuple[int, str]:
        """Numbered files by number; ``rework-N.json`` right after the N-th review of its folder.

        ``04-review-agent.json``, ``rework-1.json``, ``05-dev-agent.json``: the rework file sits
        between the cycles it separates. A review is a file of an agent that writes reviews
        (``review-agent``, or any agent named ``*review*``); without an N-th review the rework
        file goes last.
        """
        name = path.name
        numbered = NUMBERED_FILE.fullmatch(name)
        if numbered:
            return (2 * int(numbered.group("seq")), name)
        rework = REWORK_FILE.fullmatch(name)
        if rework:
            cycle = int(rework.group("cycle"))
            reviews = _review_numbers(path.parent)
            if 1 <= cycle <= len(reviews):
                return (2 * reviews[cycle - 1] + 1, name)
            return (10**7 + cycle, name)
        return (10**8, name)

    def keywords(self, paths: Iterable[Path], settings: Settings) -> list[str]:
        known = agents(settings)
        words: set[str] = set()
        for path in paths:
            named = NUMBERED_FILE.fullmatch(path.name)
            if named:
                words.add(named.group("agent"))
                words.add(known.get(named.group("agent"), ""))
            elif REWORK_FILE.fullmatch(path.name):
                words.add("rework")
        words.discard("")
        return sorted(words)

    def rule_table(self) -> tuple[Rule, ...]:
        # Imported here: the checks are needed only when a chain is checked or rules are listed.
        from pytest_handoff.profiles.neuralrelay.rules import RULES

        return RULES

    def summarise(self, chain: Group) -> ChainView:
        from pytest_handoff.profiles.neuralrelay.views import summarise

        return summarise(chain)

    def editor_schemas(self, settings: Settings) -> list[tuple[str, list[str]]]:
        by_type: dict[str, list[str]] = {}
        for agent, handoff_type in sorted(agents(settings).items()):
            by_type.setdefault(handoff_type, []).append(f"**/.neuralrelay/handoffs/*/*-{agent}.json")
        by_type.setdefault("rework", []).append("**/.neuralrelay/handoffs/*/rework-*.json")
        return [(self.schema_name(handoff_type), globs) for handoff_type, globs in by_type.items()]


def _is_stray(path: Path) -> bool:
    """A ``.json`` file in a chain folder (``handoffs/{chain-id}/``) named like no handoff."""
    name = path.name
    if not name.endswith(".json") or NUMBERED_FILE.fullmatch(name) or REWORK_FILE.fullmatch(name):
        return False
    parent = path.parent
    return parent.name != "handoffs" and parent.parent.name == "handoffs"


def _stray_finding(display_path: str) -> Finding:
    return Finding(
        path=display_path,
        line=0,
        column=0,
        code=STRAY_FILE,
        severity=Severity.WARNING,
        message="not a handoff: its name is neither {NN}-{agent}.json nor rework-{N}.json, so it is not "
        "checked as one; rename it if it is a handoff, or keep it outside the chain folder",
        rule="stray-file",
    )


def _secrets_only(raw: bytes, path: Path, display_path: str) -> Document | None:
    """A stray file's content for the secret scan, when it may hold one and parses."""
    from pytest_handoff.rules.secrets import may_hold_secrets

    if not may_hold_secrets(raw.decode("utf-8", errors="replace")):
        return None
    return parse_json_bytes(raw, path, display_path).document


PROFILE = NeuralRelayProfile()
