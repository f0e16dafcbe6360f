"""YOLO's message catalogue as one table, from which ``schemas/yolo/*.schema.json`` are written.

The shipped schema files are generated from this table (``python -m
pytest_handoff.profiles.yolo.catalogue schemas/yolo``) and a test keeps them equal to it, so
the table is the one place a field, its type or its enum is decided. The engine reads the
files, never this module: :mod:`~pytest_handoff.profiles.yolo.format` keeps its own list of type
names (:data:`~pytest_handoff.profiles.yolo.format.FLAT_TYPES`, tested equal).

Which fields are required is our reading of YOLO's examples: the fields a receiver cannot do
without (counts, verdicts, ids); lists and artifact paths may be left out.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pytest_handoff.profiles.yolo.fields import LEVELS, PHASE, R, Schema, one_of, record, text, when
from pytest_handoff.profiles.yolo.messages_earlier import CURRENT_VERSION, EARLIER_FLAT
from pytest_handoff.profiles.yolo.messages_teams import TEAM_MESSAGES
from pytest_handoff.profiles.yolo.messages_work import WORK_MESSAGES

#: Flat messages (no envelope): type -> (what it is, fields as name -> (schema, required)).
FLAT: dict[str, tuple[str, dict[str, tuple[Schema, bool]]]] = {**WORK_MESSAGES, **TEAM_MESSAGES}

#: The envelope of YOLO's v2 typed protocol; its payload is checked against the project's
#: ``config/schemas/message-schemas.json`` by rules, not here.
ENVELOPE_FIELDS = (
    "id",
    "type",
    "phase",
    "task",
    "author_role",
    "timestamp",
    "schema_version",
    "payload",
    "confidence",
)


def flat_schema(name: str) -> Schema:
    """The JSON Schema of flat message ``name``: any version of it YOLO documented (``anyOf``,
    each version titled, so that a message no version fits is told which were tried)."""
    summary, fields = FLAT[name]
    body = _shape(name, fields)
    earlier = EARLIER_FLAT.get(name, ())
    if earlier:
        versions = [
            (CURRENT_VERSION, body),
            *((label, _shape(name, shape)) for label, shape in reversed(earlier)),
        ]
        body = {"anyOf": [{"title": label, **shape} for label, shape in versions]}
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": f"https://pytest-handoff.dev/schemas/yolo/{name}.schema.json",
        "title": f"YOLO {name} message",
        "description": summary,
        **body,
    }


def _shape(name: str, fields: dict[str, tuple[Schema, bool]]) -> Schema:
    return record({"type": ({"description": "The message type.", "const": name}, R), **fields})


def envelope_schema() -> Schema:
    """The JSON Schema of a v2 envelope (any type)."""
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "https://pytest-handoff.dev/schemas/yolo/v2_envelope.schema.json",
        "title": "YOLO v2 message envelope",
        "description": "A typed message of YOLO's v2 protocol: the envelope; its payload keys come from the "
        "project's message-schemas.json.",
        "type": "object",
        "required": list(ENVELOPE_FIELDS),
        "properties": {
            "id": text("Message id.", empty=False),
            "type": {
                "description": "Message type, a key of message-schemas.json's schemas.",
                "type": "string",
                "pattern": "^[a-z][a-z0-9_]*$",
            },
            "phase": PHASE,
            "task": text("Task reference."),
            "author_role": text("Role that wrote the message.", empty=False),
            "target_role": text("Role the message is for (optional).", empty=False),
            "timestamp": when("When the message was written."),
            "schema_version": {
                "description": "Protocol version: 2.x.",
                "type": "string",
                "pattern": "^2(\\.[0-9]+)*$",
            },
            "payload": {"description": "The type's own fields.", "type": "object"},
            "confidence": one_of("How sure the author is.", *LEVELS),
        },
    }


def all_schemas() -> dict[str, Schema]:
    """File stem -> schema, for every shipped YOLO schema."""
    schemas = {name: flat_schema(name) for name in FLAT}
    schemas["v2_envelope"] = envelope_schema()
    return schemas


def render(schema: Schema) -> str:
    """A schema as the shipped file holds it."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def write_schemas(folder: Path) -> list[Path]:
    """Write every schema into ``folder`` (``schemas/yolo``); returns the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, schema in all_schemas().items():
        path = folder / f"{stem}.schema.json"
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover - a maintainer's command
    for written_path in write_schemas(Path(sys.argv[1] if len(sys.argv) > 1 else "schemas/yolo")):
        print(written_path)
