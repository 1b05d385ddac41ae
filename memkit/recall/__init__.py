"""Memory served to any client: which readers, what may be shown, how much, inside what fence,
and what was used. Claude Code (`memkit.claude`) and MCP (`memkit.mcp`) are adapters on it."""

from __future__ import annotations
