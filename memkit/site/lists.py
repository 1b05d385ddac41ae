"""The pages that list atoms: every live one by type, the archive, the links, the search page."""

from __future__ import annotations

from collections import defaultdict

from memkit.atom import TYPES
from memkit.site.graph import GROUPS, Edge, edges_of, group_rows, groups
from memkit.site.html import atom_href, badge, esc, page, table
from memkit.site.model import ARCHIVED, EXPIRED, LIVE, SUPERSEDED, Model


def _row(model: Model, atom_id: str) -> list[str]:
    atom = model.atoms[atom_id].atom
    use = model.use(atom_id).tally
    status = model.status[atom_id]
    return [
        f'<a href="{esc(atom_href(atom_id))}">{esc(atom.title)}</a>'
        + (f" {badge(status)}" if status != LIVE else "")
        + f'<br><span class="meta">{esc(atom_id)}</span>',
        esc(atom.scope),
        esc(atom.confidence),
        esc(atom.created),
        str(use.confirmed + use.contradicted),
    ]


def atoms_page(model: Model, *, memory: str) -> str:
    by_type: dict[str, list[str]] = defaultdict(list)
    for atom_id in sorted(model.atoms):
        if model.status[atom_id] in (LIVE, EXPIRED):
            by_type[model.atoms[atom_id].atom.type].append(atom_id)
    order = [t for t in TYPES if t in by_type] + sorted(set(by_type) - set(TYPES))
    parts = [f"<h1>Atoms ({sum(len(v) for v in by_type.values())} live)</h1>"]
    if order:
        parts.append(
            "<p>"
            + " · ".join(
                f'<a href="#type-{esc(t)}">{esc(t)} ({len(by_type[t])})</a>' for t in order
            )
            + "</p>"
        )
    # Without the team's usage exports every count would be 0: the column says nothing.
    used = bool(model.usage.sources)
    headers = ["atom", "scope", "tier", "created", *(["sessions"] if used else [])]
    for kind in order:
        rows = [_row(model, i)[: len(headers)] for i in by_type[kind]]
        parts.append(
            f'<section class="card" id="type-{esc(kind)}"><h2>{esc(kind)}</h2>'
            f"{table(headers, rows, numeric=int(used))}</section>"
        )
    return page("Atoms", "\n".join(parts), here="atoms.html", memory=memory)


def archive_page(model: Model, *, memory: str) -> str:
    retired = sorted(
        (i for i in model.atoms if model.status[i] in (SUPERSEDED, ARCHIVED)),
        key=lambda i: (model.status[i], i),
    )
    rows = []
    for atom_id in retired:
        shown = model.atoms[atom_id]
        more = dict(shown.more)
        newer = model.links[atom_id].superseded_by
        why = (
            "superseded by "
            + ", ".join(f'<a href="{esc(atom_href(n))}">{esc(n)}</a>' for n in newer)
            if newer
            else esc(more.get("rejected_reason") or more.get("archived_reason") or "")
        )
        rows.append(
            [
                f'<a href="{esc(atom_href(atom_id))}">{esc(shown.atom.title)}</a>'
                f'<br><span class="meta">{esc(atom_id)}</span>',
                badge(model.status[atom_id]),
                why,
            ]
        )
    body = (
        table(["atom", "status", "why"], rows)
        if rows
        else "<p>Nothing is archived or superseded.</p>"
    )
    return page(
        "Archive",
        f'<h1>Archive ({len(rows)})</h1>\n<p class="muted">Atoms kept in git and no longer '
        f"recalled: superseded by a newer one, archived, or rejected in review.</p>\n"
        f'<section class="card">{body}</section>',
        here="archive.html",
        memory=memory,
    )


def graph_page(model: Model, *, memory: str) -> str:
    edges = edges_of(model)
    found = groups(model, edges)
    group_of = {atom_id: n for n, group in enumerate(found[:GROUPS]) for atom_id in group}
    edges_in: list[list[Edge]] = [[] for _ in found[:GROUPS]]
    for edge in edges:
        if edge.a in group_of:
            edges_in[group_of[edge.a]].append(edge)
    parts = [
        f"<h1>Links ({len(found)} group(s) of linked atoms)</h1>",
        '<p class="muted">Each group of atoms that name one another, one atom a row. Red '
        "arrows: the newer atom supersedes the older one (read top down, newest first). "
        "Dashed arcs: related. Grey dots: superseded or archived.</p>",
    ]
    for n, group in enumerate(found[:GROUPS]):
        rows = group_rows(model, group, edges_in[n], atom_href, n)
        parts.append(
            f'<section class="card group"><h2>{len(group)} linked atoms</h2>{rows}</section>'
        )
    if len(found) > GROUPS:
        parts.append(f'<p class="muted">{len(found) - GROUPS} smaller group(s) not listed.</p>')
    if not found:
        parts.append("<p>No atom names another in `supersedes` or `related` yet.</p>")
    return page("Links", "\n".join(parts), here="graph.html", memory=memory)


def search_page(*, memory: str) -> str:
    body = (
        '<h1>Search</h1>\n<form action="search.html" method="get" role="search">'
        '<input id="q" type="search" name="q" autofocus '
        'placeholder="websocket heartbeat · 心跳間隔" '
        'aria-label="Search the memory"></form>\n'
        '<p id="count" class="muted">Search needs JavaScript; every atom is also listed under '
        '<a href="atoms.html">Atoms</a>.</p>\n<ol id="results"></ol>'
    )
    return page(
        "Search",
        body,
        here="search.html",
        scripts=("search-index.js", "search.js"),
        memory=memory,
    )
