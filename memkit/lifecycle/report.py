"""`memkit health` as text for a terminal, or Markdown for a pull request's summary."""

from __future__ import annotations

from memkit.lifecycle.health import SHOW, Health, Line


def _counts(counts: dict[str, int]) -> str:
    return " · ".join(f"{k or '?'} {v}" for k, v in counts.items()) or "none"


def _items(line: Line) -> str:
    if line.note:
        return line.note
    shown = ", ".join(line.items[:SHOW])
    more = f", … (+{len(line.items) - SHOW})" if len(line.items) > SHOW else ""
    return f"{len(line.items)}: {shown}{more}"


def render_text(health: Health) -> str:
    out = [
        f"memkit health: {health.atoms} atoms, {health.problems} thing(s) to look at",
        f"  scopes: {_counts(health.by_scope)}",
        f"  types:  {_counts(health.by_type)}",
        f"  tiers (live atoms): {_counts(health.by_tier)}",
        f"  status: {_counts(health.by_status)}",
        f"  usage from: {'; '.join(health.sources) or 'nothing yet'}",
    ]
    if not health.atoms:
        out.append(
            "  a new memory: write the first atom (`memkit add TEXT`, or a file in shared/ "
            "as the README shows) and commit it"
        )
    for line in health.lines:
        if line.ok:
            out.append(f"ok  {line.label}: {line.ok_text}")
        else:
            out.append(f"!!  {line.label}: {_items(line)}")
            out.append(f"      -> {line.fix}")
    return "\n".join(out)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(health: Health) -> str:
    out = [
        "### Memory health",
        "",
        f"{health.atoms} atoms · scopes: {_cell(_counts(health.by_scope))} · tiers (live): "
        f"{_cell(_counts(health.by_tier))}",
        "",
        f"Usage from: {_cell('; '.join(health.sources) or 'nothing yet')}",
        "",
        "| | check | found | what to run |",
        "|---|---|---|---|",
    ]
    for line in health.lines:
        mark = "✅" if line.ok else "⚠️"
        found = line.ok_text if line.ok else _cell(_items(line))
        fix = "" if line.ok else _cell(line.fix)
        out.append(f"| {mark} | {_cell(line.label)} | {found} | {fix} |")
    return "\n".join(out) + "\n"
