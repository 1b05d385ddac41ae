"""The search index of the site's atoms: what each result shows and where it leads."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from memkit.atom import Atom
from memkit.parallel import in_halves
from memkit.site.atompage import body_markdown
from memkit.site.model import Model
from memkit.site.search import SNIPPET, Doc, SearchIndex, weights

PARALLEL_ATOMS = 2000  # from this many atoms, a forked child finds half of the terms
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


# Markdown's marks a reader of a snippet does not want, dropped without leaving a space: "Merge
# to `main`; CI builds `x:<sha>`." reads "Merge to main; CI builds x:<sha>.".
_MARKS = re.compile(r"^#{1,6}\s+|^\s*(?:[-*+]|\d+[.)])\s+|^\s*>\s?|\*\*|__|`", re.M)


def snippet_text(markdown: str) -> str:
    """The start of a body as a search result shows it: its words, without Markdown."""
    return " ".join(_MARKS.sub("", _LINK.sub(r"\1", markdown)).split())


def atom_weights(atom: Atom) -> dict[str, int]:
    """An atom's search terms and their weights (`memkit.site.search.weights`)."""
    body = _LINK.sub(r"\1", atom.body)  # a link's words, not where it leads
    return weights(atom.id, atom.title, (*atom.triggers, *atom.tags), body)


def search_index(model: Model, known: Mapping[str, dict[str, int]]) -> SearchIndex:
    """Every shown atom, in id order; `known`: terms found before (by atom id, for unchanged
    files); the others are found here, the second half by a forked child when there are
    many (`memkit.parallel`). The index's `weighed` holds the terms found now."""

    def doc_of(atom_id: str) -> Doc:
        atom = model.atoms[atom_id].atom
        # The snippet's words come from the body's start: no need to clean all of it.
        head = body_markdown(atom.title, atom.body)[: SNIPPET * 4]
        text = snippet_text(head)
        snippet = text if len(text) <= SNIPPET else text[: SNIPPET - 1] + "…"
        return Doc(atom_id, atom.title, atom.type, atom.scope, model.status[atom_id], snippet)

    def work(ids: Sequence[str], in_child: bool) -> list[tuple[str, dict[str, int]]]:
        return [(atom_id, atom_weights(model.atoms[atom_id].atom)) for atom_id in ids]

    todo = [i for i in sorted(model.atoms) if i not in known]
    found: dict[str, dict[str, int]] = {}
    for share in in_halves(todo, work, minimum=PARALLEL_ATOMS):
        found.update(share)
    index = SearchIndex()
    for atom_id in sorted(model.atoms):
        index.add_weights(doc_of(atom_id), found[atom_id] if atom_id in found else known[atom_id])
    index.weighed = found
    return index
