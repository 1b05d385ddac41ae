"""The hook events memkit answers, with no imports: the hook's fast path reads this."""

from __future__ import annotations

MAX_STDIN = 1_000_000
EVENT_NAMES = {
    "session-start": "SessionStart",
    "user-prompt-submit": "UserPromptSubmit",
    "pre-tool-use": "PreToolUse",
    "post-tool-use": "PostToolUse",
    "pre-compact": "PreCompact",
    "stop": "Stop",
    "session-end": "SessionEnd",
    # Not Claude Code's: a prompt another agent lets no hook add to (memkit.agents.dialects).
    "prompt-seen": "UserPromptSubmit",
}
# Where each event's handler lives ("module:function"): a hook process without the engine
# imports only its own (a SessionEnd hook need not import recall, ~60 ms).
HANDLER_OF = {
    "session-start": "memkit.claude.session_start:session_start",
    "user-prompt-submit": "memkit.claude.prompt:user_prompt_submit",
    "pre-tool-use": "memkit.claude.tool_use:pre_tool_use",
    "post-tool-use": "memkit.claude.tool_use:post_tool_use",
    "pre-compact": "memkit.claude.session:pre_compact",
    "stop": "memkit.claude.session:stop",
    "session-end": "memkit.claude.session:end",
    "prompt-seen": "memkit.agents.capture_only:prompt_seen",
}
