"""Agents other than Claude Code on the same memory: Codex CLI, Gemini CLI, Cursor, OpenCode and
Copilot CLI. Each is a dialect of the one hook client (`memkit-hook EVENT --agent NAME`, whose
events and answers `dialects` translates) and a writer of the agent's own files (`install`);
none imports `memkit.claude` or `memkit.mcp` (docs/agents.md)."""

from __future__ import annotations
