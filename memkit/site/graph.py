"""Supersedes and related links as a list with its arcs: no script, no library.

Each linked atom is one row of text (its title, its id, its status) and the links are arcs in
a narrow gutter beside the rows: a red arrow from the newer atom to the one it supersedes, a
dashed arc for related ones. A row's label has the width of the page, so labels never overlap
and never leave their frame, at any width (a long title ends in "…", whole in its tooltip);
the arcs need no room of their own. Rows are ordered so that a chain of supersedes reads top
down, newest first. Every string is escaped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memkit.site.html import badge, esc
from memkit.site.model import LIVE, Model

Href = Callable[[str], str]  # atom id -> link from the page the picture sits in
ROW = 32  # px: a row's height, as the stylesheet sets it (.chain li)
GROUPS = 200  # groups listed on the links page, largest first
GROUP_ROWS = 60  # rows drawn for one group; the rest are named below it


@dataclass(frozen=True)
class Edge:
    a: str
    b: str
    kind: str  # supersedes (a supersedes b) | related


def edges_of(model: Model) -> list[Edge]:
    out: list[Edge] = []
    for atom_id, links in model.links.items():
        out.extend(Edge(atom_id, old, "supersedes") for old in links.supersedes)
        out.extend(Edge(atom_id, other, "related") for other in links.related if atom_id < other)
    return out


def groups(model: Model, edges: Sequence[Edge]) -> list[list[str]]:
    """Connected groups of linked atoms, largest first (then by their first id)."""
    neighbours: dict[str, set[str]] = {}
    for edge in edges:
        neighbours.setdefault(edge.a, set()).add(edge.b)
        neighbours.setdefault(edge.b, set()).add(edge.a)
    seen: set[str] = set()
    out: list[list[str]] = []
    for start in sorted(neighbours):
        if start in seen:
            continue
        group, stack = [], [start]
        seen.add(start)
        while stack:
            node = stack.pop()
            group.append(node)
            for nxt in neighbours[node]:
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        out.append(sorted(group))
    out.sort(key=lambda g: (-len(g), g[0]))
    return out


def reading_order(group: Sequence[str], edges: Sequence[Edge]) -> list[str]:
    """The group's atoms in the order a person reads them: from an atom nothing supersedes,
    down its supersedes chain, then its related atoms, depth first (linked atoms stay close,
    so arcs stay short)."""
    members = set(group)
    older: dict[str, list[str]] = {n: [] for n in group}
    related: dict[str, list[str]] = {n: [] for n in group}
    newer: set[str] = set()
    for e in edges:
        if e.a not in members or e.b not in members:
            continue
        if e.kind == "supersedes":
            older[e.a].append(e.b)
            newer.add(e.b)
        else:
            related[e.a].append(e.b)
            related[e.b].append(e.a)
    roots = sorted(group, key=lambda n: (n in newer, -len(older[n]) - len(related[n]), n))
    out: list[str] = []
    seen: set[str] = set()
    for root in roots:
        stack = [root]
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            out.append(node)
            # pushed in reverse: older atoms come right after, then the related ones
            stack.extend(reversed([*sorted(older[node]), *sorted(related[node])]))
    return out


def link_rows(
    model: Model,
    rows: Sequence[str],
    edges: Sequence[Edge],
    href: Href,
    *,
    number: int,
    center: str = "",
    tags: dict[str, str] | None = None,
) -> str:
    """The rows and their arcs; `tags`: a word in front of a row ("newer", "related");
    `number` keeps the arrow marker's id unique on the page."""
    at = {node: i for i, node in enumerate(rows)}
    drawn = [e for e in edges if e.a in at and e.b in at]
    span = max((abs(at[e.a] - at[e.b]) for e in drawn), default=1)
    width = max(64, min(28 + 12 * span, 120))  # one gutter width for most groups
    x = width - 8
    height = ROW * len(rows)
    marker = f"arrow-{number}"
    svg = [
        f'<svg class="arcs" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        'aria-hidden="true" xmlns="http://www.w3.org/2000/svg">',
        f'<defs><marker id="{marker}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" '
        'markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker>'
        "</defs>",
    ]
    for e in drawn:
        y1, y2 = ROW * at[e.a] + ROW / 2, ROW * at[e.b] + ROW / 2
        bend = min(10 + 12 * abs(at[e.a] - at[e.b]), x - 4)
        path = f"M{x},{y1:.0f} C{x - bend},{y1:.0f} {x - bend},{y2:.0f} {x - 5},{y2:.0f}"
        if e.kind == "supersedes":
            svg.append(f'<path class="edge-supersedes" d="{path}" marker-end="url(#{marker})"/>')
        else:
            svg.append(f'<path class="edge-related" d="{path}"/>')
    for node, i in at.items():
        cls = "self" if node == center else "" if model.status[node] == LIVE else "retired"
        svg.append(f'<circle class="{cls}" cx="{x}" cy="{ROW * i + ROW / 2:.0f}" r="5"/>')
    svg.append("</svg>")
    items = []
    for node in rows:
        atom = model.atoms[node].atom
        status = model.status[node]
        tag = f'<span class="tag">{esc(tags[node])}</span> ' if tags and node in tags else ""
        mark = f" {badge(status)}" if status != LIVE else ""
        name = (
            f"<strong>{esc(atom.title)}</strong>"
            if node == center
            else f'<a href="{esc(href(node))}">{esc(atom.title)}</a>'
        )
        items.append(
            f'<li title="{esc(atom.title)} ({esc(node)})">{tag}{name} '
            f'<span class="meta">{esc(node)}</span>{mark}</li>'
        )
    return f'<div class="chain">{"".join(svg)}<ol class="chain-rows">{"".join(items)}</ol></div>'


def neighbourhood(model: Model, center: str, href: Href, number: int = 0) -> str:
    """The atom among its direct links, for its own page: the atoms that supersede it above
    it, the ones it supersedes and its related ones below; '' when it has none."""
    links = model.links[center]
    if not (links.superseded_by or links.supersedes or links.related):
        return ""
    above = list(links.superseded_by)
    below = [*links.supersedes, *(r for r in links.related if r not in links.supersedes)]
    rows = list(dict.fromkeys([*above, center, *below]))
    tags = dict.fromkeys(above, "newer")
    tags.update(dict.fromkeys(links.supersedes, "older"))
    tags.update({n: "related" for n in links.related if n not in tags})
    edges = [Edge(n, center, "supersedes") for n in above]
    edges += [Edge(center, n, "supersedes") for n in links.supersedes]
    edges += [Edge(center, n, "related") for n in links.related if tags.get(n) == "related"]
    return link_rows(model, rows, edges, href, number=number, center=center, tags=tags)


def group_rows(
    model: Model, group: list[str], edges: Sequence[Edge], href: Href, number: int
) -> str:
    """One group of the links page; `edges`: the group's own."""
    order = reading_order(group, edges)
    drawn, rest = order[:GROUP_ROWS], order[GROUP_ROWS:]
    more = ""
    if rest:
        names = ", ".join(f'<a href="{esc(href(n))}">{esc(n)}</a>' for n in rest)
        more = f'<p class="muted">Also in this group ({len(rest)}): {names}</p>'
    return link_rows(model, drawn, edges, href, number=number) + more
