"""The start page: counts, health with its fixes, conflicts side by side, review, recent changes,
plots.

Health is `memkit health`'s own report (`memkit.lifecycle.health.build_health`), each line with
the fix it names; an item naming an atom the site does not show is counted, not named.
Conflicts are the audit's unresolved pairs that still stand (`memkit.audit.status`), shown
when the site shows both atoms.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from memkit.lifecycle.health import Health, Line
from memkit.safety.secrets import redact_secrets
from memkit.site.atompage import body_markdown
from memkit.site.html import atom_href, esc, page, table
from memkit.site.model import LIVE, PENDING, Model
from memkit.site.plots import PLOTS

RECENT = 15
SHOW_ITEMS = 12
# Health lines whose items begin with an atom id (the rest are files, notes or sources).
_ATOM_LINES = ("unused", "expired", "promote", "archive", "disputed", "superseded", "pending")
_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True)
class Conflict:
    a: str  # atom id (the incoming one)
    b: str
    kind: str  # contradicts | duplicate
    reason: str
    fix: str


def conflict_of(item: dict[str, Any], shown: Callable[[str], bool]) -> Conflict | None:
    """A pair of the audit report as the site shows it, with the edit that settles it (the
    audit's own words); None when the site does not show both atoms."""
    a, b = str(item.get("incoming", "")), str(item.get("other", ""))
    if not (shown(a) and shown(b)):
        return None
    a_path, b_path = str(item.get("incoming_path", "")), str(item.get("other_path", ""))
    kind = str(item.get("kind", ""))
    if kind == "contradicts":
        fix = (
            f"add `supersedes: [{b}]` to {a_path} (or `supersedes: [{a}]` to {b_path}), "
            "then `memkit validate --fix` marks the older one superseded"
        )
    else:
        fix = f"keep one: `memkit archive --apply {a}` (or {b}), or add `supersedes`"
    return Conflict(a, b, kind, redact_secrets(str(item.get("reason", ""))), fix)


def _counts(model: Model) -> str:
    shown = [(i, s.atom) for i, s in model.atoms.items() if model.status[i] != PENDING]
    live = [a for i, a in shown if model.status[i] == LIVE]
    cards = []
    for title, counter in (
        ("Scopes", Counter(a.scope for _, a in shown)),
        ("Types", Counter(a.type for _, a in shown)),
        ("Tiers of live atoms", Counter(a.confidence for a in live)),
        ("Where", Counter(model.status[i] for i, _ in shown)),
    ):
        rows = [
            [esc(k), str(v)] for k, v in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
        ]
        cards.append(
            f'<section class="card"><h2>{esc(title)}</h2>'
            f"{table(['', 'atoms'], rows, numeric=1) if rows else '<p class=muted>none</p>'}"
            "</section>"
        )
    hidden = sum(model.hidden.values())
    note = (
        f'<p class="muted">{len(model.atoms)} atoms shown; {hidden} file(s) not shown here '
        "(refused by validation, personal, or session summaries).</p>"
    )
    return f'<div class="grid">{"".join(cards)}</div>{note}'


def _health_items(model: Model, line: Line) -> tuple[list[str], int]:
    """(the items as HTML, how many were left out because they name atoms not shown)."""
    if line.kind not in _ATOM_LINES:
        if line.kind in ("invalid", "conflicts"):
            return [], 0  # counted above the list; conflicts have their own section
        return [esc(i) for i in line.items], 0
    out, left = [], 0
    for item in line.items:
        found = _ID.match(item)
        atom_id = found.group(0) if found else ""
        if atom_id not in model.atoms:
            left += 1
            continue
        rest = item[len(atom_id) :]
        out.append(f'<a href="{esc(atom_href(atom_id))}">{esc(atom_id)}</a>{esc(rest)}')
    return out, left


def _health(model: Model, health: Health) -> str:
    rows = []
    for line in health.lines:
        if line.ok:
            rows.append([esc(line.label), f'<span class="ok">{esc(line.ok_text)}</span>', ""])
            continue
        items, left = _health_items(model, line)
        what = esc(line.note) if line.note else f'<span class="problem">{len(line.items)}</span>'
        if items:
            shown = ", ".join(items[:SHOW_ITEMS])
            more = len(items) - SHOW_ITEMS
            what += ": " + shown + (f", … (+{more})" if more > 0 else "")
        if left:
            what += f' <span class="muted">({left} not shown here)</span>'
        if line.kind == "conflicts" and line.items:
            what += ' <a href="#conflicts">(below)</a>'
        rows.append([esc(line.label), what, f'<span class="fix">{esc(line.fix)}</span>'])
    return (
        '<section class="card" id="health"><h2>Health</h2>'
        f"{table(['check', 'found', 'fix'], rows)}</section>"
    )


def _conflicts(
    model: Model, conflicts: Sequence[Conflict] | None, render: Callable[[str], str]
) -> str:
    head = '<section class="card" id="conflicts"><h2>Conflicts</h2>'
    if conflicts is None:
        return (
            f'{head}<p class="muted">No audit report in this clone: '
            '<span class="fix">memkit audit --all</span></p></section>'
        )
    if not conflicts:
        return f'{head}<p class="ok">No unresolved conflicts.</p></section>'
    parts = [head]
    for c in conflicts:
        sides = []
        for atom_id in (c.a, c.b):
            atom = model.atoms[atom_id].atom
            sides.append(
                f'<div><h3><a href="{esc(atom_href(atom_id))}">{esc(atom.title)}</a></h3>'
                f'<p class="meta">{esc(atom_id)} · {esc(atom.path)}</p>'
                f'<div class="body">{render(body_markdown(atom.title, atom.body))}</div></div>'
            )
        parts.append(
            f'<article class="conflict"><p><strong>{esc(c.kind)}</strong>: {esc(c.reason)}</p>'
            f'<div class="pair">{"".join(sides)}</div>'
            f'<p>Resolve: <span class="fix">{esc(c.fix)}</span></p></article>'
        )
    parts.append("</section>")
    return "\n".join(parts)


def _pending(model: Model, findings: dict[str, list[str]]) -> str:
    waiting = sorted(model.with_status(PENDING), key=lambda s: s.atom.id)
    head = '<section class="card" id="pending"><h2>Waiting for review</h2>'
    if not waiting:
        return f'{head}<p class="ok">Nothing waits in shared/_pending/.</p></section>'
    items = []
    for shown in waiting:
        atom = shown.atom
        said = "".join(f"<li><code>{esc(f)}</code></li>" for f in findings.get(atom.id, []))
        items.append(
            f'<li><a href="{esc(atom_href(atom.id))}">{esc(atom.title)}</a> '
            f'<span class="meta">{esc(atom.id)} · {esc(atom.type)} · {esc(atom.author)}</span>'
            f'<ul class="plain">{said or "<li class=ok>no findings</li>"}</ul>'
            f'<p>Settle: <span class="fix">memkit review approve {esc(atom.id)}</span> or '
            f'<span class="fix">memkit review reject {esc(atom.id)} --reason TEXT</span></p></li>'
        )
    return f'{head}<ul class="plain">{"".join(items)}</ul></section>'


def _recent(model: Model) -> str:
    rows = []
    for commit in model.history.commits:
        shown = list(dict.fromkeys(p for p in commit.paths if _id_of(model, p)))
        if not shown:
            continue
        links = ", ".join(
            f'<a href="{esc(atom_href(i))}">{esc(i)}</a>'
            for i in (_id_of(model, p) for p in shown)
            if i
        )
        others = len(commit.paths) - len(shown)
        if others > 0:
            links += f' <span class="muted">(+{others} not shown)</span>'
        rows.append([_nowrap(commit.day), _nowrap(commit.author), esc(commit.subject), links])
        if len(rows) >= RECENT:
            break
    body = table(["date", "who", "commit message", "atoms"], rows) if rows else "<p>none yet</p>"
    return f'<section class="card" id="recent"><h2>Recent changes</h2>{body}</section>'


def _nowrap(text: str) -> str:
    return f'<span class="nowrap">{esc(text)}</span>'


def _id_of(model: Model, path: str) -> str:
    atom_id = path.rsplit("/", 1)[-1].removesuffix(".md")
    shown = model.atoms.get(atom_id)
    return atom_id if shown is not None and shown.atom.path == path else ""


def _plots() -> str:
    figures = "".join(
        f'<figure class="card"><img src="plots/{name}" alt="{esc(name.removesuffix(".svg"))}">'
        "</figure>"
        for name in PLOTS
    )
    return f'<h2>Plots</h2><div class="plots">{figures}</div>'


def start_page(
    model: Model,
    health: Health,
    conflicts: Sequence[Conflict] | None,
    findings: dict[str, list[str]],
    render: Callable[[str], str],
    *,
    memory: str,
) -> str:
    body = [
        f"<h1>{esc(memory)}</h1>",
        _counts(model),
        _health(model, health),
        _conflicts(model, conflicts, render),
        _pending(model, findings),
        _recent(model),
        _plots(),
    ]
    return page("Start", "\n".join(body), here="index.html", memory=memory)
