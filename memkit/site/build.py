"""`memkit site`: the whole build, reusing every page whose inputs did not change.

Each page's key is a hash of what it shows (for an atom: its file's blob id, its status, the
titles of the atoms it links to, its usage, its history); `.memkit-site.json` in the output
folder keeps the keys of the last build. A page whose key is unchanged and whose file is
still there is not rendered again. Only files the site wrote are ever replaced or removed;
a folder holding anything else is refused.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from memkit import __version__
from memkit.audit.status import REPORT, WRITTEN, open_conflicts
from memkit.config import Config
from memkit.errors import MemkitError
from memkit.files import write_atomic
from memkit.gate.score import GateSettings, score_atom
from memkit.index.manifest import current_manifest
from memkit.lifecycle.health import build_health
from memkit.lifecycle.team import read_team_usage
from memkit.parallel import in_halves, no_cyclic_gc
from memkit.site.atompage import atom_page, body_markdown, page_inputs
from memkit.site.cache import Entry
from memkit.site.cache import load as load_cache
from memkit.site.cache import save as save_cache
from memkit.site.collect import collect
from memkit.site.history import read_history
from memkit.site.html import ATOM_DIR
from memkit.site.lists import archive_page, atoms_page, graph_page, search_page
from memkit.site.markdown import known_pages, make_renderer
from memkit.site.model import PENDING, Model, build_model
from memkit.site.needs import Conflict, conflict_of
from memkit.site.plots import PLOTS
from memkit.site.searchdocs import atom_weights, search_index
from memkit.site.start import start_page

log = logging.getLogger(__name__)
MANIFEST = ".memkit-site.json"
FORMAT = 2  # of the pages: a new layout makes every page again
ASSETS = ("site.css", "search.js")
PARALLEL_PAGES = 1000  # from this many pages to render, a forked child renders half


@dataclass
class SiteStats:
    atoms: int = 0
    files: int = 0  # atom files in the working tree
    read: int = 0  # of them read this time (the others known from the cache, unchanged)
    written: int = 0
    reused: int = 0
    removed: int = 0
    learnt: int = 0  # files read, bodies rendered, terms found: what the cache did not know
    hidden: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


class _Keys:
    """The keys of the last build, and this build's: output path -> key."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.before: dict[str, str] = {}
        self.now: dict[str, str] = {}
        # What groups of files were made from (the search index's shards), by name.
        self.made_from: dict[str, str] = {}
        self.made_from_now: dict[str, str] = {}
        path = out / MANIFEST
        if path.is_file():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                data = {}
            if isinstance(data, dict) and data.get("format") == FORMAT:
                files, made = data.get("files"), data.get("made_from")
                self.before = dict(files) if isinstance(files, dict) else {}
                self.made_from = dict(made) if isinstance(made, dict) else {}
        elif out.exists() and not out.is_dir():
            raise MemkitError(f"{out} is a file; choose a folder for the site")
        elif out.exists() and any(out.iterdir()):
            raise MemkitError(
                f"{out} is not empty and was not written by `memkit site`; "
                "choose an empty or new folder"
            )

    def fresh(self, rel: str, key: str) -> bool:
        """Record `key` for `rel`; whether the file there was built from the same inputs."""
        self.now[rel] = key
        return self.before.get(rel) == key and (self.out / rel).is_file()

    def save(self) -> int:
        """Write the manifest; remove the files the last build wrote and this one did not."""
        removed = 0
        for rel in sorted(set(self.before) - set(self.now)):
            target = self.out / rel
            if target.is_file() and target.resolve().is_relative_to(self.out.resolve()):
                target.unlink()
                removed += 1
        data = {
            "format": FORMAT,
            "memkit": __version__,
            "files": dict(sorted(self.now.items())),
            "made_from": self.made_from_now,
        }
        write_atomic(self.out / MANIFEST, json.dumps(data, indent=0) + "\n", durable=False)
        return removed


def _key(*parts: object) -> str:
    return hashlib.sha1(repr((FORMAT, __version__, *parts)).encode()).hexdigest()  # noqa: S324


def _write(out: Path, rel: str, text: str) -> None:
    target = out / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, text, durable=False)


