"""Writing what an import found, through the checks `memkit add` runs.

Every candidate is checked by `memkit.add.check_drafts` (the checks of `memkit add`) against
the repository as it stands before the import (score, duplicates of existing atoms,
contradictions, secrets, roles, review routing), all in one batch, then everything nothing
refused is written with `memkit.add.write_outcome`. Checking all first keeps a dry run
exactly the real run, an import of thousands of rules from rewriting the index after each
one, and the checks' fixed costs (identity, ids, index freshness) paid once per import.

Before a candidate reaches the checks, this module settles what only an import can know: the
same text twice in the sources (exactly, or as close as the gate calls a duplicate), what an
earlier import already wrote (the fingerprint in each atom's `source:`), an ADR that changed
since it was imported, and the ids supersession links point at (older records first).
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from memkit.add import AddOutcome, Draft, check_drafts, write_outcome
from memkit.atom.read import read_atom
from memkit.atom.text import plain_text
from memkit.atom.title import title_of
from memkit.audit.text import statement_text
from memkit.audit.verdict import CONTRADICTS, DUPLICATE, verdict
from memkit.audit.write import PENDING
from memkit.config import Config, load_config
from memkit.embedding.usercache import model_cache_dir
from memkit.errors import MemkitError
from memkit.gate.duplicates import DuplicateSettings, words_agree
from memkit.importers import SKIPS, SOURCE_RE, Candidate, Collected, Unimported
from memkit.importers.rewrites import Gone, Rewrite, rewrites, said
from memkit.repo import list_atom_files
from memkit.roles import sensitive_kinds
from memkit.safety.private import strip_private
from memkit.safety.secrets import redact_secrets

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.embedding.encoder", "numpy"}


_FINDING = re.compile(r"^.*?:\d+:\d+: (MK\d+) (warning: )?(.*)$")


@dataclass
class Outcome:
    """What became of one candidate."""

    source: str  # path:line
    action: str  # write | review | refuse | skip
    reason: str = ""  # why it was refused or skipped: a finding code or an import reason
    message: str = ""
    path: str = ""
    id: str = ""
    title: str = ""
    type: str = ""
    notes: tuple[str, ...] = ()
    warnings: list[str] = field(default_factory=list)
    replaces: str = ""  # the atom of the line this one rewrites (`memkit.importers.rewrites`)

    def as_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v or k in ("source", "action")}


@dataclass
class ImportReport:
    format: str
    dry_run: bool
    files: int
    outcomes: list[Outcome] = field(default_factory=list)
    unimported: list[Unimported] = field(default_factory=list)
    # Atoms whose line their file no longer holds and no new line rewrote: (id, file:line).
    gone: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, action: str) -> int:
        return sum(o.action == action for o in self.outcomes)

    @property
    def replacing(self) -> int:
        """Atoms written (or sent to review) in place of a line their file changed."""
        return sum(o.action in ("write", "review") and bool(o.replaces) for o in self.outcomes)

    def reasons(self, action: str) -> Counter[str]:
        return Counter(o.reason for o in self.outcomes if o.action == action)

    def as_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "dry_run": self.dry_run,
            "files": self.files,
            "candidates": len(self.outcomes),
            "written": self.count("write") + self.count("review"),
            "for_review": self.count("review"),
            "replacing": self.replacing,
            "refused": dict(sorted(self.reasons("refuse").items())),
            "skipped": dict(sorted(self.reasons("skip").items())),
            "unimported": [u.__dict__ for u in self.unimported],
            "no_longer_in_file": [{"id": i, "source": w} for i, w in self.gone],
            "seconds": round(self.seconds, 3),
            "outcomes": [o.as_json() for o in self.outcomes],
        }


@dataclass
class _Existing:
    """What earlier imports wrote, from the `source:` of every atom in the repository."""

    by_fingerprint: dict[str, str] = field(default_factory=dict)  # fingerprint → id
    by_source: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # file → (id, fp)
    projects_of: dict[str, set[str]] = field(default_factory=dict)  # title → projects
    # Live imported atoms nothing supersedes yet: id → (line it came from, its text, `said`).
    live: dict[str, tuple[int, str, str]] = field(default_factory=dict)
    reviewed: set[str] = field(default_factory=set)  # live sensitive atoms of shared/

    @classmethod
    def read(cls, root: Path, config: Config) -> _Existing:
        out = cls()
        replaced: set[str] = set()
        sensitive = sensitive_kinds(config)
        for relpath in list_atom_files(root):
            atom = read_atom(root, relpath, config, fast=True).atom
            if atom is not None and atom.is_active:
                out.projects_of.setdefault(atom.title.lower(), set()).add(atom.project)
                replaced.update(atom.supersedes)
                if atom.type in sensitive and relpath.startswith("shared/"):
                    out.reviewed.add(atom.id)
            m = SOURCE_RE.match(atom.source) if atom is not None else None
            if atom is None or m is None:
                continue
            out.by_fingerprint.setdefault(m["hash"], atom.id)
            out.by_source.setdefault(m["path"], []).append((atom.id, m["hash"]))
            # One waiting for review is replaced too: its line is what the file said then.
            if atom.status == "active" and not atom.superseded_by:
                text = statement_text(atom.title, atom.body)
                # An import writes the title as the body's first line, then the text.
                head, _, rest = atom.body.lstrip().partition("\n")
                body = rest if head.startswith("# ") else atom.body
                out.live[atom.id] = (int(m["line"]), text, said(body))
        for atom_id in replaced:
            out.live.pop(atom_id, None)
        return out

    def named(self, key: str) -> str | None:
        """The id of the one atom imported from `key` (a source file, or `file:<name>`)."""
        if key.startswith("file:"):
            name = key[5:]
            ids = [
                i
                for path, found in self.by_source.items()
                if path.rsplit("/", 1)[-1] == name
                for i, _ in found
            ]
        else:
            ids = [i for i, _ in self.by_source.get(key, [])]
        return ids[0] if len(set(ids)) == 1 else None


def _ordered(candidates: Sequence[Candidate]) -> list[Candidate]:
    """Superseded records before the records that supersede them (so that `supersedes` names
    an atom that exists), otherwise in the order read."""
    by_source = {c.source: c for c in candidates if c.format == "adr"}
    done: set[int] = set()
    out: list[Candidate] = []

    def visit(cand: Candidate, path: tuple[str, ...]) -> None:
        if id(cand) in done or cand.source in path:
            return
        for key in cand.supersedes:
            older = by_source.get(key)
            if older is not None:
                visit(older, (*path, cand.source))
        done.add(id(cand))
        out.append(cand)

    for cand in candidates:
        visit(cand, ())
    return out


def shown(text: str) -> str:
    """Text fit to print or log: no `<private>` block, no secret value."""
    return redact_secrets(strip_private(text, "[private]"))


def _gate_text(cand: Candidate) -> str:
    return plain_text(cand.title or "", said(cand.text))


def _encoder(root: Path, config: Config) -> Callable[[list[str]], Any]:
    """The gate's encoder, loaded on first use (an import of known lines needs none)."""
    loaded: list[Any] = []

    def encode(texts: list[str]) -> Any:
        if not loaded:
            from memkit.embedding import load_encoder

            cache = model_cache_dir(root)
            loaded.append(load_encoder(config.embedding_model, cache_dir=cache, base=root))
        return loaded[0].encode(texts)

    return encode


