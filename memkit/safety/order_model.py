"""A linear reading of orders to the agent, learnt from the labelled sets (issue 39).

The patterns of `memkit.safety.orders` list phrasings; on a set written after they were tuned
they found 0.57 of the orders. This scores a sentence by what it is made of instead: its words
and word pairs, its Chinese character pairs, and the structure the patterns already read
(addressed to an agent, "you", a negation, which kinds of order its words could make). The
weights are data (`order_model.json`), made by `benchmarks/orders_model.py` from the labelled
sets and public text; nothing here is typed by hand but the features.

Pure Python (no numpy: the order check runs on the agent hook's write paths), one pass over
each sentence, so linear in the text's length.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from pathlib import Path

from memkit.safety import orders as _orders

WEIGHTS = Path(__file__).with_name("order_model.json")
_WORD = re.compile(r"[a-z0-9][a-z0-9_.-]*[a-z0-9]|[a-z0-9]")
_CJK = re.compile("[\\u3400-\\u9fff]+")
_FRONTMATTER = re.compile(r"---[ \t]*\n.*?\n---[ \t]*(?:\n|$)", re.S)
_YOU = re.compile(r"\b(?:you|your|yourself)\b|你|您")
_NEG = re.compile(
    r"\b(?:not|never|no|don't|dont|doesn't|won't|cannot|can't|mustn't|shouldn't|avoid)\b"
    r"|不要|不能|別|别|絕不|绝不|禁止|不准|不可|切勿|請勿|请勿|勿|不得"
)


def features(lowered: str, start: int, end: int) -> set[str]:
    """The features of the sentence `lowered[start:end]` (a lower-cased reading)."""
    piece = lowered[start:end]
    words = _WORD.findall(piece)
    found = {f"w:{w}" for w in words}
    found.update(f"b:{a} {b}" for a, b in pairwise(words))
    for run in _CJK.findall(piece):
        found.update(f"c:{ch}" for ch in run)
        found.update(f"c:{run[i : i + 2]}" for i in range(len(run) - 1))
    if words:
        found.add(f"f:{words[0]}")  # an imperative's verb, or an address, comes first
    marks = ["s:"]
    if _orders._addressed(lowered, start, end):
        marks.append("s:address")
    if _YOU.search(piece):
        marks.append("s:you")
    if _NEG.search(piece):
        marks.append("s:neg")
    found.update(marks[1:])
    mask = _orders._mask(lowered, start, end)
    # Which kinds of order the words could make, alone and with each mark: a linear model
    # cannot read "addressed and about a check" from the two apart.
    found.update(f"{mark}kind{bit}" for bit in range(8) if mask >> bit & 1 for mark in marks)
    return found


@dataclass(frozen=True)
class Model:
    bias: float
    weights: dict[str, float]
    refuse: float  # a sentence scoring this or more is refused
    hold: float  # this or more (below `refuse`) is held for review

    def score(self, lowered: str, start: int, end: int) -> float:
        total = self.bias + sum(self.weights.get(f, 0.0) for f in features(lowered, start, end))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, total))))


@lru_cache(maxsize=1)
def model() -> Model:
    data = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    return Model(data["bias"], data["weights"], data["refuse"], data["hold"])


def _word_count(piece: str) -> int:
    # Chinese: about two characters a word.
    return len(_WORD.findall(piece)) + sum(len(run) for run in _CJK.findall(piece)) // 2


@dataclass(frozen=True)
class Scored:
    start: int
    end: int
    score: float


def scored(text: str, at_least: float) -> Iterator[Scored]:
    """The sentences of `text` (a reading) scoring `at_least` or more, in order."""
    found = model()
    lowered = text.lower()
    # An atom's frontmatter is no sentence: its lines would run into the body's first one (and
    # a quote of that sentence would show the id, made from the body's words). The patterns
    # read it.
    body = _FRONTMATTER.match(text)
    skip = body.end() if body else 0
    for first, end in _orders.sentences(text):
        start = max(first, skip)
        piece = lowered[start:end].lstrip()
        if end - start < 12 or piece.startswith("#") or _word_count(piece) < 4:
            continue  # a heading ("# Claude hooks") or a few words name things, order nothing
        value = found.score(lowered, start, end)  # a long sentence comes in windows
        if value >= at_least:
            yield Scored(start, end, value)
