"""Token ids of many texts at once (indexing), each distinct piece of text tokenised once.

The model's tokenizer normalises a text (a few character replacements and NFKC), splits it
at spaces into words and runs a Unigram Viterbi search inside each word. Indexing encodes
every atom and, again, each of its sections: the same words over and over. So:

- normalisation is done with Python's `unicodedata` (~50x faster than the tokenizer's, which
  tracks offsets), for text whose characters are all old enough that both Unicode databases
  agree (else the tokenizer's own normaliser);
- a word is cut further at "lonely" characters, those no multi-character piece of the
  vocabulary contains (most CJK punctuation, `|`, …): no piece spans them, so the best
  segmentation of the word is the best segmentation of each part;
- each distinct part is tokenised once, thousands in one call (joined by spaces, or by a
  lonely `|` for parts inside a word), and the ids of a text are the ids of its parts in
  order, then cut at `max_length` as the tokenizer would.

The result is the same token ids as `Encoder.token_ids` (tests/embedding/bulk_test.py
compares them on the real-size benchmark texts and on every character the fast normaliser
accepts). Any model whose tokenizer is not of this shape uses the tokenizer as it is.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"tokenizers"}


# Characters whose NFKC form is the same in Python's Unicode database and the tokenizer's
# (older) tables: Latin, Greek, Cyrillic, … up to CJK, Hangul syllables, compatibility
# ideographs, half- and full-width forms, except U+32FF (the Reiwa era sign, Unicode 12.1,
# which only Python decomposes). Text with anything else goes to the tokenizer's own
# normaliser. tests/embedding/bulk_test.py checks every character this lets through.
_OLD_ENOUGH = re.compile(
    "[^\x00-\u32fe\u3300-\u9fff\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]"
)
SEPARATOR = "|"  # lonely in the shipped vocabulary; checked for any other
INNER, LONELY, WHOLE = "\x01", "\x02", "\x03"  # key prefixes (see PartTokenizer._keys)
CHUNK_PARTS = 4000  # parts per string handed to the tokenizer (it spreads strings on cores)
MAX_CACHED = 400_000  # distinct parts kept between calls


def _rust_class(pattern: str) -> re.Pattern[str] | None:
    """A tokenizer Replace pattern that is a plain character class, as a Python regex."""
    if re.fullmatch(r"\[[^\[\]\\]*(?:\\.[^\[\]\\]*)*\]", pattern) is None:
        return None
    try:
        return re.compile(pattern)
    except re.error:
        return None


class Normaliser:
    """The tokenizer's normaliser (Sequence of Replace / NFKC / Replace ` {2,}`) in Python."""

    def __init__(self, steps: list[tuple[str, Any, str]]) -> None:
        self.steps = steps
        kinds = [kind for kind, _, _ in steps]
        self.nfkc_at = kinds.index("nfkc") if "nfkc" in kinds else len(steps)
        # Printable characters a replacement before NFKC may change: a printable text
        # without any of them (most text) skips those replacements. Only the BMP: text
        # beyond it goes to the tokenizer anyway (_OLD_ENOUGH).
        early = [pattern for _, pattern, _ in steps[: self.nfkc_at]]
        self.printable_targets = "".join(
            c
            for c in map(chr, range(0x10000))
            if c.isprintable() and any(pattern.match(c) for pattern in early)
        )

    @classmethod
    def from_spec(cls, spec: dict[str, Any] | None) -> Normaliser | None:
        steps = cls.steps_of(spec)
        return None if steps is None else cls(steps)

    @staticmethod
    def steps_of(spec: dict[str, Any] | None) -> list[tuple[str, Any, str]] | None:
        if not spec or spec.get("type") != "Sequence":
            return None
        steps: list[tuple[str, Any, str]] = []
        for step in spec.get("normalizers", []):
            kind = step.get("type")
            if kind == "NFKC":
                steps.append(("nfkc", None, ""))
            elif kind == "Replace" and "Regex" in (step.get("pattern") or {}):
                regex = step["pattern"]["Regex"]
                compiled = re.compile(" {2,}") if regex == " {2,}" else _rust_class(regex)
                if compiled is None:
                    return None
                steps.append(("replace", compiled, str(step.get("content", ""))))
            else:
                return None
        return steps

    def __call__(self, text: str) -> str | None:
        """The normalised text, or None when the tokenizer must do it (see _OLD_ENOUGH)."""
        if not text.isascii() and _OLD_ENOUGH.search(text) is not None:
            return None
        plain = text.isprintable() and not any(c in text for c in self.printable_targets)
        for n, (kind, pattern, content) in enumerate(self.steps):
            if kind == "nfkc":
                text = unicodedata.normalize("NFKC", text)
            elif pattern.pattern == " {2,}":
                if "  " in text:
                    text = pattern.sub(content, text)
            elif not (plain and n < self.nfkc_at):
                text = pattern.sub(content, text)
        return text


