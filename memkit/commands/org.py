"""memkit org publish|search|status|forget|drop: the organisation's memory on Milvus."""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memkit.config import load_config
from memkit.errors import MemkitError, UsageError
from memkit.org import lease
from memkit.org.settings import OrgSettings, org_settings, settings_for
from memkit.repo import nearest_repo
from memkit.where import memory_root

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.org.publish", "memkit.org.search", "memkit.org.store"}


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "org",
        help="the organisation's memory on Milvus: publish repositories, search across them",
        description="`memkit org publish REPO...` publishes what each memory repository serves "
        "(valid, shared or a role's, live; never personal, pending, episodic or private) at "
        "its HEAD into the org's Milvus: Milvus Lite in a file under your data folder by "
        "default, a Milvus server or cluster with --uri http://HOST:PORT (token in "
        "MEMKIT_ORG_TOKEN). `memkit org search QUERY` searches every repository published, "
        "with your roles. Needs the optional dependencies: pip install 'memkit[org]'.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    publish = actions.add_parser(
        "publish",
        help="publish memory repositories (only what changed since their last publish)",
    )
    publish.add_argument("repos", nargs="*", type=Path, help="memory repositories (default: here)")
    publish.add_argument("--name", help="the repository's name in the org (one REPO only)")
    publish.add_argument("--force", action="store_true", help="compare every atom again")
    search = actions.add_parser("search", help="search the org's memory")
    search.add_argument("query", nargs="+", help="what to look for")
    search.add_argument("--limit", type=int, default=10)
    search.add_argument("--json", action="store_true", help="print JSON lines")
    search.add_argument(
        "--all-results", action="store_true", help="also hits under recall's relevance floor"
    )
    search.add_argument("--ranker", choices=("weighted", "rrf"), default="weighted")
    status = actions.add_parser("status", help="the repositories published and their commits")
    forget = actions.add_parser("forget", help="remove a repository from the org")
    forget.add_argument("name", help="its name in the org, as `memkit org status` lists it")
    drop = actions.add_parser("drop", help="delete the org's collections (publish again after)")
    drop.add_argument("--yes", action="store_true", help="really")
    for sub in (publish, search, status, forget, drop):
        sub.add_argument("--uri", help="Milvus Lite file (*.db) or http://HOST:PORT")
    parser.set_defaults(func=run)


def _configured(start: Path | None) -> OrgSettings | None:
    root = nearest_repo((start or Path.cwd()).resolve())
    return org_settings(load_config(root).section("org")) if root is not None else None


@contextlib.contextmanager
def _opened(settings: OrgSettings) -> Iterator[Any]:
    try:
        from memkit.org.store import OrgStore
    except ImportError as exc:
        raise MemkitError(
            f"the org's memory needs pymilvus and milvus-lite ({exc.name} is missing): "
            "pip install 'memkit[org]'"
        ) from exc
    store = OrgStore(settings)
    guard = lease.exclusive(Path(settings.uri)) if settings.is_lite else contextlib.nullcontext()
    with guard, store:
        yield store


def run(args: argparse.Namespace) -> int:
    if args.action == "publish":
        return _publish(args)
    settings = settings_for(args.uri, _configured(None))
    if settings.is_lite and not Path(settings.uri).is_dir():
        # Opening a Lite file that is not there would make an empty one.
        raise MemkitError(f"nothing published at {settings.uri}: run `memkit org publish`")
    if args.action == "search":
        return _search(args, settings)
    with _opened(settings) as store:
        if args.action == "status":
            states = store.states()
            if not states:
                print(f"nothing published at {store.where}")
            for state in sorted(states.values(), key=lambda s: s.repo):
                print(f"{state.repo}\t{state.commit[:12]}\t{state.atoms} atoms\t{state.published}")
            return 0
        if args.action == "forget":
            removed = store.forget(args.name)
            print(f"{args.name}: {removed} atoms removed from {store.where}")
            return 0
        if not args.yes:
            raise UsageError(f"this deletes the org's collections at {store.where}: add --yes")
        store.drop()
        print(f"dropped the org's collections at {store.where}")
        return 0


def _publish(args: argparse.Namespace) -> int:
    from memkit.org.publish import org_model, publish

    roots = [memory_root(r) for r in args.repos] if args.repos else [memory_root(None)]
    if args.name and len(roots) != 1:
        raise UsageError("--name names one repository: publish the others separately")
    settings = settings_for(args.uri, _configured(roots[0]))
    model = org_model(roots[0])
    with _opened(settings) as store:
        store.ensure(model.dim, model.name)
        for root in roots:
            done = publish(root, store, model=model, name=args.name, force=args.force)
            print(done.line())
    return 0


def _search(args: argparse.Namespace, settings: OrgSettings) -> int:
    from memkit.org.publish import org_model
    from memkit.org.search import OrgSearch, who_asks

    if not 1 <= args.limit <= 200:
        raise UsageError("--limit must be from 1 to 200")
    model = org_model(nearest_repo(Path.cwd().resolve()))
    with _opened(settings) as store:
        if not store.exists():
            raise MemkitError(f"nothing published at {store.where}: run `memkit org publish`")
        hits = OrgSearch(store, model).search(
            " ".join(args.query),
            who_asks(Path.cwd()),
            limit=args.limit,
            floor=not args.all_results,
            ranker=args.ranker,
        )
    if args.json:
        for hit in hits:
            print(json.dumps(hit.to_json(), ensure_ascii=False))
        return 0
    if not hits:
        print("no atom of the org matches")
    for hit in hits:
        print(f"{hit.score:.3f}  [{hit.repo}] {hit.atom_id} · {hit.type} · {hit.title}")
        print(f"        {hit.path} @ {hit.commit[:12]} ({hit.why})")
    return 0
