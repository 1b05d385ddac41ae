"""The `search` tool's answer: compact rows (id, type, confidence, title, why, ~tokens), no
bodies, ranked by the hooks' own recall pipeline.

One function serves both places a search runs: the warm engine (request kind `mcp-search` on
its socket, registered in `memkit.claude.handlers`) and the MCP server's own process when no
engine answers. Either way the rules are the hooks': only what the index admitted, only
active, reviewed atoms of scopes this person may read, superseded ones dropped. `scope:
episodic` searches the asking person's own session summaries instead (kept on this machine).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from memkit.atom import TYPES
from memkit.capture.episodic import search
from memkit.mcp.tools import MAX_LIMIT
from memkit.org.serving import OrgNotConfigured, org_rows
from memkit.recall.budget import estimate_tokens
from memkit.recall.masking import mask
from memkit.recall.pipeline import candidates
from memkit.recall.readers import Readers, find_repos
from memkit.safety.private import strip_private

SEARCH_KIND = "mcp-search"
MAX_QUERY = 2_000
_SCOPE = re.compile(r"shared|episodic|archive|(?:role|personal)(?::[a-z0-9][a-z0-9-]*)?")


class BadInput(ValueError):
    """An argument the model can fix; the message says how."""


@dataclass(frozen=True)
class Query:
    text: str
    limit: int = 10
    type: str | None = None
    scope: str | None = None
    since: str | None = None
    org: bool = False  # also the organisation's memory (memkit.org), where configured

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def check_query(
    text: str,
    limit: int = 10,
    type: str | None = None,
    scope: str | None = None,
    since: str | None = None,
    *,
    org: bool = False,
) -> Query:
    """The tool's arguments as a Query, or BadInput naming what is wrong."""
    text = strip_private(str(text or "")).strip()
    if not text:
        raise BadInput("the query is empty: give a few words about what you need to know")
    if len(text) > MAX_QUERY:
        raise BadInput(f"the query is {len(text)} characters long; keep it under {MAX_QUERY}")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise BadInput(f"limit must be a whole number from 1 to {MAX_LIMIT}")
    if type is not None and type not in TYPES:
        raise BadInput(f"type must be one of {', '.join(TYPES)}")
    if scope is not None and not _SCOPE.fullmatch(scope):
        raise BadInput("scope must be shared, episodic, archive, role[:NAME] or personal[:USER]")
    if since is not None:
        since = check_date(since, "since")
    if not isinstance(org, bool):
        raise BadInput("org must be true or false")
    return Query(text, limit, type, scope, since, org)


def check_date(value: str, name: str) -> str:
    try:
        return dt.date.fromisoformat(str(value).strip()[:10]).isoformat()
    except ValueError:
        raise BadInput(f"{name} must be a date like 2026-02-08") from None


def _in_scope(scope: str, wanted: str) -> bool:
    if wanted in ("role", "personal"):
        return scope.startswith(wanted + ":")
    return scope == wanted


def search_rows(
    reader: Any,
    query: Query,
    *,
    scopes: frozenset[str] | None,
    activation: Callable[[list[str]], dict[str, float]] | None = None,
) -> list[dict[str, Any]]:
    """The rows of one repository, best first; each row's score compares across repositories."""

    # Filters apply after ranking, so ask the pipeline for more than will be shown.
    pool = min(max(query.limit * 4, 20), 200)
    found = candidates(
        reader, query.text, activation=activation, scopes=scopes, use_vectors=True, limit=pool
    )
    rows: list[dict[str, Any]] = []
    for cand in found:
        entry = reader.atoms[cand.row]
        if query.type and entry["type"] != query.type:
            continue
        if query.scope and not _in_scope(str(entry["scope"]), query.scope):
            continue
        if query.since and str(entry.get("created") or "") < query.since:
            continue
        rows.append(
            {
                "id": entry["id"],
                "type": entry["type"],
                "confidence": entry["confidence"],
                "title": mask(str(entry["title"])),
                "why": cand.why,
                "tokens": estimate_tokens(reader.body(entry["path"])) + 30,
                "scope": entry["scope"],
                "created": str(entry.get("created") or ""),
                "score": round(cand.score, 4),
            }
        )
        if len(rows) >= query.limit:
            break
    return rows


def episode_rows(root: Any, query: Query) -> list[dict[str, Any]]:
    """`scope: episodic`: the asking person's own session summaries (`memkit.capture.episodic`,
    local to this machine), never anyone else's."""
    return [
        {
            "id": summary.id,
            "type": "episode",
            "confidence": "yours",
            "title": mask(summary.title),
            "why": f"your session summary; holds {share:.0%} of the query's words",
            "tokens": estimate_tokens(summary.body) + 30,
            "scope": "episodic",
            "created": summary.created,
            "score": round(share, 4),
        }
        for share, summary in search(root, query.text, query.limit)
        if not query.since or summary.created >= query.since
    ]


def mcp_search(payload: dict[str, Any], repos: Sequence[str], readers: Readers) -> dict[str, Any]:
    """The `search` tool over every repository named (the engine's `mcp-search` request)."""
    query = check_query(
        payload.get("text", ""),
        payload.get("limit", 10),
        payload.get("type"),
        payload.get("scope"),
        payload.get("since"),
        org=bool(payload.get("org", False)),
    )
    rows: list[dict[str, Any]] = []
    building: list[str] = []
    for root in find_repos(payload, repos):
        if query.scope == "episodic":  # the asker's own summaries, kept outside the index
            rows += [{**row, "repo": root.name} for row in episode_rows(root, query)]
            continue
        reader = readers.reader(root)
        if reader is None:
            building.append(root.name)
            continue
        with readers.usage_log(root) as usage:
            found = search_rows(
                reader, query, scopes=readers.scopes(root), activation=usage.activation
            )
        rows += [{**row, "repo": root.name} for row in found]
    rows.sort(key=lambda r: -float(r["score"]))
    rows = rows[: query.limit]
    if query.org:  # after the team's own rows: the org's are other teams', ranked apart
        try:
            rows += org_rows(readers, find_repos(payload, repos), query.text, query.limit)
        except OrgNotConfigured as exc:
            raise BadInput(str(exc)) from None
    return {"rows": rows, "building": building}
