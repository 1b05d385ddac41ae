"""The search index of the site's atoms: what each result shows and where it leads."""

from __future__ import annotations

import re

from memkit.atom.text import plain_text
from memkit.site.atompage import body_markdown
from memkit.site.html import atom_href
from memkit.site.model import Model
from memkit.site.search import SNIPPET, Doc, SearchIndex

_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


def search_index(model: Model) -> SearchIndex:
    index = SearchIndex()
    for atom_id in sorted(model.atoms):
        atom = model.atoms[atom_id].atom
        text = _LINK.sub(r"\1", plain_text("", body_markdown(atom.title, atom.body)))
        snippet = text if len(text) <= SNIPPET else text[: SNIPPET - 1] + "…"
        doc = Doc(
            atom_id,
            atom.title,
            atom.type,
            atom.scope,
            model.status[atom_id],
            snippet,
            atom_href(atom_id),
        )
        body = _LINK.sub(r"\1", atom.body)  # a link's words, not where it leads
        index.add(doc, title=atom.title, keys=(*atom.triggers, *atom.tags), body=body)
    return index


def search_script(model: Model) -> str:
    return search_index(model).script()
