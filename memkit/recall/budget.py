"""How much memory a prompt gets, counted in tokens with a CJK-aware estimate."""

from __future__ import annotations

import re

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")


CJK_TOKENS_PER_CHAR = 1.5  # the seeds' measure for Chinese; kana and hangul alike


def estimate_tokens(text: str) -> int:
    """About 1.5 tokens per CJK character and one per four other characters."""
    cjk = len(_CJK.findall(text))
    return int(cjk * CJK_TOKENS_PER_CHAR + 0.5) + (len(text) - cjk + 3) // 4


def budget_for(prompt: str) -> int:
    """Short prompts get a little memory, long ones more (DESIGN.md §7)."""
    length = len(prompt.strip())
    if length < 50:
        return 1_500
    if length < 200:
        return 3_000
    return 5_000
