"""The look of a value in text, for the secret check (`memkit.safety.secrets`) and its rules for
values given to keys, flags and columns (`memkit.safety.given`): a token's characters, a
placeholder, something drawn at random, a password, a long hex string. Each reads one value once.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from memkit.safety.catalogue import Catalogue


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    kind: str
    rank: int  # which rule found it: the lower, the more certain


# Printable ASCII but the characters that end a token in text (quotes, brackets, `|` of a
# table, `,` and `;`); anything outside ASCII ends one too.
_TOKEN_CHARS = "".join(c for c in map(chr, range(0x21, 0x7F)) if c not in "\"'`()<>[]{}|,;")
TOKEN_CLASS = "[" + re.escape(_TOKEN_CHARS) + "]"
ANY = re.compile(TOKEN_CLASS + "+")
NONBLANK = re.compile(r"\S+")
VALUE = re.compile(TOKEN_CLASS + "{1,1024}")  # a value is judged on its first 1,024 characters

_STRIP_LEFT = "*_~:=>"
_STRIP_RIGHT = ".,:!?*_~"
_VERSION = re.compile(r"v?\d+(?:[.\-]\d+)*[a-z]?", re.I)
_HEX = frozenset("0123456789abcdefABCDEF")


def entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for c in value:
        counts[c] = counts.get(c, 0) + 1
    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in counts.values())


def is_hex(value: str) -> bool:
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
        return entropy(value) >= 3.5
    plain = value.isalnum() and len(value) >= 24 and 0.2 <= digits / len(value) <= 0.8
    return plain and entropy(value) >= 4.0


def random_body(body: str) -> bool:
    """The body of a token with a common prefix looks drawn at random (some providers draw
    letters only: Hugging Face)."""
    letters = [c for c in body if c.isalpha()]
    if len(body) < 16 or not letters:
        return False
    upper = sum(c.isupper() for c in letters) / len(letters)
    mixed = 0.2 <= upper <= 0.85 or any(c.isdigit() for c in body)
    return mixed and entropy(body) >= 3.5


def token_like(cat: Catalogue, value: str) -> bool:
    """A secret token by its look alone: random, or a long hex string (split by hyphens too:
    a UUID after "API key" is a key)."""
    value = value.rstrip("=")
    if len(value) < 16 or placeholder(cat, value):
        return False
    hexa = value.replace("-", "")
    if is_hex(hexa):
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


def assigned(cat: Catalogue, password: bool, value: str) -> bool:
    """A value given to a key that names a secret (`password` for a password)."""
    if password:
        return password_like(cat, value, 3) or token_like(cat, value)
    return token_like(cat, value) or password_like(cat, value, 8)


def strip_token(view: str, start: int, end: int) -> tuple[int, int]:
    while start < end and view[start] in _STRIP_LEFT:
        start += 1
    while end > start and view[end - 1] in _STRIP_RIGHT:
        end -= 1
    return start, end


def word_after(view: str, at: int) -> tuple[int, int]:
    m = VALUE.match(view, at)
    return (at, at) if m is None else strip_token(view, m.start(), m.end())
