"""Real-text atoms for the scale benchmark (issue 33): each atom its own stretch of public text.

    python benchmarks/realtext.py --atoms 10000 [--data ../shared/data]   # print the sizes

`benchmarks/realsize.py` builds atoms of real length around a cycling source document plus
sentences of others, so 10,000 atoms share a few thousand documents' words. A team's memory
does not repeat itself like that: here the SciFact abstracts (English) and CMRC2018
paragraphs (Chinese), read from `../shared/data/` and never committed, are cut at sentence
ends into consecutive stretches of 0.3-3 KB (median ~1.1 KB), so every atom holds text no
other atom holds, as long as the sets last (~9.4 MB: about 8,000 atoms). Past that the
documents are cut again at other sentence boundaries, every stretch prefixed by a sentence of
another document: new files, the words seen before (said in the output as `reused`).

Languages mix as they come (about one atom in six Chinese) and as bilingual teams write: one
English atom in eight carries a `## 中文摘要` list of Chinese sentences, one Chinese atom in
eight an English `## Notes` line. Frontmatter as `memkit add` writes it (id, type,
confidence, created), triggers from the title, tags; one atom in a hundred with an unknown
key (a warning), one in a thousand an invalid type (refused: left out of the index).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Iterator
from pathlib import Path

from realsize import CONFIDENCES, TYPES, distribution, write_files

_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")
MIN_BYTES, MAX_BYTES = 300, 3000


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


class Texts:
    """The public documents as (title, sentences), English and Chinese apart, in file order."""

    def __init__(self, data: Path) -> None:
        self.en: list[tuple[str, list[str]]] = []
        self.zh: list[tuple[str, list[str]]] = []
        for name, into in (("scifact", self.en), ("cmrc2018", self.zh)):
            for line in (data / name / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
                if line.strip():
                    doc = json.loads(line)
                    sentences = _sentences(doc["text"])
                    if sentences:
                        into.append((" ".join(doc.get("title", "").split()), sentences))


def _stretches(
    docs: list[tuple[str, list[str]]], rng: random.Random, shift: int
) -> Iterator[tuple[str, list[str]]]:
    """(title, sentences) of consecutive stretches of each document, 0.3-3 KB each; `shift`
    sentences dropped from the front of each document (a second pass cuts elsewhere)."""
    for title, sentences in docs:
        rest = sentences[shift:] if len(sentences) > shift + 2 else sentences
        while rest:
            budget = min(MAX_BYTES, max(MIN_BYTES, int(rng.lognormvariate(6.95, 0.5))))
            take: list[str] = []
            size = 0
            for sentence in rest:
                grow = len(sentence.encode())
                if take and size + grow > budget:
                    break
                take.append(sentence)
                size += grow
            rest = rest[len(take) :]
            if rest and sum(len(s.encode()) for s in rest) < MIN_BYTES:
                take += rest  # a short tail stays with its stretch
                rest = []
            if size >= MIN_BYTES // 2:
                yield title, take


def _interleaved(
    texts: Texts, rng: random.Random, shift: int
) -> Iterator[tuple[bool, str, list[str]]]:
    """(Chinese?, title, sentences): English and Chinese stretches mixed in proportion."""
    en = list(_stretches(texts.en, rng, shift))
    zh = list(_stretches(texts.zh, rng, shift))
    ratio = len(zh) / max(1, len(en) + len(zh))
    ie = iz = 0
    while ie < len(en) or iz < len(zh):
        if iz < len(zh) and (ie >= len(en) or rng.random() < ratio):
            yield True, *zh[iz]
            iz += 1
        else:
            yield False, *en[ie]
            ie += 1


def _clean_title(raw: str, sentences: list[str]) -> str:
    title = (raw or sentences[0])[:90].strip()
    return re.sub(r"[\[\]{}#*`>|<]", "", title).strip() or "Untitled note"


def _triggers(rng: random.Random, title: str, zh: bool) -> list[str]:
    """A few words of the title, as a writer picks them (never one `memkit validate`
    refuses as a stop word: the atoms are meant to be valid but for the planted ones)."""
    from memkit.triggers import trigger_problem

    if zh:
        run = re.sub(r"[^\u4e00-\u9fff]", "", title)
        found = [run[: rng.randint(2, 4)]] if len(run) >= 2 else []
    else:
        words = sorted({w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9-]{4,}", title)})
        found = rng.sample(words, min(len(words), rng.randint(1, 3)))
    return [t for t in found if not trigger_problem(t)]


def _body(rng: random.Random, title: str, sentences: list[str], zh: bool, other: list[str]) -> str:
    gap = "" if zh else " "
    paras = [gap.join(sentences[i : i + 3]) for i in range(0, len(sentences), 3)]
    lines = [f"# {title}", ""]
    for para in paras:
        lines += [para, ""]
    if other and rng.random() < 1 / 8:
        lines += ["## Notes" if zh else "## 中文摘要", "", *(f"- {s}" for s in other[:2]), ""]
    return "\n".join(lines).rstrip() + "\n"


def atoms(n: int, texts: Texts, seed: int = 33) -> Iterator[tuple[str, str, bool]]:
    """(relative path, file text, reused?) of n atoms; the same n and seed, the same files."""
    rng = random.Random(seed)
    made = 0
    shift = 0
    while made < n:
        for zh, raw, sentences in _interleaved(texts, rng, shift):
            if made >= n:
                return
            if shift:  # a later pass: another document's sentence first, a new file
                sentences = [rng.choice(rng.choice(texts.zh if zh else texts.en)[1]), *sentences]
            pool = texts.en if zh else texts.zh
            other = rng.choice(pool)[1]
            title = _clean_title(raw, sentences)
            i = made
            kind = "passage" if zh else ("decision", "fact", "pitfall", "note")[i % 4]
            atom_id = f"{kind}-{i:06d}"
            folder = ("shared", "shared/adr", "shared/ops", "episodic")[i % 4]
            keys = [
                f"id: {atom_id}",
                f"type: {'pitfall' if kind == 'pitfall' else TYPES[i % len(TYPES)]}",
                f"confidence: {CONFIDENCES[i % 3]}",
                f"created: 2026-{1 + i % 12:02d}-{1 + i % 28:02d}",
            ]
            triggers = _triggers(rng, title, zh)
            if triggers:
                keys.append(f"triggers: [{', '.join(triggers)}]")
            keys.append(f"tags: [{kind}, {'zh' if zh else 'en'}]")
            if i % 100 == 42:
                keys.append("reviewer: someone")  # unknown key: a warning (MK016)
            if i % 1000 == 999:
                keys[1] = "type: sketch"  # refused: left out of the index
            text = "---\n" + "\n".join(keys) + "\n---\n" + _body(rng, title, sentences, zh, other)
            yield f"{folder}/{atom_id}.md", text, shift > 0
            made += 1
        shift += 2


def write(root: Path, n: int, texts: Texts) -> tuple[list[int], int]:
    """Write n atoms under root (with its memkit.yaml): their sizes, how many reuse text."""
    made = list(atoms(n, texts))
    return write_files(root, ((rel, text) for rel, text, _ in made)), sum(r for *_, r in made)


def describe(sizes: list[int], reused: int, chinese: int | None = None) -> str:
    out = distribution(sizes) + f"; {reused:,} re-cut from text used before"
    return out + (f"; {chinese:,} Chinese" if chinese is not None else "")


def main() -> int:
    from _common import data_dir

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--atoms", type=int, default=10_000)
    parser.add_argument("--data", help="folder with scifact/ and cmrc2018/ (BEIR layout)")
    args = parser.parse_args()
    data = data_dir(args.data)
    if data is None:
        print("public data sets not found (pass --data): no real-text atoms", file=sys.stderr)
        return 1
    made = list(atoms(args.atoms, Texts(data)))
    sizes = [len(t.encode()) for _, t, _ in made]
    chinese = sum("tags: [passage" in t for _, t, _ in made)
    print(describe(sizes, sum(r for _, _, r in made), chinese))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
