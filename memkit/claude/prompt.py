"""UserPromptSubmit: the recall pipeline over every memory repository of the session."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from memkit.capture.hooks import on_prompt
from memkit.capture.settings import load as capture_settings
from memkit.claude.protocol import context_output
from memkit.claude.skipped import take as take_skipped
from memkit.index.relevance import cover, query_terms
from memkit.recall.budget import budget_for
from memkit.recall.fence import MEMORY_CLOSE, MEMORY_OPEN, neutralise
from memkit.recall.pipeline import Candidate, candidates, pack, relevant, render
from memkit.recall.readers import Readers, find_repos
from memkit.safety.private import strip_private
from memkit.safety.text import has_cjk


def about_prompt(reader: Any, prompt: str) -> Callable[[str], float | None]:
    """How much of `prompt` a text covers, by recall's own measure and floor (the prompt's
    words weighed by their rarity among `reader`'s atoms; equal weights without an index),
    or None when recall would not call the text relevant."""
    terms: list[Any] = []

    def judge(text: str) -> float | None:
        if not terms:  # weighed once, for the first text asked about
            terms.append(
                reader.query_terms(prompt) if reader is not None else query_terms(prompt, None)
            )
        share, held = cover(terms[0], reader.fold(text) if reader is not None else text)
        ok = relevant(share, held, terms[0].known, trigger=False, cosine=None)
        return share if ok else None

    return judge


MAX_TOPICS = 5  # words of one prompt counted as a blind spot


def _blind_spot(root: Path, reader: Any, session: str, prompt: str, readers: Readers) -> None:
    """Nothing served, and memory holds none of some of the prompt's words: when the team
    opted in (`capture.blind_spots`), count those words once for this session, never the
    prompt, only plain words (no digits, no paths: no ids nor secrets)."""
    if not capture_settings(root).blind_spots:
        return
    topics = [
        t
        for t in reader.query_terms(prompt).unknown
        if (t.isalpha() and len(t) >= 3 and t.isascii()) or (len(t) == 2 and has_cjk(t))
    ][:MAX_TOPICS]
    if topics:
        with readers.usage_log(root) as usage:
            usage.note_blind(session, topics)


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
    first: tuple[Any, set[str]] = (None, set())  # the first repository's reader, and given
    for root in roots:
        reader = readers.reader(root)
        if reader is None:
            continue
        with readers.usage_log(root) as usage:
            given = usage.given(session)
            if root == roots[0]:
                first = (reader, given)
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
    if not items and first[0] is not None:
        _blind_spot(roots[0], first[0], session, prompt, readers)
    # Capture (issue 15): L0 on the prompt; an earlier session's summary of the asker's that
    # the prompt is about (issue 43), judged as an atom is.
    items = on_prompt(
        payload, roots, prompt, items, judge=about_prompt(first[0], prompt), given=first[1]
    )
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
