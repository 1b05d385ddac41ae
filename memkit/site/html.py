"""The frame every page shares, and escaping: every string from the memory goes through `esc`.

Each page carries a Content-Security-Policy that lets it load only the site's own stylesheet,
scripts and pictures (`'self'`) and nothing inline: atom text that slipped past escaping
still could not run, style the page or send anything anywhere. Links out carry
rel="noopener noreferrer"; the referrer is never sent.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "base-uri 'none'; form-action 'self'"
)
NAV = (
    ("index.html", "Start"),
    ("atoms.html", "Atoms"),
    ("graph.html", "Links"),
    ("archive.html", "Archive"),
    ("search.html", "Search"),
)
ATOM_DIR = "atoms"


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


_CODE = re.compile(r"`([^`\n]+)`")


def inline(text: object) -> str:
    """`esc`, with Markdown's code spans (`memkit validate --fix`) as <code>: what health,
    the audit and validate print is written for a terminal, where backticks mark commands."""
    parts = _CODE.split(str(text))
    return "".join(
        f"<code>{code_text(part)}</code>" if n % 2 else esc(part) for n, part in enumerate(parts)
    )


_JOINTS = re.compile(r"([/.=_])(?=\w)")


def code_text(text: str) -> str:
    """Code, escaped, that may wrap after a `/`, `.`, `=` or `_` inside it: a browser breaks
    `registry.acme.internal/recommendations:<sha>` nowhere else, and would otherwise cut a
    word in the middle to fit a narrow screen."""
    return _JOINTS.sub(r"\1<wbr>", esc(text))


def atom_href(atom_id: str, up: str = "") -> str:
    """The link to an atom's page from a page `up` below the site's top ("" or "../")."""
    return f"{up}{ATOM_DIR}/{atom_id}.html"


def page(
    title: str,
    body: str,
    *,
    up: str = "",
    here: str = "",
    scripts: Sequence[str] = (),
    memory: str = "memory",
    search: bool = True,
) -> str:
    """A whole HTML document; `up` leads from the page's folder to the site's top; `search`:
    a search box in the header (the start page has its own, in the middle)."""
    current = ' class="here"'
    nav = "".join(
        f'<a href="{up}{href}"{current if href == here else ""}>{esc(name)}</a>'
        for href, name in NAV
    )
    tags = "".join(f'<script src="{up}assets/{esc(s)}"></script>' for s in scripts)
    box = (
        f'<form action="{up}search.html" method="get" role="search">'
        '<input type="search" name="q" placeholder="Search atoms · 搜尋" aria-label="Search">'
        "</form>"
        if search
        else ""
    )
    return (
        "<!doctype html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)} · {esc(memory)}</title>\n"
        f'<link rel="stylesheet" href="{up}assets/site.css">\n{tags}\n</head>\n<body>\n'
        f'<header class="top"><a class="brand" href="{up}index.html">{esc(memory)}</a>'
        f"<nav>{nav}</nav>{box}</header>\n"
        f"<main>\n{body}\n</main>\n"
        "<footer>Built by memkit site from the memory's git repository.</footer>\n"
        "</body>\n</html>\n"
    )


def badge(status: str) -> str:
    return f'<span class="badge {esc(status)}">{esc(status)}</span>'


def table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], *, numeric: int = 0, stack: bool = True
) -> str:
    """A table of cells already escaped; the last `numeric` columns align right. On a narrow
    screen each row becomes a block of its cells, each labelled with its column's name
    (`data-label`, shown by the stylesheet): no column is squeezed until words break. A
    table of a name and a number fits any screen: `stack=False` keeps it a table."""
    first = len(headers) - numeric

    def cell(tag: str, n: int, text: str) -> str:
        cls = ' class="num"' if n >= first else ""
        label = f' data-label="{esc(headers[n])}"' if tag == "td" and headers[n] else ""
        return f"<{tag}{cls}{label}>{text}</{tag}>"

    head = "".join(cell("th", n, esc(h)) for n, h in enumerate(headers))
    lines = "".join(
        "<tr>" + "".join(cell("td", n, c) for n, c in enumerate(row)) + "</tr>\n" for row in rows
    )
    cls = ' class="rows"' if stack else ""
    return f"<table{cls}>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{lines}</tbody>\n</table>"


def breakable_path(path: str) -> str:
    """A file path, escaped, that may wrap after each `/` (a long one in a narrow column)."""
    return "/<wbr>".join(esc(part) for part in path.split("/"))
