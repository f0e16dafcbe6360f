"""The agent loop: the Claude Code (and Codex) hook, dispatch in claude_hook, the Stop and Bash events
in stop and bash, what they share in common; and the MCP server in mcp."""