def _put(keys: _Keys, rel: str, text: str, stats: SiteStats) -> None:
    """A page that is cheap to make: written only when what it says changed."""
    if keys.fresh(rel, _key(text)):
        stats.reused += 1
        return
    _write(keys.out, rel, text)
    stats.written += 1


def _findings(model: Model, config: Config, conflicts: Sequence[Conflict]) -> dict[str, list[str]]:
    """atom id -> what its page and review say of it: for an atom waiting for review,
    validate's warnings and the write gate's score; for any atom, the conflicts it is in."""
    settings = GateSettings.from_config(config.section("gate"))
    out: dict[str, list[str]] = {}
    for shown in model.with_status(PENDING):
        atom = shown.atom
        score = score_atom(atom.title, atom.body, atom.type, settings)
        gate = f"write gate: {score.verdict} (quality {score.score:.2f})"
        if score.verdict != "pass":
            gate += f" — {score.explain()}"
        out[atom.id] = [*shown.findings, gate]
    for c in conflicts:
        for atom_id, other in ((c.a, c.b), (c.b, c.a)):
            out.setdefault(atom_id, []).append(f"{c.kind} `{other}`: {c.reason}. Fix: {c.fix}")
    return out


def _conflicts(root: Path, model: Model) -> tuple[list[Conflict] | None, int]:
    """The audit's open conflicts the site shows (None: no audit report in this clone), and
    how many more stand between atoms it does not show. `open_conflicts` counts a pair once
    whichever way round it was reported, as `memkit health` does."""
    if not (root / REPORT).is_file() and not (root / WRITTEN).is_file():
        return None, 0
    found: dict[frozenset[str], Conflict] = {}
    hidden = 0
    for item in open_conflicts(root, kinds=("contradicts", "duplicate")):
        conflict = conflict_of(item, lambda i: i in model.atoms)
        if conflict is None:
            hidden += 1
        else:
            found.setdefault(conflict.pair, conflict)
    return list(found.values()), hidden


def build_site(
    root: Path,
    out: Path,
    config: Config,
    *,
    memory: str | None = None,
    today: dt.date | None = None,
) -> SiteStats:
    """Build the site of the memory at `root` into `out`."""
    with no_cyclic_gc():  # tens of thousands of small records: atoms, postings
        return _build(root, out, config, memory=memory, today=today)


def _build(
    root: Path, out: Path, config: Config, *, memory: str | None, today: dt.date | None
) -> SiteStats:

    today = today or dt.date.today()
    memory = memory or root.name
    stats = SiteStats()
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        stats.seconds[name] = round(now - clock, 3)
        clock = now

    out = out.resolve()
    keys = _Keys(out)
    known = load_cache(root)
    collected = collect(root, config, current_manifest(root), known)
    lap("collect")
    model = build_model(collected, read_history(root), read_team_usage(root, local=False), today)
    stats.atoms, stats.hidden = len(model.atoms), dict(model.hidden)
    stats.files, stats.read = len(collected.entries), collected.read
    lap("history")
    health = build_health(root, config, today=today)
    conflicts, not_shown = _conflicts(root, model)
    findings = _findings(model, config, conflicts or [])
    lap("health")
    _atom_pages(model, keys, collected.entries, findings=findings, memory=memory, stats=stats)
    lap("atoms")
    top = make_renderer(known_pages(set(model.atoms), f"{ATOM_DIR}/"))
    _put(
        keys,
        "index.html",
        start_page(
            model,
            health,
            conflicts,
            findings,
            top,
            memory=memory,
            not_shown=not_shown,
        ),
        stats,
    )
    _put(keys, "atoms.html", atoms_page(model, memory=memory), stats)
    _put(keys, "archive.html", archive_page(model, memory=memory), stats)
    _put(keys, "graph.html", graph_page(model, memory=memory), stats)
    _put(keys, "search.html", search_page(memory=memory), stats)
    for name, (_, draw) in PLOTS.items():
        _put(keys, f"plots/{name}", draw(model), stats)
    for name in ASSETS:
        text = (
            resources.files("memkit.site")
            .joinpath("assets")
            .joinpath(name)
            .read_text(encoding="utf-8")
        )
        _put(keys, f"assets/{name}", text, stats)
    lap("pages")
    _search(model, keys, collected.entries, stats)
    lap("search")
    stats.removed = keys.save()
    stats.learnt += collected.read
    if stats.learnt or collected.entries.keys() != known.keys():
        save_cache(root, collected.entries)
    lap("save")
    return stats


