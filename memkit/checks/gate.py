"""`memkit gate` / hook `memkit-gate`: is each new or changed atom worth keeping?

Quality score (MK101 fail, MK102 warn), duplicates of existing active atoms (MK103 fail,
MK104 near: update that atom instead), and contradictions of live atoms (MK105 warn; MK106
fail when it must go through review: `memkit.audit.write`). Secrets, `<private>` blocks and
prompt injection are content checks run by `memkit validate` on the same commit.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from memkit.atom import Atom
from memkit.atom.read import read_atom
from memkit.audit.verdict import CONTRADICTS, DUPLICATE, text_of, verdict
from memkit.audit.write import conflicts, remember
from memkit.config import Config, load_config
from memkit.findings import Finding, Severity
from memkit.gate.duplicates import DuplicateSettings, Match, nearest
from memkit.gate.score import GateScore, GateSettings, score_atom
from memkit.index import IndexUnavailable
from memkit.repo import list_atom_files
from memkit.safety.secrets import redact_secrets

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.audit.near"}


log = logging.getLogger(__name__)
CANDIDATE_FLOOR = 0.60  # as `audit.candidate_similarity`
# Retired atoms are not gated: they are kept for history, not recalled. Nor are episodic
# session summaries: a log of what one session touched, neither a claim to score nor a copy
# of the atoms it names.
_UNGATED_SCOPES = ("archive", "episodic")


@dataclass(frozen=True)
class GateResult:
    atom: Atom
    score: GateScore
    matches: tuple[Match, ...]
    findings: tuple[Finding, ...]


def gate_atoms(root: Path, atoms: Sequence[Atom], config: Config) -> list[GateResult]:
    """Score `atoms` and compare them with the repo's other live atoms."""
    section = config.section("gate")
    settings = GateSettings.from_config(section)
    dup = DuplicateSettings.from_config(section)
    try:
        # Neighbours as wide as the audit's (a line whose long URL changed sits at 0.7 from
        # its old self under a static embedding); the one verdict decides what each means.
        matches = nearest(atoms, root=root, floor=CANDIDATE_FLOOR, limit=5) if atoms else {}
    except IndexUnavailable as exc:
        # No index can be read or built here (a read-only checkout): the score needs none,
        # so it still runs; duplicates are left to CI or the next commit that can check.
        log.warning("duplicates not checked: %s", exc)
        matches = {}
    # Only the few atoms that came close are parsed, to tell a copy from a changed value.
    by_path = {
        m.path: parsed
        for found in matches.values()
        for m in found
        if (parsed := read_atom(root, m.path, config).atom) is not None
    }
    results: list[GateResult] = []
    for atom in atoms:
        score = score_atom(atom.title, atom.body, atom.type, settings)
        findings: list[Finding] = []
        if score.verdict == "fail":
            findings.append(Finding(atom.path, 1, 1, "MK101", score.explain()))
        elif score.verdict == "warn":
            findings.append(Finding(atom.path, 1, 1, "MK102", score.explain(), Severity.WARNING))
        for match in matches.get(atom.path, []):
            findings.extend(_match_findings(atom, match, dup, by_path.get(match.path)))
        results.append(GateResult(atom, score, tuple(matches.get(atom.path, [])), tuple(findings)))
    return results


def _match_findings(
    atom: Atom, match: Match, dup: DuplicateSettings, other: Atom | None
) -> list[Finding]:
    """What a close neighbour means: a copy (MK103), one that may belong in it (MK104), or
    nothing; the one verdict (`memkit.audit.verdict`) decides, and a contradiction is the
    write check's to report (`memkit.audit.write`, MK105/MK106)."""
    from memkit.audit.near import linked

    if match.id in atom.supersedes or (other is not None and atom.id in other.superseded_by):
        return []  # this atom replaces the other: closeness is expected
    if other is None:
        return []  # gone or refused since the index was built: nothing to compare
    where = (atom.path, atom.line_of("id"), 1)
    texts = (text_of(atom), text_of(other))
    found = verdict(
        atom, other, similarity=match.similarity, duplicate_at=dup.duplicate, texts=texts
    )
    if found.kind == CONTRADICTS:
        return []
    if found.kind == DUPLICATE:
        return [
            Finding(
                *where,
                "MK103",
                # The words can call an update a copy (one value changed, cosine 0.94): the
                # writer who knows it replaces the other has a way on, not a dead end.
                f"duplicate of `{match.id}` ({match.path}, {found.reason}); edit that atom "
                f"instead of adding this one, or add `supersedes: [{match.id}]` if this one "
                "replaces it",
            )
        ]
    if linked(atom, other) or not found.near:
        # `related:` settles it; and a line about another subject, or a pair that is near
        # only by its vectors, is no finding (unrelated texts of one team sit at 0.8+).
        return []
    return [
        Finding(
            *where,
            "MK104",
            f"very close to `{match.id}` ({match.path}): {found.reason}; if it says what "
            f"`{match.id}` says, edit that atom instead, or add `related: [{match.id}]` if "
            "both are needed",
            Severity.WARNING,
        )
    ]


def run_gate(root: Path, files: Sequence[str] | None) -> int:
    config = load_config(root)
    targets = list_atom_files(root) if files is None else files
    atoms: list[Atom] = []
    for relpath in targets:
        parsed = read_atom(root, relpath, config) if (root / relpath).is_file() else None
        # Unparseable atoms are `memkit validate`'s to report; the gate scores what it can.
        if (
            parsed is not None
            and parsed.atom is not None
            and parsed.atom.scope not in ("", *_UNGATED_SCOPES)
            # Retired by status too (superseded, archived): the commit that retires an atom
            # must not be refused because its replacement says the same thing.
            and parsed.atom.status == "active"
        ):
            atoms.append(parsed.atom)

    errors = 0
    found: dict[str, list[Finding]] = {}
    let_in = conflicts(root, atoms, config)
    for conflict in let_in:
        found.setdefault(conflict.atom.path, []).append(conflict.finding())
    remember(root, let_in)
    for result in gate_atoms(root, atoms, config):
        findings = [*result.findings, *found.get(result.atom.path, [])]
        if not findings:
            print(f"{redact_secrets(result.atom.path)}: {result.score.explain()}")
        for finding in findings:
            print(finding.format())
            errors += finding.is_error
    return 1 if errors else 0
