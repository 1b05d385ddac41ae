"""What reaches a prompt: off-topic prompts must get nothing, on-topic ones what they need.

    python benchmarks/noise_bench.py [--data ../shared/data] [--sizes 2000,10000]
        [--split dev|heldout] [--modes warm,cold] [--sample N] [--work DIR]

Two memory repositories per size, built from public sets read from --data (never committed):
`sci`, SciFact abstracts (at 10k atoms each abstract in two halves), and `cmrc`, CMRC2018
contexts cut into sentence groups (2 per context for ~2k atoms, 9 for ~10k). Each prompt goes
through the UserPromptSubmit handler itself (`memkit.claude.prompt`), in this process: `warm`
as the engine runs it (index open in full, vectors used), `cold` as a hook without an engine
runs it (the column cache, BM25 and triggers only). What counts is what the handler would
print: the atom ids of its `additionalContext`. The usage log is emptied between prompts, so
no prompt's ranking depends on the prompts before it.

Prompt sets, and the split (fixed before anything was measured on the held-out part):

- dev (the floors are tuned here): off-topic: CMRC trial questions against `sci`, SciFact
  train claims against `cmrc`, `data/offtopic_dev.jsonl` against both; on-topic: SciFact
  train claims against `sci` (qrels), CMRC trial questions against `cmrc`.
- heldout (measured, never tuned on): off-topic: CMRC dev questions against `sci`, SciFact
  test claims against `cmrc`, `data/offtopic_heldout.jsonl` against both; on-topic: SciFact
  test claims against `sci`, CMRC dev questions against `cmrc`.

A CMRC atom is relevant to a question when it comes from the question's context and holds one
of its answers (any atom of that context when the answer was cut in two); a SciFact atom when
it comes from an abstract the qrels name.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sqlite3
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from _common import ROOT, commit_all, data_dir, read_jsonl, read_qrels, slug, write_repo

if TYPE_CHECKING:
    from memkit.recall.readers import Readers

SPLITS = {
    "dev": {"scifact": "train", "cmrc": "trial", "offtopic": "offtopic_dev.jsonl"},
    "heldout": {"scifact": "test", "cmrc": "dev", "offtopic": "offtopic_heldout.jsonl"},
}
_SENTENCE = re.compile(r"(?<=[。！？!?；])|(?<=\. )")


@dataclass
class Repo:
    name: str
    root: Path
    atoms: int
    atoms_of_doc: dict[str, list[str]] = field(default_factory=dict)
    text_of: dict[str, str] = field(default_factory=dict)


@dataclass
class Prompt:
    text: str
    relevant: frozenset[str] = frozenset()  # atom ids; empty: off-topic
    kind: str = ""


def _pieces(text: str, n: int) -> list[str]:
    """`text` cut into at most `n` groups of whole sentences of about equal length."""
    sentences = [s for s in _SENTENCE.split(text) if s.strip()]
    if n <= 1 or len(sentences) <= 1:
        return [text]
    n = min(n, len(sentences))
    target = len(text) / n
    out: list[str] = []
    cur = ""
    for s in sentences:
        cur += s
        if len(cur) >= target and len(out) < n - 1:
            out.append(cur)
            cur = ""
    if cur.strip():
        out.append(cur)
    return out


def build(name: str, docs: list[dict[str, Any]], parts: int, work: Path) -> Repo:
    root = work / name
    repo = Repo(name, root, 0)
    rows = []
    for doc in docs:
        for i, piece in enumerate(_pieces(doc["text"], parts)):
            atom_doc = f"{doc['_id']}-p{i}" if parts > 1 else doc["_id"]
            title = doc.get("title") or ""
            rows.append((atom_doc, f"{title} ({i + 1})" if parts > 1 and title else title, piece))
            repo.atoms_of_doc.setdefault(doc["_id"], []).append(slug(atom_doc))
            repo.text_of[slug(atom_doc)] = piece
    repo.atoms = len(rows)
    if not (root / ".git").is_dir():
        write_repo(root, rows)
        commit_all(root)
    from memkit.index import refresh

    refresh(root)  # reused between runs: rebuilt only when memkit's index format changed
    return repo


def repos(data: Path, size: int, work: Path, rng: random.Random) -> tuple[Repo, Repo]:
    sci_docs = read_jsonl(data / "scifact" / "corpus.jsonl")
    cmrc_docs = read_jsonl(data / "cmrc2018" / "corpus.jsonl")
    if size <= 2500:
        wanted: set[str] = set()
        for split in ("train", "test"):
            for rel in read_qrels(data / "scifact" / "qrels" / f"{split}.tsv").values():
                wanted |= rel.keys()
        chosen = [d for d in sci_docs if d["_id"] in wanted]
        rest = [d for d in sci_docs if d["_id"] not in wanted]
        rng.shuffle(rest)
        sci = build(f"sci-{size}", chosen + rest[: max(0, size - len(chosen))], 1, work)
    else:
        sci = build(f"sci-{size}", sci_docs, math.ceil(size / len(sci_docs)), work)
    cmrc = build(f"cmrc-{size}", cmrc_docs, max(1, round(size / len(cmrc_docs))), work)
    return sci, cmrc


def prompt_sets(data: Path, split: str, sci: Repo, cmrc: Repo) -> dict[str, list[Prompt]]:
    names = SPLITS[split]
    queries = {q["_id"]: q for q in read_jsonl(data / "scifact" / "queries.jsonl")}
    sci_qrels = read_qrels(data / "scifact" / "qrels" / f"{names['scifact']}.tsv")
    claims = []
    for qid, rel in sci_qrels.items():
        atoms = frozenset(a for d in rel for a in sci.atoms_of_doc.get(d, ()))
        if atoms:
            claims.append((queries[qid]["text"], atoms))
    cmrc_queries = {q["_id"]: q for q in read_jsonl(data / "cmrc2018" / "queries.jsonl")}
    questions = []
    for qid, rel in read_qrels(data / "cmrc2018" / "qrels" / f"{names['cmrc']}.tsv").items():
        answers = cmrc_queries[qid]["metadata"].get("answers") or []
        doc_atoms = [a for d in rel for a in cmrc.atoms_of_doc.get(d, ())]
        holding = [a for a in doc_atoms if any(ans and ans in cmrc.text_of[a] for ans in answers)]
        questions.append((cmrc_queries[qid]["text"], frozenset(holding or doc_atoms)))
    handwritten = [
        r["prompt"] for r in read_jsonl(ROOT / "benchmarks" / "data" / names["offtopic"])
    ]
    return {
        "sci:on": [Prompt(t, r, "scifact claim") for t, r in claims],
        "sci:off": [Prompt(t, kind="cmrc question") for t, _ in questions]
        + [Prompt(t, kind="hand-written") for t in handwritten],
        "cmrc:on": [Prompt(t, r, "cmrc question") for t, r in questions],
        "cmrc:off": [Prompt(t, kind="scifact claim") for t, _ in claims]
        + [Prompt(t, kind="hand-written") for t in handwritten],
    }


_HEADING = re.compile(r"^## (\S+) · ", re.M)


def injected(root: Path, prompt: str, n: int) -> list[str]:
    """The atom ids the UserPromptSubmit handler would inject for `prompt`."""
    from memkit.claude.prompt import user_prompt_submit

    out = user_prompt_submit(
        {"session_id": f"noise-{n}", "prompt": prompt, "cwd": str(root)}, [str(root)], READERS[0]
    )
    _forget(root)
    if not out:
        return []
    return _HEADING.findall(out["hookSpecificOutput"]["additionalContext"])


def _forget(root: Path) -> None:
    db = root / ".memkit" / "usage.db"
    if db.exists():
        with sqlite3.connect(db) as conn:
            for table in ("uses", "given", "sessions", "history"):
                conn.execute(f"DELETE FROM {table}")


READERS: list[Readers] = []


def set_mode(warm: bool) -> None:
    from memkit.recall.readers import Readers

    READERS[:] = [Readers(warm=warm)]


@dataclass
class Tally:
    prompts: int = 0
    with_any: int = 0
    atoms: int = 0
    hits: int = 0

    def add(self, ids: list[str], relevant: Iterable[str]) -> None:
        self.prompts += 1
        self.with_any += bool(ids)
        self.atoms += len(ids)
        self.hits += bool(set(ids) & set(relevant))

    def row(self, on_topic: bool) -> dict[str, float]:
        n = max(1, self.prompts)
        out = {"prompts": self.prompts, "any": self.with_any / n, "atoms": self.atoms / n}
        if on_topic:
            out["hit"] = self.hits / n
        return out


def measure(
    sets: dict[str, list[Prompt]], roots: dict[str, Path], sample: int, rng: random.Random
) -> tuple[dict[str, Tally], float]:
    tallies: dict[str, Tally] = {}
    started = time.perf_counter()
    n = 0
    for name, prompts in sets.items():
        chosen = []
        for kind in sorted({p.kind for p in prompts}):  # each kind sampled on its own
            of_kind = [p for p in prompts if p.kind == kind]
            chosen += (
                of_kind if not sample or len(of_kind) <= sample else rng.sample(of_kind, sample)
            )
        tally = tallies.setdefault(name, Tally())
        root = roots[name.split(":")[0]]
        by_kind = {k: tallies.setdefault(f"{name}:{k}", Tally()) for k in {p.kind for p in chosen}}
        for p in chosen:
            n += 1
            ids = injected(root, p.text, n)
            tally.add(ids, p.relevant)
            by_kind[p.kind].add(ids, p.relevant)
    return tallies, (time.perf_counter() - started) / max(1, n)


def combined(tallies: dict[str, Tally], side: str) -> Tally:
    """The sets whose name ends with `side` (`:off`, `:on`, `:off:hand-written`) as one."""
    out = Tally()
    for name, t in tallies.items():
        if name.endswith(side):
            out.prompts += t.prompts
            out.with_any += t.with_any
            out.atoms += t.atoms
            out.hits += t.hits
    return out


def section_choice(data: Path, split: str, sci: Repo, cmrc: Repo, n: int = 300) -> list[str]:
    """Which section of a long atom matches: long atoms of four sections (the abstract or
    context a prompt is about, and three others, shuffled), each method picks one. Old: words
    shared with the prompt (what recall did before); coverage: the weighed coverage recall
    uses to admit an atom; vectors: cosine to each section's vector (what `sections.npy` held:
    title, heading and text encoded by the index's model)."""
    import numpy as np

    from memkit.index import open_index
    from memkit.index.relevance import coverage

    rng = random.Random(7)
    sets = prompt_sets(data, split, sci, cmrc)
    rows = []
    for repo, key in ((sci, "sci:on"), (cmrc, "cmrc:on")):
        reader = open_index(repo.root)
        docs = read_jsonl(data / ("scifact" if repo is sci else "cmrc2018") / "corpus.jsonl")
        by_atom = {slug(d["_id"]): d for d in docs}
        texts = list(repo.text_of.items())
        prompts = sets[key] if len(sets[key]) <= n else rng.sample(sets[key], n)
        score = {"old": 0, "coverage": 0, "vectors": 0}
        for p in prompts:
            target = sorted(p.relevant)[0]
            others = [t for t in rng.sample(texts, 6) if t[0] not in p.relevant][:3]
            blocks = [(target, repo.text_of[target]), *others]
            rng.shuffle(blocks)
            heads = [(by_atom.get(a) or {}).get("title") or a for a, _ in blocks]
            terms = reader.query_terms(p.text)
            words = {w.lower() for w in re.findall(r"\w+", p.text)}
            old = [len(words & {w.lower() for w in re.findall(r"\w+", t)}) for _, t in blocks]
            sections = [f"{h}\n{t}" for h, (_, t) in zip(heads, blocks, strict=True)]
            cov = [coverage(terms, section) for section in sections]
            vecs = reader.encoder.encode(sections)
            cos = list(np.asarray(vecs) @ np.asarray(reader.encode(p.text)))
            right = [a for a, _ in blocks].index(target)
            for name, values in (("old", old), ("coverage", cov), ("vectors", cos)):
                score[name] += int(np.argmax(values)) == right
        rows.append(
            f"| {key.split(':')[0]} ({len(prompts)} prompts, {split}) | "
            + " | ".join(f"{score[m] / len(prompts):.3f}" for m in ("old", "coverage", "vectors"))
            + " |"
        )
    return rows


