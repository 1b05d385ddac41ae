"""The memory one MCP server serves: its repositories and the tools' logic, without the SDK.

`search` asks the warm engine of the first repository when one runs (the hooks keep it alive,
with the index and the model loaded); when none answers within `ENGINE_WAIT` seconds (none
started, or one that hangs), this process answers by itself and keeps its index readers open
for the next call: it lives as long as the Claude Code session. The other tools run here:
they read files and git. Everything here runs on one thread (`memkit.mcp.server` sees to it),
as the cached readers and the usage log expect.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memkit.atom import ID_RE, id_from_path, scope_from_path
from memkit.capture import queue
from memkit.capture.accept import draft_of, record, waiting
from memkit.config import load_config
from memkit.errors import MemkitError
from memkit.index import refresh
from memkit.index.manifest import is_stale
from memkit.index.store import current_generation
from memkit.mcp.lookup import SEARCH_KIND, BadInput, Query, check_date, mcp_search
from memkit.mcp.reading import (
    MAX_SECTION_NAME,
    MAX_SECTIONS,
    check_ids,
    locate,
    read_text,
    refusals,
    render_atom,
)
from memkit.mcp.saving import Saved, check_draft, save
from memkit.mcp.timeline import Event, history, render, select, uncommitted
from memkit.mcp.tools import MAX_EVENTS
from memkit.recall.client import ask
from memkit.recall.masking import mask
from memkit.recall.readers import Readers
from memkit.recall.visibility import readable
from memkit.roles import git_email

log = logging.getLogger(__name__)
ENGINE_WAIT = 2.0  # seconds; then this process answers by itself
MAX_CANDIDATES = 30  # listed by the `candidates` tool
CHECK_SECONDS = 10.0  # how often an in-process search checks that the index is current


class Memory:
    def __init__(
        self, roots: Sequence[Path], *, engine_wait: float = ENGINE_WAIT, session: str = ""
    ) -> None:
        self.roots = [Path(r) for r in roots]
        self.engine_wait = engine_wait
        sid = session or os.environ.get("CLAUDE_CODE_SESSION_ID", "")
        self.session = sid or f"mcp-{os.getpid()}"
        self.label = f"Claude Code session {sid}" if sid else f"MCP server pid {os.getpid()}"
        self._checked: dict[Path, float] = {}
        self._titles: dict[Path, tuple[Any, dict[str, tuple[str, str]]]] = {}
        # A process that lives for the session: full readers, vectors on, as the engine has.
        self.readers = Readers(warm=True)

    # -- freshness ----------------------------------------------------------------------
    def _fresh(self, root: Path, *, force: bool = False) -> None:
        """Refresh the index of `root` when it is missing or behind the working tree, at most
        every CHECK_SECONDS unless forced (after a save): `memkit search` does the same."""
        now = time.monotonic()
        if not force and now - self._checked.get(root, -CHECK_SECONDS) < CHECK_SECONDS:
            return
        self._checked[root] = now
        if force or current_generation(root) is None or is_stale(root):
            refresh(root, quiet=True)

    def _readers(self) -> list[tuple[Path, Any]]:
        out = []
        for root in self.roots:
            self._fresh(root)
            reader = self.readers.reader(root)
            if reader is not None:
                out.append((root, reader))
        return out

    # -- search -------------------------------------------------------------------------
    def search(self, query: Query) -> tuple[list[dict[str, Any]], str]:
        """The rows, and who answered ("engine" or "in-process")."""
        answer = self._ask_engine(query)
        if answer is not None:
            log.info("search answered by the warm engine of %s", self.roots[0])
            return answer, "engine"
        for root in self.roots:
            self._fresh(root)
        result = mcp_search(query.to_json(), [str(r) for r in self.roots], self.readers)
        log.info("search answered in-process")
        return list(result["rows"]), "in-process"

    def _ask_engine(self, query: Query) -> list[dict[str, Any]] | None:
        try:
            raw = ask(
                self.roots[0],
                SEARCH_KIND,
                json.dumps(query.to_json()),
                [str(r) for r in self.roots],
                self.engine_wait,
            )
        except (OSError, ValueError) as exc:  # none, one too slow, or a garbled answer
            log.info("no warm engine answered (%s); searching in-process", type(exc).__name__)
            return None
        try:
            data = json.loads(raw)
        except ValueError:  # an engine without this request kind, or one that failed
            return None
        rows = data.get("rows") if isinstance(data, dict) else None
        return rows if isinstance(rows, list) else None

    # -- get ----------------------------------------------------------------------------
    def get(self, ids: Sequence[str], sections: Sequence[str] = ()) -> str:
        wanted = check_ids(ids)
        if len(sections) > MAX_SECTIONS:
            raise BadInput(f"at most {MAX_SECTIONS} section names")
        if any(len(str(name)) > MAX_SECTION_NAME for name in sections):
            raise BadInput(
                f"a section name is a heading word (at most {MAX_SECTION_NAME} characters)"
            )
        readers = self._readers()
        found = locate(readers, wanted)
        refused: dict[Path, dict[str, list[str]]] = {}
        for root in {f.root for f in found.values()}:
            paths = [f.entry["path"] for f in found.values() if f.root == root]
            refused[root] = refusals(root, paths)
        shown: list[str] = []
        problems: list[str] = []
        used: dict[Path, list[str]] = {}
        for atom_id in wanted:
            hit = found.get(atom_id)
            author = str(hit.entry.get("author") or "") if hit is not None else ""
            if hit is None or not readable(
                hit.entry["scope"], self.readers.scopes(hit.root), author
            ):
                problems.append(self._unknown(atom_id, readers))
                continue
            path = hit.entry["path"]
            codes = refused[hit.root].get(path)
            if codes:
                problems.append(_refused_line(atom_id, path, codes))
                continue
            text = read_text(hit.root, path, _atom_bytes(hit.root))
            if text is None:
                problems.append(f"{atom_id}: {path} is gone or not a plain file")
                continue
            shown.append(render_atom(hit, text, sections))
            used.setdefault(hit.root, []).append(atom_id)
        self._record(used)
        if not shown:
            raise BadInput("\n".join(problems))
        if problems:
            shown.append("(" + "; ".join(problems) + ")")
        return "\n\n".join(shown)

    def _unknown(self, atom_id: str, readers: list[tuple[Path, Any]]) -> str:
        for root, reader in readers:
            for path in reader.skipped:
                if id_from_path(path) == atom_id:
                    codes = refusals(root, [path]).get(path) or ["invalid"]
                    return _refused_line(atom_id, path, codes)
        return f"{atom_id}: unknown id (`search` lists the ids there are)"

    def _record(self, used: dict[Path, list[str]]) -> None:
        """What the agent read counts as a use (ranking), and as given in this session: the
        prompt hook will not inject it again."""
        for root, ids in used.items():
            try:
                with self.readers.usage_log(root) as usage:
                    usage.record(self.session, ids, kind="get")
            except Exception:  # ranking data only: never fail a read for it
                log.warning("could not record use of %s in %s", ids, root, exc_info=True)

    # -- timeline -----------------------------------------------------------------------
    def timeline(
        self,
        around_id: str | None = None,
        since: str | None = None,
        until: str | None = None,
        limit: int = 30,
    ) -> str:
        if around_id is not None and not ID_RE.match(around_id):
            raise BadInput("around_id must be an atom id, as `search` lists them")
        since = check_date(since, "since") if since else None
        until = check_date(until, "until") if until else None
        if since and until and since > until:
            raise BadInput("since is after until")
        if isinstance(limit, bool) or not 1 <= limit <= MAX_EVENTS:
            raise BadInput(f"limit must be from 1 to {MAX_EVENTS}")

        events: list[tuple[Path, Event]] = []
        titles: dict[str, tuple[str, str]] = {}
        for root, reader in self._readers():
            email = git_email(root)
            scopes = self.readers.scopes(root)

            def mine(e: Event, email: str = email, scopes: Any = scopes) -> bool:
                place = scope_from_path(e.path)
                if place is None:
                    return False
                if place[0] == "episodic":
                    return e.when == "uncommitted" or (bool(email) and e.email == email)
                return readable(place[0], scopes)

            found = history(root, since=since, until=until)
            if until is None or until >= dt.date.today().isoformat():
                found += uncommitted(root, email)
            events += [(root, e) for e in found if mine(e)]
            titles.update(self._title_map(root, reader))
        events.sort(key=lambda pair: _sort_key(pair[1]))
        chosen = select([e for _, e in events], around=around_id, limit=limit)
        if not chosen:
            if around_id:
                raise BadInput(f"no history for `{around_id}`: unknown id, or never committed")
            return "no changes to atoms in that period"
        return render(chosen, titles.get)

    def _title_map(self, root: Path, reader: Any) -> dict[str, tuple[str, str]]:
        cached = self._titles.get(root)
        if cached is None or cached[0] is not reader:
            cached = (reader, {a["path"]: (a["title"], a["type"]) for a in reader.atoms})
            self._titles[root] = cached
        return cached[1]

    # -- save ---------------------------------------------------------------------------
    def save(
        self,
        text: str,
        type: str = "fact",
        scope: str = "shared",
        triggers: Sequence[str] = (),
        *,
        supersedes: Sequence[str] = (),
        related: Sequence[str] = (),
        duplicate_of: str = "",
    ) -> Saved:
        draft = check_draft(text, type, scope, triggers, supersedes=supersedes, related=related)
        root = self.roots[0]
        result = save(root, draft, session=self.label, duplicate_of=duplicate_of)
        if result.outcome is not None and result.outcome.written:
            try:
                # Indexed now, so that the next search finds it, here or in the engine.
                self._fresh(root, force=True)
            except Exception:
                log.warning("index refresh after saving failed", exc_info=True)
        return result

    # -- capture candidates -------------------------------------------------------------
    def candidates(self) -> str:
        """What capture found in this user's sessions and keeps waiting (`memkit candidates`)."""
        waiting = queue.pending(self.roots[0])
        if not waiting:
            return "no capture candidates wait (capture keeps what this user's sessions stated)"
        lines = [
            f"{len(waiting)} capture candidate(s) from this user's sessions, best first; "
            "`accept` writes one as an atom (the checks of `save` apply), only when the user "
            "asks for it:"
        ]
        for cand in waiting[:MAX_CANDIDATES]:
            lines.append(
                f"- {cand.id} · {cand.score:.2f} · {cand.type} · {cand.scope} · {cand.statement}"
            )
        if len(waiting) > MAX_CANDIDATES:
            lines.append(f"(and {len(waiting) - MAX_CANDIDATES} more: `memkit candidates list`)")
        return mask("\n".join(lines))

    def accept(self, cid: str, scope: str | None = None) -> Saved:
        """Write candidate `cid` through the path of `save` (`memkit.add.add_atom`)."""
        root = self.roots[0]
        try:
            cand = waiting(root, str(cid or "").strip())
        except MemkitError as exc:
            raise BadInput(str(exc)) from exc
        draft = draft_of(cand, scope=str(scope).strip() if scope else None)
        result = save(root, draft, session=self.label)
        if result.outcome is not None and result.outcome.written:
            record(root, cand, result.outcome, queue.ACCEPTED)
            try:
                self._fresh(root, force=True)
            except Exception:
                log.warning("index refresh after accepting failed", exc_info=True)
        return result


def _refused_line(atom_id: str, path: str, codes: list[str]) -> str:
    return (
        f"{atom_id}: {path} is refused by validation ({', '.join(codes)}) and not shown; "
        f"`memkit validate {path}` says what to fix"
    )


def _atom_bytes(root: Path) -> int:
    return load_config(root).atom_bytes


def _sort_key(event: Event) -> tuple[int, float]:
    if event.when == "uncommitted":
        return (1, 0.0)
    try:
        return (0, dt.datetime.fromisoformat(event.when).timestamp())
    except ValueError:
        return (0, 0.0)
