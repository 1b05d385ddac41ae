"""Secrets and `<private>` blocks: never allowed in a committed atom.

Memory is replicated to every clone and injected into every teammate's agent, so a key that
lands here leaks far. A secret is found by what it is and by what is around it, on the text as
a reader takes it (fullwidth letters folded, zero-width characters left out):

- a provider's published token format (`memkit.safety.catalogue`: prefix, alphabet, length,
  checksum) anywhere, with or without a word beside it; a webhook URL that is a credential;
- a password or token in a URL (`postgres://app:…@db`), after a key that names a secret
  (`DB_PASS=…`, `password: …`, `"client_secret": "…"`, `X-Api-Key: …`,
  `Authorization: Bearer …`), after a command's flag (`mysql -p…`, `curl -u user:…`,
  `redis-cli -a …`), in a table column headed by such a name;
- a value of the right look a few words after a credential word in prose, on the same line or
  the next (a Markdown bullet wrapped before the value): a password (letters with digits or
  signs) after "password"/密碼, a random token or a long hex string (whole, or split by spaces
  or hyphens) after "token", "secret", "API key"…, unless a word between says it is something
  else (a commit, a checksum, a policy);
- private key blocks.

The rules for values given to keys, flags and columns and named in prose are in
`memkit.safety.given`, the look of a value in `memkit.safety.values`. Every rule reads one
token, or a window of a few dozen characters after a word, at a time:
the check is linear in the length of the text (benchmarks/safety_scaling_bench.py). A hit names
the kind and shows the secret only redacted (`memkit.admission.content` turns hits into
MK110/MK111 findings).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from memkit.safety.catalogue import Catalogue, Format, builtin
from memkit.safety.given import after_words, commands, keys, tables
from memkit.safety.values import (
    TOKEN_CLASS,
    Span,
    assigned,
    placeholder,
    random_body,
    strip_token,
    token_like,
)

# `<private` and what follows up to its `>`: never across another `<` (one pass per text).
PRIVATE_TAG = re.compile(r"<private\b[^<>]*>", re.I)


@dataclass(frozen=True)
class SecretHit:
    line: int
    col: int
    kind: str
    redacted: str


# A token of 8 characters or more that is more than a word: after its letters (a capital,
# then small letters and hyphenated parts) comes something else than sentence punctuation. Each
# token is tried once, from its start (atomic and possessive: nothing is read twice).
_LONG = re.compile(
    f"(?<!{TOKEN_CLASS})(?={TOKEN_CLASS}{{8}})(?>[A-Z]?[a-z]*(?:-[a-z]+)*)"
    f"(?={TOKEN_CLASS})(?![.:!?]*+(?!{TOKEN_CLASS})){TOKEN_CLASS}*+"
)
_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
# Fullwidth ASCII and the ideographic space, read as the letters they are (one character for
# one: the offsets stay those of the text).
_FULLWIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {
    0x3000: 0x20,
    # What case-insensitive matching takes for an ASCII letter: `ſecret` is `secret`.
    **{ord(c): ord(a) for c, a in zip("\u0130\u0131\u017f\u212a", "IisK", strict=True)},
}
# Characters nobody sees that would split a token: left out of the view, offsets mapped back.
_HIDDEN = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad")


def _view(text: str) -> tuple[str, list[int] | None]:
    """The text as the check reads it, and for each of its characters the offset in `text`
    (None: the same offsets)."""
    if text.isascii():
        return text, None
    seen = text.translate(_FULLWIDTH)
    if not any(c in seen for c in _HIDDEN):
        return seen, None
    keep = [i for i, c in enumerate(seen) if c not in _HIDDEN]
    return "".join(seen[i] for i in keep), keep


def _checksum_ok(fmt: Format, body: str) -> bool:
    if fmt.checksum != "crc32-base62" or len(body) < 7:
        return False
    n, out = zlib.crc32(body[:-6].encode()), ""
    while n:
        n, r = divmod(n, 62)
        out = _B62[r] + out
    return out.rjust(6, "0") == body[-6:]


def _format_end(fmt: Format, token: str, at: int) -> int:
    """Where a token of `fmt` whose body starts at `token[at]` ends (0: it is none)."""
    if fmt.max_len and len(token) > fmt.max_len:
        return 0
    m = re.compile(fmt.body).match(token, at)
    if m is None:
        return 0
    end = m.end()
    if end < len(token) and token[end].isalnum():
        return 0  # the token goes on: it is longer than the format, so another word
    body = token[at:end]
    if len(set(body.lower())) <= 3 or "xxxx" in body.lower():
        return 0  # ghp_XXXXXXXX…: a placeholder in the provider's shape
    if (fmt.random or fmt.checksum) and not _checksum_ok(fmt, body) and not random_body(body):
        return 0
    return end


def _provider(cat: Catalogue, token: str) -> tuple[int, int, str] | None:
    """(start, end, kind) of a provider's token in `token`: at its start, or after `=`, `:`,
    `@`, `/` or `-` (`GITHUB_TOKEN=ghp_…`, `shared/draft-ghp_….md`)."""
    starts = [0]
    if any(c in token for c in "=:@/-"):
        starts += [i + 1 for i, c in enumerate(token) if c in "=:@/-"][:8]
    for at in starts:
        rest = len(token) - at
        if token[at : at + 1] in cat.first_chars:
            for k in cat.prefix_lengths:
                if k >= rest:
                    continue
                for fmt in cat.prefixed.get(token[at : at + k], ()):
                    end = _format_end(fmt, token, at + k)
                    if end:
                        return at, end, fmt.kind
        for fmt in cat.shapes:
            if fmt.needs in token and (not fmt.max_len or len(token) <= fmt.max_len):
                m = re.compile(fmt.body).match(token, at)
                if m is not None and (m.end() == len(token) or not token[m.end()].isalnum()):
                    return at, m.end(), fmt.kind
    return None


def _url(cat: Catalogue, token: str) -> tuple[int, int, str] | None:
    """A credential in a URL: a webhook URL, a password (or token) before `@`, a secret query
    parameter."""
    sep = token.find("://")
    start = sep
    while start > 0 and (token[start - 1].isalnum() or token[start - 1] in "+.-"):
        start -= 1
    for fmt in cat.urls:
        for prefix in fmt.prefixes:
            if token.startswith(prefix, start) and _format_end(fmt, token, start + len(prefix)):
                return start, len(token), fmt.kind
    rest = sep + 3
    end = len(token)
    for stop in "/?#":
        found = token.find(stop, rest)
        if found >= 0:
            end = min(end, found)
    at = token.rfind("@", rest, end)
    if at > rest:
        user, colon = rest, token.find(":", rest, at)
        if colon >= 0 and not placeholder(cat, token[colon + 1 : at]):
            return colon + 1, at, "password in a URL"
        if colon < 0 and (token_like(cat, token[user:at]) or _provider(cat, token[user:at])):
            return user, at, "token in a URL"
    query = token.find("?", rest)
    if query >= 0:
        head = query + 1
        for pair in token[head:].split("&"):
            key, eq, value = pair.partition("=")
            if eq and cat.password_name(key) is not None and assigned(cat, False, value):
                return head + len(key) + 1, head + len(pair), f"value of `{key}` in a URL"
            head += len(pair) + 1
    return None


def _tokens(cat: Catalogue, view: str) -> Iterator[Span]:
    """Provider formats and URLs, token by token."""
    for m in _LONG.finditer(view):
        start, end = strip_token(view, m.start(), m.end())
        token = view[start:end]
        plain = token.replace("-", "")
        if plain.isalpha() and (plain.islower() or plain[1:].islower()):
            continue  # a word ("configuration", "Well-known"): no token is only letters so
        found = _url(cat, token) if "://" in token else None
        if found is None:
            found = _provider(cat, token)
            rank = 0
        else:
            rank = 1
        if found is not None:
            yield Span(start + found[0], start + found[1], found[2], rank)


def _private_keys(view: str, lowered: str) -> Iterator[Span]:
    at = lowered.find("-----begin ")
    while at >= 0:
        line_end = lowered.find("\n", at, at + 200)
        line_end = min(len(lowered), at + 200) if line_end < 0 else line_end
        end = at
        if lowered.find("private key", at, min(line_end, at + 80)) >= 0:
            close = lowered.find("-----end ", line_end)
            if close >= 0:
                close_end = lowered.find("\n", close)
                end = len(lowered) if close_end < 0 else close_end
            else:
                end = line_end
            yield Span(at, end, "private key block", 0)
        at = lowered.find("-----begin ", max(end, at + 1))


def scan(text: str, catalogue: Catalogue | None = None) -> list[Span]:
    """Every secret in `text`, as spans of `text`, none overlapping (the more certain rule's
    kept), in order."""
    if len(text) < 6:
        return []
    cat = catalogue or builtin()
    view, origin = _view(text)
    lowered = view.lower()
    found = [
        *_private_keys(view, lowered),
        *_tokens(cat, view),
        *keys(cat, view),
        *commands(cat, view, lowered),
        *after_words(cat, view, lowered),
        *(tables(cat, view) if "|" in view else ()),
    ]
    kept: list[Span] = []
    for span in sorted(found, key=lambda s: (s.start, s.rank, -s.end)):
        if span.end <= span.start:
            continue
        if kept and span.start < kept[-1].end:
            if span.rank < kept[-1].rank:
                kept[-1] = span
            continue
        kept.append(span)
    if origin is None:
        return kept
    return [Span(origin[s.start], origin[s.end - 1] + 1, s.kind, s.rank) for s in kept]


def redact(secret: str) -> str:
    return f"{secret[:4]}…({len(secret)} chars)" if len(secret) > 8 else "…"


def find_secrets(text: str, catalogue: Catalogue | None = None) -> Iterator[SecretHit]:
    line, line_start = 1, 0
    for span in scan(text, catalogue):
        breaks = text.count("\n", line_start, span.start)
        if breaks:
            line += breaks
            line_start = text.rfind("\n", line_start, span.start) + 1
        first = text[span.start : span.end].split("\n", 1)[0]
        yield SecretHit(line, span.start - line_start + 1, span.kind, redact(first))


def redact_secrets(text: str) -> str:
    """`text` with every secret value found in it replaced by its redacted form: for file
    names, messages and logs that must name a thing without leaking it."""
    spans = scan(text)
    if not spans:
        return text
    parts: list[str] = []
    done = 0
    for span in spans:
        value = text[span.start : span.end]
        # A private key block spans lines: its line breaks stay, so every line after it keeps
        # its number in what is printed (`path:line:col` of the findings that follow).
        parts += (text[done : span.start], redact(value) + "\n" * value.count("\n"))
        done = span.end
    return "".join(parts) + text[done:]


def redact_each(data: Any) -> Any:
    """`data` (JSON-like: dicts, lists, strings) with every string redacted as
    `redact_secrets` does, each distinct string scanned once: an audit's report names the same
    few paths hundreds of times, and scanning its whole JSON text took longer than the pairs'
    judgement."""
    done: dict[str, str] = {}

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            if value not in done:
                done[value] = redact_secrets(value)
            return done[value]
        if isinstance(value, dict):
            return {walk(k): walk(v) for k, v in value.items()}  # a path may be a key
        if isinstance(value, list | tuple):
            return [walk(v) for v in value]
        return value

    return walk(data)


def secret_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets in `text` of every secret value `find_secrets` sees."""
    return [(s.start, s.end) for s in scan(text)]


def quote(
    text: str,
    start: int,
    end: int,
    limit: int = 40,
    spans: list[tuple[int, int]] | None = None,
) -> str:
    """`text[start:end]` as an explanation may quote it: stripped, cut to `limit` characters,
    every part of a secret value found in the whole `text` replaced by `…` first (a cut
    secret would no longer look like one, and would be printed). `spans`: the text's secret
    spans, when the caller quotes several places of one text (found once, not per quote)."""
    spans = secret_spans(text) if spans is None else spans
    inside = [(max(a, start), min(b, end)) for a, b in spans if a < end and b > start]
    piece = text[start:end]
    for a, b in sorted(inside, reverse=True):
        piece = piece[: a - start] + "…" + piece[b - start :]
    return piece.strip()[:limit]
