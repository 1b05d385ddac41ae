"""The write moment: a new or changed atom that contradicts a live one, found before it lands.

Pre-commit (`memkit gate`), `memkit add` (and everything that writes through it) and Claude
Code's PostToolUse check of an atom file all ask the same question, with the audit's
candidates and classifier. The answer:

- settled: the new atom `supersedes` the other (or the other names it in `superseded_by`);
- routed to review: the new atom is in `shared/` and is sensitive (decision, architecture by
  default) or its writer is not management: it must not become a second live truth, so it
  goes to `shared/_pending/` (MK106 at commit time; `memkit add` and PostToolUse put it there);
- otherwise a warning (MK105): management may state a non-sensitive change directly.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from memkit.atom import Atom
from memkit.atom.read import read_atom
from memkit.audit.classify import CONTRADICTS
from memkit.audit.run import PairResult, compare
from memkit.audit.status import WRITTEN, Seen, unresolved_items, unresolved_now
from memkit.config import Config
from memkit.files import write_atomic
from memkit.findings import Finding, Severity
from memkit.roles import identify, sensitive_kinds
from memkit.safety.secrets import redact_secrets

PENDING = "shared/_pending"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Conflict:
    atom: Atom
    other_id: str
    other_path: str
    reason: str
    route: bool  # goes to review rather than live
    management: bool = False  # written by management (routed only for its sensitive type)
    # Either atom is of a type only management writes (roles.sensitive): a member cannot
    # settle it with `supersedes:` (that edits an approved atom), only through review.
    sensitive: bool = False
    # One value of a longer atom changed: (its value there, the value here, its line there).
    edit: tuple[str, str, int] | None = None

    def finding(self) -> Finding:
        where = (self.atom.path, self.atom.line_of("id"), 1)
        settle = f"add `supersedes: [{self.other_id}]` if it replaces that atom"
        if self.edit is not None:
            # Only one value of a longer atom changed: retiring all of it loses the rest.
            old, new, line = self.edit
            settle = (
                f"only {old} changes in `{self.other_id}`'s longer text: edit it there "
                f"({self.other_path}:{line}: {old} → {new}) instead of adding this atom, or "
                f"{settle}"
            )
        if self.route:
            # The one command that settles it from where the writer stands: management links
            # and retires in one step; anyone else sends it to review, where approve does.
            if self.management:
                fix = (
                    f"if it replaces that atom, `memkit review approve {self.atom.id} "
                    f"--supersedes {self.other_id}` links it and retires `{self.other_id}`"
                )
            else:
                fix = (
                    f"send it to review with `git mv {self.atom.path} "
                    f"{PENDING}/{Path(self.atom.path).name}`"
                    + ("" if self.sensitive else f" (or {settle})")
                )
            return Finding(
                *where,
                "MK106",
                f"contradicts `{self.other_id}` ({self.other_path}): {self.reason}; {fix}",
            )
        return Finding(
            *where,
            "MK105",
            f"changes what `{self.other_id}` ({self.other_path}) says ({self.reason}); {settle}",
            Severity.WARNING,
        )


def remember(root: Path, found: Sequence[Conflict]) -> None:
    """Keep the contradictions that were let in live (MK105) beside the pull audit's report,
    so that recall says so when both atoms reach one prompt in this clone too. Pairs that no
    longer stand (superseded, archived, gone) are dropped as the file is rewritten."""
    new = [
        {
            "incoming": c.atom.id,
            "incoming_path": c.atom.path,
            "other": c.other_id,
            "other_path": c.other_path,
            "kind": "contradicts",
            "reason": redact_secrets(c.reason),  # a file under .memkit/ holds no secret
        }
        for c in found
        if not c.route
    ]
    if not new:
        return
    path = root / WRITTEN
    pairs: dict[tuple[str, str], dict[str, Any]] = {}
    for item in [*unresolved_items(path), *new]:
        pairs[(str(item.get("incoming_path")), str(item.get("other_path")))] = item
    seen: Seen = {}
    keep = [item for item in pairs.values() if unresolved_now(root, item, seen)]
    try:
        write_atomic(path, json.dumps({"unresolved": keep}, indent=1) + "\n", durable=False)
    except OSError as exc:  # a read-only .memkit/ must not fail a commit
        log.warning("could not keep the contradictions let in: %s", exc)


def in_shared(path: str) -> bool:
    return path.startswith("shared/") and not path.startswith(f"{PENDING}/")


def conflicts(
    root: Path,
    atoms: Sequence[Atom],
    config: Config,
    *,
    identity: Any = None,
    reader: Any = None,
) -> list[Conflict]:
    """Unsettled contradictions between `atoms` (files or drafts) and the live atoms."""

    # A pending atom is judged as what it would say once approved: its being in review must
    # not count as "not active", which would call every contradiction of it resolved.
    atoms = [
        replace(a, pending=False) if _pending(a) and a.status == "active" else a
        for a in atoms
        if a.scope not in ("", "archive", "episodic") and (a.is_active or _pending(a))
    ]
    if not atoms:
        return []
    by_path = {a.path: a for a in atoms}
    sensitive = sensitive_kinds(config)
    management: bool | None = None
    out: list[Conflict] = []
    for pair in compare(root, atoms, config, reader=reader):
        if pair.kind != CONTRADICTS or pair.resolved:
            continue
        atom = by_path[pair.incoming_path]
        route = False
        if in_shared(atom.path):
            if management is None:
                management = _is_management(root, identity)
            route = atom.type in sensitive or not management
        touchy = route and not management and _either_sensitive(root, atom, pair, config)
        out.append(
            Conflict(
                atom,
                pair.other,
                pair.other_path,
                pair.reason,
                route,
                bool(management),
                touchy,
                _value_in_longer(root, pair),
            )
        )
    return out


def _value_in_longer(root: Path, pair: PairResult) -> tuple[str, str, int] | None:
    """Where the one changed value stands in the other atom, when that atom says more than
    the line that holds it (then the fix is an edit of that value, not a second atom)."""
    if len(pair.edit) != 2:
        return None
    old, new = pair.edit
    try:
        lines = (root / pair.other_path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    body = _body_lines(lines)
    said = [i for i, line in body if line.strip() and not line.lstrip().startswith("#")]
    hits = [i for i in said if old.strip("`") in lines[i]]
    if len(said) < 2 or len(hits) != 1:
        return None
    return old, new, hits[0] + 1


def _body_lines(lines: list[str]) -> list[tuple[int, str]]:
    """The lines after the frontmatter, with their index."""
    if not lines or lines[0].strip() != "---":
        return list(enumerate(lines))
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), 0)
    return [(i, lines[i]) for i in range(end + 1, len(lines))]


def _either_sensitive(root: Path, atom: Atom, pair: Any, config: Config) -> bool:
    kinds = sensitive_kinds(config)
    if atom.type in kinds or atom.audience in kinds:
        return True
    other = read_atom(root, pair.other_path, config, fast=True).atom
    return other is not None and (other.type in kinds or other.audience in kinds)


def _pending(atom: Atom) -> bool:
    return atom.path.startswith(f"{PENDING}/")


def _is_management(root: Path, identity: Any) -> bool:
    if identity is None:
        identity = identify(root)
    return bool(identity.is_management)