# The settings swept: TEXT_FLOOR values, and (VECTOR_FLOOR, VECTOR_SUPPORT) pairs.
GRID_TEXT_FLOOR = (0.2, 0.25, 0.27, 0.3, 0.33, 0.35)
GRID_VECTOR = ((0.8, 0.05), (0.8, 0.1), (0.85, 0.05), (0.85, 0.1), (0.85, 0.15), (0.9, 0.1))


def sweep(sets: dict[str, list[Prompt]], roots: dict[str, Path], size: int, sample: int) -> None:
    """Each floor alone, the others at their defaults: one line per setting and path."""
    from memkit.recall import pipeline as recall

    defaults = (recall.TEXT_FLOOR, recall.VECTOR_FLOOR, recall.VECTOR_SUPPORT)

    def line(label: str, mode: str) -> None:
        set_mode(mode == "warm")
        tallies, _ = measure(sets, roots, sample, random.Random(1))
        off, on = combined(tallies, ":off").row(False), combined(tallies, ":on").row(True)
        hand = combined(tallies, ":off:hand-written").row(False)
        print(
            f"{size} {mode} {label}: off any {off['any']:.3f} atoms {off['atoms']:.3f} "
            f"(hand-written {hand['any']:.3f} / {hand['atoms']:.2f}) | on hit {on['hit']:.3f} "
            f"(sci {tallies['sci:on'].row(True)['hit']:.3f}, "
            f"cmrc {tallies['cmrc:on'].row(True)['hit']:.3f}) atoms {on['atoms']:.2f}",
            flush=True,
        )

    for floor in GRID_TEXT_FLOOR:
        recall.TEXT_FLOOR = floor
        for mode in ("warm", "cold"):
            line(f"TEXT_FLOOR={floor}", mode)
    recall.TEXT_FLOOR = defaults[0]
    for cos, support in GRID_VECTOR:
        recall.VECTOR_FLOOR, recall.VECTOR_SUPPORT = cos, support
        line(f"VECTOR_FLOOR={cos} VECTOR_SUPPORT={support}", "warm")
    recall.VECTOR_FLOOR, recall.VECTOR_SUPPORT = defaults[1:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data")
    parser.add_argument("--sizes", default="2000,10000")
    parser.add_argument("--split", choices=tuple(SPLITS), default="dev")
    parser.add_argument("--modes", default="warm,cold")
    parser.add_argument("--sample", type=int, default=0, help="prompts per set and kind (0: all)")
    parser.add_argument(
        "--work",
        type=Path,
        default=Path(tempfile.gettempdir()) / "memkit-noise-bench",
        help="where the repositories are built, and reused by the next run",
    )
    parser.add_argument("--json", type=Path, help="write the figures here too")
    parser.add_argument(
        "--sweep",
        action="store_true",
        help="try other floors (dev split only): the text floor, then the vector floors",
    )
    parser.add_argument(
        "--sections", action="store_true", help="measure how recall picks a long atom's sections"
    )
    args = parser.parse_args()
    if args.sweep and args.split != "dev":
        parser.error("--sweep tunes, and tuning is done on the dev split only")
    data = data_dir(args.data)
    if data is None:
        print("public data sets not found (pass --data); nothing measured", file=sys.stderr)
        return 1
    results = []
    for size in (int(s) for s in args.sizes.split(",")):
        rng = random.Random(size)
        sci, cmrc = repos(data, size, args.work, rng)
        sets = prompt_sets(data, args.split, sci, cmrc)
        if args.sweep:
            sweep(sets, {"sci": sci.root, "cmrc": cmrc.root}, size, args.sample)
            continue
        if args.sections:
            print("| long atoms | words shared (before) | weighed coverage | section vectors |")
            print("|---|---|---|---|")
            print("\n".join(section_choice(data, args.split, sci, cmrc)), flush=True)
            continue
        for mode in args.modes.split(","):
            set_mode(mode == "warm")
            tallies, per_prompt = measure(
                sets, {"sci": sci.root, "cmrc": cmrc.root}, args.sample, random.Random(1)
            )
            row = {
                "size": size,
                "atoms": {"sci": sci.atoms, "cmrc": cmrc.atoms},
                "mode": mode,
                "split": args.split,
                "ms_per_prompt": round(per_prompt * 1000, 1),
                "off": combined(tallies, ":off").row(False),
                "on": combined(tallies, ":on").row(True),
                "sets": {k: t.row(":on" in k) for k, t in tallies.items()},
            }
            results.append(row)
            print(json.dumps(row), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print()
    print(
        "| atoms (sci / cmrc) | path | off-topic with any atom | atoms per off-topic prompt "
        "| on-topic hit | atoms per on-topic prompt |"
    )
    print("|---|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['atoms']['sci']:,} / {r['atoms']['cmrc']:,} | {r['mode']} "
            f"| {r['off']['any']:.1%} | {r['off']['atoms']:.2f} | {r['on']['hit']:.2f} "
            f"| {r['on']['atoms']:.2f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
