"""Who may be shown an atom of a scope: one decision, asked by recall (`pipeline.visible`),
the MCP tools (`memkit.mcp.memory`) and the site (`memkit.site.collect.hidden_because`)."""

from __future__ import annotations

EPISODIC, PERSONAL = "episodic", "personal"


def kept_from_team(scope: str) -> str:
    """'' when an atom of `scope` is the team's (shared, a role's, archive), else whose alone
    it is: EPISODIC (a session summary, its author's) or PERSONAL (one person's memory)."""
    if scope == EPISODIC:
        return EPISODIC
    if scope.startswith("personal:"):
        return PERSONAL
    return ""


def readable(scope: str, scopes: frozenset[str] | None, author: str = "") -> bool:
    """Whether this person (`scopes`: what they may read, `memkit.recall.readers`; None: no
    identity to restrict by) may read an atom of `scope` written by `author`. An episodic atom
    is its author's alone: `scopes` must hold `author:<email or user name>`."""
    if scope == EPISODIC:
        who = f"author:{author.strip().lower()}"
        return bool(author.strip()) and scopes is not None and who in scopes
    return scopes is None or scope in ("shared", "archive") or scope in scopes