def _near_duplicates(
    candidates: Sequence[Candidate], config: Config, encode: Callable[[list[str]], Any]
) -> dict[int, tuple[int, float]]:
    """For each candidate (by position) an earlier one it duplicates, with the cosine: what the
    gate calls a duplicate (its threshold, its encoder, long texts sharing their words)."""
    if len(candidates) < 2:
        return {}
    import numpy as np

    threshold = DuplicateSettings.from_config(config.section("gate")).duplicate
    texts = [_gate_text(c) for c in candidates]
    vectors = np.asarray(encode(texts), dtype=np.float32)
    found: dict[int, tuple[int, float]] = {}
    block = 1024
    for start in range(0, len(candidates), block):
        rows = vectors[start : start + block]
        sims = rows @ vectors[: start + len(rows)].T
        for r in range(len(rows)):
            i = start + r
            for j in np.flatnonzero(sims[r, :i] >= threshold)[::-1]:
                sim = float(sims[r, j])
                if words_agree(texts[i], texts[int(j)]) and _same(
                    candidates[i], candidates[int(j)], sim
                ):
                    found[i] = (int(j), sim)
                    break
    return found


def _same(a: Candidate, b: Candidate, similarity: float) -> bool:
    """Whether two close candidates are one thing said twice, as the gate calls a copy
    (MK103): not when one replaces the other, not when they differ in a value (a change,
    which the contradiction check is for), not when they say one thing of two subjects (two
    packages' test commands side by side), and not when they are only very close: two lines
    one file holds at once are most often two of its rules (`cargo bench` of the lexer and of
    the parser), which `benchmarks/reimport_bench.py` counts on real files."""
    if a.source in b.supersedes or b.source in a.supersedes:
        return False

    judged = verdict(
        statement_text(a.title or "", a.text),
        statement_text(b.title or "", b.text),
        similarity=similarity,
    )
    return judged.kind == DUPLICATE


def _refusal(findings: Sequence[str]) -> tuple[str, str, list[str]]:
    """(code, message) of the first error among the checks' formatted findings, and the
    warnings."""
    code, message, warnings = "", "", []
    for line in findings:
        m = _FINDING.match(line)
        if m is None:
            continue
        if m.group(2):
            warnings.append(f"{m.group(1)} {m.group(3)}")
        elif not code:
            code, message = m.group(1), m.group(3)
    return code, message, warnings