class PartTokenizer:
    """Token ids of texts, built from cached ids of their parts (see the module's doc).

    The parts' ids live in one numpy array: a text is the list of its parts' numbers, and
    its tokens are gathered by numpy, never as Python lists of ints (~3 million tokens for
    10,000 atoms and their sections)."""

    def __init__(self, tokenizer: Any, spec: dict[str, Any], max_length: int | None) -> None:
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.normalise = Normaliser.from_spec(spec.get("normalizer"))
        vocab: dict[str, int] = tokenizer.get_vocab()
        in_longer: set[str] = set()
        for piece in vocab:
            if len(piece) > 1:
                in_longer.update(piece)
        lonely = {p for p in vocab if len(p) == 1 and p not in in_longer and p != "\u2581"}
        self.lonely_id = {c: vocab[c] for c in lonely}
        self.cuts = re.compile("([" + "".join(re.escape(c) for c in sorted(lonely)) + "])")
        self.separator = vocab.get(SEPARATOR) if SEPARATOR in lonely else None
        # Text holding an added token (`<unk>`, `<pad>`, …) is split at it by the tokenizer
        # before anything else: such text is tokenised whole.
        self.added = [str(t["content"]) for t in spec.get("added_tokens") or [] if t.get("content")]
        self.space = self._space()
        self.index: dict[str, int] = {}  # part key (see `_keys`) -> its number
        self._flat = np.zeros(1 << 16, dtype=np.int32)  # the ids of every part, end to end
        self._used = 0
        self._start: list[int] = []
        self._length: list[int] = []
        self._reset()

    def _reset(self) -> None:
        self.index.clear()
        self._used = 0
        self._start.clear()
        self._length.clear()
        self._add("", self.space)  # a word that starts with a lonely character
        for c, i in self.lonely_id.items():
            self._add(LONELY + c, [i])
        self._base = len(self._start)  # what every table starts with

    # -- a table kept between processes (memkit.embedding.parts) --------------------------
    @property
    def learned(self) -> int:
        """How many parts were tokenised (or adopted) since the table was made."""
        return len(self._start) - self._base

    def export(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """(keys, their ids end to end, each one's count) of every part learned, in order;
        a text tokenised whole (WHOLE keys) is not a part of any other text: left out."""
        numbers = [n for k, n in self.index.items() if n >= self._base and k[:1] != WHOLE]
        numbers.sort()
        keys = {n: k for k, n in self.index.items() if n >= self._base}
        starts = np.asarray(self._start, dtype=np.int64)[numbers]
        lengths = np.asarray(self._length, dtype=np.int64)[numbers]
        where = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths) + np.arange(
            int(lengths.sum())
        )
        return [keys[n] for n in numbers], self._flat[where].copy(), lengths

    def adopt(self, keys: Sequence[str], ids: np.ndarray, lengths: np.ndarray) -> None:
        """Take parts tokenised by another process with this tokenizer (`export`): the same
        ids `_learn` would find for them. Keys known already are skipped."""
        if (
            len(keys) != len(lengths)
            or int(lengths.sum()) != len(ids)
            or len(set(keys)) != len(keys)
        ):
            raise ValueError("a part table whose keys, ids and counts do not agree")
        index = self.index
        keep = [n for n, key in enumerate(keys) if key not in index]
        if not keep:
            return
        begins = (np.cumsum(lengths) - lengths)[keep]
        counts = lengths[keep]
        total = int(counts.sum())
        block = ids[np.repeat(begins - (np.cumsum(counts) - counts), counts) + np.arange(total)]
        if self._used + total > len(self._flat):
            grown = np.zeros(max(2 * len(self._flat), self._used + total), dtype=np.int32)
            grown[: self._used] = self._flat[: self._used]
            self._flat = grown
        self._flat[self._used : self._used + total] = block
        first = len(self._start)
        self._start.extend((self._used + np.cumsum(counts) - counts).tolist())
        self._length.extend(counts.tolist())
        self._used += total
        index.update(zip((keys[n] for n in keep), range(first, first + len(keep)), strict=True))

    def _add(self, key: str, ids: Sequence[int] | np.ndarray) -> int:
        n = len(ids)
        if self._used + n > len(self._flat):
            grown = np.zeros(max(2 * len(self._flat), self._used + n), dtype=np.int32)
            grown[: self._used] = self._flat[: self._used]
            self._flat = grown
        self._flat[self._used : self._used + n] = ids
        self._start.append(self._used)
        self._length.append(n)
        self._used += n
        number = len(self._start) - 1
        self.index[key] = number
        return number

    def _space(self) -> list[int]:
        """The ids of a lone ▁ (a word that starts with a lonely character, a last space)."""
        marker = next((c for c in sorted(self.lonely_id) if c.isprintable()), None)
        if marker is None:
            raise ValueError("the vocabulary has no lonely character")
        ids = list(self.tokenizer.encode(marker, add_special_tokens=False).ids)
        return ids[: ids.index(self.lonely_id[marker])]

    @classmethod
    def usable(cls, spec: dict[str, Any]) -> bool:
        pre = spec.get("pre_tokenizer") or {}
        model = spec.get("model") or {}
        return (
            model.get("type") == "Unigram"
            and not model.get("byte_fallback")
            and pre.get("type") == "Metaspace"
            and pre.get("replacement") == "\u2581"
            and pre.get("prepend_scheme") == "always"
            and pre.get("split") is True
            and Normaliser.steps_of(spec.get("normalizer")) is not None
        )

    # -- parts -------------------------------------------------------------------------
    def _keys(self, normalised: str) -> list[str]:
        """The cache keys of a normalised text's parts, in order: a part at a word's start
        as it is, a part inside a word after INNER, a lonely character after LONELY (both
        control characters the normaliser removes, so never part of a text)."""
        if not normalised:
            return []
        words = normalised.split(" ")
        if len(words) > 1 and words[0] == "":
            del words[0]  # a leading space: the tokenizer prepends no second ▁
        if self.cuts.search(normalised) is None:
            return words
        keys: list[str] = []
        for word in words:
            pieces = self.cuts.split(word)
            keys.append(pieces[0])
            for n in range(1, len(pieces), 2):
                keys.append(LONELY + pieces[n])
                if pieces[n + 1]:
                    keys.append(INNER + pieces[n + 1])
        return keys

    def _learn(self, wanted_words: list[str], wanted_inner: list[str]) -> None:
        """Tokenise new parts, hundreds to a string: words joined by ` | ` (each a word of
        its own, with its ▁), inner parts by `|` (one word, cut at each `|`)."""
        separator = self.separator
        if separator is None:  # another vocabulary: one call per part
            for word in wanted_words:
                self._add(word, self.tokenizer.encode(word, add_special_tokens=False).ids)
            for part in wanted_inner:
                self._add(INNER + part, self._inner_alone(part))
            return
        space = len(self.space)
        for parts, joiner, prefix, first in (
            (wanted_words, f" {SEPARATOR} ", "", False),
            (wanted_inner, SEPARATOR, INNER, True),
        ):
            texts = [
                (SEPARATOR if first else "") + joiner.join(parts[i : i + 500])
                for i in range(0, len(parts), 500)
            ]
            done = 0
            for encoding in self.tokenizer.encode_batch_fast(texts, add_special_tokens=False):
                ids = np.asarray(encoding.ids, dtype=np.int32)
                if first:  # "▁|" ahead of the first inner part
                    ids = ids[int(np.argmax(ids == separator)) + 1 :]
                cuts = np.flatnonzero(ids == separator)
                # Between two parts: ` | ` gives ▁ and | (the ▁ dropped), `|` gives |.
                ends = np.concatenate((cuts if first else cuts - space, [len(ids)]))
                begins = np.concatenate(([0], cuts + 1))
                for begin, end in zip(begins.tolist(), ends.tolist(), strict=True):
                    self._add(prefix + parts[done], ids[begin:end])
                    done += 1

    def _inner_alone(self, part: str) -> list[int]:
        marker = next(c for c in sorted(self.lonely_id) if c.isprintable())
        ids = self.tokenizer.encode(marker + part, add_special_tokens=False).ids
        return list(ids[ids.index(self.lonely_id[marker]) + 1 :])

    # -- texts -------------------------------------------------------------------------
    def parts(self, texts: Sequence[str], clean: list[bool] | None = None) -> list[list[int]]:
        """The part numbers of each text. A text the fast normaliser does not vouch for is
        tokenised whole by the tokenizer (one part of its own). `clean` gets, per text,
        whether its normalised form is non-empty and neither starts nor ends with a space:
        then the parts of texts joined by spaces are theirs in order."""
        index = self.index
        if len(index) > MAX_CACHED:
            self._reset()
        split: list[list[str]] = []
        new: set[str] = set()
        whole: dict[int, str] = {}
        added = self.added
        for n, text in enumerate(texts):
            normalised = self.normalise(text) if self.normalise is not None else None
            if normalised is not None and any(t in text or t in normalised for t in added):
                normalised = None
            if normalised is None:
                whole[n] = text
                split.append([])
                if clean is not None:
                    clean.append(False)
                continue
            keys = self._keys(normalised)
            if clean is not None:
                clean.append(bool(normalised) and normalised[0] != " " and normalised[-1] != " ")
            split.append(keys)
            new.update(set(keys).difference(index))
        self._learn([k for k in new if k[:1] != INNER], [k[1:] for k in new if k[:1] == INNER])
        get = index.__getitem__
        numbers = [list(map(get, keys)) for keys in split]
        if whole:
            encodings = self.tokenizer.encode_batch_fast(
                list(whole.values()), add_special_tokens=False
            )
            for n, encoding in zip(whole, encodings, strict=True):
                numbers[n] = [self._add(WHOLE + str(len(self._start)), encoding.ids)]
        return numbers

    def tokens(self, numbers: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
        """(every text's token ids end to end, cut at max_length each; the count of each)."""
        sizes = np.fromiter(map(len, numbers), dtype=np.int64, count=len(numbers))
        parts = np.fromiter(chain.from_iterable(numbers), dtype=np.int64, count=int(sizes.sum()))
        length = np.asarray(self._length, dtype=np.int64)[parts]
        start = np.asarray(self._start, dtype=np.int64)[parts]
        total = int(length.sum())
        # Where each token is in the table: its part's start plus its rank in the part.
        where = np.repeat(start - (np.cumsum(length) - length), length) + np.arange(total)
        ids = self._flat[where]
        counts = per_text(length, sizes)
        if self.max_length is not None and (counts > self.max_length).any():
            rank = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
            ids = ids[rank < self.max_length]  # the tokenizer's truncation
            counts = np.minimum(counts, self.max_length)
        return ids, counts


def per_text(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Sums of `values` over consecutive runs of `counts` items each (a run may be empty)."""
    totals = np.concatenate(([0], np.cumsum(values)))
    ends = np.cumsum(counts)
    sums: np.ndarray = totals[ends] - totals[ends - counts]
    return sums


def part_tokenizer(tokenizer_file: str, max_length: int | None) -> PartTokenizer | None:
    """A PartTokenizer for the model's tokenizer file, or None when its shape is another."""
    from tokenizers import Tokenizer

    try:
        with open(tokenizer_file, encoding="utf-8") as fh:  # noqa: PTH123
            spec = json.load(fh)
    except (OSError, ValueError):
        return None
    if not isinstance(spec, dict) or not PartTokenizer.usable(spec):
        return None
    tokenizer = Tokenizer.from_file(tokenizer_file)
    tokenizer.no_truncation()  # the parts of thousands of words go in one string
    tokenizer.no_padding()
    return PartTokenizer(tokenizer, spec, max_length)
