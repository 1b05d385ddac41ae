"""Run the audit: incoming atoms against the repository's other active atoms.

Post-merge only reports: it never blocks, edits or loses anything. The last report is kept
under `.memkit/audit/` for the next Claude Code session to mention.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from memkit.admission.decide import read_admitted
from memkit.atom import Atom
from memkit.audit.candidates import AuditSettings, find
from memkit.audit.classify import CONTRADICTS, DUPLICATE, RULES, UNRELATED
from memkit.audit.claude_judge import ClaudeJudge
from memkit.audit.judge import Judge
from memkit.audit.status import REPORT, Seen, full_audit_rules, read_report, unresolved_now
from memkit.audit.verdict import newer_of, text_of, verdict
from memkit.config import Config
from memkit.files import write_atomic
from memkit.git import output

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.index", "memkit.index.search"}


log = logging.getLogger(__name__)

__all__ = ["REPORT", "AuditSettings", "PairResult", "audit", "changed_paths", "compare"]


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
    found_by: str = ""  # the candidate sources that proposed the pair: vector, bm25, trigger
    # Which of the two is newer (`memkit.audit.verdict.newer_of`: the one reporting the
    # change, else the later `created`, else the incoming one): only the newer may be told to
    # supersede the older.
    newer: str = ""
    # The one value that changed (the other's, the incoming one's), when that is all.
    edit: tuple[str, ...] = ()


def changed_paths(root: Path, from_ref: str, to_ref: str) -> list[str]:
    """Atom files added, modified or renamed between two revisions (still present)."""
    out = output(root, "diff", "--name-only", "--diff-filter=AMR", "-z", from_ref, to_ref, "--")
    names = (out or "").split("\0")
    return [n for n in names if n and (root / n).is_file()]


def resolved(a: Any, b: Any) -> bool:
    return (
        b.id in a.supersedes
        or a.id in b.supersedes
        or b.id in a.superseded_by
        or a.id in b.superseded_by
        or not a.is_active
        or not b.is_active
    )


def audit(
    root: Path,
    incoming_paths: Sequence[str],
    config: Config,
    *,
    everything: bool = False,
    settings: AuditSettings | None = None,
) -> list[PairResult]:
    """Classify each incoming atom against its candidates among the live atoms."""
    from memkit.index import open_index, refresh

    refresh(root, quiet=True)
    reader = open_index(root)
    paths = [e["path"] for e in reader.atoms] if everything else list(incoming_paths)
    loader = _Loader(root, config, reader)
    # Retired atoms and episodic session summaries are not knowledge to compare.
    incoming = [
        a for p in paths if (a := loader(p)) is not None and a.scope not in ("archive", "episodic")
    ]
    return compare(
        root, incoming, config, settings=settings, loader=loader, reader=reader, judging=True
    )


@dataclass(frozen=True)
class IndexedAtom:
    """What the audit needs of an atom, from the index (refreshed from the working tree just
    before): parsing 10,000 files again would cost more than comparing them."""

    id: str
    path: str
    title: str
    body: str
    type: str
    scope: str
    status: str
    pending: bool
    triggers: tuple[str, ...]
    supersedes: tuple[str, ...]
    superseded_by: tuple[str, ...]
    created: str = ""

    @property
    def is_active(self) -> bool:
        return self.status == "active" and not self.pending

    def line_of(self, key: str) -> int:
        return 1


class _Loader:
    """Atoms by path, each read once: from the index when it holds them, else from the file
    (frontmatter as plain strings: the fast parse)."""

    def __init__(self, root: Path, config: Config, reader: Any = None) -> None:
        self.root = root
        self.config = config
        self.reader = reader
        self.refused = set(reader.skipped) if reader is not None else set()
        self.parsed: dict[str, Any] = {}

    def __call__(self, path: str) -> Any:
        if path not in self.parsed:
            self.parsed[path] = self._indexed(path) or self._read(path)
        return self.parsed[path]

    def _indexed(self, path: str) -> IndexedAtom | None:
        row = self.reader.row_of.get(path) if self.reader is not None else None
        if row is None:
            return None
        e = self.reader.atoms[row]
        return IndexedAtom(
            e["id"],
            e["path"],
            e["title"],
            self.reader.body(path),
            e["type"],
            e["scope"],
            e["status"],
            bool(e["pending"]),
            tuple(e["triggers"]),
            tuple(e["supersedes"]),
            tuple(e["superseded_by"]),
            str(e.get("created") or ""),
        )

    def _read(self, path: str) -> Atom | None:
        """A file the index does not hold: only when validation admits it (a refused one is
        never compared, so no report quotes it)."""
        if path in self.refused:
            return None
        full = self.root / path
        if not full.is_file():
            return None
        parsed, codes = read_admitted(self.root, path, self.config, fast=True)
        return None if codes else parsed.atom


def compare(
    root: Path,
    incoming: Sequence[Any],
    config: Config,
    *,
    settings: AuditSettings | None = None,
    loader: Any = None,
    reader: Any = None,
    judging: bool = False,
) -> list[PairResult]:
    """Classify `incoming` atoms (files or drafts not yet written) against their candidates
    among the live atoms of the index, which is refreshed first unless `reader` is given.
    `judging`: the pull audit or `--all`, where the Claude Code CLI may judge grey pairs;
    the write check (gate, add, MCP save, PostToolUse) must answer in a second."""
    if not incoming:
        return []
    settings = settings or AuditSettings.from_config(
        config.section("audit"), config.section("gate")
    )
    judge = Judge.from_config(config.section("audit"))
    if isinstance(judge, ClaudeJudge) and not judging:
        judge = None
    if reader is None:
        from memkit.index import open_index, refresh

        try:
            refresh(root, quiet=True)
        except OSError as exc:
            # A read-only or full disk must not stop a commit: compare against the index as
            # it stands (the gate's duplicate check does the same).
            log.warning("the index is not refreshed before the audit: %s", exc)
        reader = open_index(root)
    load = loader or _Loader(root, config, reader)
    found = find(reader, incoming, settings)
    texts: dict[str, str] = {}

    def text(atom: Any) -> str:
        if atom.path not in texts:
            texts[atom.path] = text_of(atom)
        return texts[atom.path]

    seen: set[frozenset[str]] = set()
    results: list[PairResult] = []
    for atom, candidates in zip(incoming, found, strict=True):
        triggers = {t.lower() for t in atom.triggers}
        for other_path, cand in candidates.items():
            pair = frozenset((atom.path, other_path))
            if pair in seen:
                continue
            other = load(other_path)
            if other is None or other.id == atom.id:
                continue
            seen.add(pair)
            judged = verdict(
                atom,
                other,
                similarity=cand.similarity,
                duplicate_at=settings.duplicate,
                related_at=settings.candidate_similarity,
                shared_triggers=len(triggers & {t.lower() for t in other.triggers}),
                texts=(text(atom), text(other)),
            )
            if judge is not None and judge.is_grey(judged, cand.similarity):
                judged = judge.settle(text(atom), text(other), judged)
            if judged.kind == UNRELATED:
                continue
            results.append(
                PairResult(
                    atom.id,
                    atom.path,
                    other.id,
                    other_path,
                    judged.kind,
                    judged.reason,
                    round(cand.similarity, 4),
                    resolved(atom, other),
                    "+".join(s for s in ("vector", "bm25", "trigger") if s in cand.sources),
                    (
                        newer_of(atom, other, (text(atom), text(other))).path
                        if judged.kind == CONTRADICTS
                        else atom.path
                    ),
                    judged.edit,
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
            newer, older = (
                (r.other_path, r.incoming)
                if r.newer == r.other_path
                else (r.incoming_path, r.other)
            )
            if len(r.edit) == 2:
                # One value changed: the older atom may say more than that line.
                was, now = r.edit if newer == r.incoming_path else r.edit[::-1]
                lines.append(
                    f"    resolve: if only {was} → {now} changed, edit that value where it is "
                    f"stated; or, if the newer one holds whole, add `supersedes: [{older}]` to "
                    f"{newer}, then `memkit validate --fix` marks the older one superseded"
                )
                continue
            lines.append(
                f"    resolve: if the newer one holds, add `supersedes: [{older}]` to {newer}, "
                "then `memkit validate --fix` marks the older one superseded"
            )
        else:
            lines.append("    resolve: keep one; archive the other or add `supersedes`")
    return "\n".join(lines)


def save_report(
    root: Path,
    results: Sequence[PairResult],
    incoming: int,
    refs: tuple[str, str] | None,
    *,
    audited: Sequence[str] | None = None,
) -> Path:
    """Write the report. Only contradictions and duplicates are kept (an `extends` pair needs
    nothing from anyone), and the unresolved pairs of earlier reports that this run did not
    look at again stay in it while they still stand: a pull that brings nothing new must not
    make a known conflict disappear."""
    path = root / REPORT
    unresolved = [asdict(r) for r in problems(results)]
    looked_at = set(audited or ())
    known = {(u["incoming_path"], u["other_path"]) for u in unresolved}
    # A run over every atom (`--all`) carries nothing over from the report before it.
    before = (read_report(root) or {}) if audited is not None else {}
    if audited is not None:
        earlier = before.get("unresolved", [])
        seen: Seen = {}
        for item in earlier if isinstance(earlier, list) else []:
            pair = (item.get("incoming_path"), item.get("other_path"))
            if (
                isinstance(item, dict)
                and not looked_at & set(pair)
                and pair not in known
                and unresolved_now(root, item, seen)
            ):
                unresolved.append(item)
                known.add(pair)
    data: dict[str, Any] = {
        "refs": list(refs) if refs else None,
        "incoming": incoming,
        "rules": RULES,
        # The rules the last audit of every atom (`--all`) ran with, carried over by pulls.
        "full_audit_rules": RULES if audited is None else full_audit_rules(before),
        "unresolved": unresolved,
        # Resolved pairs for the record; the unresolved ones are listed once, above.
        "resolved": [
            asdict(r) for r in results if r.kind in (CONTRADICTS, DUPLICATE) and r.resolved
        ],
        "counts": _counts(results),
    }
    write_atomic(path, json.dumps(data, ensure_ascii=False, indent=1) + "\n")
    return path


def _counts(results: Sequence[PairResult]) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in results:
        out[r.kind] = out.get(r.kind, 0) + 1
    return out
