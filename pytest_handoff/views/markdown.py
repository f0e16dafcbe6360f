"""Any handoff as readable Markdown: headings, tables and lists, every piece of its text escaped.

The layout follows the JSON's shape, so it serves every profile: short top-level values in a
field table, long text as paragraphs, lists of text as bullet lists, lists of flat objects and
flat objects as tables, deeper structures as sub-headings.
"""

from __future__ import annotations

from typing import Any

from pytest_handoff.reporters.markdown import markdown_text
from pytest_handoff.views.render import markdown_table

#: A top-level string up to this long (and on one line) goes into the field table.
SHORT = 80
#: Headings go no deeper than this (``######``); deeper structures are shown as JSON text.
MAX_LEVEL = 6


def title_of(key: str) -> str:
    """``acceptance_criteria`` -> ``Acceptance criteria``."""
    words = key.replace("_", " ").replace("-", " ").strip()
    return words[:1].upper() + words[1:] if words else key


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"{value:,}" if isinstance(value, int) and abs(value) >= 10_000 else str(value)
    if isinstance(value, str):
        return value
    import json

    return json.dumps(value, ensure_ascii=False)


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _paragraphs(text: str) -> str:
    """Text with its line breaks kept (each line escaped on its own)."""
    lines = [markdown_text(line) for line in text.splitlines()] or [""]
    return "  \n".join(lines) + "\n"


def _block(key: str, value: Any, level: int) -> list[str]:
    """A heading for ``key`` and ``value`` rendered below it."""
    heading = "#" * min(level, MAX_LEVEL) + " " + markdown_text(title_of(key)) + "\n"
    return [heading, *_body(value, level)]


def _body(value: Any, level: int) -> list[str]:
    if _is_scalar(value):
        return [_paragraphs(_scalar(value))]
    if isinstance(value, list):
        if not value:
            return ["_(none)_\n"]
        if all(_is_scalar(item) for item in value):
            return ["".join(f"- {markdown_text(_scalar(item))}\n" for item in value)]
        if all(isinstance(item, dict) and all(_is_scalar(v) for v in item.values()) for item in value):
            columns: list[str] = []
            for item in value:
                columns.extend(key for key in item if key not in columns)
            rows = [[_scalar(item.get(column, "")) for column in columns] for item in value]
            return [markdown_table([title_of(c) for c in columns], rows)]
        parts: list[str] = []
        for index, item in enumerate(value, 1):
            parts.extend(
                _block(f"{index}", item, level + 1)
                if not _is_scalar(item)
                else [f"- {markdown_text(_scalar(item))}\n"]
            )
        return parts
    if isinstance(value, dict):
        if not value:
            return ["_(none)_\n"]
        if all(_is_scalar(item) for item in value.values()):
            return [
                markdown_table(["Key", "Value"], [[str(key), _scalar(item)] for key, item in value.items()])
            ]
        parts = []
        flat = {key: item for key, item in value.items() if _is_scalar(item)}
        if flat:
            parts.append(
                markdown_table(["Key", "Value"], [[str(key), _scalar(item)] for key, item in flat.items()])
            )
        for key, item in value.items():
            if not _is_scalar(item):
                parts.extend(_block(str(key), item, level + 1))
        return parts
    return [_paragraphs(_scalar(value))]


def document_markdown(name: str, handoff_type: str | None, data: Any) -> str:
    """A handoff's data as Markdown under a heading naming the file and its type."""
    kind = f" ({handoff_type})" if handoff_type else ""
    parts = [f"# {markdown_text(name)}{markdown_text(kind)}\n"]
    if not isinstance(data, dict):
        parts.extend(_body(data, 2))
        return "\n".join(parts)
    fields = {
        key: value
        for key, value in data.items()
        if _is_scalar(value) and not (isinstance(value, str) and (len(value) > SHORT or "\n" in value))
    }
    if fields:
        parts.append(
            markdown_table(["Field", "Value"], [[key, _scalar(value)] for key, value in fields.items()])
        )
    for key, value in data.items():
        if key not in fields:
            parts.extend(_block(key, value, 2))
    return "\n".join(parts)
