"""`memkit org publish`: what one memory repository serves, as of a commit, into the org.

What is published is what recall may serve anyone the org serves: atoms the repository's
index admitted (valid: `memkit validate` gives them no error), of the shared or a role's
scope, active, reviewed (not pending), not superseded, archived or expired, never personal
or episodic; `<private>` text and secrets are checked for once more on the way out (fail
closed: such an atom is withheld, whatever the index said). Each row carries its repository,
the commit, path, id, blob, scope, type, tier and memkit's own vectors.

Incremental by commit: a repository whose published commit is HEAD is not read at all; else
the rows are compared by (path, blob) with what is published, and only new or changed atoms
are written, the ones it no longer serves removed. Publishing the same commit twice changes
nothing. The working tree must hold HEAD's team atoms: the org serves commits, not drafts.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memkit.atom import atom_paths
from memkit.atom.text import plain_text
from memkit.config import load_config
from memkit.embedding import resolve_model
from memkit.embedding.usercache import model_cache_dir
from memkit.errors import MemkitError
from memkit.git import output, text
from memkit.index import open_index, refresh
from memkit.index.manifest import current_manifest
from memkit.org.settings import check_name, org_settings
from memkit.org.store import OrgStore, RepoState, Row, row_key
from memkit.org.terms import Analyzer
from memkit.recall.pipeline import recallable
from memkit.roles import ROLES_FILE, parse_roles
from memkit.safety.private import PRIVATE
from memkit.safety.secrets import find_secrets

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.embedding.encoder"}

log = logging.getLogger(__name__)
TEAM_DIRS = ("shared", "roles")


@dataclass
class Published:
    repo: str
    commit: str
    written: int = 0
    removed: int = 0
    kept: int = 0
    up_to_date: bool = False
    withheld: dict[str, int] = field(default_factory=dict)  # why -> how many
    seconds: float = 0.0

    def line(self) -> str:
        if self.up_to_date:
            return f"{self.repo}: up to date at {self.commit[:12]} ({self.kept} atoms)"
        held = ", ".join(f"{n} {why}" for why, n in sorted(self.withheld.items()))
        return (
            f"{self.repo}: published {self.commit[:12]}: {self.written} written, "
            f"{self.removed} removed, {self.kept} unchanged"
            + (f"; not published: {held}" if held else "")
            + f" ({self.seconds:.1f} s)"
        )


def repo_name(root: Path) -> str:
    """The repository's name in the org: `org.name` in memkit.yaml, else the path of its
    `origin` remote (`acme/payments-memory`; never its host or credentials), else its
    folder's name. Every publisher of one repository (CI, a laptop) must agree on it."""
    settings = org_settings(load_config(root).section("org"))
    if settings is not None and settings.name:
        return settings.name
    remote = output(root, "remote", "get-url", "origin") or ""
    path = re.sub(r"^[a-z+]+://[^/]*/", "", remote.strip())  # scheme, user, host
    path = re.sub(r"^[^/:@]+@[^:]+:", "", path)  # scp-like: git@host:acme/repo
    path = re.sub(r"\.git$", "", path.strip("/"))
    if path and not remote.startswith(("/", ".")):
        return check_name(path)
    return check_name(re.sub(r"\.git$", "", Path(path or root).name) or root.name)


