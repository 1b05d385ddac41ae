"""L1 and L2: an optional model that refines what the L0 rules found, off by default.

L1 answers yes or no: is this a durable decision, convention, preference or pitfall, or a
mixed sentence, a one-off request, an emotional promise? L2 turns a yes into
`{confidence, scope, type, triggers, statement}`. The model is any endpoint `memkit.llm`
speaks (Ollama, OpenAI-compatible, Anthropic Messages API), configured under `capture.model`.

Bounded three ways: a timeout per call, the worker's own deadline, and a token budget per
session (`token_budget`, 240 by default) counted on what the user said (the instructions
around it are not counted) with memkit's CJK-aware estimate: past `l1_only_above` (220) only L1
runs, and past the budget the session's candidates keep their L0 score. Any failure leaves the
candidate as L0 found it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from memkit.atom import TYPES
from memkit.llm import CALL_ERRORS, Endpoint
from memkit.recall.budget import estimate_tokens

L1_PROMPT = """You sort what a developer said to a coding assistant.
Does the message state a durable decision, convention, preference or pitfall that the team's
memory should keep? Answer "no" for one-off requests, questions, thanks, emotional remarks,
hypotheticals and mixed sentences. Answer with one word: yes or no.

Message:
{text}

Answer:"""
L2_PROMPT = """Extract the durable rule from the developer's message below as one JSON object:
{{"confidence": 0.0-1.0 (how sure it is a durable decision, convention, preference or pitfall),
 "scope": "shared" (the team) or "personal" (this developer only),
 "type": one of decision, preference, pitfall, procedure, fact, architecture,
 "triggers": up to 5 short keywords,
 "statement": the rule in one concise sentence, in the message's language}}
Answer with the JSON object only.

Message:
{text}
"""
L1_TOKENS = 4
L2_TOKENS = 200


class Spent(Exception):
    """The session's token budget does not allow this call."""


@dataclass(frozen=True)
class Extraction:
    confidence: float
    scope: str
    type: str
    triggers: tuple[str, ...]
    statement: str


def cost(text: str) -> int:
    """Tokens a call about `text` spends of the session's budget (what the user said only)."""
    return estimate_tokens(text)


def l1(endpoint: Endpoint, text: str, *, timeout: float) -> bool | None:
    """The model's yes or no; None when it did not answer one of them."""
    answer = endpoint.complete(L1_PROMPT.format(text=text[:2000]), L1_TOKENS, timeout=timeout)
    words: list[str] = re.findall(r"[a-z]+", answer.lower())
    if not words or words[0] not in ("yes", "no"):
        return None
    return words[0] == "yes"


def l2(endpoint: Endpoint, text: str, *, timeout: float, model: str | None = None) -> Extraction:
    """The structured extraction; ValueError when the answer is not the object asked for."""
    answer = endpoint.complete(
        L2_PROMPT.format(text=text[:2000]),
        L2_TOKENS,
        timeout=timeout,
        model=model,
        json_output=True,
    )
    match = re.search(r"\{.*\}", answer, re.S)
    if match is None:
        raise ValueError("no JSON object in the answer")
    data: Any = json.loads(match.group(0))
    if not isinstance(data, dict):
        raise ValueError("the answer is not an object")
    confidence = float(data.get("confidence", 0.0))
    statement = str(data.get("statement") or "").strip()
    if not statement or not 0.0 <= confidence <= 1.0:
        raise ValueError("no statement, or a confidence outside 0-1")
    kind = str(data.get("type") or "fact")
    triggers = data.get("triggers") or []
    return Extraction(
        confidence=confidence,
        scope="personal" if data.get("scope") == "personal" else "shared",
        type=kind if kind in TYPES else "fact",
        triggers=tuple(
            str(t).strip().lower() for t in triggers[:5] if isinstance(t, str) and len(t) >= 3
        )
        if isinstance(triggers, list)
        else (),
        statement=statement[:1000],
    )


__all__ = ["CALL_ERRORS", "Extraction", "Spent", "cost", "l1", "l2"]
