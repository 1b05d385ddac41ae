"""A file imported again after it changed: which of its new lines rewrites which line it no
longer holds.

An import knows what a bare pair of lines cannot: the file both came from. An atom imported
from `F` whose fingerprint none of `F`'s candidates carries any more says something `F` no
longer says (its line was changed or removed); a candidate from `F` that no import wrote yet
is something `F` says now. Paired one to one, most alike first, a new line close to a line
gone (the gate's "near" cosine), or standing in its place (between the same unchanged
neighbours) and still alike, is that line rewritten, whatever the rewriting did: a value
changed (an update), other words (a rewording), a detail added. Its atom replaces the old one
(`supersedes`), so the stale value stops being served and the new one is never refused as a
copy of it. The words alone cannot tell these apart (docs/audit.md); the file's history can.

A line the file still holds is never replaced, however alike: two lines of one file are two
rules. The atoms of lines gone with nothing in their place are reported, to retire by hand.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memkit.importers import Candidate

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"numpy"}


@dataclass(frozen=True)
class Rewrite:
    """A new candidate that rewrites the line an earlier import wrote as `old_id`."""

    old_id: str
    source: str  # the file


@dataclass(frozen=True)
class Gone:
    """An atom whose line its file no longer holds, and nothing rewrote."""

    id: str
    source: str
    line: int


Encode = Callable[[list[str]], Any]
# Whether a new line (by position) and an old atom's text, at this cosine, read as one line
# changed (`memkit.audit.verdict`: a value, a subject or a detail substituted, other words).
OneLine = Callable[[int, str, float], bool]


def _slots(order: Sequence[tuple[object, str | None]]) -> dict[object, tuple[str, str]]:
    """For each changed entry (fingerprint None) of a file's entries in order, keyed by its
    tag, the nearest unchanged fingerprints before and after it ('' at either end)."""
    out: dict[object, tuple[str, str]] = {}
    before = ""
    for tag, fp in order:
        if fp is None:
            out[tag] = (before, "")
        else:
            before = fp
    after = ""
    for tag, fp in reversed(order):
        if fp is None:
            out[tag] = (out[tag][0], after)
        else:
            after = fp
    return out


def said(text: str) -> str:
    """What a line says, for telling whether a file still holds it: its words, whatever the
    title an import gave it (a title names its project only while another project has it)."""
    return " ".join(text.split()).lower()


def rewrites(
    candidates: Sequence[Candidate],
    *,
    by_source: Mapping[str, Sequence[tuple[str, str]]],
    live: Mapping[str, tuple[int, str, str]],
    new: Sequence[int],
    texts: Sequence[str],
    encode: Encode,
    near: float,
    one_line: OneLine,
) -> tuple[dict[int, Rewrite], list[Gone]]:
    """The rewrites among `candidates` (by position) and the lines gone unreplaced.

    `by_source`: file → (id, fingerprint) of what earlier imports wrote from it; `live`: id →
    (line, text, `said(body)`) of those atoms still live and replaced by none; `new`: positions
    of the candidates to be checked as new atoms; `texts`: each candidate's text as the gate
    reads it.

    A pair as close as the gate's `near` is a rewrite when the new line stands where the old
    one stood (between the same unchanged neighbours) or when the two read as one line changed;
    the static model puts two unrelated lines of one file as close as that (a median of 0.80
    on the lines of benchmarks/data), so closeness alone is not enough.
    """
    now: dict[str, set[str]] = {}
    holds: dict[str, set[str]] = {}
    for cand in candidates:
        now.setdefault(cand.source, set()).add(cand.fingerprint())
        holds.setdefault(cand.source, set()).add(said(cand.text))
    found: dict[int, Rewrite] = {}
    gone_all: list[Gone] = []
    for source, fingerprints in now.items():
        written = by_source.get(source, ())
        gone = [
            (atom_id, live[atom_id][:2])
            for atom_id, fp in written
            if fp not in fingerprints and atom_id in live and live[atom_id][2] not in holds[source]
        ]
        if not gone:
            continue
        standing = {fp for _, fp in written if fp in fingerprints}
        # Where each changed line sits, between which unchanged lines, then and now.
        was = sorted(
            [(line, ("gone", g), None) for g, (_, (line, _)) in enumerate(gone)]
            + [(live[i][0], ("kept", i), fp) for i, fp in written if fp in standing and i in live]
        )
        kept = {live[i][2] for i, _ in written if i in live}
        fresh = [
            i
            for i in new
            if candidates[i].source == source and said(candidates[i].text) not in kept
        ]
        changed = set(fresh)
        is_ = sorted(
            (c.line, ("new", i), None if i in changed else c.fingerprint())
            for i, c in enumerate(candidates)
            if c.source == source and (i in changed or c.fingerprint() in standing)
        )
        then = _slots([(tag, fp) for _, tag, fp in was])
        nowslots = _slots([(tag, fp) for _, tag, fp in is_])
        sims = _cosines(gone, fresh, texts, encode)
        pairs = []
        for n, i in enumerate(fresh):
            for g in range(len(gone)):
                sim = float(sims[n][g])
                if sim < near:
                    continue
                placed = nowslots[("new", i)] == then[("gone", g)]
                if placed or one_line(i, gone[g][1][1], sim):
                    pairs.append((sim, i, g))
        used: set[int] = set()
        for _, i, g in sorted(pairs, key=lambda p: -p[0]):
            if i in found or g in used:
                continue
            used.add(g)
            found[i] = Rewrite(gone[g][0], source)
        gone_all += [
            Gone(atom_id, source, line)
            for g, (atom_id, (line, _)) in enumerate(gone)
            if g not in used
        ]
    return found, gone_all


def _cosines(
    gone: Sequence[tuple[str, tuple[int, str]]],
    fresh: Sequence[int],
    texts: Sequence[str],
    encode: Encode,
) -> Any:
    """Cosines, new candidate × gone atom (the encoder's vectors are normalised)."""
    import numpy as np

    if not fresh:
        return np.zeros((0, len(gone)), dtype=np.float32)
    vectors = np.asarray(
        encode([texts[i] for i in fresh] + [text for _, (_, text) in gone]), dtype=np.float32
    )
    return vectors[: len(fresh)] @ vectors[len(fresh) :].T
