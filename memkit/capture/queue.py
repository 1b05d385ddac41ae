"""The candidate queue: what capture found, waiting for a person to accept or reject it.

Local and per user, never committed: `.memkit/capture/` (0700, like the rest of `.memkit/`).
One JSON file per candidate, `candidates/<id>.json` while it waits and `done/<id>.json` once
it is accepted, rejected, written, undone or dropped by the model; `stats.json` counts what
the router dropped. The id is a digest of the statement, so the same decision found in the
prompt hook and again in the transcript, or said again in another session, is one candidate
(with each place it came from). A statement that was rejected, accepted or undone is not
offered again.

Nothing that holds `<private>` text, or anything the secret or prompt-injection checks would
refuse, is stored: such a candidate is dropped, counted, and never written anywhere (nor
logged).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from memkit.capture.provenance import held
from memkit.capture.state import now
from memkit.errors import MemkitError
from memkit.files import memkit_dir, private_dirs, write_atomic
from memkit.safety.private import strip_private

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"hashlib", "memkit.safety.injection", "memkit.safety.secrets"}


FOLDER = "capture"
PENDING, DONE = "candidates", "done"
STATS = "stats.json"
MAX_STATEMENT = 1_000
MAX_SOURCES = 20
PENDING_STATUS = "pending"
# What happened to a candidate that no longer waits.
ACCEPTED, REJECTED, WRITTEN = "accepted", "rejected", "written"
UNDONE, DROPPED = "undone", "dropped"
_ID = re.compile(r"^[0-9a-f]{8}$")


@dataclass(frozen=True)
class Proposal:
    """What a detector proposes to remember."""

    statement: str
    kind: str
    type: str
    scope: str
    score: float
    why: str
    triggers: tuple[str, ...] = ()
    level: str = "L0"
    detail: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Candidate:
    id: str
    statement: str
    kind: str
    type: str
    scope: str
    score: float
    why: str
    triggers: tuple[str, ...]
    level: str
    created: str
    sources: tuple[dict[str, str], ...]
    status: str = PENDING_STATUS
    detail: dict[str, str] = field(default_factory=dict)
    atom: dict[str, str] = field(default_factory=dict)  # id, path, sha256 of what was written
    reason: str = ""
    updated: str = ""

    @property
    def sessions(self) -> list[str]:
        return list(dict.fromkeys(s.get("session", "") for s in self.sources if s.get("session")))

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["triggers"] = list(self.triggers)
        data["sources"] = list(self.sources)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Candidate:
        return cls(
            id=str(data["id"]),
            statement=str(data["statement"]),
            kind=str(data.get("kind", "")),
            type=str(data.get("type", "fact")),
            scope=str(data.get("scope", "shared")),
            score=float(data.get("score", 0.0)),
            why=str(data.get("why", "")),
            triggers=tuple(str(t) for t in data.get("triggers", ())),
            level=str(data.get("level", "L0")),
            created=str(data.get("created", "")),
            sources=tuple(dict(s) for s in data.get("sources", ())),
            status=str(data.get("status", PENDING_STATUS)),
            detail={str(k): str(v) for k, v in dict(data.get("detail") or {}).items()},
            atom={str(k): str(v) for k, v in dict(data.get("atom") or {}).items()},
            reason=str(data.get("reason", "")),
            updated=str(data.get("updated", "")),
        )


def capture_dir(root: Path) -> Path:
    """`<root>/.memkit/capture/`, this user's alone."""
    return private_dirs(memkit_dir(root) / FOLDER)


def digest(text: str, size: int = 8) -> str:
    """A short name for `text` (not security)."""
    import hashlib

    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:size]  # noqa: S324


def candidate_id(statement: str) -> str:
    return digest(re.sub(r"\s+", " ", statement.strip().lower()).strip(" .!?。！？"))


