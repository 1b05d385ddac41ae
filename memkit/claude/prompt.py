"""UserPromptSubmit: the recall pipeline over every memory repository of the session."""

from __future__ import annotations

import logging
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

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.org.serving"}


def user_prompt_submit(
    payload: dict[str, Any], repos: Sequence[str], readers: Readers
) -> dict[str, Any] | None:
    prompt = strip_private(str(payload.get("prompt") or ""))
    session = str(payload.get("session_id") or "")
    if not prompt.strip():
        return None
    found: list[Candidate] = []
    roots = find_repos(payload, repos)
    org = _org_started(readers, roots, prompt, session)
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
    if org is not None:  # after local recall and usage: the org's atoms are not this repo's
        from memkit.org.serving import finish_for_prompt

        budget = budget_for(prompt)
        items = items + finish_for_prompt(org, sum(i.tokens for i in items), budget)
    text = render(items)
    # An earlier hook of this session left with nothing (its deadline): say so, once.
    said = next((line for root in roots if (line := take_skipped(root, session))), "")
    if said:
        text = f"{MEMORY_OPEN}\n{neutralise(said)}\n{MEMORY_CLOSE}\n{text}".rstrip("\n")
    return context_output("UserPromptSubmit", text)


def _org_started(readers: Readers, roots: list[Path], prompt: str, session: str) -> Any:
    """The org's query for this prompt, started now (it runs while local recall does), when
    the repository configured org recall and this is a warm process; else None."""
    if not readers.warm:
        return None  # a hook without an engine never asks the org (nor imports its client)
    from memkit.org.serving import start_for_prompt

    try:
        return start_for_prompt(readers, roots, prompt, session)
    except Exception:  # the org costs its own results, never the prompt
        logging.getLogger(__name__).warning("org: could not start a query", exc_info=True)
        return None
