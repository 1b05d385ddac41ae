"""What needs someone, for the start page: conflicts, reviews, stale atoms and health's other
findings, each with the one step that settles it.

Stale atoms are health's `drift` line (`memkit drift`, issue 44: atoms the code has moved
away from, each with the evidence), acted on like an expired atom; a clone that never ran
drift has no such line, and the page says nothing about staleness rather than "none".

Conflicts are the audit's unresolved pairs that still stand (`memkit.audit.status`), counted
as `memkit health` counts them: A against B and B against A are one. Health is `memkit
health`'s own report (`memkit.lifecycle.health.build_health`), each line with the fix it
names; an item naming an atom the site does not show is counted, not named.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from memkit.lifecycle.health import Health, Line
from memkit.safety.secrets import redact_secrets
from memkit.site.atompage import body_markdown
from memkit.site.html import atom_href, code_text, esc, inline, table
from memkit.site.model import PENDING, Model

SHOW_ITEMS = 12
# Health lines whose items begin with an atom id (the rest are files, notes or sources).
_ATOM_LINES = (
    *("unused", "expired", "promote", "archive", "disputed", "superseded", "pending", "drift"),
)
# Health lines a person acts on this week (the others are suggestions, or the clone's own
# state: its index, its usage log). Conflicts and pending reviews have sections of their own.
_ACT_ON = ("expired", "superseded", "disputed", "drift", "invalid", "rules")
_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True)
class Conflict:
    a: str  # atom id (the incoming one)
    b: str
    kind: str  # contradicts | duplicate
    reason: str
    fix: str  # with code spans (`…`), as the audit prints it

    @property
    def pair(self) -> frozenset[str]:
        return frozenset((self.a, self.b))


def conflict_of(item: dict[str, Any], shown: Callable[[str], bool]) -> Conflict | None:
    """A pair of the audit report as the site shows it, with the edit that settles it (the
    audit's own words); None when the site does not show both atoms."""
    a, b = str(item.get("incoming", "")), str(item.get("other", ""))
    if not (shown(a) and shown(b)):
        return None
    a_path, b_path = str(item.get("incoming_path", "")), str(item.get("other_path", ""))
    kind = str(item.get("kind", ""))
    if kind != "contradicts":
        fix = f"keep one: `memkit archive --apply {a}` (or `{b}`), or add `supersedes`"
    elif item.get("newer") in (a_path, b_path):
        newer, older = (b_path, a) if item.get("newer") == b_path else (a_path, b)
        fix = (
            f"if the newer one holds, add `supersedes: [{older}]` to `{newer}`, then "
            "`memkit validate --fix` marks the older one superseded"
        )
        edit = item.get("edit")
        if isinstance(edit, list) and len(edit) == 2:
            was, now = (str(v) for v in (edit if newer == a_path else edit[::-1]))
            fix = f"if only {was} → {now} changed, edit that value where it is stated; or, {fix}"
    else:
        fix = (
            f"add `supersedes: [{b}]` to `{a_path}` (or `supersedes: [{a}]` to `{b_path}`), "
            "then `memkit validate --fix` marks the older one superseded"
        )
    return Conflict(a, b, kind, redact_secrets(str(item.get("reason", ""))), redact_secrets(fix))


def _titled(model: Model, atom_id: str) -> str:
    atom = model.atoms[atom_id].atom
    return (
        f'<a href="{esc(atom_href(atom_id))}">{esc(atom.title)}</a> '
        f'<span class="meta">{esc(atom_id)}</span>'
    )


def conflicts_section(
    model: Model,
    conflicts: Sequence[Conflict] | None,
    not_shown: int,
    render: Callable[[str], str],
) -> str:
    head = '<section class="card" id="conflicts"><h2>Conflicts</h2>'
    if conflicts is None:
        return (
            f'{head}<p class="muted">No audit report in this clone: run '
            "<code>memkit audit --all</code>.</p></section>"
        )
    hidden = (
        f'<p class="muted">{not_shown} more between atoms this site does not show.</p>'
        if not_shown
        else ""
    )
    if not conflicts:
        return f'{head}<p class="ok">No unresolved conflicts.</p>{hidden}</section>'
    parts = [head]
    for c in conflicts:
        sides = "".join(
            f'<div><p>{_titled(model, i)}</p><p class="meta">{esc(model.atoms[i].atom.path)}</p>'
            f'<div class="body">{render(body_markdown(*_title_body(model, i)))}</div></div>'
            for i in (c.a, c.b)
        )
        parts.append(
            f'<article class="conflict" data-pair="{esc(" ".join(sorted(c.pair)))}">'
            f'<p class="pair-titles">{_titled(model, c.a)} <span class="vs">↔</span> '
            f"{_titled(model, c.b)}</p>"
            f"<p><strong>{esc(c.kind)}</strong>: {inline(c.reason)}</p>"
            f'<p class="fix-line">Fix: {inline(c.fix)}</p>'
            f'<details><summary>The two side by side</summary><div class="pair">{sides}</div>'
            "</details></article>"
        )
    parts.append(f"{hidden}</section>")
    return "\n".join(parts)


def _title_body(model: Model, atom_id: str) -> tuple[str, str]:
    atom = model.atoms[atom_id].atom
    return atom.title, atom.body


def pending_section(model: Model, findings: dict[str, list[str]]) -> str:
    waiting = sorted(model.with_status(PENDING), key=lambda s: s.atom.id)
    head = '<section class="card" id="pending"><h2>Waiting for review</h2>'
    if not waiting:
        return f'{head}<p class="ok">Nothing waits in shared/_pending/.</p></section>'
    items = []
    for shown in waiting:
        atom = shown.atom
        said = "".join(f"<li>{inline(f)}</li>" for f in findings.get(atom.id, []))
        who = f" · {esc(atom.author)}" if atom.author else ""
        items.append(
            f'<li><p>{_titled(model, atom.id)} <span class="meta">{esc(atom.type)}{who}</span>'
            f"</p>"
            f'<ul class="findings">{said or "<li class=ok>no findings</li>"}</ul>'
            f'<p class="fix-line">Settle: <code>memkit review approve {esc(atom.id)}</code> '
            f"or <code>memkit review reject {esc(atom.id)} --reason TEXT</code></p></li>"
        )
    return f'{head}<ul class="plain">{"".join(items)}</ul></section>'


def needs_card(
    model: Model,
    health: Health,
    conflicts: Sequence[Conflict] | None,
    not_shown: int,
) -> str:
    """The short list at the top of the start page: what needs a person, each line leading
    to its section or saying its fix."""
    rows: list[str] = []
    if conflicts is None:
        rows.append("<li>No audit report in this clone: <code>memkit audit --all</code></li>")
    elif conflicts or not_shown:
        n = len(conflicts) + not_shown
        rows.append(
            f'<li><a href="#conflicts"><strong>{n}</strong> conflict{"s" * (n != 1)} '
            "between atoms</a>: each with the edit that settles it</li>"
        )
    waiting = len(model.with_status(PENDING))
    if waiting:
        rows.append(
            f'<li><a href="#pending"><strong>{waiting}</strong> atom{"s" * (waiting != 1)} '
            "waiting for review</a>: <code>memkit review approve ID</code> or "
            "<code>memkit review reject ID --reason TEXT</code></li>"
        )
    for line in health.lines:
        if line.kind in _ACT_ON and not line.ok:
            count = f"<strong>{len(line.items)}</strong> " if line.items else ""
            fix = f": {fix_html(line.fix)}" if line.fix else ""
            rows.append(f'<li><a href="#health">{count}{inline(line.label)}</a>{fix}</li>')
    body = (
        f'<ul class="todo">{"".join(rows)}</ul>'
        if rows
        else '<p class="ok">Nothing: no conflict, no review waiting, no check failing.</p>'
    )
    return f'<section class="card needs" id="needs"><h2>Needs someone</h2>{body}</section>'


# A command in a fix written without backticks ("memkit show ID; correct it or supersede
# it"): the verb, then flags, placeholders (ID), names with a - / . or digit, and one more
# plain word only where it ends the command ("memkit review list", not "... --propose writes").
_COMMAND = re.compile(
    r"\b(?:memkit|git) [a-z][a-z-]*"
    r"(?: (?:--?[a-z][\w-]*(?:=[^\s;,]+)?|[A-Z][A-Z_]*\b|[\w<>]+[-/.\d][\w<>/.-]*\w>?"
    r"|[a-z]+(?= [A-Z-]|$|[;,)])))*"
)


def fix_html(fix: str) -> str:
    """Health's fix as HTML: its commands as code, its words as words."""
    if not fix or "`" in fix:
        return inline(fix)
    out, at = [], 0
    for found in _COMMAND.finditer(fix):
        out += [esc(fix[at : found.start()]), f"<code>{code_text(found.group(0))}</code>"]
        at = found.end()
    return "".join([*out, esc(fix[at:])])


def _health_items(model: Model, line: Line) -> tuple[list[str], int]:
    """(the items as HTML, how many were left out because they name atoms not shown)."""
    if line.kind not in _ATOM_LINES:
        if line.kind in ("invalid", "conflicts"):
            return [], 0  # counted above the list; conflicts have their own section
        return [inline(i) for i in line.items], 0
    out, left = [], 0
    for item in line.items:
        found = _ID.match(item)
        atom_id = found.group(0) if found else ""
        if atom_id not in model.atoms:
            left += 1
            continue
        rest = item[len(atom_id) :]
        out.append(f'<a href="{esc(atom_href(atom_id))}">{esc(atom_id)}</a>{inline(rest)}')
    return out, left


def health_section(model: Model, health: Health) -> str:
    """Health's lines that found something, each with its fix; then, in one line, the checks
    that pass."""
    rows, passing = [], []
    for line in health.lines:
        if line.ok:
            passing.append(f'{inline(line.label)}: <span class="ok">{esc(line.ok_text)}</span>')
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
            what += ' <a href="#conflicts">(above)</a>'
        rows.append([inline(line.label), what, fix_html(line.fix)])
    found = table(["check", "found", "fix"], rows) if rows else ""
    ok = f'<p class="passing">Passing: {" · ".join(passing)}.</p>' if passing else ""
    return (
        '<section class="card" id="health"><h2>Health</h2>'
        '<p class="muted">As <code>memkit health</code> reports it, with the command for each '
        f"line.</p>{found}{ok}</section>"
    )
