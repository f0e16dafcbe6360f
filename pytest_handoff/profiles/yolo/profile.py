"""YOLO: typed messages in JSON and JSONL files under ``.yolo-planning/``, grouped by phase folder.

Every object with a ``type`` is a message. Two lines of YOLO write them: flat messages (the
type's fields at the top level, schemas ``yolo/<type>``) and v2 envelopes (``payload`` and
``schema_version`` beside ``type``; schema ``yolo/v2_envelope``, payload rules from the project's
``message-schemas.json``). Objects without a ``type`` (plan headers, critique lines, decisions)
are YOLO's abbreviated-key artifacts, and dot files and folders (``.execution-state.json``,
``.notification-log.jsonl``, ``.events/``) YOLO's own state and logs: read, and consulted by
rules, but not messages.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_handoff.profiles.base import Profile, folder_files
from pytest_handoff.profiles.builtin import YOLO as SPEC
from pytest_handoff.profiles.yolo.artifacts import TYPES as ARTIFACT_TYPES
from pytest_handoff.profiles.yolo.artifacts import artifact_type
from pytest_handoff.profiles.yolo.format import FLAT_TYPES, NAME, SHIPPED_V2_TYPES, V2, V2_PREFIX, is_envelope
from pytest_handoff.profiles.yolo.layout import (
    ESCALATION_LOG,
    EXECUTION_STATE,
    PLANNING,
    PROJECT_STATE,
    SUFFIXES,
    is_runtime_file,
    phase_of,
    plan_file,
    planning_root,
)
from pytest_handoff.profiles.yolo.markdown import markdown_kind, read_markdown
from pytest_handoff.read.files import file_finding, read_head
from pytest_handoff.read.strict_json import line_failure, parse_json_bytes
from pytest_handoff.rules.evidence.declared import ClaimField
from pytest_handoff.values.documents import Document, Loaded
from pytest_handoff.values.findings import Finding, Tally
from pytest_handoff.values.rules import Hit
from pytest_handoff.values.settings import NO_SETTINGS, Settings
from pytest_handoff.values.wording import did_you_mean

if TYPE_CHECKING:
    from pytest_handoff.values.groups import GroupRef
    from pytest_handoff.values.rules import Rule
    from pytest_handoff.values.settings import Settings

#: How far into a file named outside .yolo-planning ``claims`` looks for a message.
_SNIFF_BYTES = 4096


class YoloProfile(Profile):
    """YOLO (github.com/slavpetroff/yolo): messages and artifacts under ``.yolo-planning/``."""

    name = NAME
    default_globs = SPEC.default_globs
    spec = SPEC
    claim_fields = (
        ClaimField("/fm/*", "path", changed="modified", handoff_types=("plan_summary",)),
        ClaimField("/ch/*", "commit", handoff_types=("plan_summary",)),
        ClaimField("/f", "location", line="ln", handoff_types=("qa_code_finding", "code_review_comment")),
        ClaimField("/tf/*", "test_file", count_at="/tc", handoff_types=("test_plan_entry",)),
        ClaimField("/tests", "test_totals", totals=("", "ps", "fl"), handoff_types=("qa_code_summary",)),
        ClaimField("/r", "test_verdict", handoff_types=("qa_code_summary",)),
        ClaimField("/commit_hashes/*", "commit", handoff_types=("summary_front_matter",)),
        ClaimField("/files_modified/*", "path", changed="modified", handoff_types=("summary_front_matter",)),
    )
    claim_time = "/dt"

    def claims(self, path: Path, settings: Settings = NO_SETTINGS) -> bool:
        if path.suffix == ".md":
            return PLANNING in path.parts[:-1] and markdown_kind(path.name) is not None
        if path.suffix not in SUFFIXES:
            return False
        if PLANNING in path.parts[:-1] or plan_file(path.name) is not None:
            return True
        return _holds_a_message(path)

    def group_of(self, path: Path, settings: Settings = NO_SETTINGS) -> tuple[Path, str] | None:
        if path.suffix not in SUFFIXES and markdown_kind(path.name) is None:
            return None
        phase = phase_of(path)
        if phase is None:
            return None
        planning = planning_root(path)
        assert planning is not None  # a phase folder's planning folder holds its phases/
        return phase.folder, phase.folder.relative_to(planning).as_posix()

    def members(
        self, directory: Path, group_id: str, listing: list[Path] | None, settings: Settings = NO_SETTINGS
    ) -> list[Path]:
        listing = folder_files(directory, listing)
        return [path for path in listing if path.suffix in SUFFIXES or markdown_kind(path.name) is not None]

    def read(self, raw: bytes, path: Path, display_path: str, settings: Settings) -> Loaded:
        if path.suffix == ".md":
            return read_markdown(raw, path, display_path)
        if path.suffix != ".jsonl":
            return Loaded.of(parse_json_bytes(raw, path, display_path))
        return read_jsonl(raw, path, display_path)

    def rule_table(self) -> tuple[Rule, ...]:
        from pytest_handoff.profiles.yolo.rules import RULES

        return RULES

    def cache_inputs(self, ref: GroupRef, settings: Settings) -> list[Path]:
        """The project's message-schemas.json and the planning folder's escalation records."""
        from pytest_handoff.profiles.yolo.project import message_schemas_path

        first = ref.paths[0]
        inputs = [found for found in (message_schemas_path(first, settings),) if found is not None]
        planning = planning_root(first)
        if planning is not None:
            inputs += [planning / EXECUTION_STATE, planning / ESCALATION_LOG, planning / PROJECT_STATE]
        return inputs

    def classify(self, document: Document, settings: Settings) -> tuple[str | None, Iterable[Hit]]:
        data = document.data
        if not isinstance(data, dict) or is_runtime_file(document.path):
            return None, ()  # not an object, or YOLO's own state and logs: never a message
        if is_envelope(data):
            return self._classify_v2(document, data, settings)
        declared = data.get("type")
        if declared is None:  # an artifact line (plan header, critique...), not a message
            return artifact_type(document), ()
        if not isinstance(declared, str):
            return None, (Hit(document, "/type", "a message's type must be a string"),)
        if declared in FLAT_TYPES:
            return declared, ()
        return None, (
            Hit(
                document,
                "/type",
                f"unknown YOLO message type {declared!r}{did_you_mean(declared, FLAT_TYPES)}",
            ),
        )

    def _classify_v2(
        self, document: Document, data: dict[str, object], settings: Settings
    ) -> tuple[str | None, Iterable[Hit]]:
        declared = data.get("type")
        if not isinstance(declared, str):
            return V2, ()  # the envelope schema reports a missing or mistyped type
        from pytest_handoff.profiles.yolo.project import document_schemas  # v2 messages only

        project = document_schemas(document, settings)
        if project is not None and not project.problem:
            known: Iterable[str] = project.types
            source = f"the types of {project.shown}"
        else:
            known = SHIPPED_V2_TYPES
            source = "the types YOLO ships"
        if declared in known:
            return V2_PREFIX + declared, ()
        return V2, (
            Hit(
                document,
                "/type",
                f"unknown v2 message type {declared!r} (not among {source}){did_you_mean(declared, known)}",
            ),
        )

    def schema_name(self, handoff_type: str) -> str:
        if handoff_type == V2 or handoff_type.startswith(V2_PREFIX):
            return "yolo/v2_envelope"
        if handoff_type in ARTIFACT_TYPES:  # a planning artifact's line, not a message
            return f"yolo-artifacts/{handoff_type}"
        return f"yolo/{handoff_type}"

    def keywords(self, paths: Iterable[Path], settings: Settings) -> list[str]:
        """Artifact names (``critique``, ``plan``, ``summary``, ``dept-handoff``) for ``pytest -k``."""
        words: set[str] = set()
        for path in paths:
            plan = plan_file(path.name)
            words.add(plan[2].split(".")[0] if plan else path.stem.lstrip("."))
        words.discard("")
        return sorted(words)


#: Lines of a JSONL file that are read; past them, one finding (HF006) says how many were not.
#: A planning artifact holds tens of lines; the bound keeps any file's work within its budget.
MAX_JSONL_LINES = 50_000


def read_jsonl(raw: bytes, path: Path, display_path: str) -> Loaded:
    """One document per non-blank line, placed at its line; a broken line is a finding at its line.

    Past the cap of findings of a code in the file, a line that certainly fails is only counted;
    past :data:`MAX_JSONL_LINES`, lines are not read.
    """
    documents: list[Document] = []
    findings: list[Finding] = []
    tally = Tally()
    full: set[str] = set()  # the load codes past the cap in this file (the tally's, kept at hand)
    text: str | None = None
    lines = raw.split(b"\n", MAX_JSONL_LINES)
    rest = lines.pop() if len(lines) > MAX_JSONL_LINES else b""
    number = 0  # the line as editors count it: a lone "\r" inside a JSONL line breaks it too
    for line in lines:
        number += 1
        if b"\r" in line:
            number += line.count(b"\r") - line.endswith(b"\r")
            first = number - line.count(b"\r") + line.endswith(b"\r")
        else:
            first = number
        if not line.strip(b" \t\r"):
            continue
        if full:
            failure = line_failure(line)  # a cheap look: only a count is wanted past the cap
            if failure in full:
                tally.admits(display_path, failure)  # counted only
                continue
        loaded = parse_json_bytes(line, path, display_path, origin=(first, 1), label=f"line {first}")
        for finding in loaded.findings:
            if tally.admits(display_path, finding.code):
                findings.append(finding)
            elif finding.code in ("HF001", "HF002"):
                full.add(finding.code)
        if loaded.document is not None:
            if text is None:
                text = raw.decode("utf-8", errors="replace")
            loaded.document.source_text = text
            documents.append(loaded.document)
    if rest.strip(b" \t\r\n"):
        unread = rest.count(b"\n") + (not rest.endswith(b"\n"))
        findings.append(
            file_finding(display_path)(
                "HF006",
                f"{unread:,} more lines after line {number:,} are not checked: at most "
                f"{MAX_JSONL_LINES:,} lines of a JSONL file are (split it)",
                number + 1,
                1,
            )
        )
    unmade = tally.unmade()
    return Loaded(tuple(documents), tuple(findings), tuple((at, code, n) for (at, code), n in unmade.items()))


def _holds_a_message(path: Path) -> bool:
    """A file named outside .yolo-planning is YOLO's when its first object is a YOLO message."""
    import json

    head = read_head(path, _SNIFF_BYTES)
    if head is None:
        return False
    first = head.lstrip().split(b"\n", 1)[0] if path.suffix == ".jsonl" else head
    try:
        data = json.loads(first.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return False
    if not isinstance(data, dict):
        return False
    declared = data.get("type")
    return isinstance(declared, str) and (declared in FLAT_TYPES or (is_envelope(data) and declared != ""))


PROFILE = YoloProfile()
