"""The tantivy schema of the atom index."""

from __future__ import annotations

from typing import Any

from memkit.index.analysis import CJK_ANALYZER

TEXT_FIELDS = ("title", "triggers", "tags", "body")
# Triggers and titles say what an atom is about; a body mention counts for less.
BOOSTS = {"triggers": 3.0, "title": 2.0, "tags": 1.5, "body": 1.0}


def build_schema() -> Any:
    import tantivy  # noqa: PLC0415

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("path", stored=True, tokenizer_name="raw")
    for name in TEXT_FIELDS:
        # The body is stored so that recall can inject it without reading files.
        builder.add_text_field(name, stored=name == "body", tokenizer_name="en_stem")
    builder.add_text_field("cjk", stored=False, tokenizer_name=CJK_ANALYZER)
    for name in ("scope", "type", "status", "confidence"):
        builder.add_text_field(name, stored=False, tokenizer_name="raw")
    return builder.build()
