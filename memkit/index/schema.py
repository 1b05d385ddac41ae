"""The tantivy schema of the atom index."""

from __future__ import annotations

from typing import Any

import tantivy

from memkit.index.analysis import CJK_ANALYZER, cjk_text
from memkit.index.fold import fold, package_table

TEXT_FIELDS = ("title", "triggers", "tags", "body")
# The body already holds the title (its `# heading`): the title field adds a little on top.
# Tuned on SciFact's train queries (nDCG@10, BM25 alone): title x2 0.621, x1 0.671,
# x0.5 0.698, x0.25 0.704. Triggers are the writer's own keywords and weigh most.
BOOSTS = {"triggers": 3.0, "title": 0.25, "tags": 1.0, "body": 1.0}


def build_schema() -> Any:
    builder = tantivy.SchemaBuilder()
    # Every field but `cjk` is stored: recall injects the body without reading files, and a
    # refresh re-adds documents as they were (memkit.index.segments); `cjk` is derived.
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("path", stored=True, tokenizer_name="raw")
    for name in TEXT_FIELDS:
        builder.add_text_field(name, stored=True, tokenizer_name="en_stem")
    builder.add_text_field("cjk", stored=False, tokenizer_name=CJK_ANALYZER)
    for name in ("scope", "type", "status", "confidence"):
        builder.add_text_field(name, stored=True, tokenizer_name="raw")
    return builder.build()


def with_cjk(fields: dict[str, str]) -> dict[str, str]:
    """A document's fields with its `cjk` field: the CJK runs of its text fields, folded to
    simplified Chinese (`memkit.index.fold`: the generation keeps the table)."""
    text = " ".join(fields.get(name) or "" for name in TEXT_FIELDS)
    return {**fields, "cjk": fold(cjk_text(text), package_table())}


def document_of(searcher: Any, schema: Any, path: str) -> Any:
    """The indexed tantivy document of the atom file `path`, or None."""
    query = tantivy.Query.term_query(schema, "path", path)
    hits = searcher.search(query, 1).hits
    return searcher.doc(hits[0][1]) if hits else None
