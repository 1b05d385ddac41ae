"""`memkit drift`: every live atom of a memory, held against a code project.

The atoms' claims are read once per file version (cached by modification time and size in
`.memkit/drift/claims.json`, so a second run stats the files and reads none); the project is
read from git (`memkit.drift.tree`); `memkit.drift.check.check` gives each claim its verdict.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from memkit.atom import scope_from_path
from memkit.atom.plain import read_strings
from memkit.drift.check import STALE, BasePast, ChainPast, HistoryPast, Past, Verdict, check
from memkit.drift.claims import Claim, claim_of, claims_of
from memkit.drift.say import describe
from memkit.drift.tree import History, Tree, history_cache
from memkit.errors import MemkitError
from memkit.files import write_atomic
from memkit.git import output, run
from memkit.repo import list_atom_files

log = logging.getLogger(__name__)
CLAIMS_CACHE = ".memkit/drift/claims.json"
CLAIMS_FORMAT = 1


@dataclass(frozen=True)
class AtomClaims:
    id: str
    path: str  # the atom file, in the memory repository
    claims: tuple[Claim, ...]
    stamp: tuple[int, int] = (0, 0)  # the file's mtime (ns) and size when read


@dataclass
class AtomDrift:
    id: str
    path: str
    stamp: tuple[int, int]
    verdicts: list[Verdict]

    @property
    def stale(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.state in STALE]


@dataclass
class Report:
    project: Path
    commit: str | None  # the project's commit checked (None: a tree not committed yet)
    base: str | None = None  # --base: the commit compared with
    atoms: list[AtomDrift] = field(default_factory=list)
    checked: int = 0  # live atoms read
    seconds: float = 0.0

    @property
    def stale(self) -> list[AtomDrift]:
        return [a for a in self.atoms if a.stale]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for atom in self.atoms:
            for verdict in atom.verdicts:
                out[verdict.state] = out.get(verdict.state, 0) + 1
        return out


def _live(relpath: str, meta: Mapping[str, object] | None) -> bool:
    """Served by recall: active, reviewed, not archived or superseded, not a summary."""
    place = scope_from_path(relpath)
    if place is None or place[1] or place[0] in ("archive", "episodic"):
        return False
    status = meta.get("status") if meta else None
    return (not status or status == "active") and not (meta or {}).get("superseded_by")


def _read_one(path: str, relpath: str) -> tuple[str, bool, list[Claim]] | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:  # noqa: PTH123
            text = fh.read(200_000)
    except OSError:
        return None
    meta = None
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end > 0:
            meta = read_strings(text[4:end])
    atom_id = str((meta or {}).get("id") or Path(relpath).stem)
    live = _live(relpath, meta)
    return atom_id, live, claims_of(text) if live else []


def read_claims(root: Path) -> list[AtomClaims]:
    """The claims of every live atom of the working tree (sorted by path)."""
    cache_path = root / CLAIMS_CACHE
    try:
        loaded = json.loads(cache_path.read_text(encoding="utf-8"))
        cached = loaded.get("files", {}) if loaded.get("format") == CLAIMS_FORMAT else {}
    except (OSError, ValueError, AttributeError):
        cached = {}
    fresh: dict[str, list[object]] = {}
    out: list[AtomClaims] = []
    missed = 0
    base = os.fspath(root)
    for relpath in list_atom_files(root):
        path = os.path.join(base, relpath)  # noqa: PTH118  (10,000 of them: plain strings)
        try:
            st = os.stat(path)  # noqa: PTH116
        except OSError:
            continue
        stamp = [st.st_mtime_ns, st.st_size]
        hit = cached.get(relpath)
        claims: tuple[Claim, ...] | None = None
        if isinstance(hit, list) and len(hit) == 4 and hit[0] == stamp:
            try:
                claims = tuple(claim_of(c) for c in hit[3])
                entry = hit
            except (TypeError, ValueError):  # a cache of another memkit: read the file again
                claims = None
        if claims is None:
            missed += 1
            read = _read_one(path, relpath)
            if read is None:
                continue
            claims = tuple(read[2])
            entry = [stamp, read[0], read[1], [c.as_list() for c in claims]]
        fresh[relpath] = entry
        if entry[2]:
            out.append(AtomClaims(str(entry[1]), relpath, claims, (stamp[0], stamp[1])))
    if (missed or len(fresh) != len(cached)) and (root / ".memkit").is_dir():
        try:
            text = json.dumps({"format": CLAIMS_FORMAT, "files": fresh}, ensure_ascii=False)
            write_atomic(cache_path, text, durable=False, mode=0o600)
        except OSError as exc:
            log.info("the drift claims cache was not written (%s)", exc)
    return out


def project_root(project: Path) -> Path:
    top = output(project, "rev-parse", "--show-toplevel")
    if top is None:
        raise MemkitError(
            f"{project} is not in a git repository: drift checks a code project's git tree"
        )
    return Path(top)


def check_atoms(atoms: list[AtomClaims], tree: Tree, past: Past) -> list[AtomDrift]:
    """Each atom's verdicts, checking each distinct claim once."""
    verdicts = check([c for a in atoms for c in a.claims], tree, past)
    # Each stale claim in words once, however many atoms state it (masking costs ~0.1 ms).
    said = {claim: describe(v) for claim, v in verdicts.items() if v.stale}
    out: list[AtomDrift] = []
    for atom in atoms:
        mine = []
        for claim in atom.claims:
            bare = claim.bare
            found = verdicts[bare]
            mine.append(
                Verdict(
                    claim,
                    found.state,
                    found.now,
                    found.file,
                    found.line,
                    found.since,
                    found.why,
                    said.get(bare, ""),
                )
            )
        out.append(AtomDrift(atom.id, atom.path, atom.stamp, mine))
    return out


