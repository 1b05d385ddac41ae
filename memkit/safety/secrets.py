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

Every rule reads one token, or a window of a few dozen characters after a word, at a time:
the check is linear in the length of the text (benchmarks/text_scaling_bench.py). A hit names
the kind and shows the secret only redacted (`memkit.admission.content` turns hits into
MK110/MK111 findings).
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from memkit.safety.catalogue import Catalogue, Flag, Format, builtin, name_parts

# `<private` and what follows up to its `>`: never across another `<` (one pass per text).
PRIVATE_TAG = re.compile(r"<private\b[^<>]*>", re.I)


@dataclass(frozen=True)
class SecretHit:
    line: int
    col: int
    kind: str
    redacted: str


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    kind: str
    rank: int  # which rule found it: the lower, the more certain


# Printable ASCII but the characters that end a token in text (quotes, brackets, `|` of a
# table, `,` and `;`); anything outside ASCII ends one too.
_TOKEN_CHARS = "".join(c for c in map(chr, range(0x21, 0x7F)) if c not in "\"'`()<>[]{}|,;")
_CLASS = "[" + re.escape(_TOKEN_CHARS) + "]"
# A token of 8 characters or more that is more than a word: after its letters (a capital,
# then small letters and hyphenated parts) comes something else than sentence punctuation. Each
# token is tried once, from its start (atomic and possessive: nothing is read twice).
_LONG = re.compile(
    f"(?<!{_CLASS})(?={_CLASS}{{8}})(?>[A-Z]?[a-z]*(?:-[a-z]+)*)"
    f"(?={_CLASS})(?![.:!?]*+(?!{_CLASS})){_CLASS}*+"
)
_ANY = re.compile(_CLASS + "+")
_NONBLANK = re.compile(r"\S+")
_VALUE = re.compile(_CLASS + "{1,1024}")  # a value is judged on its first 1,024 characters
_SCHEMES = frozenset(("bearer", "basic", "token", "digest", "bot", "apikey", "sso-key"))
_STRIP_LEFT = "*_~:=>"
_STRIP_RIGHT = ".,:!?*_~"
_CONNECTIVE = frozenset(
    (
        *("is", "are", "was", "were", "be", "been", "set", "to", "for", "of", "the", "a", "an"),
        *("our", "its", "their", "this", "that", "here", "below", "now", "new", "current"),
        *("old", "same", "value", "use", "uses", "used", "using", "with", "in", "on", "at"),
        *("as", "=", ":", "-", "–", "—", "->", "=>", "and", "hex", "base64", "reads", "read"),
        *("stored", "kept"),
    )
)
_VERSION = re.compile(r"v?\d+(?:[.\-]\d+)*[a-z]?", re.I)
_HEX = frozenset("0123456789abcdefABCDEF")
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
_WINDOW = 160  # characters after a credential word in which its value is looked for
_WINDOW_WORDS = 7


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


def _entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for c in value:
        counts[c] = counts.get(c, 0) + 1
    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in counts.values())


def _is_hex(value: str) -> bool:
    return bool(value) and all(c in _HEX for c in value)


def placeholder(cat: Catalogue, value: str) -> bool:
    """Stands for a secret: `${DB_PASSWORD}`, `<your-token>`, `changeme`, `xxxx`, `$TOKEN`."""
    low = value.lower().strip("\"'`")
    return (
        not low
        or value.startswith(cat.public)
        or low in cat.placeholder_exact
        or any(p in low for p in cat.placeholder_contains)
        or low[0] in "$%&!"
        or len(set(low)) <= 2
    )


def looks_random(value: str) -> bool:
    """Drawn at random: digits and letters, both cases in a proportion words and CamelCase
    names do not have (or lower case and digits well mixed), a high entropy."""
    if len(value) < 16 or not all(c.isalnum() or c in "+/_-.~=" for c in value):
        return False
    letters = [c for c in value if c.isalpha()]
    digits = sum(c.isdigit() for c in value)
    if not letters or not digits:
        return False
    upper = sum(c.isupper() for c in letters) / len(letters)
    if 0.2 <= upper <= 0.85:
        return _entropy(value) >= 3.5
    plain = value.isalnum() and len(value) >= 24 and 0.2 <= digits / len(value) <= 0.8
    return plain and _entropy(value) >= 4.0


