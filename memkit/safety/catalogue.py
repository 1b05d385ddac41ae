"""What the secret check knows, as data: `secret_formats.json` beside this module, extended by a
team's `memkit.yaml`.

- `formats`: provider token formats (a literal prefix and the body after it, or a shape with no
  prefix), with the checksum where the provider publishes one;
- `urls`: webhook URLs that are credentials in themselves;
- `names`: what a key (an environment variable, a YAML or JSON key, a header, a table column)
  ends with when its value is a secret;
- `keywords`: words in prose after which a value of the right look is a secret;
- `labels`: words that say the value after a keyword is something else (a commit, a checksum);
- `commands`: programs whose flags take a secret (`mysql -p…`, `curl -u user:pass`);
- `public`: values that are public by design (publishable keys, public SSH keys);
- `placeholders`: values that stand for a secret.

A team adds to it in memkit.yaml, reviewed like the rest of the file:

    secrets:
      formats:
        - {name: "Acme deploy token", prefix: "acme_", body: "[a-z0-9]{32}"}
      keywords: [passcode]
      names: [pin]

Patterns are matched whole against one token (`re.fullmatch`), never searched through a text,
so each costs one pass over a token; a team's own patterns are tried on tokens of at most
`USER_TOKEN_MAX` characters.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATA = Path(__file__).with_name("secret_formats.json")
USER_TOKEN_MAX = 512


class CatalogueError(ValueError):
    """A team's `secrets:` in memkit.yaml that cannot be read (the caller says where)."""


@dataclass(frozen=True)
class Format:
    provider: str
    name: str
    body: str  # the pattern the rest of a token matches after a prefix (or the whole: a shape)
    prefixes: tuple[str, ...] = ()
    needs: str = ""  # a shape is tried only on tokens holding this
    checksum: str = ""
    random: bool = False  # the body must also look drawn at random (a short, common prefix)
    max_len: int = 0  # 0: any length

    @property
    def kind(self) -> str:
        return f"{self.provider} {self.name}".strip()


@dataclass(frozen=True)
class Flag:
    flag: str
    attached: bool = False  # -pSECRET
    pair: bool = False  # user:password
    after: str = ""  # counts only after this word (docker login -p)


@dataclass(frozen=True)
class Catalogue:
    prefixed: Mapping[str, tuple[Format, ...]]
    prefix_lengths: tuple[int, ...]
    first_chars: frozenset[str]
    shapes: tuple[Format, ...]
    urls: tuple[Format, ...]
    name_last: tuple[str, ...]
    key_after: frozenset[str]
    two_last: frozenset[tuple[str, ...]]
    password_words: tuple[str, ...]
    token_words: tuple[str, ...]
    labels: frozenset[str]
    commands: Mapping[str, tuple[Flag, ...]]
    placeholder_exact: frozenset[str]
    placeholder_contains: tuple[str, ...]
    public: tuple[str, ...] = ()
    providers: frozenset[str] = field(default_factory=frozenset)

    def password_name(self, key: str) -> bool | None:
        """Whether `key` names a secret: True for a password, False for another secret, None
        for no secret."""
        parts = name_parts(key)
        if not parts:
            return None
        last = parts[-1]
        if tuple(parts[-3:]) in self.two_last or tuple(parts[-2:]) in self.two_last:
            return False
        if last == "key":
            return False if len(parts) == 1 or parts[-2] in self.key_after else None
        for word in self.name_last:
            if last.endswith(word) and (len(word) >= 3 or last == word):
                return word in _PASSWORDS
        return None


