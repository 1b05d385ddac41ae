"""How a near-identical pair's wording may differ without its claim changing, and where it may
not: small word lists and rules `memkit.audit.align` consults (data, not readers of their own).

- **One lemma.** "exporting" / "re-exports", "tag" / "tagged": one word inflected or
  repeated ("re-"), not another word.
- **Scope.** Words that one side drops and the other adds elsewhere moved, unless a scope word
  among them ("before", "after", "unless", "instead of", …) now governs other words: "Transfer
  the changes, or ask the user before using X" / "Ask the user before transferring the changes
  or using X" hold the same words, and the second asks first for both: an update, not a
  duplicate.

Evaluated and not adopted (docs/benchmarks.md, Judgement II): the embedding model's cosine of
the two substituted spans. Synonyms the dev pairs hold ("脚本" / "方案", "handoff" / "marking
work complete") sit at 0.23-0.64, changed values of one slot ("上海" / "深圳", "on" / "off",
"library" / "proc macro") at 0.11-0.61: a static model puts two things of one kind as close
as two words for one thing.
"""

from __future__ import annotations

from collections.abc import Sequence

from memkit.audit.lexicon import word_set

# Words that say which part of a line another part applies to.
SCOPE = word_set("before after unless until instead except without once whenever only")
_FOLLOWING = 2  # content words after a scope word that say what it governs


def lemmas(word: str) -> frozenset[str]:
    """What a word may be without its inflection and a repetition prefix: "re-exports" and
    "exporting" hold export, "committed" commit, "changes" change."""
    low = word.lower()
    if low.startswith("re-") and len(low) > 5:
        low = low[3:]
    out = {low}
    for suffix in ("ing", "ed", "es", "s"):
        if low.endswith(suffix) and not (suffix == "s" and low.endswith("ss")):
            base = low[: -len(suffix)]
            out |= {base, base + "e"}
            if len(base) > 3 and base[-1] == base[-2]:
                out.add(base[:-1])  # committing → commit, tagged → tag
    return frozenset(w for w in out if len(w) >= 3)


def same_lemma(x: str, y: str) -> bool:
    """Two words that are one word inflected or repeated ("exporting" / "re-exports"): plain
    words only, never identifiers (`ruff_cli` and `ruff` are two crates)."""
    if not all(w.replace("-", "").isalpha() for w in (x, y)):
        return x == y
    return x == y or bool(lemmas(x) & lemmas(y))


def scope_changed(
    a: Sequence[tuple[str, bool]], b: Sequence[tuple[str, bool]], moved: Sequence[str]
) -> tuple[str, str] | None:
    """Where a scope word among the `moved` words governs other words in `b` than in `a`
    (each text as (normalised word, is content) per token, the word as often in each): what
    it governs in each, as "before using" / "before transferring"; None when every one
    governs the same."""
    for word in sorted({w for w in moved if w in SCOPE}):
        ga, gb = _governed(a, word), _governed(b, word)
        if len(ga) != len(gb):
            continue  # a condition added or dropped: a detail, read as one
        if not all(any(_alike(x, y) for y in gb) for x in ga):
            old = next((x for x in ga if not any(_alike(x, y) for y in gb)), [])
            new = next((y for y in gb if not any(_alike(x, y) for x in ga)), [])
            return " ".join([word, *old]), " ".join([word, *new])
    return None


def _governed(toks: Sequence[tuple[str, bool]], word: str) -> list[list[str]]:
    """The content words that follow each use of a scope word."""
    out: list[list[str]] = []
    for i, (norm, _) in enumerate(toks):
        if norm == word:
            after = [n for n, content in toks[i + 1 :] if content and n not in SCOPE]
            out.append(after[:_FOLLOWING])
    return out


def _alike(x: list[str], y: list[str]) -> bool:
    """The same words in any order, inflected or not."""
    return len(x) == len(y) and all(any(same_lemma(p, q) for q in y) for p in x)
