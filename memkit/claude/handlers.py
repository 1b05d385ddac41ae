"""One handler per Claude Code hook event, each in its own module. A handler takes the hook's
JSON, the repositories named with --repo and the process's `Readers`, and returns the JSON to
print (or None); errors propagate to `protocol.fail_open`, which swallows and logs them.
`events.HANDLER_OF` says where each one lives (the hook process without an engine imports only
its own); the engine takes them all from here."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

from memkit.claude.events import HANDLER_OF
from memkit.claude.prompt import user_prompt_submit
from memkit.claude.session import pre_compact
from memkit.claude.session_start import session_start
from memkit.claude.tool_use import post_tool_use, pre_tool_use
from memkit.mcp.lookup import SEARCH_KIND, mcp_search
from memkit.recall.readers import Readers

Handler = Callable[[dict[str, Any], Sequence[str], Readers], dict[str, Any] | None]


def _load(where: str) -> Handler:
    module, name = where.split(":")
    handler: Handler = getattr(importlib.import_module(module), name)
    return handler


HANDLERS: dict[str, Handler] = {event: _load(where) for event, where in HANDLER_OF.items()}
# Not a hook: the MCP server's `search`, asked of the warm engine over the same socket.
HANDLERS[SEARCH_KIND] = mcp_search

__all__ = [
    "HANDLERS",
    "post_tool_use",
    "pre_compact",
    "pre_tool_use",
    "session_start",
    "user_prompt_submit",
]
