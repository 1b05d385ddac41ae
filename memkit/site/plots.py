"""Plots drawn at build time as standalone SVG files (shown with <img>: a picture cannot run
anything, whatever its labels say). Every label is escaped; every plot carries its title.

- atoms over time by type: how many atoms each type had at the end of each week or month (by
  `created`), stacked;
- review throughput: per week or month, atoms submitted to `shared/_pending/`, approved,
  rejected (from git's history);
- usage per atom: the most used atoms by sessions that used them, from the team's exports.

The time axis covers the memory's own life: from its first commit (or its first dated
event), at most a year back, up to the build's day. Atoms imported with older `created`
dates (an ADR from 2019) are counted in the first column instead of stretching the axis
over years of nothing. A span of thirteen weeks or less is drawn by week, a longer one by
month.
"""

from __future__ import annotations

import datetime as dt
import math
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence

from memkit.atom import TYPES
from memkit.site.html import esc
from memkit.site.model import PENDING, Model

COLOURS = ("#2f6fb3", "#b45309", "#1a7f37", "#b42318", "#6b4fbb", "#0e7490", "#64748b")
FAMILY = (
    "system-ui, -apple-system, 'Segoe UI', 'Noto Sans', 'PingFang SC', 'Microsoft YaHei', "
    "'Noto Sans CJK SC', 'WenQuanYi Micro Hei', sans-serif"
)
FONT = f'font-family="{FAMILY}" font-size="12"'
# Drawn at the width a card shows it (two plots side by side on a wide screen, one on a
# phone, where it scales to ~0.75): text stays readable either way.
WIDTH, HEIGHT = 480, 320
LEFT, RIGHT, TOP, BOTTOM = 44, 16, 88, 36  # the top: a title, a note, two rows of keys
# Widths at 12 px of DejaVu Sans, a wide sans-serif (Linux's default): an estimate that errs
# wide, so that a label fitted by it fits in narrower fonts too. A CJK character counts 12.
CHAR = 7.4
_NARROW = frozenset("fijlrt.,:;'|!()[] -/")
_WIDE = frozenset("mwMW@%")
USAGE_BARS = 20
YEAR_MONTHS = 12
WEEKLY_DAYS = 13 * 7


def _frame(body: Sequence[str], title: str, height: int = HEIGHT, note: str = "") -> str:
    sub = f'<text x="10" y="38" {FONT} fill="#5b6475">{esc(note)}</text>\n' if note else ""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" role="img" aria-label="{esc(title)}">\n'
        f"<title>{esc(title)}</title>\n"
        f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>\n'
        f'<text x="10" y="20" font-family="{FAMILY}" font-size="15" font-weight="600" '
        f'fill="#1d2330">{esc(title)}</text>\n{sub}' + "\n".join(body) + "\n</svg>\n"
    )


def _empty(title: str, message: str) -> str:
    return _frame(
        [
            f'<text x="{WIDTH / 2}" y="{HEIGHT / 2}" text-anchor="middle" {FONT} fill="#5b6475">'
            f"{esc(message)}</text>"
        ],
        title,
    )


def _date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        return None