def _random_body(body: str) -> bool:
    """The body of a token with a common prefix looks drawn at random (some providers draw
    letters only: Hugging Face)."""
    letters = [c for c in body if c.isalpha()]
    if len(body) < 16 or not letters:
        return False
    upper = sum(c.isupper() for c in letters) / len(letters)
    mixed = 0.2 <= upper <= 0.85 or any(c.isdigit() for c in body)
    return mixed and _entropy(body) >= 3.5


def token_like(cat: Catalogue, value: str) -> bool:
    """A secret token by its look alone: random, or a long hex string (split by hyphens too:
    a UUID after "API key" is a key)."""
    value = value.rstrip("=")
    if len(value) < 16 or placeholder(cat, value):
        return False
    hexa = value.replace("-", "")
    if _is_hex(hexa):
        return len(hexa) >= 32 and len(set(hexa.lower())) >= 8
    return looks_random(value)


def password_like(cat: Catalogue, value: str, least: int = 7) -> bool:
    """A password given in text: letters with digits or signs, not a placeholder, a version, a
    path, a host or a file name, nothing but ASCII."""
    if not least <= len(value) <= 128 or not value.isascii() or not value.isprintable():
        return False
    if " " in value or "/" in value or "." in value.strip(".") or value.endswith(":"):
        return False
    if placeholder(cat, value) or _VERSION.fullmatch(value) or not any(map(str.isalpha, value)):
        return False
    return any(c.isdigit() for c in value) or any(c in "!@#$%^&*+=?~" for c in value)


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
    if (fmt.random or fmt.checksum) and not _checksum_ok(fmt, body) and not _random_body(body):
        return 0
    return end


def _provider(cat: Catalogue, token: str) -> tuple[int, int, str] | None:
    """(start, end, kind) of a provider's token in `token`: at its start, or after `=`, `:` or
    `@` (`GITHUB_TOKEN=ghp_…`)."""
    starts = [0]
    if "=" in token or ":" in token or "@" in token or "/" in token:
        starts += [i + 1 for i, c in enumerate(token) if c in "=:@/"][:8]
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
            if eq and cat.password_name(key) is not None and _assigned(cat, False, value):
                return head + len(key) + 1, head + len(pair), f"value of `{key}` in a URL"
            head += len(pair) + 1
    return None


def _assigned(cat: Catalogue, password: bool, value: str) -> bool:
    """A value given to a key that names a secret (`password` for a password)."""
    if password:
        return password_like(cat, value, 3) or token_like(cat, value)
    return token_like(cat, value) or password_like(cat, value, 8)


def _strip(view: str, start: int, end: int) -> tuple[int, int]:
    while start < end and view[start] in _STRIP_LEFT:
        start += 1
    while end > start and view[end - 1] in _STRIP_RIGHT:
        end -= 1
    return start, end


def _tokens(cat: Catalogue, view: str) -> Iterator[Span]:
    """Provider formats and URLs, token by token."""
    for m in _LONG.finditer(view):
        start, end = _strip(view, m.start(), m.end())
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


def _word_after(view: str, at: int) -> tuple[int, int]:
    m = _VALUE.match(view, at)
    return (at, at) if m is None else _strip(view, m.start(), m.end())


def _key_before(view: str, at: int) -> tuple[int, int] | None:
    """The key a `:` or `=` at `view[at]` assigns to: `DB_PASS` of `DB_PASS=`, `password` of
    `"password": `, from the start of a word (at most 64 characters back)."""
    end = at
    while end > 0 and at - end < 3 and view[end - 1] in " \t":
        end -= 1
    if end > 0 and view[end - 1] in "\"'":
        end -= 1
    start = end
    while (
        start > 0
        and end - start < 64
        and (view[start - 1].isalnum() or view[start - 1] in _KEY_CHARS)
    ):
        start -= 1
    while start < end and not (view[start].isalpha() or view[start] in "_$@"):
        start += 1
    if start == end or (
        start > 0 and (view[start - 1].isalnum() or view[start - 1] in _KEY_BEFORE)
    ):
        return None
    return start, end


_KEY_CHARS = "_.$@-"
_KEY_BEFORE = "_.$@/{-"
_ASSIGN = re.compile(r"=>|:=|[=:]")


