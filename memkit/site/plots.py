"""Plots drawn at build time as standalone SVG files (shown with <img>: a picture cannot run
anything, whatever its labels say). Every label is escaped.

- atoms over time by type: how many atoms each type had at the end of each month (by
  `created`), stacked;
- review throughput: per month, atoms submitted to `shared/_pending/`, approved, rejected
  (from git's history);
- usage per atom: the most used atoms by sessions that used them, from the team's exports.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from memkit.atom import TYPES
from memkit.site.html import esc
from memkit.site.model import PENDING, Model

COLOURS = ("#2f6fb3", "#b45309", "#1a7f37", "#b42318", "#6b4fbb", "#0e7490", "#64748b")
FONT = 'font-family="system-ui, sans-serif" font-size="12"'
WIDTH, HEIGHT = 720, 300
LEFT, RIGHT, TOP, BOTTOM = 48, 150, 20, 40
USAGE_BARS = 20


def _frame(body: Sequence[str], title: str, height: int = HEIGHT) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" role="img" aria-label="{esc(title)}">\n'
        f"<title>{esc(title)}</title>\n"
        f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>\n'
        + "\n".join(body)
        + "\n</svg>\n"
    )


def _empty(title: str, message: str) -> str:
    return _frame(
        [
            f'<text x="{WIDTH / 2}" y="{HEIGHT / 2}" text-anchor="middle" {FONT} fill="#5b6475">'
            f"{esc(message)}</text>"
        ],
        title,
    )


def _months(first: str, last: str) -> list[str]:
    year, month = int(first[:4]), int(first[5:7])
    out = []
    while f"{year:04d}-{month:02d}" <= last:
        out.append(f"{year:04d}-{month:02d}")
        month += 1
        if month > 12:
            year, month = year + 1, 1
    return out


def _axis(months: Sequence[str], top: float, plot_w: float, plot_h: float) -> list[str]:
    parts = [
        f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}" '
        'stroke="#5b6475"/>',
        f'<text x="{LEFT - 6}" y="{TOP + 4}" text-anchor="end" {FONT}>{top:g}</text>',
        f'<text x="{LEFT - 6}" y="{TOP + plot_h}" text-anchor="end" {FONT}>0</text>',
    ]
    step = max(1, len(months) // 6)
    for i in range(0, len(months), step):
        x = LEFT + plot_w * (i + 0.5) / len(months)
        parts.append(
            f'<text x="{x:.1f}" y="{TOP + plot_h + 16}" text-anchor="middle" {FONT}>'
            f"{esc(months[i])}</text>"
        )
    return parts


def _legend(names: Sequence[str]) -> list[str]:
    parts = []
    for i, name in enumerate(names):
        y = TOP + 16 * i
        colour = COLOURS[i % len(COLOURS)]
        parts.append(
            f'<rect x="{WIDTH - RIGHT + 16}" y="{y}" width="10" height="10" fill="{colour}"/>'
            f'<text x="{WIDTH - RIGHT + 32}" y="{y + 9}" {FONT}>{esc(name)}</text>'
        )
    return parts


def atoms_over_time(model: Model) -> str:
    title = "Atoms over time by type"
    created = [
        (s.atom.created[:7], s.atom.type)
        for i, s in model.atoms.items()
        if model.status[i] != PENDING and len(s.atom.created) >= 7 and s.atom.created[4] == "-"
    ]
    if not created:
        return _empty(title, "no atoms yet")
    months = _months(min(m for m, _ in created), max(m for m, _ in created))
    types = [t for t in TYPES if any(k == t for _, k in created)]
    others = sorted({k for _, k in created} - set(types))
    names = types + (["other"] if others else [])
    per = Counter((m, k if k in types else "other") for m, k in created)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    totals: dict[str, list[int]] = {}
    for name in names:
        running, series = 0, []
        for month in months:
            running += per[(month, name)]
            series.append(running)
        totals[name] = series
    top = max(1, sum(series[-1] for series in totals.values()))
    parts = _axis(months, top, plot_w, plot_h)
    below = [0] * len(months)
    for n, name in enumerate(names):
        upper = [b + v for b, v in zip(below, totals[name], strict=True)]
        xs = [LEFT + plot_w * (i + 0.5) / len(months) for i in range(len(months))]
        if len(months) == 1:
            xs = [LEFT, LEFT + plot_w]
            upper, lower = upper * 2, below * 2
        else:
            lower = below
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
    return _frame([*parts, *_legend(names)], title)


def review_throughput(model: Model) -> str:
    title = "Review throughput per month"
    events = [(day[:7], what) for day, what in model.history.reviews if len(day) >= 7]
    if not events:
        return _empty(title, "nothing has gone through shared/_pending/ yet")
    months = _months(min(m for m, _ in events), max(m for m, _ in events))
    names = ["submitted", "approved", "rejected"]
    count = Counter(events)
    top = max(count.values())
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    parts = _axis(months, top, plot_w, plot_h)
    slot = plot_w / len(months)
    bar = slot * 0.8 / len(names)
    for i, month in enumerate(months):
        for n, name in enumerate(names):
            value = count[(month, name)]
            if not value:
                continue
            h = plot_h * value / top
            x = LEFT + slot * i + slot * 0.1 + bar * n
            parts.append(
                f'<rect x="{x:.1f}" y="{TOP + plot_h - h:.1f}" width="{bar:.1f}" height="{h:.1f}" '
                f'fill="{COLOURS[n]}"><title>{esc(f"{month} {name}: {value}")}</title></rect>'
            )
    return _frame([*parts, *_legend(names)], title)


def usage_per_atom(model: Model) -> str:
    title = "Usage per atom (sessions that used it)"
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
    label_w = 230
    height = TOP + 22 * len(used) + 30
    top = used[0][0]
    plot_w = WIDTH - label_w - 60
    parts = []
    for row, (sessions, contradicted, atom_id) in enumerate(used):
        y = TOP + 22 * row
        w = plot_w * sessions / top
        bad = plot_w * contradicted / top
        label = atom_id if len(atom_id) <= 32 else atom_id[:31] + "…"
        parts.append(
            f'<text x="{label_w - 6}" y="{y + 13}" text-anchor="end" {FONT}>{esc(label)}</text>'
            f'<rect x="{label_w}" y="{y + 2}" width="{w - bad:.1f}" height="15" '
            f'fill="{COLOURS[0]}"/>'
            f'<rect x="{label_w + w - bad:.1f}" y="{y + 2}" width="{bad:.1f}" height="15" '
            f'fill="{COLOURS[3]}"/>'
            f'<text x="{label_w + w + 6:.1f}" y="{y + 13}" {FONT}>{sessions}</text>'
        )
    parts.append(
        f'<text x="{label_w}" y="{height - 8}" {FONT} fill="#5b6475">blue: confirmed · '
        "red: contradicted</text>"
    )
    return _frame(parts, title, height)


PLOTS = {
    "atoms-over-time.svg": atoms_over_time,
    "review-throughput.svg": review_throughput,
    "usage-per-atom.svg": usage_per_atom,
}
