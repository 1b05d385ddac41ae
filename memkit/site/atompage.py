"""One atom's page: its frontmatter as a header, its body, its links, its use and its history."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from memkit.site.graph import neighbourhood
from memkit.site.html import badge, breakable_path, esc, inline, page, table
from memkit.site.model import ARCHIVED, EXPIRED, PENDING, SUPERSEDED, Model

HISTORY_ROWS = 30
UP = "../"


def href(atom_id: str) -> str:
    """From one atom's page to another's: they sit in the same folder."""
    return f"{atom_id}.html"


def page_inputs(model: Model, atom_id: str) -> tuple[object, ...]:
    """Everything the page shows besides its own file: it is rebuilt when any of it changes."""
    links = model.links[atom_id]
    near = [*links.supersedes, *links.superseded_by, *links.related]
    use = model.use(atom_id)
    changes = model.history.of(model.atoms[atom_id].atom.path)
    return (
        model.status[atom_id],
        tuple(links.supersedes),
        tuple(links.superseded_by),
        tuple(links.related),
        links.hidden,
        tuple((n, model.atoms[n].atom.title, model.status[n]) for n in near),
        tuple(use.tally),
        tuple(sorted(use.users)),
        bool(model.usage.sources),  # a usage section, or none
        tuple(changes[:HISTORY_ROWS]),
        len(changes),  # "N earlier changes"
    )


def _header(model: Model, atom_id: str) -> str:
    shown = model.atoms[atom_id]
    atom = shown.atom
    scope = atom.scope
    if scope.startswith("role:"):
        scope = f"role {scope.removeprefix('role:')} (roles/{scope.removeprefix('role:')}/)"
    rows: list[tuple[str, str]] = [
        ("id", atom.id),
        ("type", atom.type),
        ("confidence", atom.confidence),
        ("scope", scope + (" · waiting for review" if atom.pending else "")),
        ("status", atom.status),
        ("created", atom.created),
        *shown.more,
        ("expires", atom.expires),
        ("author", atom.author),
        ("audience", atom.audience),
        ("source", atom.source),
        ("triggers", ", ".join(atom.triggers)),
        ("paths", ", ".join(atom.paths)),
        ("tags", ", ".join(atom.tags)),
    ]
    rows += [(k, v) for k, v in sorted(atom.extra.items())]
    items = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in rows if v)
    items += f"<dt>file</dt><dd>{breakable_path(atom.path)}</dd>"
    return (
        f'<section class="card" id="frontmatter"><h2>Frontmatter</h2><dl class="meta">{items}'
        "</dl></section>"
    )


def _about(model: Model, atom_id: str) -> str:
    """One line under the title: what kind of atom, how sure, whose, since when."""
    atom = model.atoms[atom_id].atom
    said = [atom.type, atom.confidence, atom.scope, atom.created, atom.author]
    return '<p class="about">' + " · ".join(esc(x) for x in said if x) + "</p>"


def _banner(model: Model, atom_id: str) -> str:
    status = model.status[atom_id]
    links = model.links[atom_id]
    if status == SUPERSEDED:
        newer = ", ".join(_link(model, n) for n in links.superseded_by) or "a newer atom"
        return f'<p class="banner">Superseded by {newer}: recall no longer serves it.</p>'
    if status == ARCHIVED:
        return '<p class="banner">Archived: kept in git, not recalled.</p>'
    if status == EXPIRED:
        expires = esc(model.atoms[atom_id].atom.expires)
        return (
            f'<p class="banner">Expired on {expires}: recall no longer serves it. '
            "<code>memkit archive --sweep</code></p>"
        )
    if status == PENDING:
        return (
            '<p class="banner">Waiting for review in shared/_pending/. Management settles it: '
            f"<code>memkit review approve {esc(atom_id)}</code> or "
            f"<code>memkit review reject {esc(atom_id)} --reason TEXT</code></p>"
        )
    return ""


def _link(model: Model, atom_id: str) -> str:
    title = model.atoms[atom_id].atom.title
    return (
        f'<a href="{esc(href(atom_id))}">{esc(title)}</a> <span class="meta">{esc(atom_id)}</span>'
    )


def _links(model: Model, atom_id: str, number: int) -> str:
    """Its links, one atom a row: newer ones above it, older and related ones below."""
    links = model.links[atom_id]
    rows = neighbourhood(model, atom_id, href, number)
    hidden = (
        f'<p class="muted">{links.hidden} link(s) to atoms this site does not show.</p>'
        if links.hidden
        else ""
    )
    if not rows and not hidden:
        return ""
    legend = (
        '<p class="muted legend">Newer atoms above it, older and related ones below; red '
        "arrows: supersedes, dashed: related.</p>"
        if rows
        else ""
    )
    return f'<section class="card" id="links"><h2>Links</h2>{legend}{rows}{hidden}</section>'


def _usage(model: Model, atom_id: str) -> str:
    """Its use from the team's exports; nothing at all while the team exports none (the
    start page says how to begin, once)."""
    if not model.usage.sources:
        return ""
    use = model.use(atom_id)
    t = use.tally
    if not any((t.confirmed, t.contradicted, t.injected, t.read, t.cited, t.shown)):
        return (
            '<section class="card" id="usage"><h2>Usage</h2><p class="muted">No use recorded '
            "in the team&#x27;s usage exports (usage/*.json).</p></section>"
        )
    rows = [
        [esc(label), str(value)]
        for label, value in (
            ("sessions that confirmed it", t.confirmed),
            ("sessions that contradicted it", t.contradicted),
            ("injected into a session", t.injected),
            ("read whole", t.read),
            ("cited", t.cited),
            ("listed at session start", t.shown),
        )
    ]
    when = " · ".join(
        f"{label} {_day(stamp)}"
        for label, stamp in (("first used", t.first), ("last used", t.last))
        if stamp is not None
    )
    people = f"{len(use.users)} person(s) confirmed it" if use.users else ""
    note = " · ".join(x for x in (when, people) if x)
    return (
        f'<section class="card" id="usage"><h2>Usage</h2>'
        f"{table(['evidence', 'sessions'], rows, numeric=1, stack=False)}"
        f'<p class="muted">{esc(note)}</p></section>'
    )


def _day(stamp: float) -> str:
    return dt.datetime.fromtimestamp(stamp, dt.UTC).date().isoformat()


def _history(model: Model, atom_id: str) -> str:
    changes = model.history.of(model.atoms[atom_id].atom.path)
    if not changes:
        return (
            '<section class="card"><h2>History</h2><p class="muted">Not committed yet.</p>'
            "</section>"
        )
    rows = [
        [
            f'<span class="nowrap">{esc(c.day)}</span>',
            esc(c.author),
            esc(c.kind),
            esc(c.subject),
            f"<code>{esc(c.commit[:8])}</code>",
        ]
        for c in changes[:HISTORY_ROWS]
    ]
    more = len(changes) - HISTORY_ROWS
    tail = f'<p class="muted">{more} earlier change(s): git log --follow.</p>' if more > 0 else ""
    return (
        '<section class="card" id="history"><h2>History</h2>'
        f"{table(['date', 'who', 'change', 'commit message', 'commit'], rows)}{tail}</section>"
    )


def _findings(findings: Sequence[str]) -> str:
    if not findings:
        return ""
    items = "".join(f"<li>{inline(f)}</li>" for f in findings)
    return (
        f'<section class="card" id="findings"><h2>Findings</h2><ul class="findings">{items}</ul>'
        "</section>"
    )


def body_markdown(title: str, body: str) -> str:
    """The body without its first heading when that heading is the title (shown above)."""
    first = re.match(r"\s*#\s+(.*)\n?", body)
    if first and first.group(1).strip() == title.strip():
        return body[first.end() :]
    return body


def atom_page(
    model: Model,
    atom_id: str,
    body_html: str,
    *,
    findings: Sequence[str] = (),
    memory: str = "memory",
) -> str:
    atom = model.atoms[atom_id].atom
    status = model.status[atom_id]
    # What it says first; what the file's frontmatter holds after it.
    parts = [
        f"<h1>{esc(atom.title)} {badge(status)}</h1>",
        _about(model, atom_id),
        _banner(model, atom_id),
        f'<article class="card body">{body_html}</article>',
        _findings(findings),
        _links(model, atom_id, 0),
        _header(model, atom_id),
        _usage(model, atom_id),
        _history(model, atom_id),
    ]
    return page(atom.title, "\n".join(p for p in parts if p), up=UP, memory=memory)