def _scoped(
    candidates: Sequence[Candidate], existing: _Existing, root: Path, project: str | None
) -> list[Candidate]:
    """Each candidate with the project it is about (`project`: the user's choice for all,
    '' for none; None: the code project each file belongs to, never the memory repository
    itself), its title naming that project when another project has the same title."""

    own = root.resolve().name
    out = []
    for cand in candidates:
        name = cand.project if project is None else project
        out.append(replace(cand, project="" if name == own and project is None else name))
    titles = [c.title or title_of(c.text) for c in out]
    projects = {k: set(v) for k, v in existing.projects_of.items()}
    for cand, title in zip(out, titles, strict=True):
        if not cand.refusal:
            projects.setdefault(title.lower(), set()).add(cand.project)
    return [
        replace(cand, title=f"{title} ({cand.project})")
        if cand.project and not cand.refusal and len(projects.get(title.lower(), ())) > 1
        else cand
        for cand, title in zip(out, titles, strict=True)
    ]


def _rewritten(
    candidates: Sequence[Candidate],
    existing: _Existing,
    config: Config,
    encode: Callable[[list[str]], Any],
    near: dict[int, tuple[int, float]],
) -> tuple[dict[int, Rewrite], list[Gone]]:
    """Lines of files imported before that changed since (`memkit.importers.rewrites`)."""
    fresh = [
        n
        for n, c in enumerate(candidates)
        if c.format != "adr"
        and not c.refusal
        and n not in near
        and c.fingerprint() not in existing.by_fingerprint
    ]
    return rewrites(
        candidates,
        by_source=existing.by_source,
        live=existing.live,
        new=fresh,
        texts=[_gate_text(c) for c in candidates],
        encode=encode,
        near=DuplicateSettings.from_config(config.section("gate")).near,
        one_line=lambda i, old, sim: _one_line(candidates[i], old, sim),
    )


def _one_line(cand: Candidate, old: str, similarity: float) -> bool:
    """Whether the verdict reads a candidate and an old atom's text as one line changed: a
    copy, a value changed, a detail or a subject substituted (`memkit.audit.verdict`), not
    two lines on one subject."""
    judged = verdict(statement_text(cand.title or "", cand.text), old, similarity=similarity)
    return judged.kind in (DUPLICATE, CONTRADICTS) or judged.near or judged.quiet


def run_import(
    root: Path,
    collected: Collected,
    fmt: str,
    *,
    scope: str = "shared",
    dry_run: bool = False,
    config: Config | None = None,
    project: str | None = None,
) -> ImportReport:
    """Check every candidate as `memkit add` would and write those nothing refuses."""
    started = time.perf_counter()
    config = config or load_config(root)
    unimported = [
        Unimported(shown(u.source), u.reason, shown(u.message)) for u in collected.unimported
    ]
    report = ImportReport(fmt, dry_run, collected.files, unimported=unimported)
    existing = _Existing.read(root, config)
    candidates = _scoped(_ordered(collected.candidates), existing, root, project)
    encode = _encoder(root, config)
    near = _near_duplicates(candidates, config, encode)
    rewritten = _rewritten(candidates, existing, config, encode, near)
    report.gone = [(g.id, shown(f"{g.source}:{g.line}")) for g in rewritten[1]]
    seen: dict[str, Candidate] = {}
    checks = _Checks(root, config, scope, existing.reviewed)
    for n, cand in enumerate(candidates):
        out = Outcome(
            shown(cand.where),
            "refuse",
            title=shown(cand.title or ""),
            type=cand.type,
            notes=tuple(shown(n) for n in cand.notes),
        )
        report.outcomes.append(out)
        normal = said(cand.text)
        known = existing.by_fingerprint.get(cand.fingerprint())
        changed = cand.format == "adr" and existing.named(cand.source)
        if cand.refusal:
            out.reason, out.message = cand.refusal, cand.refusal_message
            if cand.refusal in SKIPS:
                out.action = "skip"
        elif known:
            out.action, out.reason, out.id = "skip", "already-imported", known
            out.message = f"already imported as `{known}`"
            checks.written[cand.source] = known
        elif changed:
            out.action, out.reason, out.id = "skip", "changed-since-import", changed
            out.message = (
                f"changed since it was imported as `{changed}`: edit that atom "
                "(or delete it and import again)"
            )
            checks.written[cand.source] = changed
        elif normal in seen:
            out.reason = "duplicate-in-import"
            out.message = f"says the same as {seen[normal].where}"
        elif n in near:
            j, sim = near[n]
            out.reason = "duplicate-in-import"
            out.message = f"duplicate of {candidates[j].where} (similarity {sim:.3f})"
        else:
            checks.add(cand, out, existing, rewritten[0].get(n))
        seen.setdefault(normal, cand)
    checks.flush()
    if not dry_run:
        for out, result in checks.accepted:
            try:
                write_outcome(root, result)
            except MemkitError as exc:  # a file that appeared meanwhile is never overwritten
                out.action, out.reason, out.message = "refuse", "error", shown(str(exc))
    report.seconds = time.perf_counter() - started
    return report


