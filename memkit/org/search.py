"""Searching the organisation's memory for one person.

Hybrid search in Milvus (BM25 over memkit's terms, cosine over memkit's vectors, fused by
Milvus's ranker) among what this person may be served: every shared atom, and the atoms of
a role of a repository whose `shared/_roles.md` (as published) lists their email under that
role, as recall does locally. Who asks is their git identity (`git var GIT_AUTHOR_IDENT`);
without one, shared atoms only.

Then recall's own absolute floor (`memkit.recall.pipeline.relevant`): a hit must hold a
share of the query's words in one passage, or it is a coincidence, not an answer. The org
has no idf of its own to weigh the words with here, so they weigh alike.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memkit.index.relevance import cover, passages, query_terms
from memkit.org.publish import OrgModel, leaks
from memkit.org.store import OrgStore, RepoState, audience_of
from memkit.org.terms import Analyzer
from memkit.recall.masking import mask
from memkit.recall.pipeline import relevant
from memkit.roles import git_email
from memkit.safety.injection import is_injection
from memkit.safety.private import strip_private

STATE_TTL = 60.0  # seconds the repositories' roles are reused by a warm process


@dataclass(frozen=True)
class OrgHit:
    repo: str
    atom_id: str
    path: str
    title: str
    type: str
    confidence: str
    scope: str
    commit: str
    text: str
    score: float
    why: str

    def to_json(self) -> dict[str, Any]:
        return {
            "repo": self.repo,
            "id": self.atom_id,
            "path": self.path,
            "title": self.title,
            "type": self.type,
            "confidence": self.confidence,
            "scope": self.scope,
            "commit": self.commit,
            "score": round(self.score, 6),
            "why": self.why,
        }


def who_asks(start: Path) -> str:
    """The asking person's email as git gives it ("" when git knows none)."""
    return git_email(start).strip().lower()


def audiences(email: str, states: Mapping[str, RepoState]) -> list[str]:
    """What `email` may be served: "shared", and each role of each repository whose
    published roles list them."""
    out = ["shared"]
    if not email:
        return out
    for repo, state in sorted(states.items()):
        out += [
            audience_of(repo, f"role:{role}")
            for role, members in sorted(state.roles.items())
            if email in members
        ]
    return out


def held(terms: Any, title: str, text: str) -> tuple[float, int]:
    """The share of the query's terms the best passage of an atom holds, and how many."""
    best = (0.0, 0)
    for passage in passages(f"{title}\n{text}"):
        best = max(best, cover(terms, passage))
    return best


class OrgSearch:
    """Searches one org store; keeps what it may reuse (roles, the analyzer) meanwhile."""

    def __init__(self, store: OrgStore, model: OrgModel) -> None:
        self.store = store
        self.model = model
        self.analyzer = Analyzer()
        self._states: tuple[float, dict[str, RepoState]] | None = None

    def states(self) -> dict[str, RepoState]:
        if self._states is None or time.monotonic() - self._states[0] > STATE_TTL:
            self._states = (time.monotonic(), self.store.states())
        return self._states[1]

    def search(
        self,
        query: str,
        email: str,
        *,
        limit: int = 10,
        floor: bool = True,
        skip_repos: Sequence[str] = (),
        ranker: str = "weighted",
        timeout: float | None = None,
    ) -> list[OrgHit]:
        query = strip_private(query).strip()
        if not query:
            return []
        terms = self.analyzer.query(query)
        vector = self.model.encode([query])[0]
        found = self.store.search(
            terms,
            vector,
            audiences(email, self.states()),
            limit=max(limit * 3, 20),
            ranker=ranker,
            timeout=timeout,
        )
        today = dt.date.today().isoformat()
        # The org has no idf of its own to weigh the query's words with: they weigh alike.
        weighed = query_terms(query, None)
        hits: list[OrgHit] = []
        for rank, row in enumerate(found, 1):
            repo = str(row.get("repo") or "")
            if repo in skip_repos:
                continue
            expires = str(row.get("expires") or "")
            if expires and expires < today:
                continue  # published before it expired; served by nobody now
            title, text = str(row.get("title") or ""), str(row.get("text") or "")
            if leaks(title, text) or is_injection(f"{title}\n{text}"):
                # Fail closed: whoever can write the org's collection is not vouched for by
                # any repository's review; such a row never reaches anyone.
                continue
            share, count = held(weighed, title, text)
            if floor and not relevant(share, count, weighed.known, trigger=False, cosine=None):
                continue
            hits.append(
                OrgHit(
                    repo=repo,
                    atom_id=str(row.get("atom_id") or ""),
                    path=str(row.get("path") or ""),
                    title=mask(title),
                    type=str(row.get("type") or ""),
                    confidence=str(row.get("confidence") or ""),
                    scope=str(row.get("scope") or ""),
                    commit=str(row.get("commit") or ""),
                    text=text,
                    score=float(row["score"]),
                    why=f"org hybrid #{rank} ({row['score']:.3f}); covers {share:.0%} of the query",
                )
            )
            if len(hits) >= limit:
                break
        return hits