def head_commit(root: Path) -> str:
    commit = output(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    if not commit:
        raise MemkitError(f"{root}: nothing committed yet; the org publishes commits")
    return commit


def check_committed(root: Path, commit: str) -> None:
    """Refuse a working tree whose team atoms differ from `commit`'s: the index (what is
    published) is built from the working tree."""
    listing = text(root, "ls-tree", "-r", "-z", commit, "--", *TEAM_DIRS)
    blobs = {}
    for item in listing.split("\0"):
        meta, _, path = item.partition("\t")
        if path:
            blobs[path] = meta.split()[2]
    at_commit = {path: blobs[path] for path in atom_paths(blobs)}
    here = {
        p: sha
        for p, sha in current_manifest(root).items()
        if p.startswith(tuple(f"{d}/" for d in TEAM_DIRS))
    }
    differ = sorted(p for p in here.keys() | at_commit.keys() if here.get(p) != at_commit.get(p))
    if differ:
        shown = ", ".join(differ[:5]) + (f" and {len(differ) - 5} more" if len(differ) > 5 else "")
        raise MemkitError(
            f"{root}: {shown} differ from {commit[:12]} (HEAD); the org publishes commits: "
            "commit or stash them first"
        )


def withheld(entry: dict[str, Any], stale: frozenset[str], today: str) -> str:
    """Why an indexed atom is not published ("" when it is)."""
    scope = str(entry["scope"])
    if scope == "episodic":
        return "episodic"
    if scope.startswith("personal:"):
        return "personal"
    if scope != "shared" and not scope.startswith("role:"):
        return "archived" if scope == "archive" else "not the team's"
    if entry["pending"]:
        return "pending"
    if entry["id"] in stale or entry.get("superseded_by"):
        return "superseded"
    if entry["status"] != "active":
        return str(entry["status"])
    if (entry.get("expires") or "") and str(entry["expires"]) < today:
        return "expired"
    # Fail closed: recall's own rule must agree (no identity: every scope it allows).
    return "" if recallable(entry, None, stale, today) else "not recallable"


def leaks(title: str, body: str) -> str:
    """What must never leave the repository, found in an atom's text ("" when none): the
    index admitted it, so this finds something only if validation was bypassed somehow."""
    whole = f"{title}\n{body}"
    if PRIVATE.search(whole):
        return "private"
    if next(iter(find_secrets(whole)), None) is not None:
        return "secret"
    return ""


def roles_at(root: Path, commit: str) -> dict[str, list[str]]:
    """role -> the member emails `shared/_roles.md` lists at `commit`."""
    table = parse_roles(output(root, "show", f"{commit}:{ROLES_FILE}") or "")
    roles: dict[str, set[str]] = {}
    for member in table.members:
        for role in member.roles:
            roles.setdefault(role, set()).update(member.emails)
    return {role: sorted(emails) for role, emails in sorted(roles.items())}


Encode = Callable[[Sequence[str]], Any]


@dataclass(frozen=True)
class OrgModel:
    """The org's model: every repository's vectors must compare, so one model for all
    (memkit's shipped one). `name` is what the collection records (no machine's path)."""

    name: str
    path: str
    dim: int
    encode: Encode


def publish(
    root: Path,
    store: OrgStore,
    *,
    model: OrgModel,
    name: str | None = None,
    force: bool = False,
    analyzer: Analyzer | None = None,
) -> Published:
    """Publish `root` at HEAD into `store` (opened, its collections ensured for `model`)."""
    started = time.monotonic()
    repo = name or repo_name(root)
    commit = head_commit(root)
    result = Published(repo, commit)
    before = store.states().get(repo)
    if not force and before is not None and before.commit == commit and before.model == model.name:
        result.up_to_date, result.kept = True, before.atoms
        return result
    check_committed(root, commit)
    refresh(root, quiet=True)
    reader = open_index(root)
    today = dt.date.today().isoformat()
    stale = reader.superseded
    wanted: dict[str, tuple[int, dict[str, Any]]] = {}
    for row, entry in enumerate(reader.atoms):
        why = withheld(entry, stale, today)
        if not why:
            why = leaks(str(entry["title"]), reader.body(str(entry["path"])))
        if why:
            result.withheld[why] = result.withheld.get(why, 0) + 1
            continue
        wanted[row_key(repo, str(entry["path"]))] = (row, entry)
    published = store.published(repo)
    changed = [
        key for key, (_, entry) in wanted.items() if published.get(key) != str(entry["blob"])
    ]
    gone = sorted(set(published) - set(wanted))
    rows = _rows(
        reader,
        repo,
        commit,
        chosen=[wanted[k] for k in changed],
        model=model,
        analyzer=analyzer or Analyzer(),
    )
    store.upsert(rows)
    store.delete(gone)
    store.set_state(
        RepoState(
            repo=repo,
            commit=commit,
            published=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            model=model.name,
            atoms=len(wanted),
            roles=roles_at(root, commit),
        )
    )
    result.written, result.removed = len(rows), len(gone)
    result.kept = len(wanted) - len(rows)
    result.seconds = time.monotonic() - started
    log.info("%s", result.line())
    return result


def _rows(
    reader: Any,
    repo: str,
    commit: str,
    *,
    chosen: Sequence[tuple[int, dict[str, Any]]],
    model: OrgModel,
    analyzer: Analyzer,
) -> list[Row]:
    """The rows of `chosen` atoms: their text, terms and vectors (the index's own when it
    was built with the org's model, else encoded now)."""
    bodies = [reader.body(str(entry["path"])) for _, entry in chosen]
    if not chosen:
        return []
    if _same_model(str(reader.meta.get("model") or ""), model.path):
        vectors = [reader.vectors[row] for row, _ in chosen]
    else:
        texts = [plain_text(str(e["title"]), b) for (_, e), b in zip(chosen, bodies, strict=True)]
        vectors = list(model.encode(texts))
    out = []
    for (_row, entry), body, vector in zip(chosen, bodies, vectors, strict=True):
        scope = str(entry["scope"])
        out.append(
            Row(
                repo=repo,
                path=str(entry["path"]),
                atom_id=str(entry["id"]),
                blob=str(entry["blob"]),
                commit=commit,
                scope=scope,
                type=str(entry["type"]),
                confidence=str(entry["confidence"]),
                title=str(entry["title"]),
                text=body,
                terms=analyzer.document(str(entry["title"]), list(entry["triggers"]), body),
                dense=vector,
                expires=str(entry.get("expires") or ""),
            )
        )
    return out


def _same_model(built_with: str, org_model: str) -> bool:
    try:
        return bool(built_with) and Path(built_with).resolve() == Path(org_model).resolve()
    except OSError:
        return False


def org_model(root: Path | None = None) -> OrgModel:
    """The org's model, loaded (converted once into the user's model cache)."""
    from memkit.embedding.encoder import load_encoder

    path = str(resolve_model("default"))
    encoder = load_encoder(path, cache_dir=model_cache_dir(root))

    def encode(texts: Sequence[str]) -> Any:
        return encoder.encode(list(texts))

    return OrgModel(f"{Path(path).name}/{encoder.dim}", path, int(encoder.dim), encode)
