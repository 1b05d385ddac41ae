"""The words Milvus's BM25 counts: memkit's own analysis, written out as plain tokens.

Milvus Lite analyses text with two tokenizers only, `standard` (lower-cased `\\w+` runs: no
stemming, a whole run of Chinese as one token) and `jieba`; a Milvus server has more
(`english`, `chinese`, `whitespace`), and Lite refuses their names (milvus_lite/analyzer/
factory.py, 3.2.2). So memkit analyses text itself, as its local index does (tantivy's
`en_stem` for English, unigrams and bigrams of CJK runs) and sends the result as
space-separated ASCII tokens: a CJK gram travels as `zh` and its code points in hex. Any
tokenizer splits that text the same way, so one collection answers alike on Lite and on a
cluster, and "deploys" finds "deploy", "心跳" finds "心跳間隔", as in the local index.
"""

from __future__ import annotations

import re
from typing import Any

import tantivy

from memkit.index.analysis import query_words
from memkit.safety.text import CJK_CHARS

_CJK_RUN = re.compile(f"[{CJK_CHARS}]+")
TRIGGER_WEIGHT = 3  # a trigger counts as often: the writer's own keywords (the index: x3)
MAX_TERMS_BYTES = 60_000  # Milvus caps a VARCHAR at 65,535 bytes


class Analyzer:
    """tantivy's `en_stem` chain, built once per process by whoever analyses."""

    def __init__(self) -> None:
        self._stem: Any = (
            tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(40))
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.stemmer("english"))
            .build()
        )

    def words(self, text: str) -> list[str]:
        """English stems of `text` (CJK runs left to `grams`)."""
        return [t for t in self._stem.analyze(_CJK_RUN.sub(" ", text)) if t.isascii()]

    def document(self, title: str, triggers: list[str], body: str) -> str:
        """An atom's terms: title, triggers (TRIGGER_WEIGHT times) and body."""
        said = " ".join(triggers)
        text = f"{title}\n" + f"{said}\n" * TRIGGER_WEIGHT + body
        terms = " ".join([*self.words(text), *grams(text)])
        return _cut(terms)

    def query(self, text: str) -> str:
        """A query's terms: stop words left out, as the local BM25 query does."""
        return " ".join(dict.fromkeys([*self.words(query_words(text)), *grams(text)]))


def grams(text: str) -> list[str]:
    """Unigrams and bigrams of each CJK run, encoded (`zh` + hex code points)."""
    out: list[str] = []
    for run in _CJK_RUN.findall(text.lower()):
        for i, ch in enumerate(run):
            out.append(_encode(ch))
            if i + 1 < len(run):
                out.append(_encode(run[i : i + 2]))
    return out


def _encode(gram: str) -> str:
    return "zh" + "".join(f"{ord(ch):x}" for ch in gram)


def _cut(terms: str) -> str:
    data = terms.encode("ascii", "ignore")
    if len(data) <= MAX_TERMS_BYTES:
        return terms
    return data[:MAX_TERMS_BYTES].decode("ascii").rsplit(" ", 1)[0]
