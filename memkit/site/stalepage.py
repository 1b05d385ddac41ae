"""The stale atoms page (`stale.html`): every atom the last `memkit drift` found the code
contradicting, with what the code holds now and the project it was checked against.

Its own page, linked from the start page's health line: the start page's layout is not its
concern. Only atoms the site shows are listed by name; the others are counted. A clone that
never ran a drift check says so and how to run one, never "none".
"""

from __future__ import annotations

from memkit.drift.stored import Stale
from memkit.site.html import atom_href, esc, page, table
from memkit.site.model import Model

PAGE = "stale.html"


def atom_findings(stale: list[Stale] | None) -> dict[str, list[str]]:
    """atom id -> the lines its page shows (`may be stale: ...`, per project)."""
    out: dict[str, list[str]] = {}
    for found in stale or ():
        for sentence in found.sentences:
            out.setdefault(found.id, []).append(f"may be stale ({found.project}): {sentence}")
    return out


def stale_page(model: Model, stale: list[Stale] | None, *, memory: str) -> str:
    """`stale`: `memkit.drift.stored.current_stale`, None when this clone checked nothing."""
    rows = []
    hidden = 0
    for found in stale or ():
        if found.id not in model.atoms:
            hidden += 1
            continue
        link = f'<a href="{esc(atom_href(found.id))}">{esc(found.id)}</a>'
        said = "<br>".join(esc(s) for s in found.sentences)
        rows.append([link, said, esc(found.project), esc(found.checked)])
    parts = [
        f"<h1>Stale against the code ({len(rows)})</h1>",
        "<p>What the last <code>memkit drift</code> found: a path gone, a value changed, a "
        "target or script no longer defined. <code>memkit drift --propose</code> writes the new "
        "values into the atoms for review.</p>",
    ]
    if stale is None:
        parts.append(
            '<p class="muted">Not checked against a code project in this clone yet: '
            "<code>memkit drift --project DIR</code> checks the atoms against the code in DIR.</p>"
        )
    elif rows:
        parts.append(table(["atom", "what the code holds now", "project", "checked"], rows))
    else:
        parts.append('<p class="ok">None.</p>')
    if hidden:
        parts.append(f'<p class="muted">{hidden} more the site does not show.</p>')
    return page("Stale against the code", "\n".join(parts), here=PAGE, memory=memory)
