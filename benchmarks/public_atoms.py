"""Public text as atoms, for the false refusals of the content checks (issue 39).

Every text here was written by someone who was not attacking anyone: SciFact abstracts and
CMRC2018 encyclopedia paragraphs (BEIR layout, read from ../shared/data or a path given, never
committed), and the rule bullets, decision records and documentation lines of
benchmarks/data/public_{rules,adr,history}.jsonl. Whatever a check refuses among them is a
false refusal.

Each atom is `dev` or `heldout`: the committed sets keep their own `split`; a SciFact or CMRC
document is held out when a SHA-256 of its id is 0 modulo 3 (the rule of public_sets.py). The
held-out part was fixed in the commit that added this file, before anything was measured on
it; the checks may be tuned on the dev part only.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from _common import ROOT, read_jsonl

DATA = ROOT / "benchmarks" / "data"


@dataclass(frozen=True)
class PublicAtom:
    source: str  # scifact | cmrc2018 | rules | adr | history
    id: str
    text: str  # the atom's text as memkit would write it: a title line and the body
    split: str  # dev | heldout


def split_of(key: str) -> str:
    return "heldout" if int(hashlib.sha256(key.encode()).hexdigest(), 16) % 3 == 0 else "dev"


def _atom(title: str, body: str) -> str:
    return f"# {title.strip()}\n\n{body.strip()}\n" if title.strip() else f"{body.strip()}\n"


def beir(base: Path, name: str) -> Iterator[PublicAtom]:
    for doc in read_jsonl(base / name / "corpus.jsonl"):
        key = f"{name}:{doc['_id']}"
        yield PublicAtom(name, key, _atom(doc.get("title", ""), doc["text"]), split_of(key))


def committed() -> Iterator[PublicAtom]:
    """The rule bullets, decision records and doc lines of the committed public sets, each text
    once."""
    seen: set[str] = set()
    for row in read_jsonl(DATA / "public_adr.jsonl"):
        yield PublicAtom("adr", row["id"], _atom(row["title"], row["text"]), row["split"])
    for name in ("rules", "history"):
        for row in read_jsonl(DATA / f"public_{name}.jsonl"):
            for side in ("a", "b"):
                text = row[side]
                if text not in seen:
                    seen.add(text)
                    yield PublicAtom(name, f"{row['id']}:{side}", _atom("", text), row["split"])


def public_atoms(base: Path | None) -> list[PublicAtom]:
    """Every public atom: the committed sets, and SciFact and CMRC2018 when `base` holds them."""
    found = list(committed())
    for name in ("scifact", "cmrc2018"):
        if base is not None and (base / name / "corpus.jsonl").is_file():
            found += beir(base, name)
    return found
