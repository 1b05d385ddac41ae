"""The start page: what the memory knows, what changed this week, what needs someone.

Top to bottom, as a team opening it on a Monday reads it: a line of what there is, search in
the middle, then side by side what needs a person (conflicts, reviews, stale atoms, failing
checks: each with its fix) and the week's changes (new and approved atoms, decisions first;
what they superseded; edits; archived and rejected); then the conflicts and reviews in full,
the most used atoms, the memory by type, health as `memkit health` says it, the history and
the plots.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Sequence

from memkit.atom import TYPES
from memkit.lifecycle.health import Health
from memkit.site.html import atom_href, badge, esc, page, table
from memkit.site.model import LIVE, PENDING, Model
from memkit.site.needs import (
    Conflict,
    conflicts_section,
    health_section,
    needs_card,
    pending_section,
)
from memkit.site.plots import PLOTS
from memkit.site.week import Event, Week, week_of

RECENT = 12
COMMIT_ATOMS = 6  # atoms named per commit of the recent changes; the rest are counted
MOST_USED = 10
WEEK_ITEMS = 12  # per list; the rest are counted
_PLURAL = {"fact": "facts", "procedure": "procedures", "architecture": "architecture notes",
           "pitfall": "pitfalls", "decision": "decisions", "preference": "preferences"}  # fmt: skip


def _link(model: Model, atom_id: str) -> str:
    return f'<a href="{esc(atom_href(atom_id))}">{esc(model.atoms[atom_id].atom.title)}</a>'


def _kind(model: Model, atom_id: str) -> str:
    return f'<span class="kind">{esc(model.atoms[atom_id].atom.type)}</span>'


def _day(day: str, today: dt.date) -> str:
    try:
        ago = (today - dt.date.fromisoformat(day)).days
    except ValueError:
        return esc(day)
    if ago < 0:  # a commit dated after the build (a clock ahead): its date, not "-2 days ago"
        return f'<time datetime="{esc(day)}">{esc(day)}</time>'
    said = "today" if ago == 0 else "yesterday" if ago == 1 else f"{ago} days ago"
    return f'<time datetime="{esc(day)}" title="{esc(day)}">{said}</time>'


def _lead(model: Model, week: Week) -> str:
    live = [s.atom for i, s in model.atoms.items() if model.status[i] == LIVE]
    by_type = Counter(a.type for a in live)
    kinds = " · ".join(
        f'<a href="atoms.html#type-{esc(t)}">{by_type[t]} '
        f"{esc(_PLURAL.get(t, t) if by_type[t] != 1 else t)}</a>"
        for t in sorted(by_type, key=lambda t: (-by_type[t], t))
    )
    when = f"; last change {_day(week.last_change, model.today)}" if week.last_change else ""
    return (
        f'<p class="lead"><strong>{len(live)}</strong> live atom{"s" * (len(live) != 1)}'
        f"{': ' + kinds if kinds else ''}{when}.</p>"
    )


def _search() -> str:
    return (
        '<form class="big-search" action="search.html" method="get" role="search">'
        '<input type="search" name="q" placeholder="Search the memory · 搜尋記憶" '
        'aria-label="Search the memory"><button type="submit">Search</button></form>'
    )


def _events(model: Model, events: list[Event], say: Callable[[Event], str]) -> str:
    items = "".join(
        f"<li>{_kind(model, e.atom_id)} {_link(model, e.atom_id)}{say(e)} "
        f'<span class="meta">{_day(e.day, model.today)}</span></li>'
        for e in events[:WEEK_ITEMS]
    )
    more = len(events) - WEEK_ITEMS
    tail = f'<li class="muted">and {more} more (Recent changes, below)</li>' if more > 0 else ""
    return f'<ul class="events">{items}{tail}</ul>'


def _tag(text: str) -> str:
    return f' <span class="tag">{esc(text)}</span>'


def _others(model: Model, ids: Sequence[str], word: str) -> str:
    if not ids:
        return ""
    return f' <span class="meta">{word}</span> ' + ", ".join(_link(model, i) for i in ids)


def _week(model: Model, week: Week) -> str:
    head = (
        '<section class="card week" id="week"><h2>This week</h2>'
        f'<p class="muted">{esc(week.start)} to {esc(week.end)}</p>'
    )
    if week.empty:
        last = (
            f" The last change was {_day(week.last_change, model.today)}."
            if week.last_change
            else ""
        )
        return f"{head}<p>Nothing changed in these seven days.{last}</p></section>"
    parts = [head]

    def approved(e: Event) -> str:
        said = _tag("approved") if e.what == "approved" else ""
        return said + _others(model, e.others, "replaces")

    for title, events, say in (
        ("New", week.new, approved),
        ("Superseded", week.superseded, lambda e: _others(model, e.others, "by")),
        ("Edited", week.edited, lambda e: _tag("approved change") if e.what == "revised" else ""),
        ("Archived or rejected", week.retired, lambda e: f" {badge(e.what)}"),
    ):
        if events:
            parts.append(f"<h3>{title} ({len(events)})</h3>{_events(model, events, say)}")
    parts.append("</section>")
    return "".join(parts)


def _most_used(model: Model) -> str:
    head = '<section class="card" id="used"><h2>Most used</h2>'
    if not model.usage.sources:
        return (
            f'{head}<p class="muted">No usage exported yet: each member runs '
            "<code>memkit usage export --write</code> and commits "
            "<code>usage/&lt;them&gt;.json</code>.</p></section>"
        )
    used = []
    for atom_id in model.atoms:
        if model.status[atom_id] != LIVE:
            continue
        t = model.use(atom_id).tally
        if t.confirmed + t.contradicted or t.injected:
            used.append((-(t.confirmed + t.contradicted), -t.injected, atom_id))
    if not used:
        return f'{head}<p class="muted">No session used a live atom yet.</p></section>'
    rows = []
    for _, _, atom_id in sorted(used)[:MOST_USED]:
        t = model.use(atom_id).tally
        rows.append(
            [f"{_link(model, atom_id)} {_kind(model, atom_id)}", str(t.confirmed + t.contradicted)]
        )
    return f"{head}{table(['atom', 'sessions'], rows, numeric=1, stack=False)}</section>"


def _known(model: Model) -> str:
    """The memory by type, tier, scope and place: each count a link where a list exists."""
    shown = [(i, s.atom) for i, s in model.atoms.items() if model.status[i] != PENDING]
    live = [a for i, a in shown if model.status[i] == LIVE]
    types = Counter(a.type for a in live)
    order = [t for t in TYPES if t in types] + sorted(set(types) - set(TYPES))
    lines = [
        (
            "live, by type",
            " · ".join(
                f'<a href="atoms.html#type-{esc(t)}">{esc(t)} {types[t]}</a>' for t in order
            ),
        ),
        ("live, by tier", _counted(Counter(a.confidence for a in live))),
        ("by scope", _counted(Counter(a.scope for _, a in shown))),
        ("where", _counted(Counter(model.status[i] for i, _ in shown))),
    ]
    items = "".join(f"<dt>{esc(k)}</dt><dd>{v or 'none'}</dd>" for k, v in lines)
    hidden = sum(model.hidden.values())
    return (
        '<section class="card" id="known"><h2>What the memory holds</h2>'
        f'<dl class="meta">{items}</dl><p class="muted">{len(model.atoms)} atoms shown; '
        f"{hidden} file(s) not shown here (refused by validation, personal, or session "
        "summaries).</p></section>"
    )


def _counted(counter: Counter[str]) -> str:
    return " · ".join(
        f"{esc(k)} {v}" for k, v in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
    )


def _recent(model: Model) -> str:
    rows = []
    for commit in model.history.commits:
        shown = [i for i in dict.fromkeys(_id_of(model, p) for p in commit.paths) if i]
        if not shown:
            continue
        links = ", ".join(
            f'<a href="{esc(atom_href(i))}">{esc(i)}</a>' for i in shown[:COMMIT_ATOMS]
        )
        more = len(shown) - COMMIT_ATOMS
        if more > 0:
            links += f" and {more} more"
        others = len(commit.paths) - len(shown)
        if others > 0:
            links += f' <span class="muted">(+{others} not shown)</span>'
        rows.append([_nowrap(commit.day), esc(commit.author), esc(commit.subject), links])
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
        f'<figure class="card"><img src="plots/{name}" alt="{esc(title)}"></figure>'
        for name, (title, _) in PLOTS.items()
    )
    return f'<h2 id="plots">Plots</h2><div class="plots">{figures}</div>'


def start_page(
    model: Model,
    health: Health,
    conflicts: Sequence[Conflict] | None,
    findings: dict[str, list[str]],
    render: Callable[[str], str],
    *,
    memory: str,
    not_shown: int = 0,
) -> str:
    """`not_shown`: conflicts the audit reports between atoms the site does not show."""
    week = week_of(model)
    body = [
        f"<h1>{esc(memory)}</h1>",
        _lead(model, week),
        _search(),
        # Needs and most used on the left, the week beside them (one column on a phone).
        '<div class="columns top">',
        needs_card(model, health, conflicts, not_shown),
        _week(model, week),
        _most_used(model),
        "</div>",
        conflicts_section(model, conflicts, not_shown, render),
        pending_section(model, findings),
        _known(model),
        health_section(model, health),
        _recent(model),
        _plots(),
    ]
    return page(
        "Start", "\n".join(b for b in body if b), here="index.html", memory=memory, search=False
    )
