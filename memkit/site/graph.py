"""Supersedes and related links drawn at build time as SVG: no script, no library.

An atom's page shows its neighbourhood (the atom in the middle, what it links to around it);
the links page shows every group of linked atoms, each laid out on its own by a small
force-directed pass (deterministic: the same memory draws the same picture). Labels are atom
ids, titles are tooltips; every string is escaped.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memkit.site.html import esc
from memkit.site.model import RETIRED, Model

Href = Callable[[str], str]  # atom id -> link from the page the picture sits in
LABEL = 26  # characters of an id shown under its node
NEIGHBOURS = 24  # on an atom's page; the lists below the picture name every link
FORCE_NODES = 40  # a larger group is drawn on a circle (the force pass is quadratic)
GROUPS = 200  # groups drawn on the links page, largest first


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


def neighbourhood(model: Model, center: str, href: Href, number: int = 0) -> str:
    """The atom and its direct links, for its own page; '' when it has none."""
    links = model.links[center]
    around = list(dict.fromkeys([*links.superseded_by, *links.supersedes, *links.related]))
    if not around:
        return ""
    around = around[:NEIGHBOURS]
    size = 360 if len(around) <= 8 else 480
    height = 110 if len(around) <= 2 else size  # one or two: on a line, left and right
    mid = size / 2
    radius = size / 2 - 60
    pos = {center: (mid, height / 2)}
    for i, other in enumerate(around):
        angle = math.pi + 2 * math.pi * i / len(around)  # the first on the left
        pos[other] = (mid + radius * math.cos(angle), height / 2 + radius * math.sin(angle))
    shown = set(pos)
    edges = [e for e in edges_of_around(model, center, around) if e.a in shown and e.b in shown]
    return _svg(model, pos, edges, href, (size, height), number=number, center=center)


def edges_of_around(model: Model, center: str, around: Sequence[str]) -> list[Edge]:
    links = model.links[center]
    out = [Edge(center, old, "supersedes") for old in links.supersedes]
    out += [Edge(newer, center, "supersedes") for newer in links.superseded_by]
    out += [Edge(center, other, "related") for other in links.related]
    return [e for e in out if e.a in around or e.b in around]


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


def group_picture(
    model: Model, group: list[str], edges: Sequence[Edge], href: Href, number: int
) -> str:
    """One group's picture; `edges`: the group's own."""
    size = int(max(260, min(900, 90 * math.sqrt(len(group)) + 120)))
    pos = _force(group, edges, size) if len(group) <= FORCE_NODES else _circle(group, size)
    return _svg(model, pos, edges, href, (size, size), number=number)


def _circle(nodes: Sequence[str], size: int) -> dict[str, tuple[float, float]]:
    mid, radius = size / 2, size / 2 - 50
    return {
        n: (
            mid + radius * math.cos(2 * math.pi * i / len(nodes)),
            mid + radius * math.sin(2 * math.pi * i / len(nodes)),
        )
        for i, n in enumerate(nodes)
    }


def _force(
    nodes: Sequence[str], edges: Sequence[Edge], size: int
) -> dict[str, tuple[float, float]]:
    """Fruchterman-Reingold from a circle, cooling linearly; kept inside the frame."""
    pos = {n: list(p) for n, p in _circle(nodes, size).items()}
    if len(nodes) <= 2:
        return {n: (p[0], p[1]) for n, p in pos.items()}
    k = 0.8 * math.sqrt((size - 100) ** 2 / len(nodes))
    steps = 60
    for step in range(steps):
        heat = size / 10 * (1 - step / steps)
        move = {n: [0.0, 0.0] for n in nodes}
        for i, a in enumerate(nodes):
            for b in nodes[i + 1 :]:
                dx, dy = pos[a][0] - pos[b][0], pos[a][1] - pos[b][1]
                dist = max(math.hypot(dx, dy), 0.01)
                push = k * k / dist
                move[a][0] += dx / dist * push
                move[a][1] += dy / dist * push
                move[b][0] -= dx / dist * push
                move[b][1] -= dy / dist * push
        for e in edges:
            dx, dy = pos[e.a][0] - pos[e.b][0], pos[e.a][1] - pos[e.b][1]
            dist = max(math.hypot(dx, dy), 0.01)
            pull = dist * dist / k
            move[e.a][0] -= dx / dist * pull
            move[e.a][1] -= dy / dist * pull
            move[e.b][0] += dx / dist * pull
            move[e.b][1] += dy / dist * pull
        for n in nodes:
            dx, dy = move[n]
            length = max(math.hypot(dx, dy), 0.01)
            pos[n][0] = min(size - 50, max(50, pos[n][0] + dx / length * min(length, heat)))
            pos[n][1] = min(size - 40, max(30, pos[n][1] + dy / length * min(length, heat)))
    return {n: (p[0], p[1]) for n, p in pos.items()}


def _svg(
    model: Model,
    pos: dict[str, tuple[float, float]],
    edges: Sequence[Edge],
    href: Href,
    frame: tuple[int, int],
    *,
    number: int,
    center: str = "",
) -> str:
    width, height = frame
    marker = f"arrow-{number}"
    parts = [
        f'<svg class="graph" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="links between atoms" xmlns="http://www.w3.org/2000/svg">',
        f'<defs><marker id="{marker}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker>'
        "</defs>",
    ]
    for e in edges:
        (x1, y1), (x2, y2) = pos[e.a], pos[e.b]
        if e.kind == "supersedes":  # stop short of the older atom's circle
            dist = max(math.hypot(x2 - x1, y2 - y1), 0.01)
            x2, y2 = x2 - (x2 - x1) / dist * 9, y2 - (y2 - y1) / dist * 9
            parts.append(
                f'<line class="edge-supersedes" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" '
                f'y2="{y2:.1f}" marker-end="url(#{marker})"/>'
            )
        else:
            parts.append(
                f'<line class="edge-related" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" '
                f'y2="{y2:.1f}"/>'
            )
    for node, (x, y) in pos.items():
        cls = "self" if node == center else "retired" if model.status[node] in RETIRED else ""
        label = node if len(node) <= LABEL else node[: LABEL - 1] + "…"
        title = model.atoms[node].atom.title
        parts.append(
            f'<a href="{esc(href(node))}"><title>{esc(title)}</title>'
            f'<circle class="{cls}" cx="{x:.1f}" cy="{y:.1f}" r="7"/>'
            f'<text x="{x:.1f}" y="{y + 20:.1f}" text-anchor="middle" font-size="11">'
            f"{esc(label)}</text></a>"
        )
    parts.append("</svg>")
    return "\n".join(parts)
