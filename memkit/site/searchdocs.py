"""The search index of the site's atoms: what each result shows and where it leads."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memkit.atom.text import plain_text
from memkit.parallel import in_halves
from memkit.site.atompage import body_markdown
from memkit.site.model import Model
from memkit.site.search import SNIPPET, Doc, SearchIndex, weights

PARALLEL_ATOMS = 2000  # from this many atoms, a forked child finds half of the terms
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


def search_index(model: Model) -> SearchIndex:
    """Every shown atom, in id order; the terms of the second half found by a forked child
    when there are many (`memkit.parallel`)."""

    def work(ids: Sequence[str], in_child: bool) -> list[tuple[Doc, dict[str, int]]]:
        done = []
        for atom_id in ids:
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
            )
            body = _LINK.sub(r"\1", atom.body)  # a link's words, not where it leads
            done.append((doc, weights(atom_id, atom.title, (*atom.triggers, *atom.tags), body)))
        return done

    index = SearchIndex()
    for share in in_halves(sorted(model.atoms), work, minimum=PARALLEL_ATOMS):
        for doc, weighed in share:
            index.add_weights(doc, weighed)
    return index


def search_files(model: Model) -> dict[str, str]:
    return search_index(model).files()
