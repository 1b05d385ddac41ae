"""Secrets given to something that names them: the value of a key (`DB_PASS=…`, `password: …`,
`Authorization: Bearer …`), of a command's flag (`mysql -p…`, `curl -u user:…`), of a table
column headed by a secret's name, and a value a few words after a credential word in prose (on
the same line or the next). Each rule reads a bounded window once: linear in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memkit.safety.catalogue import Catalogue, Flag, name_parts
from memkit.safety.values import (
    ANY,
    NONBLANK,
    VALUE,
    Span,
    assigned,
    is_hex,
    password_like,
    strip_token,
    token_like,
    word_after,
)

_SCHEMES = frozenset(("bearer", "basic", "token", "digest", "bot", "apikey", "sso-key"))
_CONNECTIVE = frozenset(
    (
        *("is", "are", "was", "were", "be", "been", "set", "to", "for", "of", "the", "a", "an"),
        *("our", "its", "their", "this", "that", "here", "below", "now", "new", "current"),
        *("old", "same", "value", "use", "uses", "used", "using", "with", "in", "on", "at"),
        *("as", "=", ":", "-", "–", "—", "->", "=>", "and", "hex", "base64", "reads", "read"),
        *("stored", "kept"),
    )
)
_WINDOW = 160  # characters after a credential word in which its value is looked for
_WINDOW_WORDS = 7


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


def keys(cat: Catalogue, view: str) -> Iterator[Span]:
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
        start, end = word_after(view, at)
        value = view[start:end]
        if scheme and value.lower() in _SCHEMES:
            gap = start + len(value)
            while gap < len(view) and gap - end < 3 and view[gap] in " \t":
                gap += 1
            start, end = word_after(view, gap)
            value = view[start:end]
        examined = end
        head = re.match(r"(?:sha\d*|v\d|t=\d+,v\d)=", value)
        if head is not None:  # X-Hub-Signature-256: sha256=<hex>
            start += head.end()
            value = value[head.end() :]
        if "://" not in value and assigned(cat, bool(password), value):
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


def commands(cat: Catalogue, view: str, lowered: str) -> Iterator[Span]:
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
                word_end = VALUE.match(view, at)
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
    for m in NONBLANK.finditer(view, at, end):
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


def after_words(cat: Catalogue, view: str, lowered: str) -> Iterator[Span]:
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
    for n, m in enumerate(ANY.finditer(view, start, stop)):
        if n >= _WINDOW_WORDS or (kind == "key" and n > 0):
            break
        read = m.end()
        a, b = strip_token(view, m.start(), m.end())
        value = view[a:b]
        low = value.lower()
        gap = view[start : m.start()]
        if low in cat.labels or any(label in gap for label in _CJK_LABELS):
            return None, read
        if kind != "password" and is_hex(value) and 4 <= len(value) <= 16:
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


def tables(cat: Catalogue, view: str) -> Iterator[Span]:
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
                    if value and assigned(cat, columns[i], value):
                        yield Span(start, start + len(value), "value in a secret's column", 5)
                offset += len(cell) + 1
        head += len(line) + 1
