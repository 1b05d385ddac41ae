"""Supersession hygiene: when a live atom declares `supersedes: [X]`, X should say so too.

X left `status: active` is still served wherever the newer atom is not among the candidates
(a path match, the session index, another prompt). `memkit validate --fix` sets
`status: superseded` and adds the newer id to `superseded_by` on X, keeping the rest of the
file as it is; validate warns about each such pair (MK023) until then.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from memkit.atom.write import update_frontmatter
from memkit.lifecycle.catalog import Entry

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"ruamel.yaml.comments"}


@dataclass(frozen=True)
class Unmarked:
    newer: Entry
    older: Entry


def unmarked(entries: Iterable[Entry], only: set[str] | None = None) -> list[Unmarked]:
    """Pairs where a live atom supersedes one still active; `only`: newer atoms' paths."""
    entries = list(entries)
    by_id: dict[str, Entry] = {}
    for entry in entries:
        by_id.setdefault(entry.id, entry)
    out = []
    for newer in entries:
        if not newer.is_live or (only is not None and newer.path not in only):
            continue
        for old_id in newer.supersedes:
            older = by_id.get(old_id)
            if (
                older is not None
                and older is not newer
                and older.status == "active"
                and older.scope != "archive"
            ):
                out.append(Unmarked(newer, older))
    return out


def mark_superseded(root: Path, pairs: Iterable[Unmarked]) -> list[tuple[str, list[str]]]:
    """Apply: (path, newer ids) for each atom marked."""
    from ruamel.yaml.comments import CommentedSeq

    newer_of: dict[str, list[str]] = {}
    older_of: dict[str, Entry] = {}
    for pair in pairs:
        newer_of.setdefault(pair.older.path, []).append(pair.newer.id)
        older_of[pair.older.path] = pair.older
    done = []
    for path, newer in sorted(newer_of.items()):
        ids = list(dict.fromkeys([*older_of[path].superseded_by, *newer]))
        seq = CommentedSeq(ids)
        seq.fa.set_flow_style()  # `superseded_by: [a, b]`, as atoms write lists
        update_frontmatter(root / path, {"status": "superseded", "superseded_by": seq})
        done.append((path, newer))
    return done
