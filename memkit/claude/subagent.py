"""SubagentStart: a subagent starts with none of the main agent's context, so it gets memory's
compact index of its own (the one SessionStart gives), and files it reads bring their atoms to
it whatever the main agent was given (`memkit.recall.usage.agent_key`, read by PreToolUse)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memkit.claude.protocol import context_output
from memkit.claude.session_start import index_lines
from memkit.recall.readers import Readers, find_repos


def subagent_start(
    payload: dict[str, Any], repos: Sequence[str], readers: Readers
) -> dict[str, Any] | None:
    lines: list[str] = []
    for root in find_repos(payload, repos):
        reader = readers.reader(root)
        if reader is None:
            continue  # being built: the session's start said so already
        with readers.usage_log(root) as usage:
            act = usage.activation([a["id"] for a in reader.atoms])
        lines += index_lines(root, reader, act, readers.scopes(root))
    return context_output("SubagentStart", "\n".join(lines))
