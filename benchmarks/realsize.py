"""Real-size atoms for the scale benchmarks: text of realistic length from the public sets.

    python benchmarks/realsize.py --atoms 10000 [--data ../shared/data]   # print the sizes

Atoms are built from SciFact abstracts (English prose) and CMRC2018 paragraphs (Chinese),
read from `../shared/data/` (never committed), in four shapes a team's memory holds:

- decision records (English): a title, a paragraph, `## Context`, `## Decision` bullets;
- Chinese passages: `# 标题`, paragraphs, `## 要点` bullets;
- pitfalls with their error text: a paragraph, a fenced traceback, `## Fix` bullets;
- captured chat turns: alternating `**User:**` / `**Claude:**` paragraphs.

Each atom takes one source document (cycling through the corpus) plus sentences of others
picked by a seeded generator, so 100,000 atoms are 100,000 different files; one atom in
thirty is long (several documents, up to ~10 KB). Frontmatter carries triggers, tags and now
and then `related`. One atom in a hundred has an unknown key (a warning) and one in a thousand
an invalid type (refused by `memkit validate`, left out of the index), so the paths that
report findings are exercised too. Without the public sets there is nothing real to build
from: the caller says so and stops.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")
TYPES = ("fact", "procedure", "architecture", "pitfall", "decision", "preference")
CONFIDENCES = ("tentative", "observed", "fixed")
ERRORS = (
    "ConnectionResetError: [Errno 104] Connection reset by peer",
    "psycopg2.errors.DeadlockDetected: deadlock detected",
    "TimeoutError: the read operation timed out after 30.0 s",
    "KeyError: 'tenant_id'",
    "ssl.SSLCertVerificationError: certificate verify failed: unable to get local issuer",
    "OSError: [Errno 28] No space left on device",
)


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if len(s.strip()) > 3]


class Corpus:
    """The public documents, split into sentences, English and Chinese apart."""

    def __init__(self, data: Path) -> None:
        self.en: list[tuple[str, list[str]]] = []
        self.zh: list[tuple[str, list[str]]] = []
        for name, into in (("scifact", self.en), ("cmrc2018", self.zh)):
            path = data / name / "corpus.jsonl"
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    doc = json.loads(line)
                    sentences = _sentences(doc["text"])
                    if sentences:
                        into.append((" ".join(doc.get("title", "").split()), sentences))


def _words(title: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9-]{4,}", title)]


def _triggers(rng: random.Random, title: str, zh: bool) -> list[str]:
    if zh:
        run = re.sub(r"[^\u4e00-\u9fff]", "", title)
        if len(run) < 2:
            return []
        start = rng.randrange(0, max(1, len(run) - 1))
        return [run[start : start + rng.randint(2, 4)]]
    words = _words(title)
    return sorted(set(rng.sample(words, min(len(words), rng.randint(1, 3)))))


def _title(raw: str, sentences: list[str]) -> str:
    title = (raw or sentences[0])[:90].strip()
    return re.sub(r"[\[\]{}#*`>|]", "", title).strip() or "Untitled note"


def _paragraphs(sentences: list[str], per: int) -> list[str]:
    return [" ".join(sentences[i : i + per]) for i in range(0, len(sentences), per)]


def _body(rng: random.Random, kind: str, corpus: Corpus, i: int) -> tuple[str, str, bool]:
    """(title, Markdown body, Chinese?) of atom number i."""
    zh = kind == "zh"
    docs = corpus.zh if zh else corpus.en
    raw, sentences = docs[(i * 7919) % len(docs)]
    # Sizes: mostly 0.6-2 KB, one atom in thirty long (several documents, up to ~10 KB).
    long_atom = rng.random() < 1 / 30
    budget = rng.randint(3000, 9000) if long_atom else int(rng.lognormvariate(6.85, 0.45))
    pool = list(sentences)
    if len(pool) > 3 and rng.random() < 0.5:  # a reused document is not a copy
        del pool[rng.randrange(len(pool))]
    while long_atom and sum(len(s.encode()) for s in pool) < budget:
        pool.extend(rng.choice(docs)[1])
    primary: list[str] = []
    for sentence in pool:
        if primary and sum(len(s.encode()) for s in primary) + len(sentence.encode()) > budget:
            break
        primary.append(sentence)
    extra = [s for _, sents in rng.sample(docs, 1) for s in sents[:2]]
    title = _title(raw, primary)
    gap = "" if zh else " "
    if zh:
        cut = max(1, len(primary) * 2 // 3)
        paras = _paragraphs(primary[:cut], 3)
        body = [f"# {title}", "", *(p.replace(" ", "") for p in paras)]
        body += ["", "## 要点", "", *(f"- {s}" for s in primary[cut:] + extra)]
        return title, "\n".join(body).replace("\n\n\n", "\n\n"), True
    if kind == "decision":
        body = [f"# {title}", "", gap.join(primary[:2]), "", "## Context", ""]
        body += _paragraphs(primary[2:], 3)
        body += ["", "## Decision", "", *(f"- {s}" for s in extra)]
    elif kind == "pitfall":
        error = rng.choice(ERRORS)
        frames = [
            f'  File "/srv/app/{w}.py", line {rng.randint(10, 900)}, in {w}'
            for w in (_words(title) or ["handler"])[:4]
        ]
        body = [f"# Pitfall: {title}", "", gap.join(primary[:3]), "", "```text"]
        body += ["Traceback (most recent call last):", *frames, error, "```", "", "## Fix", ""]
        body += [f"- {s}" for s in primary[3:8] + extra]
        body += ["", *_paragraphs(primary[8:], 3)]
    else:  # chat turns captured from a session
        body = [f"# Session note: {title}", ""]
        for n, part in enumerate(_paragraphs(primary + extra, 2)):
            body += [f"**{'User' if n % 2 == 0 else 'Claude'}:** {part}", ""]
    return title, "\n".join(line for line in body).rstrip() + "\n", False


def atoms(n: int, corpus: Corpus, seed: int = 18) -> Iterator[tuple[str, str]]:
    """(relative path, file text) of n atoms; the same n and seed give the same files."""
    rng = random.Random(seed)
    kinds = ("decision", "zh", "pitfall", "chat", "decision", "zh", "decision", "zh")
    for i in range(n):
        kind = kinds[i % len(kinds)]
        title, body, zh = _body(rng, kind, corpus, i)
        atom_id = f"{kind}-{i:06d}"
        folder = ("shared", "shared/adr", "shared/ops", "episodic")[i % 4]
        triggers = _triggers(rng, title, zh)
        keys = [
            f"id: {atom_id}",
            f"type: {'pitfall' if kind == 'pitfall' else TYPES[i % len(TYPES)]}",
            f"confidence: {CONFIDENCES[i % 3]}",
            f"created: 2026-{1 + i % 12:02d}-{1 + i % 28:02d}",
        ]
        if triggers:
            keys.append(f"triggers: [{', '.join(triggers)}]")
        keys.append(f"tags: [{kind if kind != 'zh' else 'passage'}, {'zh' if zh else 'en'}]")
        if i > 10 and i % 17 == 0:
            keys.append(f"related: [{kinds[(i - 8) % len(kinds)]}-{i - 8:06d}]")
        if i % 100 == 42:
            keys.append("reviewer: someone")  # unknown key: a warning (MK016)
        if i % 1000 == 999:
            keys[1] = "type: sketch"  # refused: left out of the index
        yield f"{folder}/{atom_id}.md", "---\n" + "\n".join(keys) + "\n---\n" + body


def write(root: Path, n: int, corpus: Corpus) -> list[int]:
    """Write n atoms under root (a memory repository with its memkit.yaml); their sizes."""
    return write_files(root, atoms(n, corpus))


def write_files(root: Path, files: Iterable[tuple[str, str]]) -> list[int]:
    """Write (relative path, text) files under root, with a memkit.yaml; their sizes."""
    (root / "memkit.yaml").write_text("version: 1\n", encoding="utf-8")
    sizes = []
    made: set[Path] = set()
    for rel, text in files:
        path = root / rel
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        data = text.encode("utf-8")
        path.write_bytes(data)
        sizes.append(len(data))
    return sizes


def distribution(sizes: list[int]) -> str:
    ordered = sorted(sizes)

    def at(q: float) -> int:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return (
        f"{len(sizes):,} atoms, bytes per file: mean {statistics.mean(sizes):,.0f}, "
        f"median {at(0.5):,}, p10 {at(0.1):,}, p90 {at(0.9):,}, p99 {at(0.99):,}, "
        f"max {ordered[-1]:,}; total {sum(sizes) / 1e6:.1f} MB"
    )


def main() -> int:
    from _common import data_dir

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--atoms", type=int, default=10_000)
    parser.add_argument("--data", help="folder with scifact/ and cmrc2018/ (BEIR layout)")
    parser.add_argument("--write", type=Path, help="write the atoms into this folder")
    args = parser.parse_args()
    data = data_dir(args.data)
    if data is None:
        print("public data sets not found (pass --data): no real-size atoms", file=sys.stderr)
        return 1
    corpus = Corpus(data)
    if args.write:
        print(distribution(write(args.write, args.atoms, corpus)))
    else:
        print(distribution([len(t.encode()) for _, t in atoms(args.atoms, corpus)]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