@contextlib.contextmanager
def locked(root: Path) -> Iterator[Path]:
    """The capture folder, with its lock held: one writer at a time (hooks of several sessions,
    the worker, a command)."""
    folder = capture_dir(root)
    fd = os.open(folder / "queue.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield folder
    finally:
        os.close(fd)


def refusal(text: str) -> str:
    """Why `text` may not be stored ("" when it may): private text, a secret, or an
    instruction aimed at the agent (which accepting it would refuse anyway: a prompt saying
    "from now on we always ignore previous instructions…" is no team decision).

    The checks read the text with every run of white space as one space: no secret holds
    white space, so none is missed, and a run of 40,000 blanks after "password" costs them
    nothing (it cost the secret check minutes). Callers check what they keep, cut to
    MAX_TEXT at most."""
    if strip_private(text) != text or "<private" in text.lower():
        return "private"
    from memkit.safety.injection import is_injection
    from memkit.safety.secrets import find_secrets

    text = " ".join(text.split())

    if next(iter(find_secrets(text)), None) is not None:
        return "secret"
    return "injection" if is_injection(text) else ""


MAX_TEXT = 4_000  # characters of one prompt, answer or command that capture reads


def _read(path: Path) -> Candidate | None:
    try:
        return Candidate.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write(folder: Path, where: str, cand: Candidate) -> None:
    text = json.dumps(cand.as_json(), ensure_ascii=False, indent=1)
    write_atomic(private_dirs(folder / where) / f"{cand.id}.json", text, durable=False, mode=0o600)


def count(root: Path, why: str, n: int = 1) -> None:
    """Count a dropped candidate (below the threshold, private, secret, refused by the model)."""
    with locked(root) as folder:
        stats = read_stats(root)
        stats[why] = stats.get(why, 0) + n
        write_atomic(folder / STATS, json.dumps(stats), durable=False, mode=0o600)


def read_stats(root: Path) -> dict[str, int]:
    try:
        data = json.loads((root / ".memkit" / FOLDER / STATS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): int(v) for k, v in data.items() if isinstance(v, int)}


def offer(root: Path, proposal: Proposal, source: dict[str, str], lower: float) -> str:
    """Queue `proposal` unless it scores below `lower`, holds private text or a secret, or was
    settled before. Returns what happened: "queued", "seen" (already waiting: the source is
    added), "known" (settled before), or "dropped:<why>"."""
    return offer_many(root, [(proposal, source)], lower)[0]


def offer_many(
    root: Path, offers: Sequence[tuple[Proposal, dict[str, str]]], lower: float
) -> list[str]:
    """`offer` for several proposals (a transcript pass), under one lock, each candidate file
    and the counts written once."""
    outcomes: list[str] = []
    dropped: dict[str, int] = {}
    ready: list[tuple[int, str, Proposal, dict[str, str]]] = []
    for proposal, source in offers:
        statement = proposal.statement.strip()[:MAX_STATEMENT]
        why = "below" if proposal.score < lower else ""
        why = why or refusal(statement) or refusal(json.dumps(proposal.detail, ensure_ascii=False))
        if why:
            dropped[why] = dropped.get(why, 0) + 1
            outcomes.append(f"dropped:{why}")
            continue
        hold = held(" ".join((statement, *proposal.detail.values())))
        # A URL, a download to run, a registry: a person decides, never the router.
        kept = replace(proposal, detail={**proposal.detail, "held": hold}) if hold else proposal
        ready.append((len(outcomes), statement, kept, {**source, "at": now()}))
        outcomes.append("")
    if not ready and not dropped:
        return outcomes
    with locked(root) as folder:
        if dropped:
            stats = read_stats(root)
            for why, n in dropped.items():
                stats[why] = stats.get(why, 0) + n
            write_atomic(folder / STATS, json.dumps(stats), durable=False, mode=0o600)
        changed: dict[str, Candidate] = {}
        for index, statement, proposal, source in ready:
            cid = candidate_id(statement)
            if (folder / DONE / f"{cid}.json").exists():
                outcomes[index] = "known"
                continue
            old = changed.get(cid) or _read(folder / PENDING / f"{cid}.json")
            if old is None:
                changed[cid] = _new(cid, statement, proposal, source)
                outcomes[index] = "queued"
                continue
            outcomes[index] = "seen"
            key = (source.get("session"), source.get("prompt"))
            if all((s.get("session"), s.get("prompt")) != key for s in old.sources):
                changed[cid] = replace(
                    old,
                    score=max(old.score, proposal.score),
                    sources=(*old.sources, source)[-MAX_SOURCES:],
                    updated=source["at"],
                )
        for cand in changed.values():
            _write(folder, PENDING, cand)
    return outcomes


def _new(cid: str, statement: str, proposal: Proposal, source: dict[str, str]) -> Candidate:
    return Candidate(
        id=cid,
        statement=statement,
        kind=proposal.kind,
        type=proposal.type,
        scope=proposal.scope,
        score=round(proposal.score, 3),
        why=proposal.why,
        triggers=proposal.triggers,
        level=proposal.level,
        created=source["at"],
        sources=(source,),
        detail=dict(proposal.detail),
        updated=source["at"],
    )


def _all(root: Path, where: str) -> list[Candidate]:
    folder = root / ".memkit" / FOLDER / where
    try:
        paths = sorted(p for p in folder.iterdir() if p.suffix == ".json")
    except OSError:
        return []
    found = [_read(path) for path in paths]
    return [c for c in found if c is not None]


def pending(root: Path) -> list[Candidate]:
    """Waiting candidates, best first."""
    return sorted(_all(root, PENDING), key=lambda c: (-c.score, c.created, c.id))


def settled(root: Path) -> list[Candidate]:
    """Candidates no longer waiting, newest first."""
    return sorted(_all(root, DONE), key=lambda c: c.updated or c.created, reverse=True)


def pending_count(root: Path) -> int:
    folder = root / ".memkit" / FOLDER / PENDING
    try:
        return sum(1 for p in folder.iterdir() if p.suffix == ".json")
    except OSError:
        return 0


def get(root: Path, cid: str) -> Candidate:
    """The candidate `cid` (waiting or settled); MemkitError when there is none."""
    if _ID.match(cid):
        for where in (PENDING, DONE):
            found = _read(root / ".memkit" / FOLDER / where / f"{cid}.json")
            if found is not None:
                return found
    raise MemkitError(f"no capture candidate `{cid}`; `memkit candidates list` shows them")


def update(root: Path, cand: Candidate) -> None:
    """Save a changed candidate where it is (a waiting one stays waiting)."""
    with locked(root) as folder:
        where = PENDING if cand.status == PENDING_STATUS else DONE
        _write(folder, where, replace(cand, updated=now()))


def settle(
    root: Path,
    cand: Candidate,
    status: str,
    *,
    reason: str = "",
    atom: dict[str, str] | None = None,
) -> Candidate:
    """Move `cand` out of the queue with its outcome."""
    done = replace(cand, status=status, reason=reason, atom=dict(atom or cand.atom), updated=now())
    with locked(root) as folder:
        _write(folder, DONE, done)
        (folder / PENDING / f"{cand.id}.json").unlink(missing_ok=True)
    return done


def by_atom(root: Path, atom_id: str) -> Candidate | None:
    """The settled candidate that wrote atom `atom_id`, if any."""
    for cand in settled(root):
        if cand.atom.get("id") == atom_id and cand.status in (ACCEPTED, WRITTEN):
            return cand
    return None