def _search(model: Model, keys: _Keys, entries: dict[str, Entry], stats: SiteStats) -> None:
    """The search index, made again when an atom, its status or its title changed (each
    atom's terms from the cache when its file is unchanged); then each shard is written only
    when it changed."""
    inputs = _key([(i, s.blob, model.status[i]) for i, s in sorted(model.atoms.items())])
    keys.made_from_now["search"] = inputs
    if keys.made_from.get("search") == inputs:
        kept = [r for r in keys.before if r.startswith(("assets/search/", "assets/search-i"))]
        if kept and all((keys.out / rel).is_file() for rel in kept):
            for rel in kept:
                keys.now[rel] = keys.before[rel]
            stats.reused += len(kept)
            return
    known = {i: e.weights for i, s in model.atoms.items() if (e := entries[s.key]).weights}
    index = search_index(model, known)
    for atom_id, weighed in index.weighed.items():
        entries[model.atoms[atom_id].key].weights = weighed
        stats.learnt += 1
    for rel, text in index.files().items():
        _put(keys, f"assets/{rel}", text, stats)


def _atom_pages(
    model: Model,
    keys: _Keys,
    entries: dict[str, Entry],
    *,
    findings: dict[str, list[str]],
    memory: str,
    stats: SiteStats,
) -> None:

    def page_key(atom_id: str) -> str:
        shown = model.atoms[atom_id]
        said = findings.get(atom_id, [])
        # The body's links to atom pages hold while the atoms they name are shown or not.
        resolved = sorted((i, i in model.atoms) for i in entries[shown.key].links)
        return _key(memory, shown.blob, shown.more, page_inputs(model, atom_id), said, resolved)

    todo: list[str] = []
    for atom_id in model.atoms:
        if keys.fresh(f"{ATOM_DIR}/{atom_id}.html", page_key(atom_id)):
            stats.reused += 1
        else:
            todo.append(atom_id)
    out = keys.out
    (out / ATOM_DIR).mkdir(parents=True, exist_ok=True)
    ids = set(model.atoms)

    def work(part: Sequence[str], in_child: bool) -> list[tuple[str, Entry]]:
        looked: dict[str, bool] = {}  # the atom links a body names, and whether each is shown

        def page_of(atom_id: str) -> str | None:
            looked[atom_id] = atom_id in ids
            return known_pages(ids)(atom_id)

        render = make_renderer(page_of)
        made = []
        for atom_id in part:
            shown = model.atoms[atom_id]
            entry = entries[shown.key]
            body = entry.body
            # What the cache did not know of this file: its body's HTML, its search terms
            # (found here, where the pages are shared between two cores, not later alone).
            learnt = Entry([], weights=None if entry.weights else atom_weights(shown.atom))
            if body is None or any((i in ids) != was for i, was in entry.links.items()):
                looked.clear()
                body = render(body_markdown(shown.atom.title, shown.atom.body))
                learnt.body, learnt.links = body, dict(looked)
            if learnt.body is not None or learnt.weights is not None:
                made.append((shown.key, learnt))
            html = atom_page(
                model, atom_id, body, findings=findings.get(atom_id, ()), memory=memory
            )
            write_atomic(out / ATOM_DIR / f"{atom_id}.html", html, durable=False)
        return made

    for share in in_halves(todo, work, minimum=PARALLEL_PAGES):
        for key, learnt in share:
            entry = entries[key]
            if learnt.body is not None:
                entry.body, entry.links = learnt.body, learnt.links
            if learnt.weights is not None:
                entry.weights = learnt.weights
            stats.learnt += 1
    for atom_id in todo:  # keyed by the links their bodies resolved just now
        keys.now[f"{ATOM_DIR}/{atom_id}.html"] = page_key(atom_id)
    stats.written += len(todo)
