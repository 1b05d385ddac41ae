"""An atom's Markdown as HTML that cannot act: its text is untrusted.

mistune renders with raw HTML escaped (`<script>` and `onerror=` arrive as text). On top of
that, nothing here makes the browser fetch or run anything: an image becomes a link, a link
goes out only to http(s) or mailto (with rel=noopener noreferrer), a link to another atom's
file (`other-atom.md`) goes to that atom's page, anything else (javascript:, data:, a path on
disk) is shown as text. Table alignment is a class, not a style attribute (the pages' policy
refuses inline styles).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Set
from typing import Any

from memkit.site.html import code_text

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"mistune"}


_EXTERNAL = re.compile(r"^(?:https?://|mailto:)[^\s\"'<>`]+$", re.I)
_ATOM_FILE = re.compile(r"^(?:\.{0,2}/)*(?:[\w.-]+/)*([a-z0-9]+(?:-[a-z0-9]+)*)\.md(?:#.*)?$")
PageOf = Callable[[str], str | None]  # atom id -> its page's link from the atom page, or None


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def make_renderer(page_of: PageOf) -> Callable[[str], str]:
    """A function Markdown -> safe HTML; `page_of` links atom files to atom pages."""
    import mistune

    class SafeRenderer(mistune.HTMLRenderer):
        def link(self, text: str, url: str, title: str | None = None) -> str:
            return _link(text, url, title, page_of)

        def codespan(self, text: str) -> str:
            return f"<code>{code_text(text)}</code>"

        def image(self, text: str, url: str, title: str | None = None) -> str:
            # Never an <img>: a picture from elsewhere would be a request leaving the folder.
            alt = text or "image"
            if _EXTERNAL.match(url.strip()):
                return _link(f"[image: {_esc(alt)}]", url, title, page_of)
            return f'<span class="image">[image: {_esc(alt)}]</span>'

    markdown: Any = mistune.create_markdown(
        escape=True,
        renderer=SafeRenderer(escape=True),
        plugins=["strikethrough", "table", "url", "task_lists"],
    )
    markdown.renderer.register("table_cell", _table_cell)

    def render(text: str) -> str:
        return str(markdown(text))

    return render


def _link(text: str, url: str, title: str | None, page_of: PageOf) -> str:
    url = url.strip()
    tip = f' title="{_esc(title)}"' if title else ""
    found = _ATOM_FILE.match(url)
    if found:
        page = page_of(found.group(1))
        if page is not None:
            return f'<a href="{_esc(page)}"{tip}>{text}</a>'
    if _EXTERNAL.match(url):
        return f'<a href="{_esc(url)}" rel="noopener noreferrer"{tip}>{text}</a>'
    return f'<span class="link" title="{_esc(url)}">{text}</span>'


def _table_cell(renderer: Any, text: str, align: str | None = None, head: bool = False) -> str:
    tag = "th" if head else "td"
    cls = f' class="align-{align}"' if align in ("left", "center", "right") else ""
    return f"  <{tag}{cls}>{text}</{tag}>\n"


def known_pages(ids: Set[str], prefix: str = "") -> PageOf:
    """`page_of` for a set of shown atom ids, pages named `<prefix><id>.html`."""

    def page_of(atom_id: str) -> str | None:
        return f"{prefix}{atom_id}.html" if atom_id in ids else None

    return page_of
