"""Run the audit: incoming atoms against the repository's other active atoms.

Post-merge only reports: it never blocks, edits or loses anything. The last report is kept
under `.memkit/audit/` for the next Claude Code session to mention.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from memkit.atom import Atom
from memkit.atomfile import read_atom
from memkit.audit.classify import CONTRADICTS, DUPLICATE, UNRELATED, classify
from memkit.audit.judge import Judge
from memkit.config import Config
from memkit.files import write_atomic
from memkit.gate.duplicates import DEFAULT_DUPLICATE
from memkit.repo import list_atom_files
from memkit.vectors import atom_text, is_live, neighbours

REPORT = ".memkit/audit/last.json"


@dataclass(frozen=True)
class AuditSettings:
    candidate_similarity: float = 0.75
    duplicate: float = DEFAULT_DUPLICATE
    neighbours: int = 5

    @classmethod
    def from_config(cls, audit: Mapping[str, Any], gate: Mapping[str, Any]) -> AuditSettings:
        def num(section: Mapping[str, Any], key: str, default: float) -> float:
            value = section.get(key, default)
            return float(value) if isinstance(value, (int, float)) else default

        return cls(
            num(audit, "candidate_similarity", 0.75),
            num(gate, "duplicate", DEFAULT_DUPLICATE),
            int(num(audit, "neighbours", 5)),
        )


@dataclass(frozen=True)
class PairResult:
    incoming: str  # atom id
    incoming_path: str
    other: str
    other_path: str
    kind: str
    reason: str
    similarity: float
    resolved: bool


def changed_paths(root: Path, from_ref: str, to_ref: str) -> list[str]:
    """Atom files added, modified or renamed between two revisions (still present)."""
    result = subprocess.run(
        ["git", "diff", "--name-only", "--diff-filter=AMR", "-z", from_ref, to_ref, "--"],
        cwd=root,
        capture_output=True,
        check=False,
    )
    if result.returncode != 0:
        return []
    names = result.stdout.decode("utf-8", "surrogateescape").split("\0")
    return [n for n in names if n and (root / n).is_file()]


def _resolved(a: Atom, b: Atom) -> bool:
    return (
        b.id in a.supersedes
        or a.id in b.supersedes
        or b.id in a.superseded_by
        or a.id in b.superseded_by
        or not a.is_active
        or not b.is_active
    )


def audit(
    root: Path, incoming_paths: Sequence[str], config: Config, *, everything: bool = False
) -> list[PairResult]:
    """Classify each incoming atom against its candidates among the live atoms."""
    import numpy as np  # noqa: PLC0415

    settings = AuditSettings.from_config(config.section("audit"), config.section("gate"))
    judge = Judge.from_config(config.section("audit"))
    paths = list_atom_files(root) if everything else list(incoming_paths)
    incoming = [
        a
        for p in paths
        if (root / p).is_file()
        and (a := read_atom(root, p, config).atom) is not None
        and a.scope != "archive"
    ]
    if not incoming:
        return []
    near, reader = neighbours(
        root, incoming, floor=settings.candidate_similarity, limit=settings.neighbours
    )
    # Only incoming atoms and their candidates are parsed, never the whole repository.
    parsed: dict[str, Atom | None] = {a.path: a for a in incoming}

    def load(path: str) -> Atom | None:
        if path not in parsed:
            parsed[path] = read_atom(root, path, config).atom
        return parsed[path]

    seen: set[frozenset[str]] = set()
    results: list[PairResult] = []
    for atom in incoming:
        candidates: dict[str, float | None] = {n.path: n.similarity for n in near[atom.path]}
        triggers = {t.lower() for t in atom.triggers}
        if triggers:
            for entry in reader.atoms:
                if is_live(entry) and triggers & {t.lower() for t in entry["triggers"]}:
                    candidates.setdefault(entry["path"], None)
        for other_path, known in candidates.items():
            pair = frozenset((atom.path, other_path))
            if other_path == atom.path or pair in seen:
                continue
            other = load(other_path)
            if other is None or other.id == atom.id:
                continue
            seen.add(pair)
            similarity = known
            if similarity is None:  # found by a shared trigger: measure it
                vecs = reader.encoder.encode([atom_text(atom), atom_text(other)])
                similarity = float(np.dot(vecs[0], vecs[1]))
            shared = len(triggers & {t.lower() for t in other.triggers})
            verdict = classify(
                atom_text(atom),
                atom_text(other),
                similarity=similarity,
                duplicate_at=settings.duplicate,
                related_at=settings.candidate_similarity,
                shared_triggers=shared,
            )
            if judge is not None and judge.is_grey(verdict, similarity):
                verdict = judge.settle(atom_text(atom), atom_text(other), verdict)
            if verdict.kind == UNRELATED:
                continue
            results.append(
                PairResult(
                    atom.id,
                    atom.path,
                    other.id,
                    other_path,
                    verdict.kind,
                    verdict.reason,
                    round(similarity, 4),
                    _resolved(atom, other),
                )
            )
    return results


def problems(results: Sequence[PairResult]) -> list[PairResult]:
    return [r for r in results if r.kind in (CONTRADICTS, DUPLICATE) and not r.resolved]


def format_report(results: Sequence[PairResult], incoming: int) -> str:
    open_ = problems(results)
    contradictions = sum(r.kind == CONTRADICTS for r in open_)
    duplicates = sum(r.kind == DUPLICATE for r in open_)
    lines = [
        f"memkit audit: {contradictions} unresolved contradiction(s), {duplicates} "
        f"duplicate(s) among {incoming} incoming atom(s)"
    ]
    for r in open_:
        lines.append(f"  {r.kind.upper()} {r.incoming_path} <-> {r.other_path}: {r.reason}")
        if r.kind == CONTRADICTS:
            lines.append(
                f"    resolve: add `supersedes: [{r.other}]` to {r.incoming_path} "
                f"(or `supersedes: [{r.incoming}]` to {r.other_path})"
            )
        else:
            lines.append("    resolve: keep one; archive the other or add `supersedes`")
    return "\n".join(lines)


def save_report(
    root: Path, results: Sequence[PairResult], incoming: int, refs: tuple[str, str] | None
) -> Path:
    path = root / REPORT
    data = {
        "refs": list(refs) if refs else None,
        "incoming": incoming,
        "unresolved": [asdict(r) for r in problems(results)],
        "pairs": [asdict(r) for r in results],
    }
    write_atomic(path, json.dumps(data, ensure_ascii=False, indent=1) + "\n")
    return path
