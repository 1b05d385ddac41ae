"""What may be indexed, searched, shown or injected: one decision, made here.

An atom file is admitted exactly when `memkit validate` gives it no error. `validate` itself
is built from these functions, and so are the index build (which the warm engine's refresh,
the cold hook's background build and `memkit search` all run), `memkit show` and the hooks'
PostToolUse check:

- per file (`file_findings`): the format checks of `memkit.atom.read` (MK001-MK008,
  MK012-MK022) and, once the format is fine, the content checks (secrets MK110, `<private>`
  blocks MK111, prompt injection MK112 unless `gate: {injection: warn}` or `off`);
- across files (`reference_findings`, over a whole memory `refused_across`): a duplicate
  id (MK009), a reference to no atom (MK010), a supersede cycle (MK011).

A refused file is named by its path and codes only (`memkit.findings.describe_refused`):
its text, a secret in it included, is never printed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from memkit.admission.content import run_content_checks
from memkit.atom import REFERENCE_KEYS, id_from_path
from memkit.atom.read import ParsedAtom, read_atom
from memkit.config import Config
from memkit.findings import Finding


def file_findings(
    parsed: ParsedAtom, config: Config, *, errors_only: bool = False
) -> list[Finding]:
    """Everything validation finds in one file on its own (`errors_only`: at least every
    error; checks that can only warn under `config` are skipped)."""
    findings = list(parsed.findings)
    if parsed.ok and parsed.atom is not None:
        findings.extend(
            run_content_checks(parsed.atom, parsed.text, config, errors_only=errors_only)
        )
    return findings


def read_admitted(
    root: Path, relpath: str, config: Config, *, fast: bool = False
) -> tuple[ParsedAtom, list[str]]:
    """The parsed file and the codes of the errors that refuse it on its own (none: it is
    admitted, unless a reference check refuses it)."""
    parsed = read_atom(root, relpath, config, fast=fast)
    return parsed, error_codes(file_findings(parsed, config, errors_only=True))


def error_codes(findings: Iterable[Finding]) -> list[str]:
    return sorted({f.code for f in findings if f.is_error})


class Referring(Protocol):
    """What the reference checks read of an atom (an `Atom`, or an index entry)."""

    @property
    def path(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def related(self) -> tuple[str, ...]: ...
    @property
    def supersedes(self) -> tuple[str, ...]: ...
    @property
    def superseded_by(self) -> tuple[str, ...]: ...
    def line_of(self, key: str) -> int: ...


def reference_findings(
    atom: Referring, paths_of: Mapping[str, Sequence[str]], cycle: Sequence[str] = ()
) -> list[Finding]:
    """MK009-MK011 for `atom`: `paths_of` maps every atom id of the repository (taken from
    file names, valid or not) to its files; `cycle` is a supersede cycle through it, if any."""
    findings = []
    others = [p for p in paths_of.get(atom.id, ()) if p != atom.path]
    if others:
        findings.append(
            Finding(
                atom.path,
                atom.line_of("id"),
                1,
                "MK009",
                f"id `{atom.id}` is also used by {', '.join(others)}; "
                "ids must be unique across the repository",
            )
        )
    for key in REFERENCE_KEYS:
        for ref in getattr(atom, key):
            if ref == atom.id:
                message = f"`{key}` names this atom itself"
            elif ref not in paths_of:
                message = (
                    f"`{key}` names `{ref}`, which is not an atom in this "
                    "repository; fix the id or remove it"
                )
            else:
                continue
            findings.append(Finding(atom.path, atom.line_of(key), 1, "MK010", message))
    if cycle:
        findings.append(
            Finding(
                atom.path,
                atom.line_of("supersedes"),
                1,
                "MK011",
                "supersede cycle: "
                + " -> ".join(cycle)
                + "; an atom cannot (indirectly) supersede itself",
            )
        )
    return findings


def supersede_cycle(start: str, graph: Mapping[str, Iterable[str]]) -> list[str]:
    """A path start -> ... -> start in `graph` (a -> b: a supersedes b), or []."""
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    seen: set[str] = set()
    while stack:
        node, path = stack.pop()
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                return [*path, nxt]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, [*path, nxt]))
    return []


def refused_across(atoms: Sequence[Referring], paths: Iterable[str]) -> dict[str, list[str]]:
    """path -> the codes of MK009-MK011 among `atoms`, as `memkit validate` finds them: ids
    from the names of every atom file (`paths`), the supersede graph from `atoms` (whichever
    side wrote an edge down)."""
    paths_of: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        paths_of[id_from_path(path)].append(path)
    graph: dict[str, set[str]] = defaultdict(set)
    for atom in atoms:
        graph[atom.id].update(atom.supersedes)
        for newer in atom.superseded_by:
            graph[newer].add(atom.id)
    held: dict[str, list[str]] = {}
    for atom in atoms:
        linked = atom.supersedes or atom.superseded_by
        cycle = supersede_cycle(atom.id, graph) if linked else []
        codes = error_codes(reference_findings(atom, paths_of, cycle))
        if codes:
            held[atom.path] = codes
    return held
