"""Files of the user's project the YOLO rules consult: ``message-schemas.json`` and escalation state.

They are read, never written, once per run and file version (keyed by modification time and
size), and a file that cannot be read or parsed is reported by the rule that needed it rather
than raised.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from pytest_handoff.profiles.builtin import YOLO as SPEC
from pytest_handoff.profiles.yolo.layout import EXECUTION_STATE, PROJECT_STATE, planning_root

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.settings import Settings


#: Enums YOLO gives for v2 payload values in prose only (references/handoff-schemas.md):
#: type -> payload key -> allowed values.
PROSE_ENUMS: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "execution_update": {"status": ("complete", "partial", "failed")},
    "blocker_report": {"severity": ("blocking", "degraded", "informational")},
    "approval_request": {"request_type": ("scope_change", "plan_approval", "gate_override")},
    "shutdown_request": {"reason": ("phase_complete", "plan_complete", "user_abort")},
    "shutdown_response": {"final_status": ("complete", "idle", "in_progress")},
}


class TypeRules(NamedTuple):
    """What message-schemas.json says of one type."""

    allowed_roles: tuple[str, ...]
    required: tuple[str, ...]
    optional: tuple[str, ...]


class Role(NamedTuple):
    can_send: tuple[str, ...]
    can_receive: tuple[str, ...]


class MessageSchemas(NamedTuple):
    """The project's message-schemas.json, as far as it could be read."""

    path: Path
    shown: str
    envelope_fields: tuple[str, ...]
    types: Mapping[str, TypeRules]
    roles: Mapping[str, Role]
    #: Why the file could not be used (empty when it could).
    problem: str = ""


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(item for item in value if isinstance(item, str)) if isinstance(value, list) else ()


def _parsed(path: Path, shown: str, data: Any) -> MessageSchemas:
    if not isinstance(data, dict) or not isinstance(data.get("schemas"), dict):
        return MessageSchemas(path, shown, (), {}, {}, "it has no 'schemas' object")
    types = {
        name: TypeRules(
            _strings(entry.get("allowed_roles")),
            _strings(entry.get("payload_required")),
            _strings(entry.get("payload_optional")),
        )
        for name, entry in data["schemas"].items()
        if isinstance(entry, dict)
    }
    hierarchy = data.get("role_hierarchy")
    roles = (
        {
            name: Role(_strings(entry.get("can_send")), _strings(entry.get("can_receive")))
            for name, entry in hierarchy.items()
            if isinstance(entry, dict)
        }
        if isinstance(hierarchy, dict)
        else {}
    )
    return MessageSchemas(path, shown, _strings(data.get("envelope_fields")), types, roles)


_loaded: dict[str, tuple[tuple[int, int], Any]] = {}


def _read_cached(path: Path, parse: Any) -> Any:
    """``parse(raw bytes)`` of ``path``, once per version of the file; None when it is absent."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    key = str(path)
    version = (info.st_mtime_ns, info.st_size)
    cached = _loaded.get(key)
    if cached is not None and cached[0] == version:
        return cached[1]
    from pytest_handoff.read.files import read_file_bytes

    # A regular file under the size limit only: a link to /dev/zero or a FIFO must not hang or fill memory.
    raw = read_file_bytes(path, str(path))
    result = parse(raw, "") if isinstance(raw, bytes) else parse(None, raw.message)
    _loaded[key] = (version, result)
    return result


def project_root_of(path: Path) -> Path | None:
    """The project a YOLO file belongs to: the folder holding its ``.yolo-planning``."""
    planning = planning_root(path)
    return planning.parent if planning is not None else None


def message_schemas_path(document_path: Path, settings: Settings) -> Path | None:
    """Where the project's message-schemas.json is (configured by ``message-schemas``), if anywhere."""
    configured: str = SPEC.option(settings, "message-schemas")
    relative = Path(configured)
    if relative.is_absolute():
        return relative
    root = project_root_of(document_path)
    if root is not None:
        return root / relative
    # A message named outside .yolo-planning: the nearest folder above it that has the file.
    for parent in document_path.parents:
        if (parent / relative).is_file():
            return parent / relative
    return None


@lru_cache(maxsize=1024)
def _place_in_project(folder: Path, configured: str) -> tuple[Path, str] | None:
    """Where a planning folder's project keeps message-schemas.json, and how to show it (pure path
    work, asked for every line of every file: worked out once per folder)."""
    root = project_root_of(folder / "x.jsonl")
    if root is None:
        return None
    path = Path(configured) if Path(configured).is_absolute() else root / configured
    return path, path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def message_schemas(document_path: Path, settings: Settings) -> MessageSchemas | None:
    """The project's message-schemas.json for a document (None when the project has none)."""
    placed = _place_in_project(document_path.parent, SPEC.option(settings, "message-schemas"))
    if placed is not None:
        path, shown = placed
    else:
        found_path = message_schemas_path(document_path, settings)
        if found_path is None:
            return None
        path, shown = found_path, str(found_path)

    def parse(raw: bytes | None, error: str) -> MessageSchemas:
        if raw is None:
            return MessageSchemas(path, shown, (), {}, {}, f"cannot be read: {error}")
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as problem:
            return MessageSchemas(path, shown, (), {}, {}, f"is not valid JSON ({problem})")
        return _parsed(path, shown, data)

    found: MessageSchemas | None = _read_cached(path, parse)
    if found is None:
        return None
    return found._replace(shown=shown)


def document_schemas(document: Document, settings: Settings) -> MessageSchemas | None:
    """:func:`message_schemas` of a document, looked up once for it (its classification and
    four rules ask; each lookup makes sure the file has not changed)."""
    if "message_schemas" not in document.memo:
        document.memo["message_schemas"] = message_schemas(document.path, settings)
    found: MessageSchemas | None = document.memo["message_schemas"]
    return found


def escalation_ids(data: Any) -> set[str] | None:
    """The escalation ids an execution state holds (None when it has no ``escalations`` list)."""
    if not isinstance(data, dict) or not isinstance(data.get("escalations"), list):
        return None
    return {
        entry["id"]
        for entry in data["escalations"]
        if isinstance(entry, dict) and isinstance(entry.get("id"), str)
    }


def planning_escalations(document_path: Path) -> tuple[Path, set[str] | None] | None:
    """The top-level ``.yolo-planning/.execution-state.json`` of a document and its escalation ids.

    None when there is no such file; ids None when it cannot be read or holds no escalations.
    """
    planning = planning_root(document_path)
    if planning is None:
        return None
    path = planning / EXECUTION_STATE

    def parse(raw: bytes | None, error: str) -> set[str] | None:
        if raw is None:
            return None
        try:
            return escalation_ids(json.loads(raw.decode("utf-8")))
        except (UnicodeDecodeError, ValueError):
            return None

    if not path.is_file():
        return None
    return path, _read_cached(path, parse)


def project_state(document_path: Path) -> dict[str, Any] | None:
    """The planning folder's ``state.json`` of a document (``ph``: the current phase, ``st``: its
    status), None when there is none or it is not a JSON object."""
    planning = planning_root(document_path)
    if planning is None:
        return None

    def parse(raw: bytes | None, error: str) -> dict[str, Any] | None:
        if raw is None:
            return None
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    found: dict[str, Any] | None = _read_cached(planning / PROJECT_STATE, parse)
    return found
