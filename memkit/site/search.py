"""The site's search index, written at build time and read by `assets/search.js` offline.

Terms: English words lowercased and stemmed (`stem`, the same rules as `stem` in search.js;
tests run both over one word list), stop words dropped; CJK runs as bigrams (a lone character
as itself), the way memkit's own index reads Chinese and Japanese. The stop words and the CJK
ranges travel inside the index file, so the page reads them from here rather than from a copy.

The index is a script (`search-index.js`) assigning one JSON object: a page opened from disk
(file://) may load a script beside it, not fetch a JSON file.
"""

from __future__ import annotations

import functools
import json
import math
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memkit.index.analysis import _CJK_RUN, STOPWORDS

FORMAT = 1
_WORD = re.compile(r"[a-z0-9\u00e0-\u024f]+")
_VOWEL = re.compile(r"[aeiouy]")
SNIPPET = 120
# Where a term occurs: found in the title, the triggers or tags, or the id weighs more. The
# sum of the three stays below 8: a posting packs it with the doc number (`add_weights`).
TITLE_WEIGHT = 3
TRIGGER_WEIGHT = 3
BODY_WEIGHT = 1
# Superseded and archived atoms are found, after the live ones.
RETIRED = ("superseded", "archived")
RETIRED_WEIGHT = 0.5
SPREAD = 64  # shards for terms that do not begin with a-z or 0-9 (CJK bigrams)


@dataclass(frozen=True)
class Doc:
    id: str
    title: str
    kind: str  # the atom's type
    scope: str
    status: str  # live, pending, superseded, archived, expired
    snippet: str


def normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A light English stemmer (Porter's steps 1a-1c and a trailing -ly): plurals, -ed,
    -ing. Kept small on purpose: search.js holds the same rules, line for line."""
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    if word.endswith("sses") or word.endswith("ies"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if word.endswith("eed"):
        if len(word) > 4:
            word = word[:-1]
    else:
        for suffix in ("ingly", "edly", "ing", "ed"):
            base = word[: -len(suffix)]
            if word.endswith(suffix) and _VOWEL.search(base) and len(base) >= 3:
                word = _after_ed(base)
                break
    if word.endswith("ly") and len(word) > 5:
        word = word[:-2]
    if word.endswith("y") and len(word) > 3 and word[-2] not in "aeiou":
        word = word[:-1] + "i"
    return word


def _after_ed(base: str) -> str:
    if base.endswith(("at", "bl", "iz")):
        return base + "e"
    if len(base) >= 2 and base[-1] == base[-2] and base[-1] not in "aeiouylsz":
        return base[:-1]
    return base


def terms(text: str) -> list[str]:
    """The index terms of a text, in order, repeats kept."""
    text = normalise(text)
    out: list[str] = []
    runs = _CJK_RUN.findall(text)
    for run in runs:
        if len(run) == 1:
            out.append(run)
        out.extend(map(str.__add__, run, run[1:]))
    words = _WORD.findall(_CJK_RUN.sub(" ", text) if runs else text)
    out.extend(stem(w) for w in words if w not in STOPWORDS)
    return out


def weights(doc_id: str, title: str, keys: Iterable[str], body: str) -> dict[str, int]:
    """term -> weight for one atom: the sum of the weights of the fields it occurs in (how
    often does not count: a long atom would outweigh a precise one)."""
    out: dict[str, int] = {}
    fields = (
        (title, TITLE_WEIGHT),
        (" ".join([doc_id.replace("-", " "), *keys]), TRIGGER_WEIGHT),
        (body, BODY_WEIGHT),
    )
    for text, weight in fields:
        for term in set(terms(text)):
            out[term] = out.get(term, 0) + weight
    return out


class SearchIndex:
    """Documents and weighted postings, built one atom at a time."""

    def __init__(self) -> None:
        self.docs: list[Doc] = []
        # term -> [doc number * 8 + weight], rising: documents come one at a time, and a
        # weight is a sum of distinct field weights (at most 7); one int, not a pair
        self.postings: defaultdict[str, list[int]] = defaultdict(list)
        self.weighed: dict[str, dict[str, int]] = {}  # doc id -> its terms, found this build

    def add(self, doc: Doc, *, title: str, keys: Iterable[str], body: str) -> None:
        self.add_weights(doc, weights(doc.id, title, keys, body))

    def add_weights(self, doc: Doc, weighed: dict[str, int]) -> None:
        number = len(self.docs)
        self.docs.append(doc)
        postings = self.postings
        base = number * 8
        for term, weight in weighed.items():
            postings[term].append(base + weight)

    def files(self) -> dict[str, str]:
        """The index as scripts, path under assets/ -> text: `search-index.js` (the documents
        and what the page needs to read a query) and one shard of postings per `shard_of`
        key, loaded only when a query has a term in it.

        A term's postings are one string: `doc.weight` pairs split by commas, each doc number
        the difference from the one before it in base 36, `.weight` left out when it is 1."""
        shards: dict[str, dict[str, str]] = defaultdict(dict)
        digits = [_base36(n) for n in range(len(self.docs) + 1)]
        for term, row in self.postings.items():
            parts, before = [], 0
            for code in row:
                number, weight = code >> 3, code & 7
                gap = digits[number - before]
                before = number
                parts.append(gap if weight == 1 else f"{gap}.{weight}")
            shards[shard_of(term)][term] = ",".join(parts)
        main = {
            "format": FORMAT,
            "retired": list(RETIRED),
            "retiredWeight": RETIRED_WEIGHT,
            "stop": sorted(STOPWORDS),
            "cjk": _CJK_RUN.pattern,
            "spread": SPREAD,
            "shards": sorted(shards),
            "docs": [[d.id, d.title, d.kind, d.scope, d.status, d.snippet] for d in self.docs],
        }
        out = {"search-index.js": f"window.MEMKIT_SEARCH={_script_json(main)};\n"}
        for name, postings in shards.items():
            out[f"search/{name}.js"] = (
                f'window.memkitShard("{name}",{_script_json(dict(sorted(postings.items())))});\n'
            )
        return out


def shard_of(term: str) -> str:
    """The shard a term's postings are in (search.js `shardOf`): its first character when
    that is a-z or 0-9, else "x" and the character's code modulo SPREAD in hex."""
    first = term[0]
    if first.isascii() and first.isalnum():
        return first
    return f"x{ord(first) % SPREAD:x}"


def _script_json(data: object) -> str:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    # Nothing in the text may end the script or break its line: "<", U+2028, U+2029.
    for char in ("<", "\u2028", "\u2029"):
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text


def _base36(value: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        value, rest = divmod(value, 36)
        out = digits[rest] + out
        if not value:
            return out


def _idf(total: int, found: int) -> float:
    return math.log(1 + (total - found + 0.5) / (found + 0.5))


def search(index: SearchIndex, query: str, limit: int = 20) -> Sequence[Doc]:
    """The same ranking as search.js, for tests and the benchmark: every term must match."""
    wanted = list(dict.fromkeys(terms(query)))
    if not wanted:
        return []
    scores: dict[int, float] = {}
    for n, term in enumerate(wanted):
        row = {code >> 3: code & 7 for code in index.postings.get(term, [])}
        idf = _idf(len(index.docs), len(row)) if row else 0.0
        if n == 0:
            scores = {d: idf * w for d, w in row.items()}
        else:
            scores = {d: s + idf * row[d] for d, s in scores.items() if d in row}
    for d in scores:
        if index.docs[d].status in RETIRED:
            scores[d] *= RETIRED_WEIGHT
    ranked = sorted(scores, key=lambda d: (-scores[d], index.docs[d].id))
    return [index.docs[d] for d in ranked[:limit]]