class _Checks:
    """Candidates checked together with `memkit.add.check_drafts`: the checks' fixed costs
    (identity, ids, index freshness, the audit's set-up) are paid once per batch, not per
    candidate, so an import takes as long in a large memory as in an empty one. A batch ends
    early only where an ADR supersedes a record of the same batch: its link needs the id
    the older one got (and is left out, with a note, when that one was refused)."""

    def __init__(self, root: Path, config: Config, scope: str, reviewed: set[str]) -> None:
        self.root, self.config, self.scope = root, config, scope
        self.written: dict[str, str] = {}  # ADR source → id written (or to be) in this run
        self.planned: set[str] = set()  # ids handed out in this run
        self.accepted: list[tuple[Outcome, AddOutcome]] = []
        self.waiting: list[tuple[Candidate, Outcome, Draft]] = []
        self.reviewed = reviewed  # replacing one of these waits for review

    def add(
        self, cand: Candidate, out: Outcome, existing: _Existing, rewrite: Rewrite | None
    ) -> None:
        if cand.supersedes and any(c.source in cand.supersedes for c, _, _ in self.waiting):
            self.flush()
        supersedes: list[str] = []
        notes = list(cand.notes)
        if rewrite is not None:
            supersedes.append(rewrite.old_id)
            out.replaces = rewrite.old_id
            notes.append(f"replaces `{rewrite.old_id}`: its line in {rewrite.source} changed")
        for key in cand.supersedes:
            target = self.written.get(key) or existing.named(key)
            if target:
                supersedes.append(target)
            else:
                old = key.removeprefix("file:")
                notes.append(f"supersedes {old}, which was not imported: link left out")
        out.notes = tuple(shown(n) for n in notes)
        draft = Draft(
            text=cand.text,
            type=cand.type,
            confidence=cand.confidence,
            scope=self.scope,
            title=cand.title,
            supersedes=tuple(dict.fromkeys(supersedes)),
            paths=cand.paths,
            status=cand.status,
            created=cand.created,
            source=cand.source_value(),
            project=cand.project,
            triggers=cand.triggers,
        )
        self.waiting.append((cand, out, draft))

    def _reviewed_contradicted(self, result: AddOutcome) -> str:
        """The id of a reviewed atom (a live decision or architecture record in shared/)
        that this candidate contradicts, or ""."""
        sensitive = sensitive_kinds(self.config)
        for conflict in result.let_in:
            if not conflict.other_path.startswith("shared/") or conflict.other_path.startswith(
                f"{PENDING}/"
            ):
                continue
            other = read_atom(self.root, conflict.other_path, self.config).atom
            if other is not None and other.type in sensitive and other.is_active:
                return str(conflict.other_id)
        return ""

    def flush(self) -> None:
        waiting, self.waiting = self.waiting, []
        if not waiting:
            return
        try:
            results = check_drafts(
                self.root, [d for _, _, d in waiting], config=self.config, reserved=self.planned
            )
        except MemkitError as exc:
            for _, out, _ in waiting:
                out.reason, out.message = "error", shown(str(exc))
            return
        for (cand, out, _), result in zip(waiting, results, strict=True):
            out.path, out.id = result.path, result.id
            self.planned.add(result.id)
            if not out.title:
                out.title = shown(result.content.split("\n# ", 1)[-1].split("\n", 1)[0])
            code, message, out.warnings = _refusal(result.findings)
            if result.errors:
                out.reason, out.message = code or "refused", message
                continue
            replaces = out.replaces if out.replaces in self.reviewed else ""
            reviewed = self._reviewed_contradicted(result) or replaces
            if reviewed and not result.pending_review:
                # An imported line never goes live against a decision the team reviewed: it
                # waits for review with the reason, whoever runs the import.
                result.path = f"{PENDING}/{Path(result.path).name}"
                result.pending_review = True
                out.path = result.path
            if reviewed:
                how = "replaces" if reviewed == replaces else "contradicts"
                out.notes = (*out.notes, f"{how} reviewed `{reviewed}`: sent to review")
            elif result.pending_review and result.review_reason:
                out.notes = (*out.notes, f"sent to review: {result.review_reason}")
            out.action = "review" if result.pending_review else "write"
            self.accepted.append((out, result))
            if cand.format == "adr":
                self.written[cand.source] = out.id
