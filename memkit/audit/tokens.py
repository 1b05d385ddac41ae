"""Text as the pair reader takes it, cut into tokens (`memkit.audit.align` aligns them).

A code span, a URL, a path, a quantity with its unit, a version, a CLI option and a
`#channel` are one token each; a word is one token, inflection aside (an identifier is spelled
as written); a CJK character is one token; a sentence's end is one. Emphasis, the spelling of
small numbers ("ten" / 10, 五千 / 5000) and a link's markup (Markdown or HTML) are set aside:
a link is its text and its target.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from memkit.audit import lexicon as lx

_UNIT = (
    r"ms|msecs?|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|weeks?"
    r"|[kmgt]i?b|[kmgt]i|bytes?|%|px|rps|qps"
)
# A code span, as the tokenizer takes it and as emphasis is kept out of it.
_CODE_SPAN = r"`[^`\n]{1,300}`"
_TOKEN = re.compile(
    rf"(?P<code>{_CODE_SPAN})"
    r"|(?P<url>[a-z][a-z0-9+.-]{1,15}://[^\s`)<>\]\"'，。；：！？、（）]+)"
    # A package with its extras, as pip takes it: `.[dev]` and `.[all]` install other things.
    r"|(?P<extra>(?<![\w.])(?:\.|[a-z][\w-]*)\[[\w,.-]+\])"
    # A path starts where its run starts: tried inside a run of dots, it read to the run's end
    # from every dot (16 KB of them: 7 s).
    r"|(?P<path>(?<![\w@.*+~-])(?:~|\.{1,2})?/?[\w@.*+-]+(?:/[\w@.*+-]+)+/?|(?<![\w/])/[\w@.*+-]+/?"
    # A directory named alone: `ruff check src/ tests/`.
    r"|(?<![\w@.*+~/-])[\w@.*+-]+/(?=[\s`),;]|$))"
    r"|(?P<qty>\d+(?:\.\d+)?\s?(?:" + _UNIT + r")(?!\w))"
    r"|(?P<ver>v?\d+(?:\.\d+)+(?:[-+][\w.]+)?(?:\.x)?|v\d+\b)"
    r"|(?P<num>\d+(?:[.,:]\d+)?)"
    r"|(?P<flag>(?<![\w-])--?[a-z][\w-]*)"
    r"|(?P<channel>(?<![\w&])#[a-z][\w-]*)"
    # A shell comment's mark, aligned like a function word: the command and what the comment
    # says are two edits, not one ("-s # Short-term only" / "-l # Long-term only").
    r"|(?P<hash>(?<=\s)#(?=\s))"
    r"|(?P<word>[a-z][\w'’+#.:-]*[\w+#]|[a-z])"
    r"|(?P<cjk>[" + lx.CJK + "])"
    r"|(?P<end>[.!?;。！？；](?=\s|$)|\n)"
    r"|(?P<sep>[:：|](?=\s|$)|(?<=\s)[-–—](?=\s))"
    r"|(?P<comma>[,，、](?=\s|$)|[，、])",
    re.I,
)
_STOP = lx.word_set(
    "a an the is are was were be been being am to of in on at for by with and or as from into "
    "onto this that these those it its we our us you your they them their he she his her i my "
    "me every each all any some per also so than then there here which who whom whose what "
    "when where while if because since until unless will would shall should must can could may "
    "might do does did done have has had always please just even still now currently "
    "e.g i.e etc via about over such both either neither very really"
)
_NEGATORS = lx.word_set(
    "not no never don't doesn't didn't isn't aren't wasn't weren't won't can't cannot "
    "shouldn't mustn't wouldn't couldn't haven't hasn't without nor"
)
_NEGATORS_ZH = frozenset("不沒没別别勿無无禁非")
# Chinese function characters: frame glue, not content.
_GLUE_ZH = frozenset(
    "的了在是由和與与跟及把被將将給给會会要都也就之以為为每個个於于請请應应該该需須须已你您"
)
_UNITS_EN = (  # noqa: SIM905  (a word list reads better as text)
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
_TENS_EN = "twenty thirty forty fifty sixty seventy eighty ninety".split()  # noqa: SIM905
_NUMBER_WORDS = {w: n for n, w in enumerate(_UNITS_EN)} | {
    w: 20 + 10 * n for n, w in enumerate(_TENS_EN)
}
# "ten minutes", "thirty five seconds", "twenty-one days": a number written out.
_NUMBER_WORD = re.compile(
    r"\b(?:(" + "|".join(_TENS_EN) + r")(?:[\s-]+(" + "|".join(_UNITS_EN[1:10]) + r"))?"
    r"|(" + "|".join(_UNITS_EN) + r"))\b(?=\s+[a-z])",
    re.I,
)


def _number_word(m: re.Match[str]) -> str:
    words = [w.lower() for w in m.groups() if w]
    return str(sum(_NUMBER_WORDS[w] for w in words))


_ZH_DIGITS = {c: n for n, c in enumerate("零一二三四五六七八九")} | {"两": 2, "兩": 2}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000, "萬": 10000}
_ZH_NUMBER = re.compile(
    r"(?<![週周期拜第星])([零一二两兩三四五六七八九十百千万萬]{1,6})(?=\s*(?:点|點|分钟|分鐘|天|个|個|"
    r"次|小时|小時|秒|年|行|人|名|台|位|倍|条|條|批|副本|週|周))"
)


def _zh_number(text: str) -> str:
    """二十 → 20, 五千 → 5000, 十 → 10: a Chinese numeral as digits."""
    total, digit = 0, 0
    for c in text:
        if c in _ZH_DIGITS:
            digit = _ZH_DIGITS[c]
        elif c in {"万", "萬"}:
            total = (total + digit) * 10000
            digit = 0
        else:
            total += (digit or 1) * _ZH_UNITS[c]
            digit = 0
    return str(total + digit)


@dataclass(frozen=True)
class Token:
    text: str
    norm: str
    kind: str  # code url path qty ver num flag channel word stop neg cjk glue end sep comma


def _quantity(raw: str) -> str:
    """One value in any notation: 60 s, 60s, 60 seconds and 1 min are `t:60`."""
    m = re.match(r"(\d+(?:\.\d+)?)\s?(.*)", raw)
    if not m:
        return raw.lower()
    num, unit = float(m.group(1)), m.group(2).lower()
    seconds = {"ms": 0.001, "msec": 0.001, "msecs": 0.001, "s": 1, "sec": 1, "secs": 1}
    seconds |= {"m": 60, "min": 60, "mins": 60, "h": 3600, "hr": 3600, "hrs": 3600, "d": 86400}
    for long, factor in (("millisecond", 0.001), ("second", 1), ("minute", 60), ("hour", 3600)):
        seconds |= {long: factor, long + "s": factor}
    seconds |= {"day": 86400, "days": 86400, "week": 604800, "weeks": 604800}
    if unit in seconds:
        return f"t:{num * seconds[unit]:g}"
    if unit[:1] in "kmgt" and unit.rstrip("b").rstrip("i") in ("k", "m", "g", "t"):
        return f"b:{num * 1024 ** ('kmgt'.index(unit[0]) + 1):g}"
    return f"{num:g}{unit}"


def _stem(word: str) -> str:
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("es", "e"), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: -len(suffix)] + keep
    return word


_EMPHASIS = re.compile(r"\*\*|__|(?<![\w*])[*_](?=\w)|(?<=\w)[*_](?![\w*])|~~")
_LINK = re.compile(r"\[([^\]\n]{0,300})\]\(([^)\s]{0,500})\)")
# An HTML link reads as a Markdown one: its text, then its target.
_HTML_LINK = re.compile(
    r"<a\s[^>]{0,300}?href=[\"']([^\"'\s>]{1,500})[\"'][^>]{0,300}>([^<\n]{0,300})</a>", re.I
)


_SPELLED = re.compile(r"_|\w[.:]\w")
_CODE = re.compile(f"({_CODE_SPAN})")


def spelled(word: str) -> bool:
    """An identifier (`_`, or `.`/`:` between word characters): spelled as written, never
    inflected."""
    return _SPELLED.search(word) is not None


def _word(raw: str) -> Token | None:
    low = raw.lower().replace("’", "'").strip(".'")
    if not low:
        return None
    if low in _NEGATORS or low.endswith("n't"):
        return Token(raw, "not", "neg")
    if low in _STOP:
        return Token(raw, low, "stop")
    if spelled(low):
        # An identifier is spelled, not inflected: `STARLETTE_TEST_DATABASE` and
        # `…_DATABASES` are two variables, `test:type` and `test:types` two scripts.
        return Token(raw, low, "word")
    return Token(raw, _stem(low), "word")


@functools.lru_cache(maxsize=16384)
def tokens(text: str) -> tuple[Token, ...]:
    """The tokens of a text as a reader takes them: markup and the spelling of small
    numbers aside; a link is its text and its target (a moved page is a changed value)."""
    text = _LINK.sub(r"\1 \2", text)
    text = _HTML_LINK.sub(r"\2 \1", text)
    # Emphasis outside code only: `_build_middlewares()` keeps its underscore.
    text = "".join(
        part if part.startswith("`") else _EMPHASIS.sub("", part) for part in _CODE.split(text)
    )
    text = _NUMBER_WORD.sub(_number_word, text)
    text = _ZH_NUMBER.sub(lambda m: f" {_zh_number(m.group(1))} ", text)
    text = lx.cjk_spaced(text)
    out: list[Token] = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or "word"
        raw = m.group(0)
        if kind == "code":
            inner = " ".join(raw.strip("`").split()).lower()
            out.append(Token(raw, inner.rstrip("/") or inner, "code"))
        elif kind == "extra":
            out.append(Token(raw, raw.lower(), "code"))
        elif kind == "qty":
            out.append(Token(raw, _quantity(raw), "qty"))
        elif kind == "end":
            if out and out[-1].kind != "end":
                out.append(Token(raw, ".", "end"))
        elif kind == "cjk":
            if raw in _NEGATORS_ZH:
                out.append(Token(raw, raw, "neg"))
            else:
                out.append(Token(raw, raw, "glue" if raw in _GLUE_ZH else "cjk"))
        elif kind == "sep":
            out.append(Token(raw, ":", "sep"))
        elif kind == "comma":
            out.append(Token(raw, ",", "comma"))
        elif kind == "hash":
            out.append(Token(raw, "#", "stop"))
        elif kind == "word" or (kind == "path" and lx.ACRONYMS.fullmatch(raw)):
            for part in raw.rstrip(".,;:").split("/") if kind == "path" else (raw,):
                token = _word(part)
                if token is not None:
                    out.append(token)
        else:
            norm = raw.lower().rstrip("/.,;:!?")
            out.append(Token(raw, norm or raw.lower(), kind))
    return tuple(out)


CONTENT = frozenset(("code", "url", "path", "qty", "ver", "num", "flag", "channel", "word", "cjk"))
VALUE = frozenset(("code", "url", "path", "qty", "ver", "num", "flag", "channel"))


def content_of(toks: tuple[Token, ...] | list[Token]) -> list[Token]:
    return [t for t in toks if t.kind in CONTENT]


def joined(toks: list[Token] | tuple[Token, ...]) -> str:
    out = ""
    prev_cjk = False
    for t in toks:
        if t.kind in ("end", "sep", "comma"):
            continue
        cjk = not t.text.isascii()
        if out and not (cjk and prev_cjk):
            out += " "
        out += t.text
        prev_cjk = cjk
    return out


def sentence_at(toks: tuple[Token, ...], at: int) -> tuple[int, int]:
    """Where the sentence `toks[at]` stands in starts and ends."""
    start = at
    while start > 0 and toks[start - 1].kind != "end":
        start -= 1
    end = next((i for i in range(at, len(toks)) if toks[i].kind == "end"), len(toks))
    return start, end


def quoted_as(other: tuple[Token, ...], toks: tuple[Token, ...]) -> tuple[Token, ...]:
    """`toks` with each run of bare words that `other` quotes as one code span ("git submodule
    update" / "`git submodule update`") made that span: one command, however it is set."""
    spans = {t.norm for t in other if t.kind == "code" and " " in t.norm}
    if not spans:
        return toks
    out: list[Token] = []
    i = 0
    while i < len(toks):
        for span in spans:
            n = span.count(" ") + 1
            run = toks[i : i + n]
            if len(run) == n and " ".join(t.text.lower().strip(".,;:") for t in run) == span:
                out.append(Token(f"`{span}`", span, "code"))
                i += n
                break
        else:
            out.append(toks[i])
            i += 1
    return tuple(out)
