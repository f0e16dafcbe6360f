"""Shapes of the fields of YOLO's messages, for the catalogue tables (``messages_*.py``)."""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

# --- field shapes ----------------------------------------------------------------------------

DEPARTMENTS = ("backend", "frontend", "uiux")
LEVELS = ("high", "medium", "low")


def text(description: str, *, empty: bool = True) -> Schema:
    schema: Schema = {"description": description, "type": "string"}
    if not empty:
        schema["minLength"] = 1
    return schema


def count(description: str) -> Schema:
    return {"description": description, "type": "integer", "minimum": 0}


def flag(description: str) -> Schema:
    return {"description": description, "type": "boolean"}


def one_of(description: str, *values: str) -> Schema:
    schema: Schema = {"description": description} if description else {}
    schema.update({"type": "string", "enum": list(values)})
    return schema


def strings(description: str, *, at_least: int = 0) -> Schema:
    schema: Schema = {"description": description, "type": "array", "items": {"type": "string"}}
    if at_least:
        schema["minItems"] = at_least
    return schema


def list_of(description: str, item: Schema, *, at_least: int = 0) -> Schema:
    schema: Schema = {"description": description, "type": "array", "items": item}
    if at_least:
        schema["minItems"] = at_least
    return schema


def record(fields: dict[str, tuple[Schema, bool]], description: str = "") -> Schema:
    """An object with exactly ``fields`` (name -> (schema, required))."""
    schema: Schema = {"description": description} if description else {}
    schema.update(
        {
            "type": "object",
            "additionalProperties": False,
            "required": [name for name, (_, required) in fields.items() if required],
            "properties": {name: field for name, (field, _) in fields.items()},
        }
    )
    if not schema["required"]:
        del schema["required"]
    return schema


def when(description: str, *, null: bool = False) -> Schema:
    schema: Schema = {"description": description, "type": ["string", "null"] if null else "string"}
    schema["format"] = "date-time"
    return schema


PHASE = {
    "description": 'Phase number, as in the phase folder\'s name ("03").',
    "type": ["string", "integer"],
    "pattern": "^[0-9]+$",
    "minimum": 0,
}
PLAN_ID = {
    "description": 'Plan id: phase and plan number ("03-01").',
    "type": "string",
    "pattern": "^[0-9]+-[0-9]+$",
}
TASK_REF = text('Task reference, plan and task ("03-01/T2").', empty=False)
ARTIFACT = text("Path of the artifact the message summarises, below .yolo-planning/.")
COMMITTED = flag("Whether the artifact has been committed.")
DEPARTMENT = one_of("A department.", *DEPARTMENTS)
ESCALATION_ID = {
    "description": 'Id of the escalation entry in .execution-state.json ("ESC-03-01-T2").',
    "type": "string",
    "minLength": 1,
}

R = True  # required
O = False  # optional  # noqa: E741