def drift(
    memory: Path,
    project: Path,
    *,
    rev: str = "HEAD",
    staged: bool = False,
    base: str | None = None,
    atoms: list[AtomClaims] | None = None,
) -> Report:
    """Check the live atoms of `memory` against `project` at `rev` (or its staged tree), or,
    with `base`, only what the change from `base` to `rev` makes stale."""
    started = time.perf_counter()
    top = project_root(project)
    atoms = read_claims(memory) if atoms is None else atoms
    if staged:
        tree = Tree.staged(top)
        if tree.commit is not None:  # what the commit being made renames
            tree.renames = _renames(top, tree.commit, tree.tree)
    else:
        if output(top, "rev-parse", "--verify", "--quiet", f"{rev}^{{tree}}") is None:
            raise MemkitError(f"{top} has no commit {rev!r} to check")
        tree = Tree.at(top, rev)
    past: Past
    base_commit = None
    if base is not None:
        point = output(top, "merge-base", base, rev)
        if point is None:
            raise MemkitError(
                f"{top}: no common ancestor of {base!r} and {rev!r} (fetch the base with its "
                "history)"
            )
        base_commit = point
        tree.renames = _renames(top, point, tree.tree)
        past = BasePast(Tree.at(top, point))
    else:
        history = History(tree, history_cache(memory, top))
        past = HistoryPast(history, history_cache(memory, top, "verdicts"))
        if staged and tree.commit is not None:
            past = ChainPast(BasePast(Tree.at(top, tree.commit)), past)
    report = Report(top, tree.commit if not staged else None, base_commit)
    report.atoms = check_atoms(atoms, tree, past)
    report.checked = len(atoms)
    report.seconds = time.perf_counter() - started
    return report


def _renames(top: Path, base: str, tree: str) -> dict[str, str]:
    listed = run(
        top,
        "-c",
        "core.quotePath=false",
        "diff-tree",
        "-r",
        "-M",
        "--name-status",
        "-z",
        base,
        tree,
    )
    parts = listed.decode("utf-8", "surrogateescape").split("\0")
    out: dict[str, str] = {}
    i = 0
    while i < len(parts):
        status = parts[i]
        if status.startswith(("R", "C")) and i + 2 < len(parts):
            if status.startswith("R"):
                out[parts[i + 1]] = parts[i + 2]
            i += 3
        else:
            i += 2
    return out
