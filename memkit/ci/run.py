"""Collect every check for the atoms a pull request changes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from memkit.atom import Atom, is_atom_path
from memkit.atom.read import read_atom
from memkit.audit.classify import CONTRADICTS
from memkit.audit.run import audit
from memkit.changeset import changes_between
from memkit.checks.gate import gate_atoms
from memkit.checks.links import link_findings
from memkit.checks.roles import (
    committed_config,
    is_local_state,
    judge_changes,
    local_state_finding,
)
from memkit.checks.validate import MEMORY_INDEX, validate
from memkit.ci.changes import Change, head_commit, merge_base, resolve
from memkit.ci.evalgate import EvalResult, run_eval_gate
from memkit.errors import UsageError
from memkit.findings import Finding
from memkit.git import run as run_git
from memkit.roles import identify


@dataclass(frozen=True)
class CIResult:
    findings: list[Finding]
    changes: list[Change]
    evals: EvalResult | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(f.is_error for f in self.findings) and (self.evals is None or self.evals.ok)


def run_ci(
    root: Path, base: str, head: str | None, actor: str | None, *, evals: bool = True
) -> CIResult:
    if not actor:
        raise UsageError(
            "--actor is required: roles are checked as the pull-request author "
            '(e.g. --actor "$GITHUB_ACTOR"), never as the commit author'
        )
    base_rev = resolve(root, base)
    head_rev = resolve(root, head or "HEAD")
    if head_rev != head_commit(root):
        raise UsageError(f"check out the head ({head}) before running memkit ci")
    # A pull request is judged by the base's rules, never by rules it brings along.
    config = committed_config(root, base_rev)
    base_point = merge_base(root, base_rev, head_rev)
    changed = changes_between(root, base_point, head_rev)
    present = [c.path for c in changed if c.status != "D"]
    atom_paths = [p for p in present if is_atom_path(p)]
    identity = identify(root, actor, rev=base_rev)
    findings: list[Finding] = list(
        validate(
            root,
            atom_paths + ([MEMORY_INDEX] if MEMORY_INDEX in present else []),
            config=config,
            identity=identity,
        )
    )

    atoms: list[Atom] = []
    for relpath in atom_paths:
        parsed = read_atom(root, relpath, config)
        if parsed.atom is not None and parsed.atom.scope != "archive":
            atoms.append(parsed.atom)
    for result in gate_atoms(root, atoms, config):
        findings.extend(result.findings)

    findings.extend(judge_changes(root, changed, identity, config, restore_from=base))
    findings.extend(link_findings(root, changed, config, tree=head_rev))
    # Local state already in git (committed before the check, or around it) fails every
    # pull request until it is taken out: a clone would read it as its own.
    tracked = run_git(root, "ls-tree", "-r", "-z", "--name-only", head_rev, "--", ".")
    for path in tracked.decode("utf-8", "surrogateescape").split("\0"):
        if is_local_state(path):
            findings.append(local_state_finding(path))

    for pair in audit(root, atom_paths, config):
        if pair.kind == CONTRADICTS and not pair.resolved:
            line = next((a.line_of("id") for a in atoms if a.path == pair.incoming_path), 1)
            findings.append(
                Finding(
                    pair.incoming_path,
                    line,
                    1,
                    "MK301",
                    f"contradicts `{pair.other}` ({pair.other_path}): {pair.reason}; add "
                    f"`supersedes: [{pair.other}]` if this atom replaces it",
                )
            )
    eval_result = run_eval_gate(root, base_point, config, queries_rev=base_rev) if evals else None
    return CIResult(sorted(set(findings)), changed, eval_result)
