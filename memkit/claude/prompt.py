"""UserPromptSubmit: the recall pipeline over every memory repository of the session."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memkit.capture.hooks import on_prompt
from memkit.claude.protocol import context_output
from memkit.claude.skipped import take as take_skipped
from memkit.recall.budget import budget_for
from memkit.recall.fence import MEMORY_CLOSE, MEMORY_OPEN, neutralise
from memkit.recall.pipeline import Candidate, candidates, pack, render
from memkit.recall.readers import Readers, find_repos
from memkit.safety.private import strip_private


def user_prompt_submit(
    payload: dict[str, Any], repos: Sequence[str], readers: Readers
) -> dict[str, Any] | None:
    prompt = strip_private(str(payload.get("prompt") or ""))
    session = str(payload.get("session_id") or "")
    if not prompt.strip():
        return None
    found: list[Candidate] = []
    roots = find_repos(payload, repos)
    for root in roots:
        reader = readers.reader(root)
        if reader is None:
            continue
        with readers.usage_log(root) as usage:
            given = usage.given(session)
            ranked = candidates(
                reader,
                prompt,
                activation=usage.activation,
                scopes=readers.scopes(root),
                use_vectors=readers.warm or os.environ.get("MEMKIT_HOOK_VECTORS") == "1",
            )
        found += [c for c in ranked if c.id not in given]
    # Several repositories (team, personal) compete for one budget, best first.
    items = pack(found, prompt, given=set(), budget=budget_for(prompt))
    # Capture (issue 15): L0 on the prompt; a session's first prompt gets its author's last
    # session summary.
    items = on_prompt(payload, roots, prompt, items)
    for source in sorted({item.repo for item in items}):
        with readers.usage_log(Path(source)) as usage:
            usage.record(session, [item.id for item in items if item.repo == source])
    text = render(items)
    # An earlier hook of this session left with nothing (its deadline): say so, once.
    said = next((line for root in roots if (line := take_skipped(root, session))), "")
    if said:
        text = f"{MEMORY_OPEN}\n{neutralise(said)}\n{MEMORY_CLOSE}\n{text}".rstrip("\n")
    return context_output("UserPromptSubmit", text)
