"""Secrets and `<private>` blocks: never allowed in a committed atom.

Memory is replicated to every clone and injected into every teammate's agent, so a key that
lands here leaks far. A hit names the kind and the line, and shows the secret only redacted
(`memkit.admission.content` turns hits into MK110/MK111 findings).
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

from memkit.safety.text import finditer_at, folded, starts

# (kind, pattern): provider formats first, they are the most certain.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern))
    for kind, pattern in (
        ("private key block", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
        ("AWS access key id", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b"),
        ("GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b"),
        ("GitLab token", r"\bglpat-[A-Za-z0-9_-]{20,}\b"),
        ("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"),
        ("Slack webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}"),
        ("Anthropic API key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
        ("OpenAI API key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
        ("Google API key", r"\bAIza[0-9A-Za-z_-]{35}\b"),
        ("Stripe key", r"\b(?:sk|rk)_live_[0-9a-zA-Z]{20,}\b"),
        ("Hugging Face token", r"\bhf_[A-Za-z0-9]{30,}\b"),
        ("npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
        ("JSON Web Token", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    )
)
_CONNECTION = re.compile(r"\b[a-z][a-z0-9+.-]{1,20}://[^\s/:@]+:([^\s/@]+)@[^\s/]+", re.I)
_NEAR_WORD = re.compile(
    r"(?:api[_-]?key|apikey|access[_-]?key|secret|token|passw(?:or)?d|pwd|credential|auth"
    r"|密碼|密码|密鑰|密钥|金鑰|令牌|口令|パスワード|トークン)"
    r"[\"']?\s*(?:[:=]|=>|是|為|为|は)\s*[\"']?([^\s\"',;]{12,})",
    re.I,
)
# A signing secret or token in hex, a few words after the word that names it ("Slack signing
# secret 8f74…", "the token is …"): hex alone is too common (git commits) to flag by itself.
_HEX_NEAR_WORD = re.compile(
    r"(?:secret|token|passw(?:or)?d|api[_ -]?key|signing[_ -]?key|private[_ -]?key|bearer"
    r"|authorization|hmac|(?:encryption|master|shared|access|deploy)[_ -]?key"
    r"|密鑰|密钥|金鑰|令牌)[^\n]{0,30}?(?<![0-9A-Fa-f])([0-9A-Fa-f]{32,})(?![0-9A-Za-z])",
    re.I,
)
# "with key 9a8b…": the bare word names a key only when the value follows it at once (a
# commit SHA a few words after "key" is the common benign case).
_HEX_AFTER_KEY = re.compile(
    r"\bkey\s*(?:(?:[:=]|=>|\bis\b)\s*)?[\"'`]?([0-9A-Fa-f]{32,})(?![0-9A-Za-z])", re.I
)
# A token of mixed case and digits a few words after the word that names it ("AWS secret
# wJalr…", "Bearer Zk4m…"): the case mix tells random base64 from CamelCase identifiers.
_TOKEN_NEAR_WORD = re.compile(
    r"(?:secret|token|bearer|authorization|credential|aws|api[_ -]?key|access[_ -]?key"
    r"|private[_ -]?key|密鑰|密钥|金鑰|令牌)[^\n]{0,30}?(?<![A-Za-z0-9/+_-])"
    r"([A-Za-z0-9/+_-]{20,}={0,2})(?![A-Za-z0-9/+=_-])",
    re.I,
)
# A password named and given, with no colon ("password hunter2-zebra-prod", "the root
# password is Tr0ub…", "密碼 …"): a value of letters and digits right after the word. The
# blanks before and after a separator are one `\s*` each side of it, never two in a row:
# "password" and 40,000 blanks took the two that many ways to split them (quadratic).
_PASSWORD_VALUE = re.compile(
    r"(?:\b(?:passw(?:or)?d|passphrase|pwd)\b|密碼|密码|口令|パスワード)\s*(?:(?:[:=]|=>|\bis\b"
    r"|\bwas\b|是|為|为|は)\s*)?[\"'`]?([^\s\"'`,;()<>\[\]{}]{8,})",
    re.I,
)
_PLACEHOLDER = re.compile(
    r"^(?:\$\{?\w+\}?|<[^>]*>|\{\{.*\}\}|\*+|x+|\.+|(?:your|my|the|some|example|dummy|changeme"
    r"|placeholder|redacted|secret|password|token|xxx)[\w-]*|%\(?\w+\)?s?)$",
    re.I,
)
PRIVATE_TAG = re.compile(r"<private\b[^>]*>", re.I)


@dataclass(frozen=True)
class SecretHit:
    line: int
    col: int
    kind: str
    redacted: str


def _random_token(value: str) -> bool:
    """Looks drawn at random: digits, both cases in a proportion CamelCase words do not have,
    high entropy; not hex alone (the hex rules judge that)."""
    letters = [c for c in value if c.isalpha()]
    if not letters or not any(c.isdigit() for c in value):
        return False
    upper = sum(c.isupper() for c in letters) / len(letters)
    hexa = all(c in "0123456789abcdefABCDEF" for c in value)
    return 0.25 <= upper <= 0.85 and not hexa and _entropy(value) >= 3.5


def _password_like(value: str) -> bool:
    """A password given in prose: letters and digits, not a placeholder, a path or a
    version."""
    return (
        any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and not _PLACEHOLDER.match(value)
        and not _VERSION.match(value)
        and "/" not in value
        and "." not in value.strip(".")
    )


_VERSION = re.compile(r"^v?\d+(?:[.-]\d+)*[a-z]?$", re.I)


# What each provider pattern cannot match without: a text holding none of its words is not
# searched with it. Most atoms hold no secret, and running every pattern over every line
# cost ~0.5 ms an atom (a whole repository of 10,000: 5 s); now a line is searched only
# when the text holds a match.
_NEEDS: tuple[tuple[str, ...], ...] = (
    ("-----BEGIN ",),
    ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA"),
    ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ("glpat-",),
    ("xox",),
    ("https://hooks.slack.com/services/",),
    ("sk-ant-",),
    ("sk-",),
    ("AIza",),
    ("_live_",),
    ("hf_",),
    ("npm_",),
    ("eyJ",),
)
# Where a match of each case-insensitive pattern can start: its opening words.
_NEAR_STARTS = (
    "api",
    "access",
    "secret",
    "token",
    "passw",
    "pwd",
    "credential",
    "auth",
    "密",
    "金鑰",
    "令牌",
    "口令",
    "パスワード",
    "トークン",
)
_HEX_STARTS = (
    "secret",
    "token",
    "passw",
    "api",
    "signing",
    "private",
    "bearer",
    "authorization",
    "hmac",
    "encryption",
    "master",
    "shared",
    "access",
    "deploy",
    "密鑰",
    "密钥",
    "金鑰",
    "令牌",
)


_TOKEN_STARTS = (
    "secret",
    "token",
    "bearer",
    "authorization",
    "credential",
    "aws",
    "api",
    "access",
    "private",
    "密鑰",
    "密钥",
    "金鑰",
    "令牌",
)
_PASSWORD_STARTS = ("passw", "pwd", "密碼", "密码", "口令", "パスワード")
# The word-led rules after the provider patterns: (pattern, where a match can start).
_WORD_RULES = (
    (_NEAR_WORD, _NEAR_STARTS),
    (_HEX_NEAR_WORD, _HEX_STARTS),
    (_HEX_AFTER_KEY, ("key",)),
    (_TOKEN_NEAR_WORD, _TOKEN_STARTS),
    (_PASSWORD_VALUE, _PASSWORD_STARTS),
)


def _candidates(text: str) -> tuple[bool, ...]:
    """Per pattern (_PATTERNS, then connection, then `_WORD_RULES`), whether it matches
    somewhere in `text` (a line it matches in is part of the text)."""
    provider = tuple(
        any(word in text for word in words) and pattern.search(text) is not None
        for words, (_kind, pattern) in zip(_NEEDS, _PATTERNS, strict=True)
    )
    lowered = folded(text)
    schemes = {at for end in starts(lowered, ("://",)) for at in range(max(0, end - 21), end - 1)}
    return (
        *provider,
        any(finditer_at(_CONNECTION, text, schemes)),
        *(
            any(finditer_at(pattern, text, starts(lowered, words)))
            for pattern, words in _WORD_RULES
        ),
    )


def _entropy(value: str) -> float:
    counts = {c: value.count(c) for c in set(value)}
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def redact(secret: str) -> str:
    return f"{secret[:4]}…({len(secret)} chars)" if len(secret) > 8 else "…"


def _line_hits(line: str, may: tuple[bool, ...] | None = None) -> Iterator[tuple[int, int, str]]:
    """(start, end, kind) of each secret value in one line, none overlapping; `may` says
    which patterns can match at all (see `_candidates`), default all."""
    taken: list[tuple[int, int]] = []  # sorted, none overlapping
    may = may or (True,) * (len(_PATTERNS) + 1 + len(_WORD_RULES))

    def free(start: int, end: int) -> bool:
        # The neighbours only (a bisection): a line of thousands of hits was quadratic.
        at = bisect.bisect_left(taken, (start, end))
        return (at == 0 or taken[at - 1][1] <= start) and (at == len(taken) or end <= taken[at][0])

    for (kind, pattern), wanted in zip(_PATTERNS, may, strict=False):
        if not wanted:
            continue
        for m in pattern.finditer(line):
            if free(m.start(), m.end()):
                bisect.insort(taken, (m.start(), m.end()))
                yield m.start(), m.end(), kind
    connection, near, hexed, after_key, token, given = may[len(_PATTERNS) :]
    for m in _CONNECTION.finditer(line) if connection else ():
        password = m.group(1)
        if free(m.start(), m.end()) and not _PLACEHOLDER.match(password):
            bisect.insort(taken, (m.start(), m.end()))
            yield m.start(1), m.end(1), "password in a connection string"
    for m in _NEAR_WORD.finditer(line) if near else ():
        value = m.group(1)
        if (
            free(m.start(1), m.end(1))
            and not _PLACEHOLDER.match(value)
            and _entropy(value) >= 3.3
            and re.search(r"\d", value)
            and re.search(r"[A-Za-z]", value)
        ):
            bisect.insort(taken, (m.start(1), m.end(1)))
            yield m.start(1), m.end(1), "high-entropy value next to a secret word"
    for m in _HEX_NEAR_WORD.finditer(line) if hexed else ():
        value = m.group(1)
        if free(m.start(1), m.end(1)) and len(set(value.lower())) >= 8:
            bisect.insort(taken, (m.start(1), m.end(1)))
            yield m.start(1), m.end(1), "hex key next to a secret word"
    for m in _HEX_AFTER_KEY.finditer(line) if after_key else ():
        value = m.group(1)
        if free(m.start(1), m.end(1)) and len(set(value.lower())) >= 8:
            bisect.insort(taken, (m.start(1), m.end(1)))
            yield m.start(1), m.end(1), "hex key next to a secret word"
    for m in _TOKEN_NEAR_WORD.finditer(line) if token else ():
        value = m.group(1)
        if free(m.start(1), m.end(1)) and _random_token(value.rstrip("=")):
            bisect.insort(taken, (m.start(1), m.end(1)))
            yield m.start(1), m.end(1), "random token next to a secret word"
    for m in _PASSWORD_VALUE.finditer(line) if given else ():
        value = m.group(1)
        if free(m.start(1), m.end(1)) and _password_like(value):
            bisect.insort(taken, (m.start(1), m.end(1)))
            yield m.start(1), m.end(1), "password next to the word password"


def find_secrets(text: str) -> Iterator[SecretHit]:
    may = _candidates(text)
    if not any(may):
        return
    for number, line in enumerate(text.split("\n"), start=1):
        for start, end, kind in _line_hits(line, may):
            yield SecretHit(number, start + 1, kind, redact(line[start:end]))


def redact_secrets(text: str) -> str:
    """`text` with every secret value found in it replaced by its redacted form: for file
    names, messages and logs that must name a thing without leaking it."""
    may = _candidates(text)
    if not any(may):
        return text
    lines = text.split("\n")
    for n, line in enumerate(lines):
        out = line
        for start, end, _kind in sorted(_line_hits(line, may), reverse=True):
            out = out[:start] + redact(out[start:end]) + out[end:]
        lines[n] = out
    return "\n".join(lines)


def secret_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets in `text` of every secret value `find_secrets` sees."""
    return list(_spans(text))


# `quote` asks this for every hit in one text: read once (a text of a thousand hits was read
# a thousand times). A str keeps its hash, so a large text costs nothing to look up again.
@functools.lru_cache(maxsize=8)
def _spans(text: str) -> tuple[tuple[int, int], ...]:
    may = _candidates(text)
    if not any(may):
        return ()
    spans: list[tuple[int, int]] = []
    head = 0
    for line in text.split("\n"):
        spans += [(head + start, head + end) for start, end, _kind in _line_hits(line, may)]
        head += len(line) + 1
    return tuple(spans)


def quote(text: str, start: int, end: int, limit: int = 40) -> str:
    """`text[start:end]` as an explanation may quote it: stripped, cut to `limit` characters,
    every part of a secret value found in the whole `text` replaced by `…` first (a cut
    secret would no longer look like one, and would be printed)."""
    spans = [(max(a, start), min(b, end)) for a, b in secret_spans(text) if a < end and b > start]
    piece = text[start:end]
    for a, b in sorted(spans, reverse=True):
        piece = piece[: a - start] + "…" + piece[b - start :]
    return piece.strip()[:limit]
