"""`memkit validate` / hook `memkit-validate`: format and references of atoms.

With no files it checks the whole repository; with files (as pre-commit passes them) it
checks those, still resolving references against every atom in the working tree.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from memkit.admission.decide import file_findings, reference_findings, supersede_cycle
from memkit.atom import Atom, id_from_path, is_atom_path
from memkit.atom.read import ParsedAtom, read_atom
from memkit.checks import run_hook
from memkit.config import Config, load_config
from memkit.errors import MemkitError, UsageError
from memkit.findings import Finding, Severity
from memkit.parallel import in_halves
from memkit.repo import find_root, list_atom_files, relpath_in
from memkit.safety.secrets import redact_secrets

MEMORY_INDEX = "MEMORY.md"
PARALLEL_ATOMS = 2000  # from this many atoms to check, a second process takes half


class _Repo:
    """Every atom path in the working tree, parsed lazily and at most once."""

    def __init__(self, root: Path, config: Config) -> None:
        self.root = root
        self.config = config
        self.paths = list_atom_files(root)
        self.by_id: dict[str, list[str]] = defaultdict(list)
        for path in self.paths:
            self.by_id[id_from_path(path)].append(path)
        self._parsed: dict[str, ParsedAtom] = {}
        self.content: dict[str, list[Finding]] = {}  # content checks done ahead (see `ahead`)
        self.graph: dict[str, set[str]] | None = None

    def ahead(self, targets: list[str]) -> None:
        """Parse and content-check `targets` now, half of them in a second process when
        they are many (a whole repository): each atom alone is pure work."""

        def work(part: Sequence[str], in_child: bool) -> list[tuple[str, Any, list[Finding]]]:
            done = []
            for relpath in part:
                parsed = self.parse(relpath)
                content = _content_findings(self, parsed)
                # An Atom's read-only mappings do not pickle; its sections are not needed.
                done.append((relpath, _portable(parsed) if in_child else parsed, content))
            return done

        for share in in_halves(targets, work, minimum=PARALLEL_ATOMS):
            for relpath, parsed, content in share:
                self._parsed[relpath] = _restored(parsed)
                self.content[relpath] = content

    def parse(self, relpath: str) -> ParsedAtom:
        if relpath not in self._parsed:
            self._parsed[relpath] = read_atom(self.root, relpath, self.config)
        return self._parsed[relpath]

    def atom(self, atom_id: str) -> Atom | None:
        paths = self.by_id.get(atom_id)
        return self.parse(paths[0]).atom if paths else None


def validate(
    root: Path, files: Sequence[str] | None = None, *, config: Config | None = None
) -> list[Finding]:
    """All findings for `files` (paths relative to root), or for the whole repo; `config`
    defaults to the working tree's memkit.yaml (CI passes the base's)."""
    config = config or load_config(root)
    repo = _Repo(root, config)
    targets = list(repo.paths) if files is None else [f for f in files if is_atom_path(f)]
    repo.ahead(list(dict.fromkeys(targets)))
    findings: list[Finding] = []
    for relpath in dict.fromkeys(targets):
        findings.extend(_check_atom(repo, relpath))
    if files is None or MEMORY_INDEX in files:
        findings.extend(_check_memory_index(root, config))
    return sorted(set(findings))


def admitted_text(root: Path, relpath: str) -> str:
    """The file's text when validation admits it (what `memkit show` and `memkit review show`
    print: Claude runs them, so their output is a prompt). Otherwise MemkitError naming the
    file and its findings, never its text."""
    repo = _Repo(root, load_config(root))
    findings = _check_atom(repo, relpath)
    errors = [f.format() for f in sorted(findings) if f.is_error]
    if errors:
        raise MemkitError(
            f"{redact_secrets(relpath)} is refused by validation and not shown:\n"
            + "\n".join(errors)
        )
    return repo.parse(relpath).text


def _check_atom(repo: _Repo, relpath: str) -> list[Finding]:
    parsed = repo.parse(relpath)
    content = repo.content.get(relpath)  # done ahead, maybe in a second process
    if content is None:
        findings = file_findings(parsed, repo.config)
    else:
        findings = [*parsed.findings, *content]
    atom = parsed.atom
    if atom is None:
        return findings
    cycle: list[str] = []
    if atom.supersedes or atom.superseded_by:
        if repo.graph is None:
            repo.graph = _supersede_graph(repo)
        cycle = supersede_cycle(atom.id, repo.graph)
    return [
        *findings,
        *_unmarked_supersedes(repo, atom),
        *reference_findings(atom, repo.by_id, cycle),
    ]


def _unmarked_supersedes(repo: _Repo, atom: Atom) -> list[Finding]:
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
                    f"supersedes `{ref}`, which still says it is active; `memkit validate "
                    f"--fix` marks it (status: superseded, superseded_by: [{atom.id}])",
                    Severity.WARNING,
                )
            )
    return out


def _content_findings(repo: _Repo, parsed: ParsedAtom) -> list[Finding]:
    """What `file_findings` adds to the parse's own findings: the content checks."""
    return file_findings(parsed, repo.config)[len(parsed.findings) :]


def _portable(parsed: ParsedAtom) -> Any:
    atom = parsed.atom
    if atom is None:
        return parsed
    slim = dataclasses.replace(
        atom, sections=(), key_lines=dict(atom.key_lines), extra=dict(atom.extra)
    )
    return ParsedAtom(parsed.path, slim, parsed.findings)


def _restored(parsed: ParsedAtom) -> ParsedAtom:
    atom = parsed.atom
    if atom is None or isinstance(atom.key_lines, MappingProxyType):
        return parsed
    whole = dataclasses.replace(
        atom,
        key_lines=MappingProxyType(dict(atom.key_lines)),
        extra=MappingProxyType(dict(atom.extra)),
    )
    return ParsedAtom(parsed.path, whole, parsed.findings)


def _supersede_graph(repo: _Repo) -> dict[str, set[str]]:
    """Edges a -> b for "a supersedes b", whichever side wrote them down.

    Built from every atom, so only when a checked atom takes part in superseding at all:
    an edge written as `superseded_by` lives in the other file.
    """
    graph: dict[str, set[str]] = defaultdict(set)
    for relpath in repo.paths:
        atom = repo.parse(relpath).atom
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="memkit-validate", description=__doc__)
    parser.add_argument("filenames", nargs="*", help="atom files (default: the whole repo)")
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    args = parser.parse_args(argv)

    def check() -> int:
        root = find_root(args.repo)
        files = resolve_targets(root, args.filenames) if args.filenames else None
        return report(validate(root, files))

    return run_hook("memkit-validate", check)


__all__ = ["Severity", "main", "validate"]

if __name__ == "__main__":
    raise SystemExit(main())
