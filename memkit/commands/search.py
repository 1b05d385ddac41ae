"""memkit search QUERY: find atoms (hybrid BM25 + vectors + triggers)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from memkit.capture.episodic import search
from memkit.errors import MemkitError, UsageError
from memkit.index import refresh
from memkit.index.lite import open_light
from memkit.index.manifest import is_stale, start_git
from memkit.index.opening import DAMAGED, open_or_heal
from memkit.recall.pipeline import relevant
from memkit.safety.private import strip_private
from memkit.where import memory_root


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "search",
        help="search the memory",
        description="Search atoms by meaning and by words. Each result says why it matched "
        "(trigger, BM25 rank, vector rank). Only what recall would also call relevant is "
        "listed (`--all-results` for every match). The index is refreshed first when it is "
        "missing.",
    )
    parser.add_argument("query", nargs="*", help="what to look for (several words need no quotes)")
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--mode", choices=("hybrid", "bm25", "vector"), default="hybrid")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "--all",
        "--include-inactive",
        dest="include_inactive",
        action="store_true",
        help="also superseded, archived and pending atoms",
    )
    parser.add_argument(
        "--all-results",
        action="store_true",
        help="every match, also those under recall's relevance floor (one word in common)",
    )
    parser.add_argument(
        "--batch", type=Path, help="JSON lines {id, query} in; one JSON line per query out"
    )
    parser.add_argument(
        "--episodes",
        action="store_true",
        help="search your own session summaries (kept on this machine, in .memkit/episodic/) "
        "instead of the team's atoms",
    )
    parser.set_defaults(func=run)


def _current(root: Path, stale: bool, refresh: Any) -> bool:
    """Refresh a stale index (parsing only what changed); whether it was. When `.memkit/`
    cannot be written (read-only, a full disk), what is there is searched, with a warning."""
    if not stale:
        return False
    try:
        refresh(root, quiet=True)
    except OSError as exc:
        print(
            f"memkit: the index could not be refreshed ({exc.strerror or exc}); "
            "results may be out of date",
            file=sys.stderr,
        )
    return True


def _open(root: Path, *, refresh: Any) -> Any:
    """The index: a missing or damaged one rebuilt, and waited for."""

    def heal(root: Path, problem: str, detail: str) -> Any:
        # None yet: built, as the first search always did (and silently).
        return _rebuilt(root, detail, refresh, say=problem == DAMAGED)

    return open_or_heal(root, deep=False, heal=heal)[0]


def _rebuilt(root: Path, problem: str, refresh: Any, *, say: bool = True) -> Any:
    if say:
        print(f"memkit: rebuilding the index ({problem})", file=sys.stderr)
    try:
        refresh(root, quiet=True, full=True)
    except OSError as exc:
        raise MemkitError(
            f"the index cannot be rebuilt ({exc.strerror or exc}): {problem}"
        ) from exc
    return open_light(root)


def above_floor(reader: Any, query: str, hits: list[Any], mode: str) -> list[Any]:
    """The hits recall would also call relevant (`memkit.recall.pipeline.relevant`): an atom
    that shares one common word with the query, or sits at a static vector's everyday cosine,
    is not an answer to it."""
    if not hits:
        return hits
    query = strip_private(query)
    terms = reader.query_terms(query)
    triggered = {row for row, _ in reader.trigger_matches(query)} if mode == "hybrid" else set()
    cosine = dict(reader.vector(query)) if mode in ("hybrid", "vector") else {}
    # The light reader keeps columns: a few list look-ups, not a dict per atom.
    columns = getattr(reader.atoms, "columns", None)
    paths = list(columns["path"]) if columns else [e["path"] for e in reader.atoms]
    kept = []
    for hit in hits:
        if hit.path not in paths:
            continue
        row = paths.index(hit.path)
        cover, held = reader.coverage(terms, row)
        if relevant(cover, held, terms.known, trigger=row in triggered, cosine=cosine.get(row)):
            kept.append(hit)
    return kept


def run(args: argparse.Namespace) -> int:
    args.query = " ".join(args.query) or None
    if (args.query is None) == (args.batch is None):
        raise UsageError("give a QUERY or --batch FILE")
    if args.limit < 1:
        raise UsageError("--limit must be at least 1")
    root = memory_root(args.repo)
    if args.episodes:
        if args.batch is not None:
            raise UsageError("--episodes takes a QUERY, not --batch")
        return _episodes(root, args.query, args.limit, as_json=args.json)
    # Whether the index is current (an atom written or pulled since the last build is found
    # at once) is git's work: it runs while this process loads the index and searches.
    running: Any = start_git(root)
    if args.batch is not None or not (root / ".memkit" / "index" / "CURRENT").is_file():
        _current(root, is_stale(root, running), refresh)
        running = None
    reader = _open(root, refresh=refresh)
    options = {"limit": args.limit, "mode": args.mode, "include_inactive": args.include_inactive}

    def search(query: str) -> list[Any]:
        hits = reader.search(query, **options)
        return hits if args.all_results else above_floor(reader, query, hits, args.mode)

    if args.batch is not None:
        try:
            lines = args.batch.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise MemkitError(f"{args.batch}: {exc.strerror or exc}") from exc
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                query = str(item["query"])
            except (ValueError, KeyError, TypeError) as exc:
                raise UsageError(f'{args.batch}:{n}: expected {{"id": ..., "query": ...}}') from exc
            hits = search(query)
            print(
                json.dumps(
                    {"id": item.get("id"), "results": [h.to_json() for h in hits]},
                    ensure_ascii=False,
                )
            )
        return 0
    hits = search(args.query)
    if running is not None and _current(root, is_stale(root, running), refresh):
        reader = _open(root, refresh=refresh)  # the atoms changed: asked again
        hits = search(args.query)
    if reader.damage:  # found only by this query: rebuilt, and asked again
        reader = _rebuilt(root, reader.damage, refresh)
        hits = search(args.query)
    if args.json:
        print(
            json.dumps(
                {"query": args.query, "results": [h.to_json() for h in hits]}, ensure_ascii=False
            )
        )
        return 0
    if not hits:
        more = "" if args.all_results else " (`--all-results` shows weaker matches too)"
        print(f"no matching atoms{more}", file=sys.stderr)
        return 0
    for n, hit in enumerate(hits, 1):
        print(f"{n:2}. {hit.id}  {hit.title}")
        print(f"    {hit.path}  score {hit.score:.3f}  ({hit.why})")
    return 0


def _episodes(root: Path, query: str, limit: int, *, as_json: bool) -> int:
    """Your session summaries that hold the query's words (`memkit.capture.episodic`)."""
    found = search(root, query, limit)
    if as_json:
        rows = [
            {
                "id": s.id,
                "title": s.title,
                "created": s.created,
                "expires": s.expires,
                "covers": round(share, 3),
                "path": s.path.relative_to(root).as_posix(),
            }
            for share, s in found
        ]
        print(json.dumps({"query": query, "episodes": rows}, ensure_ascii=False))
        return 0
    if not found:
        print("no matching session summaries of yours", file=sys.stderr)
        return 0
    for n, (share, summary) in enumerate(found, 1):
        print(f"{n:2}. {summary.id}  {summary.title}")
        print(f"    {summary.path.relative_to(root).as_posix()}  covers {share:.0%} of the query")
    return 0
