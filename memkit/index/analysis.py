"""Text analysis for the index: English stemming from tantivy, CJK as unigrams + bigrams.

tantivy has no CJK tokenizer. A field with an `ngram(1, 2)` + lowercase analyzer, fed only
the CJK runs of the text and queried with an OR of the query's CJK unigrams and bigrams as
term queries, ranks partial matches well. Analyzers are not saved in the index: every process
registers them again after opening it.
"""

from __future__ import annotations

import re
from typing import Any

import tantivy

from memkit.safety.text import CJK_CHARS

CJK_ANALYZER = "memkit_cjk"
_CJK_RUN = re.compile(f"[{CJK_CHARS}]+")


# Words that carry no topic: without them "tell me a joke" does not match every atom with "a".
STOPWORDS = frozenset(
    (  # noqa: SIM905  (a word list reads better as text)
        "a an and are as at be but by for from has have how i if in into is it its me my no "
        "not of on or our should so such than that the their then there these they this to "
        "us was we what when where which who why will with would you your can could do does "
        "did about tell please"
    ).split()
)


def query_words(text: str) -> str:
    """The words of a query for BM25: punctuation and stop words removed."""
    words = re.findall(r"\w+", text)
    return " ".join(w for w in words if w.lower() not in STOPWORDS)


def cjk_text(text: str) -> str:
    """Only the CJK runs of `text`, one per line, so n-grams never span two runs."""
    return "\n".join(_CJK_RUN.findall(text))


def cjk_grams(text: str) -> list[str]:
    """The distinct unigrams and bigrams of the CJK runs of a query."""
    grams: dict[str, None] = {}
    for run in _CJK_RUN.findall(text.lower()):
        for i, ch in enumerate(run):
            grams[ch] = None
            if i + 1 < len(run):
                grams[run[i : i + 2]] = None
    return list(grams)


def register(index: Any) -> None:
    analyzer = (
        tantivy.TextAnalyzerBuilder(
            tantivy.Tokenizer.ngram(min_gram=1, max_gram=2, prefix_only=False)
        )
        .filter(tantivy.Filter.lowercase())
        .build()
    )
    index.register_tokenizer(CJK_ANALYZER, analyzer)
