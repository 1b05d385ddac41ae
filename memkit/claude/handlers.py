"""One handler per Claude Code hook event, each in its own module. A handler takes the hook's
JSON and returns the JSON to print (or None); errors propagate to `protocol.fail_open`, which
swallows and logs them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memkit.claude.prompt import user_prompt_submit
from memkit.claude.session import pre_compact, session_end
from memkit.claude.session_start import session_start
from memkit.claude.tool_use import post_tool_use, pre_tool_use

HANDLERS: dict[str, Callable[[dict[str, Any], Sequence[str]], dict[str, Any] | None]] = {
    "session-start": session_start,
    "user-prompt-submit": user_prompt_submit,
    "pre-tool-use": pre_tool_use,
    "post-tool-use": post_tool_use,
    "pre-compact": pre_compact,
    "stop": session_end("stop"),
    "session-end": session_end("session-end"),
}

__all__ = [
    "HANDLERS",
    "post_tool_use",
    "pre_compact",
    "pre_tool_use",
    "session_start",
    "user_prompt_submit",
]