def _keys(cat: Catalogue, view: str) -> Iterator[Span]:
    """Values of keys that name a secret: `DB_PASS=…`, `password: …`, `Authorization: Bearer …`."""
    examined = 0  # a key inside the value just judged is part of that value (`a=b=c`)
    for m in _ASSIGN.finditer(view):
        if m.start() < examined:
            continue
        found = _key_before(view, m.start())
        if found is None:
            continue
        key = view[found[0] : found[1]]
        password = cat.password_name(key)
        parts = name_parts(key)
        scheme = bool(parts) and parts[-1] in ("authorization", "auth")
        if password is None and not scheme:
            continue
        at = m.end()
        while at < len(view) and at - m.end() < 3 and view[at] in " \t":
            at += 1
        if at < len(view) and view[at] in "\"'`":
            at += 1
        start, end = _word_after(view, at)
        value = view[start:end]
        if scheme and value.lower() in _SCHEMES:
            gap = start + len(value)
            while gap < len(view) and gap - end < 3 and view[gap] in " \t":
                gap += 1
            start, end = _word_after(view, gap)
            value = view[start:end]
        examined = end
        head = re.match(r"(?:sha\d*|v\d|t=\d+,v\d)=", value)
        if head is not None:  # X-Hub-Signature-256: sha256=<hex>
            start += head.end()
            value = value[head.end() :]
        if "://" not in value and _assigned(cat, bool(password), value):
            yield Span(start, end, f"value of `{key[:40]}`", 2)


def _flag_value(view: str, word_end: int, flag: str, word: str) -> tuple[int, int]:
    """Where the value of `flag` is, the flag being `word` (ending at `word_end`)."""
    if word.startswith(flag + "="):
        return word_end - len(word) + len(flag) + 1, word_end
    if word == flag:
        at = word_end
        while at < len(view) and view[at] in " \t":
            at += 1
        m = re.match(r"[^\s\"'`]+", view[at:])
        if m is not None:
            quote = at > 0 and view[at - 1] in "\"'"
            return at, at + m.end() - (
                1 if quote and view[at + m.end() - 1 : at + m.end()] in "\"'" else 0
            )
    return word_end, word_end


def _commands(cat: Catalogue, view: str, lowered: str) -> Iterator[Span]:
    """Secrets given to a command's flags: `mysql -p…`, `curl -u user:…`, `--password …`."""
    for program, flags in cat.commands.items():
        if program == "*":
            continue
        at = lowered.find(program)
        while at >= 0:
            before = view[at - 1] if at else " "
            after = view[at + len(program) : at + len(program) + 1]
            end = at + len(program)
            if before in " \t\n`'\"(;&|$/" and after in (" ", "\t"):
                end = _segment_end(view, end)
                yield from _segment(cat, view, at + len(program), end, flags)
            at = lowered.find(program, end)
    for flag in cat.commands.get("*", ()):
        at = lowered.find(flag.flag)
        while at >= 0:
            end = at + len(flag.flag)
            if (at == 0 or view[at - 1] in " \t\"'`") and view[end : end + 1] in ("=", " ", "\t"):
                word_end = _VALUE.match(view, at)
                stop = word_end.end() if word_end else end
                start, stop = _flag_value(view, stop, flag.flag, view[at:stop])
                value = view[start:stop].strip("\"'")
                if stop > start and password_like(cat, value, 3):
                    yield Span(start, stop, f"value of `{flag.flag}`", 3)
            at = lowered.find(flag.flag, end)


def _segment_end(view: str, at: int) -> int:
    """The end of a command's arguments: its line's, or the command's (`&&`, `|`, `;`)."""
    end = min(len(view), at + 300)
    for stop in ("\n", "&&", "||", ";", "|"):
        found = view.find(stop, at, end)
        if found >= 0:
            end = found
    return end


def _segment(
    cat: Catalogue, view: str, at: int, end: int, flags: tuple[Flag, ...]
) -> Iterator[Span]:
    """The flags of one command, `view[at:end]`: secrets given to them."""
    seen: set[str] = set()
    for m in _NONBLANK.finditer(view, at, end):
        word = m.group(0).strip("\"'`")
        word_end = m.end()
        for flag in flags:
            name, attached = flag.flag, flag.attached
            if flag.after and flag.after not in seen:
                continue
            if (
                attached
                and word.startswith(name)
                and len(word) > len(name)
                and not word.startswith("--")
            ):
                start, stop = word_end - len(word) + len(name), word_end
            elif word == name or word.startswith(name + "="):
                start, stop = _flag_value(view, word_end, name, word)
            else:
                continue
            value = view[start:stop].strip("\"'")
            if flag.pair:
                user, colon, secret = value.partition(":")
                if not colon:
                    continue
                start, value = start + len(user) + 1, secret
            if stop > start and password_like(cat, value, 3):
                yield Span(start, stop, f"value of `{name}`", 3)
        seen.add(word)


