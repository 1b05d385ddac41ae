"""Prompt injection: text in an atom that tries to instruct the agent reading it.

Memory is injected into every teammate's agent, so an atom saying "ignore previous
instructions" is an attack on all of them. Flagged as a warning by default;
`gate: {injection: fail}` in memkit.yaml makes it an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memkit.atom import Atom
from memkit.config import Config
from memkit.findings import Finding, Severity

_PHRASES = re.compile(
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+)*"
    r"(?:previous|prior|above|earlier|preceding|system|original)\s+"
    r"(?:instructions?|prompts?|rules?|messages?|context|directions?)"
    r"|\byou\s+(?:must|will|should)\s+now\b|\byou\s+are\s+now\s+(?:a|an|in|the)\b"
    r"|\bnew\s+(?:system\s+)?instructions?\s*:"
    r"|\b(?:reveal|print|show|leak)\s+(?:your|the)\s+(?:system\s+)?prompt\b"
    r"|\bdo\s+not\s+(?:tell|inform|mention\s+(?:this\s+)?to)\s+the\s+user\b"
    r"|\bwithout\s+(?:telling|asking)\s+the\s+user\b"
    r"|\b(?:act|behave)\s+as\s+(?:if\s+you\s+(?:are|were)|an?\s+unrestricted)\b"
    r"|</?\s*(?:system|assistant|instructions?)\s*>"
    r"|(?:忽略|無視|无视|忘記|忘记|不要理會|不要理会)(?:掉)?(?:之前|先前|以上|前面|上面|所有|原本|系統|系统)"
    r"(?:的)?(?:所有)?(?:指令|指示|規則|规则|提示|設定|设定|要求)"
    r"|你現在是|你现在是|從現在開始你|从现在开始你|你必須立即|你必须立即"
    r"|不要告訴使用者|不要告诉用户|不要讓使用者知道|不要让用户知道|(?:洩漏|泄露|顯示|显示)(?:你的)?系統提示|系统提示词"
    r"|(?:以前|前)の指示を無視|指示を無視して",
    re.I,
)
_COMMENT = re.compile(r"<!--(.*?)-->", re.S)
_IMPERATIVE = re.compile(
    r"\b(?:ignore|you|must|instruction|assistant|claude|agent|always|never|run|execute|delete"
    r"|send|reveal)\b|指令|指示|你|必須|必须|執行|执行",
    re.I,
)
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\u2061-\u2064\ufeff\u202a-\u202e\u2066-\u2069]")


def injection_hits(text: str) -> Iterator[tuple[int, int, str]]:
    """(line, col, what) for each suspicious place in `text`."""
    for m in _PHRASES.finditer(text):
        line, col = _where(text, m.start())
        yield line, col, f"instruction aimed at the agent ({m.group(0).strip()[:40]!r})"
    for m in _COMMENT.finditer(text):
        if _IMPERATIVE.search(m.group(1)):
            line, col = _where(text, m.start())
            yield line, col, "hidden HTML comment with instructions (invisible when rendered)"
    for m in _INVISIBLE.finditer(text):
        line, col = _where(text, m.start())
        yield line, col, f"invisible character U+{ord(m.group(0)):04X} (can hide text)"
        break


def _where(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def injection_findings(atom: Atom, text: str, config: Config) -> Iterator[Finding]:
    mode = config.section("gate").get("injection", "warn")
    severity = Severity.ERROR if mode == "fail" else Severity.WARNING
    if mode == "off":
        return
    for line, col, what in injection_hits(text):
        yield Finding(
            atom.path,
            line,
            col,
            "MK112",
            f"possible prompt injection: {what}; memory is read by every "
            "teammate's agent, write facts, not orders to the agent",
            severity,
        )
