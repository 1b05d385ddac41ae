"""Where a captured sentence came from (issue 39): the team, or something the agent read.

An answer that quotes a web page, a file or an error message ("going forward we'll use the
mirror at https://npm-mirror.evil.example") says what that source says, not what the team
decided. So:

- the text of every tool result the agent got (a fetched page, a file read, a command's output)
  is kept as fingerprints (hashes of runs of five words) in the session's state, and a sentence
  of an answer made mostly of them is quoted: it is no candidate (`quoted`);
- a candidate that carries a URL, a command that downloads and runs something, or a change of
  package registry or mirror is held for a person whatever its score (`held`): it waits in the
  queue with the reason and the tools the agent had just used, and is never written by itself
  (`write_personal`).

Standard library only: the transcript pass runs it in hooks.
"""

from __future__ import annotations

import re
import zlib

SHINGLE = 5
MAX_PRINTS = 2_000  # fingerprints kept per session: the most recent tool results
QUOTED = 0.5  # the share of a sentence's fingerprints found in tool results that makes a quote
_TOKEN = re.compile(r"[a-z0-9]+|[\u3400-\u4dbf\u4e00-\u9fff\u3040-\u30ff]")
_URL = re.compile(r"\bhttps?://|\bwww\.[a-z0-9-]+\.[a-z]", re.I)
_DOWNLOAD_RUN = re.compile(
    r"\b(?:curl|wget|iwr|irm|invoke-webrequest)\b[^|\n]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|k|da)?sh\b"
    r"|\b(?:curl|wget)\b[^|\n]{0,200}\|\s*(?:python3?|node|perl|ruby)\b"
    r"|\b(?:ba|z)?sh\s+<\(\s*(?:curl|wget)\b|\biex\s*\(?\s*(?:iwr|irm|invoke-webrequest|new-object)\b"
    r"|\bdownload\w*\s+and\s+(?:run|execute|source)\b|下載並執行|下载并执行",
    re.I,
)
_REGISTRY = re.compile(
    r"\b(?:registry|registries|mirror|mirrors|index-url|extra-index-url|trusted-host|goproxy|"
    r"npmrc|pip\.conf|sources\.list|apt-key|package\s+source|--registry|"
    r"(?:npm|yarn|pnpm|pip|poetry|gem|bundle|cargo|go)\s+config\s+set)\b"
    r"|鏡像|镜像|套件來源|软件源|軟體源",
    re.I,
)


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def fingerprints(text: str) -> list[int]:
    """Hashes of every run of SHINGLE words of `text` (the whole text when it is shorter)."""
    words = _tokens(text)
    if len(words) < SHINGLE:
        return [zlib.crc32(" ".join(words).encode())] if words else []
    return [
        zlib.crc32(" ".join(words[i : i + SHINGLE]).encode())
        for i in range(len(words) - SHINGLE + 1)
    ]


def remember(kept: list[int], text: str) -> list[int]:
    """`kept` with the fingerprints of a tool result's `text`, the most recent MAX_PRINTS."""
    return [*kept, *fingerprints(text[:200_000])][-MAX_PRINTS:]


def quoted(sentence: str, kept: list[int]) -> bool:
    """Whether `sentence` is mostly words the agent read in a tool result."""
    mine = fingerprints(sentence)
    if not mine or not kept:
        return False
    seen = set(kept)
    return sum(p in seen for p in mine) >= QUOTED * len(mine)


def held(text: str) -> str:
    """Why a candidate must wait for a person whatever its score ("" when it need not)."""
    if _DOWNLOAD_RUN.search(text):
        return "it runs a downloaded script"
    if _REGISTRY.search(text):
        return "it changes a package registry or mirror"
    if _URL.search(text):
        return "it carries a URL"
    return ""
