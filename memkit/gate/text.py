"""Shared text helpers for the gate: plain text of an atom, CJK detection."""

from __future__ import annotations

import re

CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_MARKUP = re.compile(r"^#{1,6}\s+|^\s*(?:[-*+]|\d+[.)])\s+|[*_`>|]", re.M)


def plain_text(title: str, body: str) -> str:
    """Title and body without Markdown markup, whitespace folded: what a reader reads."""
    text = body
    if title and title not in body:
        text = f"{title}\n{body}"
    text = _MARKUP.sub(" ", text)
    return re.sub(r"\s+", " ", text).strip()


def has_cjk(text: str) -> bool:
    return CJK_RE.search(text) is not None