def _window_end(view: str, start: int) -> int:
    """The end of the window after a credential word: a few dozen characters, the rest of its
    line and the next (a bullet wrapped before its value), never past a blank line."""
    end = min(len(view), start + _WINDOW)
    first = view.find("\n", start, end)
    if first >= 0:
        second = view.find("\n", first + 1, end)
        if second >= 0:
            end = second
        if not view[first + 1 : end].strip():
            end = first
    return end


def _after_words(cat: Catalogue, view: str, lowered: str) -> Iterator[Span]:
    """Values a few words after a credential word in prose."""
    kinds = (("password", cat.password_words), ("token", cat.token_words), ("key", ("key",)))
    for kind, words in kinds:
        places = []
        for word in words:
            ascii_word = word.isascii()
            at = lowered.find(word)
            while at >= 0:
                end = at + len(word)
                if not ascii_word or (
                    (at == 0 or not _word_char(lowered[at - 1]))
                    and (end == len(lowered) or not _word_char(lowered[end]))
                ):
                    places.append(end)
                at = lowered.find(word, end)
        examined = 0  # a word inside the last window of its kind was read with that window
        for end in sorted(places):
            if end < examined:
                continue
            found, examined = _value_after(cat, view, end, kind)
            if found is not None:
                yield found


def _word_char(c: str) -> bool:
    return c.isalnum() or c == "_"


def _value_after(cat: Catalogue, view: str, start: int, kind: str) -> tuple[Span | None, int]:
    """The secret a few words after a credential word ending at `start`, and how far the
    words were read."""
    stop = _window_end(view, start)
    group: list[tuple[int, int]] = []
    read = start
    for n, m in enumerate(_ANY.finditer(view, start, stop)):
        if n >= _WINDOW_WORDS or (kind == "key" and n > 0):
            break
        read = m.end()
        a, b = _strip(view, m.start(), m.end())
        value = view[a:b]
        low = value.lower()
        gap = view[start : m.start()]
        if low in cat.labels or any(label in gap for label in _CJK_LABELS):
            return None, read
        if kind != "password" and _is_hex(value) and 4 <= len(value) <= 16:
            group.append((a, b))
            if sum(y - x for x, y in group) >= 32:
                return Span(group[0][0], b, "hex key after a secret word", 4), read
            continue
        group = []
        if kind == "password" and password_like(cat, value):
            return Span(a, b, "password after the word password", 4), read
        if kind != "password" and token_like(cat, value):
            return Span(a, b, "token after a secret word", 4), read
        if low not in _CONNECTIVE and kind == "key":
            return None, read
        if m.group(0).endswith((".", "。")) and not value.endswith("."):
            return None, read  # the sentence ended
    return None, read


_CJK_LABELS = ("提交", "雜湊", "哈希", "校驗", "版本")


def _tables(cat: Catalogue, view: str) -> Iterator[Span]:
    """Cells of a Markdown table's column headed by a name of a secret (`| password |`)."""
    columns: dict[int, bool] = {}
    head = 0
    for line in view.split("\n"):
        stripped = line.strip()
        if not stripped.startswith("|"):
            columns = {}
            head += len(line) + 1
            continue
        cells = stripped.strip("|").split("|")
        if set(stripped) <= set("|-: "):
            pass
        elif not columns:
            columns = {
                i: bool(kind)
                for i, cell in enumerate(cells)
                if (kind := cat.password_name(cell.strip())) is not None
                or cell.strip().lower() in cat.password_words
                or cell.strip().lower() in cat.token_words
            }
            if not columns:
                columns = {-1: False}
        else:
            offset = head + line.find("|") + 1
            for i, cell in enumerate(cells):
                if i in columns:
                    value = cell.strip()
                    start = offset + cell.find(value) if value else offset
                    if value and _assigned(cat, columns[i], value):
                        yield Span(start, start + len(value), "value in a secret's column", 5)
                offset += len(cell) + 1
        head += len(line) + 1


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
        *_keys(cat, view),
        *_commands(cat, view, lowered),
        *_after_words(cat, view, lowered),
        *(_tables(cat, view) if "|" in view else ()),
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
        parts += (text[done : span.start], redact(text[span.start : span.end]))
        done = span.end
    return "".join(parts) + text[done:]


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