_PASSWORDS = frozenset(
    (
        "pass",
        "password",
        "passwd",
        "pwd",
        "passphrase",
        "passcode",
        "密码",
        "密碼",
        "口令",
        "パスワード",
    )
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_PARTS = re.compile(r"[_\-./:@$\s]+")


def name_parts(key: str) -> list[str]:
    """`DB_PASSWORD` -> [db, password]; `clientSecret` -> [client, secret]; numbers dropped
    (`X-Hub-Signature-256` -> [x, hub, signature])."""
    spaced = _CAMEL.sub("_", key.strip("\"'`"))
    return [p for p in _PARTS.split(spaced.lower()) if p and not p.isdigit()]


def _formats(raw: Iterable[Mapping[str, Any]], where: str) -> list[Format]:
    out = []
    for n, item in enumerate(raw):
        if not isinstance(item, Mapping):
            raise CatalogueError(f"{where}[{n}]: a format is a mapping (name, prefix, body)")
        prefixes = item.get("prefix") or ()
        if isinstance(prefixes, str):
            prefixes = (prefixes,)
        body = str(item.get("body") or item.get("shape") or "")
        try:
            re.compile(body)
        except re.error as exc:
            raise CatalogueError(f"{where}[{n}]: the pattern does not compile: {exc}") from exc
        if not body or (not prefixes and not item.get("needs")):
            raise CatalogueError(
                f"{where}[{n}]: a format needs a `prefix` and a `body`, or a `shape` and the "
                "literal text it always `needs`"
            )
        out.append(
            Format(
                provider=str(item.get("provider") or "team"),
                name=str(item.get("name", "secret")),
                body=body,
                prefixes=tuple(str(p) for p in prefixes),
                needs=str(item.get("needs") or ""),
                checksum=str(item.get("checksum") or ""),
                random=bool(item.get("random")),
                max_len=int(item.get("max_len") or 0),
            )
        )
    return out


def _words(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value] if isinstance(value, Sequence) else []


def build(data: Mapping[str, Any], extra: Mapping[str, Any] | None = None) -> Catalogue:
    """The catalogue of `data` (the JSON's layout) with a team's `extra` (memkit.yaml's
    `secrets:`) added."""
    extra = extra or {}
    formats = _formats(data["formats"], "secret_formats.json formats")
    user = _formats(extra.get("formats") or (), "memkit.yaml secrets.formats")
    formats += [Format(**{**f.__dict__, "max_len": USER_TOKEN_MAX}) for f in user]
    prefixed: dict[str, list[Format]] = {}
    for fmt in formats:
        for prefix in fmt.prefixes:
            prefixed.setdefault(prefix, []).append(fmt)
    names = data["names"]
    keywords = data["keywords"]
    extra_keywords = extra.get("keywords") or ()
    password_extra: list[str] = []
    token_extra: list[str] = []
    if isinstance(extra_keywords, Mapping):
        password_extra = _words(extra_keywords.get("password"))
        token_extra = _words(extra_keywords.get("token"))
    else:
        token_extra = _words(extra_keywords)
    commands: dict[str, tuple[Flag, ...]] = {}
    for program, flags in data["commands"].items():
        if program != "about":
            commands[program] = tuple(Flag(**flag) for flag in flags)
    return Catalogue(
        prefixed={k: tuple(v) for k, v in prefixed.items()},
        prefix_lengths=tuple(sorted({len(p) for p in prefixed}, reverse=True)),
        first_chars=frozenset(p[0] for p in prefixed),
        shapes=tuple(f for f in formats if not f.prefixes),
        urls=tuple(_formats(data["urls"], "secret_formats.json urls")),
        name_last=tuple(
            sorted(
                {*names["last"], *(w.lower() for w in _words(extra.get("names")))},
                key=len,
                reverse=True,
            )
        ),
        key_after=frozenset(names["key_after"]),
        two_last=frozenset(tuple(t) for t in names["two_last"]),
        password_words=tuple(w.lower() for w in [*keywords["password"], *password_extra]),
        token_words=tuple(w.lower() for w in [*keywords["token"], *token_extra]),
        labels=frozenset(data["labels"]["words"]),
        commands=commands,
        placeholder_exact=frozenset(data["placeholders"]["exact"]),
        placeholder_contains=tuple(data["placeholders"]["contains"]),
        public=tuple(data["public"]["prefix"]),
        providers=frozenset(f.provider for f in formats),
    )


@functools.cache
def _data() -> Mapping[str, Any]:
    loaded: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    return loaded


@functools.cache
def builtin() -> Catalogue:
    """The catalogue memkit ships (read once a process)."""
    return build(_data())


@functools.cache
def _extended(key: str) -> Catalogue:
    return build(_data(), json.loads(key))


def for_section(section: Mapping[str, Any]) -> Catalogue:
    """The catalogue with a team's `secrets:` section of memkit.yaml added."""
    if not section:
        return builtin()
    if not isinstance(section, Mapping):
        raise CatalogueError("memkit.yaml: `secrets` must be a mapping (formats, keywords, names)")
    return _extended(json.dumps(dict(section), sort_keys=True, default=str))