def buckets(first: dt.date, today: dt.date) -> list[dt.date]:
    """The first day of each column from `first` to `today`: Mondays when the span is short,
    else the first of each month, twelve months at most."""
    first = min(first, today)
    if (today - first).days < WEEKLY_DAYS:
        day = first - dt.timedelta(days=first.weekday())
        step: Callable[[dt.date], dt.date] = lambda d: d + dt.timedelta(days=7)  # noqa: E731
    else:
        months = today.year * 12 + today.month - 1 - (YEAR_MONTHS - 1)
        day = max(first.replace(day=1), dt.date(months // 12, months % 12 + 1, 1))
        step = lambda d: (d + dt.timedelta(days=32)).replace(day=1)  # noqa: E731
    out = []
    while day <= today:
        out.append(day)
        day = step(day)
    return out


def _column(starts: Sequence[dt.date], day: dt.date) -> int:
    """The column a day falls in; -1 before the first."""
    n = -1
    for i, start in enumerate(starts):
        if day >= start:
            n = i
    return n


def _label(starts: Sequence[dt.date], i: int) -> str:
    weekly = len(starts) > 1 and (starts[1] - starts[0]).days == 7
    return starts[i].isoformat()[5:] if weekly else starts[i].isoformat()[:7]


def nice_top(value: int) -> tuple[int, int]:
    """(the axis's top, its step): a round number at or above `value`, in 2 to 5 steps."""
    if value <= 5:
        return max(value, 1), 1
    magnitude = 10 ** int(math.log10(value))
    for unit in (1, 2, 5, 10):
        step = unit * magnitude // 2 if magnitude > 1 else unit
        if math.ceil(value / step) <= 5:
            return math.ceil(value / step) * step, step
    return value, value  # pragma: no cover  (the loop always finds one)


def _axis(
    starts: Sequence[dt.date], top: int, step: int, plot_w: float, plot_h: float
) -> list[str]:
    parts = []
    for value in range(0, top + 1, step):
        y = TOP + plot_h - plot_h * value / top
        parts.append(
            f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + plot_w}" y2="{y:.1f}" '
            f'stroke="{"#5b6475" if value == 0 else "#e3e7ee"}"/>'
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" {FONT}>{value}</text>'
        )
    every = max(1, math.ceil(len(starts) / 7))  # labels ~80 px apart at most 7
    for i in range(0, len(starts), every):
        x = LEFT + plot_w * (i + 0.5) / len(starts)
        parts.append(
            f'<text x="{x:.1f}" y="{TOP + plot_h + 18}" text-anchor="middle" {FONT}>'
            f"{esc(_label(starts, i))}</text>"
        )
    return parts


def _legend(names: Sequence[str]) -> list[str]:
    """Colour keys above the plot, in rows as wide as the picture."""
    parts, x, y = [], 10.0, 48
    for i, name in enumerate(names):
        wide = 14 + _width(name) + 14
        if x + wide > WIDTH - RIGHT and x > 10:
            x, y = 10.0, y + 18
        colour = COLOURS[i % len(COLOURS)]
        parts.append(
            f'<rect x="{x:.0f}" y="{y}" width="10" height="10" fill="{colour}"/>'
            f'<text x="{x + 14:.0f}" y="{y + 9}" {FONT}>{esc(name)}</text>'
        )
        x += wide
    return parts


def _since(model: Model, days: Sequence[dt.date]) -> dt.date:
    """Where the axis starts: the memory's first commit, else its first dated event."""
    commits = [d for c in model.history.commits if (d := _date(c.day)) is not None]
    return min(commits) if commits else min(days, default=model.today)


def atoms_over_time(model: Model) -> str:
    title = PLOTS["atoms-over-time.svg"][0]
    today = model.today
    created = [
        (min(day, today), s.atom.type)
        for i, s in model.atoms.items()
        if model.status[i] != PENDING and (day := _date(s.atom.created)) is not None
    ]
    if not created:
        return _empty(title, "no atoms yet")
    starts = buckets(_since(model, [d for d, _ in created]), today)
    types = [t for t in TYPES if any(k == t for _, k in created)]
    others = sorted({k for _, k in created} - set(types))
    names = types + (["other"] if others else [])
    per = Counter((max(_column(starts, d), 0), k if k in types else "other") for d, k in created)
    before = sum(1 for d, _ in created if d < starts[0])
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    totals: dict[str, list[int]] = {}
    for name in names:
        running, series = 0, []
        for n in range(len(starts)):
            running += per[(n, name)]
            series.append(running)
        totals[name] = series
    top, step = nice_top(sum(series[-1] for series in totals.values()))
    parts = _axis(starts, top, step, plot_w, plot_h)
    below = [0] * len(starts)
    xs = [LEFT + plot_w * (i + 0.5) / len(starts) for i in range(len(starts))]
    if len(starts) == 1:
        xs = [LEFT, LEFT + plot_w]
    for n, name in enumerate(names):
        upper = [b + v for b, v in zip(below, totals[name], strict=True)]
        lower = below
        if len(starts) == 1:
            upper, lower = upper * 2, below * 2
        points = [
            f"{x:.1f},{TOP + plot_h - plot_h * u / top:.1f}" for x, u in zip(xs, upper, strict=True)
        ]
        points += [
            f"{x:.1f},{TOP + plot_h - plot_h * v / top:.1f}"
            for x, v in reversed(list(zip(xs, lower, strict=True)))
        ]
        parts.append(
            f'<polygon points="{" ".join(points)}" fill="{COLOURS[n % len(COLOURS)]}" '
            'fill-opacity="0.85"/>'
        )
        below = [b + v for b, v in zip(below, totals[name], strict=True)]
    note = (
        f"{before} atom(s) created before {starts[0].isoformat()} are in the first column"
        if before
        else "atoms by their created date"
    )
    return _frame([*parts, *_legend(names)], title, note=note)


def review_throughput(model: Model) -> str:
    title = PLOTS["review-throughput.svg"][0]
    events = [(d, what) for day, what in model.history.reviews if (d := _date(day)) is not None]
    if not events:
        return _empty(title, "nothing has gone through shared/_pending/ yet")
    starts = buckets(min(d for d, _ in events), model.today)
    names = ["submitted", "approved", "rejected"]
    count = Counter((_column(starts, d), what) for d, what in events if d >= starts[0])
    top, step = nice_top(max(count.values(), default=1))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    parts = _axis(starts, top, step, plot_w, plot_h)
    slot = plot_w / len(starts)
    bar = min(slot * 0.8 / len(names), 40)
    for i in range(len(starts)):
        for n, name in enumerate(names):
            value = count[(i, name)]
            if not value:
                continue
            h = plot_h * value / top
            x = LEFT + slot * i + (slot - bar * len(names)) / 2 + bar * n
            label = f"{_label(starts, i)} {name}: {value}"
            parts.append(
                f'<rect x="{x:.1f}" y="{TOP + plot_h - h:.1f}" width="{bar:.1f}" height="{h:.1f}" '
                f'fill="{COLOURS[n]}"><title>{esc(label)}</title></rect>'
            )
    return _frame([*parts, *_legend(names)], title, note="atoms per column")


def _width(text: str) -> float:
    """About how wide `text` is at 12 px (at most: see CHAR)."""
    return sum(_char(ch) for ch in text)


def _char(ch: str) -> float:
    if unicodedata.east_asian_width(ch) in "WF":
        return 12.0
    if ch in _NARROW:
        return 4.4
    if ch in _WIDE:
        return 11.6
    if ch.isdigit():
        return 7.8
    return 8.6 if ch.isupper() else CHAR


def fit(text: str, width: float) -> str:
    """`text` cut (…) to about `width` px at 12 px: a wide (CJK) character counts twice."""
    if _width(text) <= width:
        return text
    out = ""
    for ch in text:
        if _width(out + ch) > width - CHAR:
            break
        out += ch
    return out.rstrip() + "…"


def usage_per_atom(model: Model) -> str:
    title = PLOTS["usage-per-atom.svg"][0]
    used = []
    for atom_id in model.atoms:
        tally = model.use(atom_id).tally
        sessions = tally.confirmed + tally.contradicted
        if sessions:
            used.append((sessions, tally.contradicted, atom_id))
    if not used:
        return _empty(title, "no usage exported yet (memkit usage export --write)")
    used.sort(key=lambda u: (-u[0], u[2]))
    used = used[:USAGE_BARS]
    label_w = 236
    top_y = 48
    height = top_y + 22 * len(used) + 10
    top = used[0][0]
    plot_w = WIDTH - label_w - 40
    parts = []
    for row, (sessions, contradicted, atom_id) in enumerate(used):
        y = top_y + 22 * row
        w = plot_w * sessions / top
        bad = plot_w * contradicted / top
        label = fit(model.atoms[atom_id].atom.title, label_w - 18)
        parts.append(
            f'<text x="{label_w - 8}" y="{y + 13}" text-anchor="end" {FONT}>{esc(label)}</text>'
            f'<rect x="{label_w}" y="{y + 2}" width="{w - bad:.1f}" height="15" '
            f'fill="{COLOURS[0]}"/>'
            f'<rect x="{label_w + w - bad:.1f}" y="{y + 2}" width="{bad:.1f}" height="15" '
            f'fill="{COLOURS[3]}"/>'
            f'<text x="{label_w + w + 6:.1f}" y="{y + 13}" {FONT}>{sessions}</text>'
        )
    note = "sessions that used each atom: blue confirmed it, red contradicted it"
    return _frame(parts, title, height, note=note)


PLOTS: dict[str, tuple[str, Callable[[Model], str]]] = {
    "atoms-over-time.svg": ("Atoms over time, by type", atoms_over_time),
    "review-throughput.svg": ("Review: submitted, approved, rejected", review_throughput),
    "usage-per-atom.svg": ("Most used atoms (sessions)", usage_per_atom),
}
