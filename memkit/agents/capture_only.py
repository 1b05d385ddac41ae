"""A prompt an agent shows its hooks but lets no hook add to (Cursor's `beforeSubmitPrompt`):
capture's L0 rules look at it; nothing is recalled, so nothing is noted as given."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memkit.capture.hooks import on_prompt
from memkit.recall.readers import Readers, find_repos
from memkit.safety.private import strip_private


def prompt_seen(
    payload: dict[str, Any], repos: Sequence[str], readers: Readers
) -> dict[str, Any] | None:
    del readers  # nothing is read: capture only
    prompt = strip_private(str(payload.get("prompt") or ""))
    if prompt.strip():
        on_prompt(payload, find_repos(payload, repos), prompt, [])
    return None
