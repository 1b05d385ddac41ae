"""The org in a serving process: what a prompt's memory block and the MCP `search` add from
the organisation's memory, only when the repository configured it (`memkit.org.settings`).

State lives in the process's `Readers` (`services`): the settings read from each
repository's memkit.yaml (again when the file changes), one `OrgWorker` per org URI, the
asking person's email for a minute (`memkit.recall.readers.SCOPE_TTL`), each repository's
name in the org. A prompt's org atoms come after every local one, within what is left of
its token budget, at most `org.results` of them, never one twice in a session, each saying
which team's memory it comes from. The session's own repositories are not asked of the org:
recall has served them already.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memkit.config import load_config
from memkit.errors import MemkitError
from memkit.org.settings import OrgSettings, org_settings
from memkit.org.worker import Job, OrgWorker
from memkit.recall.budget import estimate_tokens
from memkit.recall.client import identity_key
from memkit.recall.pipeline import LONG_ATOM_CHARS, Recalled
from memkit.recall.readers import SCOPE_TTL, Readers
from memkit.roles import git_email

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.org.publish"}

log = logging.getLogger(__name__)
# Seconds the MCP `search` waits for the org: someone asked, and waits; the engine answers
# no hook meanwhile (each falls back on answering itself after its ENGINE_TIMEOUT).
MCP_WAIT = 15.0  # the first query also loads the client and opens the org


def settings_of(readers: Readers, root: Path) -> OrgSettings | None:
    """The org settings of `root` (None: org off), read again when memkit.yaml changes."""
    kept: dict[Path, tuple[float, OrgSettings | None]] = readers.services.setdefault(
        "org.settings", {}
    )
    try:
        stamp = (root / "memkit.yaml").stat().st_mtime
    except OSError:
        stamp = 0.0
    cached = kept.get(root)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    try:
        settings = org_settings(load_config(root).section("org"), str(root / "memkit.yaml"))
    except MemkitError as exc:
        log.warning("org settings of %s: %s", root, exc)
        settings = None
    kept[root] = (stamp, settings)
    return settings


def worker_of(readers: Readers, settings: OrgSettings) -> OrgWorker:
    workers: dict[str, OrgWorker] = readers.services.setdefault("org.workers", {})
    worker = workers.get(settings.uri)
    if worker is None or worker.settings != settings:
        worker = workers[settings.uri] = OrgWorker(settings)
    return worker


def email_of(readers: Readers, root: Path) -> str:
    """The asking person's email (the engine sets the asker's identity per request)."""
    kept: dict[tuple[Any, ...], tuple[float, str]] = readers.services.setdefault("org.email", {})
    key = (root, identity_key())
    cached = kept.get(key)
    if cached is not None and time.monotonic() - cached[0] < SCOPE_TTL:
        return cached[1]
    email = git_email(root).strip().lower()
    if len(kept) > 64:
        kept.pop(next(iter(kept)))
    kept[key] = (time.monotonic(), email)
    return email


def names_of(readers: Readers, roots: Sequence[Path]) -> list[str]:
    """The session's repositories' names in the org (their atoms are served locally)."""
    from memkit.org.publish import repo_name

    kept: dict[Path, str] = readers.services.setdefault("org.names", {})
    out = []
    for root in roots:
        if root not in kept:
            try:
                kept[root] = repo_name(root)
            except MemkitError:
                kept[root] = ""
        out.append(kept[root])
    return [name for name in out if name]


def warm_up(readers: Readers, root: Path) -> None:
    """At the warm engine's start: when `root` asks for org recall, the org's client loaded
    and its connection opened before the first prompt, not during it."""
    settings = settings_of(readers, root)
    if readers.warm and settings is not None and settings.recall and settings.results > 0:
        worker_of(readers, settings).warm_up()


@dataclass
class Pending:
    """An org query started for a prompt, collected after local recall."""

    job: Job
    worker: OrgWorker
    settings: OrgSettings
    started: float
    session: str


def start_for_prompt(
    readers: Readers, roots: Sequence[Path], prompt: str, session: str
) -> Pending | None:
    """Hand the prompt to the org's worker, when the first repository asks for org recall in
    a warm process; None otherwise (nothing asked: nothing costs anything)."""
    if not readers.warm or not roots:
        return None
    settings = settings_of(readers, roots[0])
    if settings is None or not settings.recall or settings.results <= 0:
        return None
    started = time.monotonic()
    worker = worker_of(readers, settings)
    job = worker.submit(
        prompt,
        email_of(readers, roots[0]),
        limit=settings.results * 2,
        skip_repos=names_of(readers, roots),
    )
    if job is None:
        log.info("org: no query for this prompt (%s)", worker.why_not or "resting")
        return None
    return Pending(job, worker, settings, started, session)


def finish_for_prompt(pending: Pending, used: int, budget: int) -> list[Recalled]:
    """The org's atoms for the prompt, if they came within the org's timeout (counted from
    the prompt's start) and fit what is left of `budget` after `used` tokens."""
    left = pending.settings.timeout - (time.monotonic() - pending.started)
    hits = pending.job.wait(left)
    if hits is None:
        why = pending.job.error or f"no answer within {pending.settings.timeout * 1000:.0f} ms"
        log.info("org: nothing added to this prompt (%s)", why)
        return []
    given = pending.worker.given(pending.session)
    out: list[Recalled] = []
    for hit in hits:
        key = f"{hit.repo}:{hit.atom_id}"
        if key in given:
            continue
        body = hit.text
        if len(body) > LONG_ATOM_CHARS:
            body = body[:LONG_ATOM_CHARS] + "\n[… the rest: `memkit org search`]"
        tokens = estimate_tokens(body) + 30
        if used + tokens > budget:
            continue
        used += tokens
        given.add(key)
        why = f"from the {hit.repo} team's memory (org, {hit.commit[:12]}); {hit.why}"
        out.append(Recalled(key, hit.title, hit.type, hit.confidence, why, body, tokens))
        if len(out) >= pending.settings.results:
            break
    return out


def org_rows(
    readers: Readers, roots: Sequence[Path], query: str, limit: int
) -> list[dict[str, Any]]:
    """The MCP `search` with `org: true`: the org's rows for the query, best first, each
    naming its repository; BadOrg when the repository did not configure `org.search`."""
    settings = settings_of(readers, roots[0]) if roots else None
    if settings is None or not settings.search:
        raise OrgNotConfigured(
            "the organisation's memory is not configured for search here "
            "(`org: {search: true}` in memkit.yaml)"
        )
    worker = worker_of(readers, settings)
    job = worker.submit(query, email_of(readers, roots[0]), limit=limit)
    hits = job.wait(MCP_WAIT) if job is not None else None
    if hits is None:
        why = (job.error if job is not None else worker.why_not) or "no answer in time"
        raise OrgNotConfigured(f"the organisation's memory did not answer ({why})")
    return [
        {
            "id": f"{hit.repo}:{hit.atom_id}",
            "type": hit.type,
            "confidence": hit.confidence,
            "title": hit.title,
            "why": f"from the {hit.repo} team's memory (org); {hit.why}",
            "tokens": estimate_tokens(hit.text) + 30,
            "scope": hit.scope,
            "created": "",
            "score": round(hit.score, 4),
            "repo": f"org:{hit.repo}",
            "excerpt": hit.text[:400],
        }
        for hit in hits
    ]


class OrgNotConfigured(ValueError):
    """The org was asked for where it is off, or did not answer: the message says which."""
