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
}
