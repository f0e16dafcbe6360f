"""Markdown handoffs: ``HANDOFF.md`` files, and the last message an agent writes before it stops."""
