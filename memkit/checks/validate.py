"""`memkit validate` / hook `memkit-validate`: format and references of atoms.

With no files it checks the whole repository; with files (as pre-commit passes them) it
checks those, still resolving references against every atom in the working tree.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from memkit.admission.decide import reference_findings, supersede_cycle
from memkit.atom import PENDING_DIR, id_from_path, is_atom_path
from memkit.atom.read import ParsedAtom, read_atom
from memkit.config import Config, load_config
from memkit.errors import MemkitError, UsageError
from memkit.findings import Finding, Severity
from memkit.index.verdicts import Summary, Verdict, Verdicts, judge, summary_of
from memkit.parallel import in_halves
from memkit.repo import list_atom_files, relpath_in
from memkit.roles import Identity, identify, sensitive_kinds
from memkit.safety.secrets import redact_secrets

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.index.manifest"}


MEMORY_INDEX = "MEMORY.md"
PARALLEL_ATOMS = 2000  # from this many atoms to check, a second process takes half


class _Repo:
    """Every atom path in the working tree; each file judged at most once, by its kept
    verdict (`memkit.index.verdicts`) when its blob was judged before under the same code
    and settings."""

    def __init__(
        self, root: Path, config: Config, *, kept: bool = True, identity: Identity | None = None
    ) -> None:
        from memkit.index.manifest import current_manifest

        self.root = root
        self.config = config
        self.paths = list_atom_files(root)
        self.by_id: dict[str, list[str]] = defaultdict(list)
        for path in self.paths:
            self.by_id[id_from_path(path)].append(path)
        self._parsed: dict[str, ParsedAtom] = {}
        self._verdicts: dict[str, Verdict] = {}
        self._summaries: dict[str, Summary | None] = {}
        self.graph: dict[str, set[str]] | None = None
        # Verdicts are kept only where `.memkit/` exists: in a fresh clone (CI's checkout)
        # there are none to read nor anywhere to keep them, and no manifest is needed.
        kept = kept and (root / ".memkit").is_dir()
        # A symlink's blob is its target's name, not the text read through it: judged anew.
        self.blobs = current_manifest(root) if kept else {}
        self.kept = Verdicts(root, config) if kept else None
        self.identity = identity

    def who(self) -> Identity:
        """Who the hints speak to: given (CI's pull-request author), else the git author;
        asked only when a hint depends on it."""
        if self.identity is None:
            self.identity = identify(self.root)
        return self.identity

    def _blob(self, relpath: str) -> str | None:
        blob = self.blobs.get(relpath)
        return None if blob is None or (self.root / relpath).is_symlink() else blob

    def ahead(self, targets: list[str]) -> None:
        """Judge `targets` not judged before now, half of them in a second process when they
        are many (a whole repository): each file alone is pure work."""
        todo = []
        for relpath in targets:
            known = self.kept.get(relpath, self._blob(relpath)) if self.kept else None
            if known is not None:
                self._verdicts[relpath] = known
            elif relpath not in self._verdicts:
                todo.append(relpath)

        def work(part: Sequence[str], in_child: bool) -> list[tuple[str, Verdict]]:
            del in_child  # a Verdict holds plain data: it pickles
            return [(relpath, judge(self.root, relpath, self.config)[1]) for relpath in part]

        for share in in_halves(todo, work, minimum=PARALLEL_ATOMS):
            for relpath, verdict in share:
                self._judged(relpath, verdict)

    def _judged(self, relpath: str, verdict: Verdict) -> None:
        self._verdicts[relpath] = verdict
        if self.kept is not None:
            self.kept.put(relpath, self._blob(relpath), verdict)

    def verdict(self, relpath: str) -> Verdict:
        if relpath not in self._verdicts:
            self.ahead([relpath])
        return self._verdicts[relpath]

    def save(self) -> None:
        if self.kept is not None:
            self.kept.save(self.blobs)

    def parse(self, relpath: str) -> ParsedAtom:
        if relpath not in self._parsed:
            self._parsed[relpath] = read_atom(self.root, relpath, self.config)
        return self._parsed[relpath]

    def summary(self, relpath: str) -> Summary | None:
        """What the checks across files read of any atom: from its verdict when judged, else
        from a parse alone (an atom that is not checked itself needs no content scan)."""
        if relpath in self._verdicts:
            return self._verdicts[relpath].atom
        if relpath not in self._summaries:
            known = self.kept.get(relpath, self._blob(relpath)) if self.kept else None
            if known is not None:
                self._summaries[relpath] = known.atom
            else:
                atom = self.parse(relpath).atom
                self._summaries[relpath] = summary_of(atom) if atom is not None else None
        return self._summaries[relpath]

    def atom(self, atom_id: str) -> Summary | None:
        paths = self.by_id.get(atom_id)
        return self.summary(paths[0]) if paths else None


def validate(
    root: Path,
    files: Sequence[str] | None = None,
    *,
    config: Config | None = None,
    identity: Identity | None = None,
) -> list[Finding]:
    """All findings for `files` (paths relative to root), or for the whole repo; `config`
    defaults to the working tree's memkit.yaml (CI passes the base's), `identity` (whom a
    hint speaks to) to the git author (CI passes the pull-request author's)."""
    config = config or load_config(root)
    repo = _Repo(root, config, identity=identity)
    targets = list(repo.paths) if files is None else [f for f in files if is_atom_path(f)]
    repo.ahead(list(dict.fromkeys(targets)))
    findings: list[Finding] = []
    for relpath in dict.fromkeys(targets):
        findings.extend(_check_atom(repo, relpath))
    repo.save()
    if files is None or MEMORY_INDEX in files:
        findings.extend(_check_memory_index(root, config))
    return sorted(set(findings))


def admitted_text(root: Path, relpath: str) -> str:
    """The file's text when validation admits it (what `memkit show` and `memkit review show`
    print: Claude runs them, so their output is a prompt). Otherwise MemkitError naming the
    file and its findings, never its text."""
    repo = _Repo(root, load_config(root), kept=False)  # judged from the text it shows
    findings = _check_atom(repo, relpath)
    errors = [f.format() for f in sorted(findings) if f.is_error]
    if errors:
        raise MemkitError(
            f"{redact_secrets(relpath)} is refused by validation and not shown:\n"
            + "\n".join(errors)
        )
    return repo.parse(relpath).text


def _check_atom(repo: _Repo, relpath: str) -> list[Finding]:
    verdict = repo.verdict(relpath)
    atom = verdict.atom
    if atom is None:
        return list(verdict.findings)
    cycle: list[str] = []
    if atom.supersedes or atom.superseded_by:
        if repo.graph is None:
            repo.graph = _supersede_graph(repo)
        cycle = supersede_cycle(atom.id, repo.graph)
    return [
        *verdict.findings,
        *_unmarked_supersedes(repo, atom),
        *reference_findings(atom, repo.by_id, cycle),
    ]


def _unmarked_supersedes(repo: _Repo, atom: Summary) -> list[Finding]:
    """A live atom that supersedes one still active: the older one would still be served
    wherever the newer is not a candidate (`memkit.lifecycle.supersede`)."""
    if not atom.is_active or atom.scope == "archive":
        return []
    out = []
    for ref in atom.supersedes:
        older = repo.atom(ref) if ref != atom.id else None
        if older is not None and older.status == "active" and older.scope != "archive":
            out.append(
                Finding(
                    atom.path,
                    atom.line_of("supersedes"),
                    1,
                    "MK023",
                    f"supersedes `{ref}`, which still says it is active; "
                    + _retire_hint(repo, atom, older),
                    Severity.WARNING,
                )
            )
    return out


def _retire_hint(repo: _Repo, atom: Summary, older: Summary) -> str:
    """What marks `older` superseded, for whoever is at the keyboard: `memkit validate
    --fix`, unless `older` is an approved atom of a type only management changes and they
    are not management; then review, whose approval retires it."""
    fix = f"`memkit validate --fix` marks it (status: superseded, superseded_by: [{atom.id}])"
    if older.scope != "shared" or older.pending:
        return fix
    parsed = repo.parse(older.path).atom
    kinds = sensitive_kinds(repo.config)
    kind = next((k for k in (parsed.audience, parsed.type) if k in kinds), "") if parsed else ""
    if not kind or repo.who().is_management:
        return fix
    name = atom.path.rsplit("/", 1)[-1]
    if atom.scope == "shared":
        return (
            f"`{older.id}` is an approved `{kind}` atom, which only management retires: send "
            f"this atom to review with `git mv {atom.path} {PENDING_DIR}/{name}`, and "
            f"approving it retires `{older.id}`"
        )
    return (
        f"`{older.id}` is an approved `{kind}` atom, which only management retires: a "
        f"management member marks it with `memkit validate --fix`"
    )


def _supersede_graph(repo: _Repo) -> dict[str, set[str]]:
    """Edges a -> b for "a supersedes b", whichever side wrote them down.

    Built from every atom, so only when a checked atom takes part in superseding at all:
    an edge written as `superseded_by` lives in the other file.
    """
    graph: dict[str, set[str]] = defaultdict(set)
    for relpath in repo.paths:
        atom = repo.summary(relpath)
        if atom is None:
            continue
        graph[atom.id].update(atom.supersedes)
        for newer in atom.superseded_by:
            graph[newer].add(atom.id)
    return graph


def _check_memory_index(root: Path, config: Config) -> list[Finding]:
    path = root / MEMORY_INDEX
    if not path.is_file():
        return []
    count = len(path.read_text(encoding="utf-8", errors="replace").splitlines())
    if count <= config.memory_md_lines:
        return []
    return [
        Finding(
            MEMORY_INDEX,
            config.memory_md_lines + 1,
            1,
            "MK014",
            f"MEMORY.md has {count} lines, more than the limit of "
            f"{config.memory_md_lines} (limits.memory_md_lines); it is the overview read "
            "first, keep it short: `memkit summary` writes one that fits",
        )
    ]


def report(findings: Sequence[Finding]) -> int:
    errors = sum(f.is_error for f in findings)
    for finding in findings:
        print(finding.format())
    if findings:
        warnings = len(findings) - errors
        print(f"memkit validate: {errors} error(s), {warnings} warning(s)", file=sys.stderr)
    return 1 if errors else 0


def resolve_targets(root: Path, filenames: Sequence[str]) -> list[str]:
    targets: list[str] = []
    for name in filenames:
        rel = relpath_in(root, Path(name).absolute())
        if rel is None:
            raise UsageError(f"{name}: not inside the memory repository {root}")
        targets.append(rel)
    return targets


__all__ = ["Severity", "validate"]
