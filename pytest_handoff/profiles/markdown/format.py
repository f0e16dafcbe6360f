"""The Markdown handoff format's names: its name, its two document types, its codes."""

from __future__ import annotations

NAME = "handoff-md"
#: A handoff file (``HANDOFF.md``, ``.claude/handoff.md``, ``docs/handoffs/*.md``).
HANDOFF = "handoff"
#: An agent's last message, read as a handoff of its own (no file: the Stop hooks, ``claims -``).
MESSAGE = "message"
#: The name a message is checked under (it never exists on disk; nothing is written there).
MESSAGE_NAME = "last-assistant-message.md"  # the spec's message_file
#: The code of a front matter that is not strict YAML.
NOT_STRICT_YAML = "MD001"
