"""How relevant an atom is to a prompt, on an absolute scale: the share of the prompt's
information the atom holds.

BM25 scores rank atoms for one query but mean nothing across queries: they grow with the
prompt's length and with how rare its words are, so no fixed BM25 score separates "about this"
from "shares a word". Coverage does: each of the query's terms (English stems, CJK bigrams;
stop words left out) is weighed by its idf among the indexed atoms, and an atom covers the
weight of the terms it contains. A prompt about the atom's subject shares its rare words
(coverage 0.4-1.0 on the measured sets); an off-topic prompt shares, at most, a common word
or two and words the index has never seen weigh most (0-0.2). See docs/benchmarks.md
("What reaches a prompt") for the floors chosen on it.

tantivy's own `en_stem` analyzer stems both sides, so a term matches exactly as BM25 matched
it. Imported only by a query (not by a hook that answers nothing).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import tantivy

from memkit.index.analysis import STOPWORDS, query_words
from memkit.triggers import STOP_WORDS

_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
MIN_ATOMS = 1_000
# Words of the request rather than of its subject ("make", "add", "explain", "good", "thanks"):
# a prompt about anything uses them, so they say nothing about which atom it is about. Left out
# of the prompt's terms only: some are fine triggers (`make` for a Makefile atom).
_PROMPT_WORDS = """
    add added adding ask bad best better big bit change changes check done easy explain fine
    find fix get give going good great help hello hey hi idea kind know last let like little
    long look lot make makes making mean new nice ok okay old one other please put quick quickly
    real really right run say see set short show simple small something sort start still stuff
    sure take tell thank thanks thing things think three try two want way well work worked
    working works write wrong recommend suggest current currently
    谢谢 謝謝 你好 您好 好的 请 請 帮 幫 帮我 幫我 一下 麻烦 麻煩 能否 问题 問題 怎么办 怎麼辦
"""
PROMPT_WORDS = frozenset(_PROMPT_WORDS.split())
_ANALYZER: list[Any] = []
_STOP_STEMS: list[frozenset[str]] = []


@dataclass(frozen=True)
class Terms:
    words: dict[str, float]  # English stem -> idf
    grams: dict[str, float]  # CJK bigram (or lone character) -> idf
    total: float
    # The weight of the terms some atom holds at all: no atom can cover more than this share
    # (a prompt of words the index has never seen is answered at once: nothing).
    reachable: float = 0.0
    known: int = 0  # how many of the terms some atom holds
    unknown: tuple[str, ...] = ()  # the terms no atom holds, in the prompt's order

    @property
    def count(self) -> int:
        return len(self.words) + len(self.grams)

    @property
    def best_possible(self) -> float:
        return self.reachable / self.total if self.total > 0 else 0.0


def _stemmer() -> Any:
    """tantivy's `en_stem` analyzer (the body, title and trigger fields are indexed with it)."""
    if not _ANALYZER:
        _ANALYZER.append(
            tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(40))
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.stemmer("english"))
            .build()
        )
    return _ANALYZER[0]


def _stop_stems() -> frozenset[str]:
    if not _STOP_STEMS:
        stem = _stemmer().analyze
        words = STOP_WORDS | STOPWORDS | PROMPT_WORDS
        _STOP_STEMS.append(frozenset(t for w in words for t in stem(w)))
    return _STOP_STEMS[0]


def _grams(text: str) -> list[str]:
    out: dict[str, None] = {}
    for run in _CJK_RUN.findall(text):
        if len(run) == 1:
            if run not in STOP_WORDS and run not in PROMPT_WORDS:
                out[run] = None
            continue
        for i in range(len(run) - 1):
            gram = run[i : i + 2]
            # A bigram with a particle in it (連線的心跳: 線的, 的心) spans two words.
            if gram[0] in STOP_WORDS or gram[1] in STOP_WORDS:
                continue
            if gram not in STOP_WORDS and gram not in PROMPT_WORDS:
                out[gram] = None
    return list(out)


def query_terms(query: str, searcher: Any) -> Terms:
    """The query's terms with their idf over `searcher`'s atoms; with no searcher (a damaged
    index) every term weighs the same."""
    stop = _stop_stems()
    words = [
        t
        for t in dict.fromkeys(_stemmer().analyze(query_words(query)))
        # CJK runs are weighed as bigrams below; a lone letter is no word
        if t not in stop and len(t) > 1 and not _CJK_RUN.search(t)
    ]
    grams = _grams(query.lower())
    # A handful of atoms says little about how rare a word is: counted as if among at least
    # MIN_ATOMS, a trigger word that all of 3 atoms share still weighs as a word, not as noise.
    n = max(MIN_ATOMS, searcher.num_docs) if searcher is not None else 0

    reachable = 0.0
    known = 0
    unknown: list[str] = []

    def idf(fields: tuple[str, ...], term: str) -> float:
        nonlocal reachable, known
        if searcher is None:
            reachable += 1.0
            known += 1
            return 1.0
        df = searcher.doc_freq(fields[0], term)
        weight = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        if df or any(searcher.doc_freq(f, term) for f in fields[1:]):
            reachable += weight
            known += 1
        else:
            unknown.append(term)
        return weight

    weighed_words = {t: idf(("body", "title", "triggers", "tags"), t) for t in words}
    weighed_grams = {g: idf(("cjk",), g) for g in grams}
    total = sum(weighed_words.values()) + sum(weighed_grams.values())
    return Terms(weighed_words, weighed_grams, total, reachable, known, tuple(unknown))


WINDOW = 300  # characters: a passage of two or three sentences
_SENTENCE_END = re.compile(r"(?<=[.!?。！？；\n])\s*")


def passages(text: str, size: int = WINDOW) -> list[str]:
    """`text` as overlapping passages of whole sentences, about `size` characters each (one
    sentence shared with the next): a long atom covers a prompt only where the prompt's words
    stand together, not because a long text holds every common word somewhere."""
    if len(text) <= size:
        return [text]
    out: list[str] = []
    current: list[str] = []
    for sentence in (s for s in _SENTENCE_END.split(text) if s.strip()):
        if current and sum(map(len, current)) + len(sentence) > size:
            out.append(" ".join(current))
            current = current[-1:]
        current.append(sentence)
    out.append(" ".join(current))
    return out


def stems_of(text: str) -> frozenset[str]:
    return frozenset(_stemmer().analyze(text))


def cover(terms: Terms, text: str, stems: frozenset[str] | None = None) -> tuple[float, int]:
    """The share of the terms' weight that `text` holds, and how many of the terms it holds
    (`stems`: the text's stems, if known)."""
    if terms.total <= 0:
        return 0.0, 0
    held = []
    if terms.words:
        stems = stems_of(text) if stems is None else stems
        held += [w for t, w in terms.words.items() if t in stems]
    if terms.grams:
        lowered = text.lower()
        held += [w for g, w in terms.grams.items() if g in lowered]
    return sum(held) / terms.total, len(held)


def coverage(terms: Terms, text: str, stems: frozenset[str] | None = None) -> float:
    return cover(terms, text, stems)[0]
