"""A near-identical pair read as a reviewer reads a diff: align, then see what was substituted.

Most pairs a team writes are the same line twice with one thing changed: `make lint` became
`make check`, flake8 became ruff, a default went from `on` to `off`, 60 s to 45 s, or the
same line was written for another service. A static embedding puts all of them at a cosine
of 0.92-0.99, where cosine alone calls them duplicates. Read as a diff they are plain:

- both texts are cut into tokens (a code span, a URL, a path, a quantity with its unit, a
  version, a CLI option and a `#channel` are one token each; words; CJK characters;
  sentence ends) and aligned; the shared frame is what the alignment keeps;
- a **substitution of content is never the same statement**. Where it stands says what it
  is: the head of a declarative sentence ("The auth service listens …") or the object of an
  instruction whose verb acts on it ("Deploy payments with …", "Backfill the orders table
  …") is the line's **subject**: another thing, another claim; one name substituted in
  several places is one too. Elsewhere a value token (a code span, a number, a path, a
  tool, a name), a switch (`on`/`off`) or a plain word is a **value** of its slot: an
  update. A verb substituted is another relation;
- a negation inserted or removed denies the statement;
- differences in function words, emphasis, the notation of a number ("60 s" / "60
  seconds", "ten" / "10"), inflection, an abbreviation ("repo" / "repository") or a manner
  adverb ("by hand" / "manually") are wording.

A pair is near-identical when its alignment keeps at least `NEAR` of the longer text's
content tokens and at most `MAX_EDITS` content edits remain; other pairs are left to the
other readers of `memkit.audit.classify`. docs/audit.md says what this reads and what not.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from memkit.audit import lexicon as lx
from memkit.audit import wording
from memkit.audit.claims import is_identifier

NEAR = 0.5  # of the longer text's content tokens kept by the alignment
MAX_EDITS = 3
# Longer texts are records, not lines: aligning them costs more and says less.
MAX_TOKENS = 600
MAX_CHARS = 8_000

_UNIT = (
    r"ms|msecs?|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|weeks?"
    r"|[kmgt]i?b|[kmgt]i|bytes?|%|px|rps|qps"
)
_TOKEN = re.compile(
    r"(?P<code>`[^`\n]{1,300}`)"
    r"|(?P<url>[a-z][a-z0-9+.-]{1,15}://[^\s`)<>\]\"'，。；：！？、（）]+)"
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
    r"|(?P<cjk>[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff])"
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
# Two values of one switch: substituted, they flip a setting.
_FLIP = {
    frozenset(p.split("/"))
    for p in (  # noqa: SIM905  (a word list reads better as text)
        "on/off true/false yes/no enabled/disabled enable/disable allow/deny allowed/denied "
        "public/private required/optional sync/async synchronous/asynchronous before/after "
        "opt-in/opt-out include/exclude included/excluded 開啟/關閉 开启/关闭 啟用/停用 "
        "启用/停用 允許/禁止 允许/禁止"
    ).split()
}
# Verbs an instruction starts with (many more do: any sentence without a subject of its own).
_PREDICATE = lx.word_set(
    "is are was were be has have had will would shall should must can could may might does do "
    "did needs need uses lives live runs listens listen requires require expects expect "
    "defaults takes goes sits stays belongs belong supports contains holds points reads writes "
    "sends gets stores loads returns calls depends means sets targets lands land"
)
_PREDICATE_ZH = (
    "是", "為", "为", "用", "使用", "在", "要", "必須", "必须", "應", "应", "需要", "預設",
    "默认", "默認", "由", "從", "从", "於", "于", "每",
)  # fmt: skip
_DETERMINERS = lx.word_set("the a an our this each every all its their your my that these those")
# Verbs an instruction starts with: the sentence has no subject of its own.
_IMPERATIVE = lx.word_set(
    "add adopt align always append apply approve archive ask assign avoid back backfill "
    "bump build cache call change check choose clean clear close commit compile configure "
    "copy create declare define delete deploy describe disable do document don't drop "
    "edit employ enable ensure enter execute export fetch fill fix follow format generate "
    "handle import include index install invoke keep label limit lint list log make mark "
    "merge migrate mock move name never notify open pack package pass pause pick pin place "
    "post prefer prepend preserve promote publish pull purge push put raise read rebase "
    "record refactor refer reinstall release reload remove rename render replace report "
    "request require reset restart restore restrict return reuse review roll rotate run "
    "scale seed send set ship sign skip sort specify squash start stop store stub submit "
    "switch sync tag target tell test transfer treat trigger try type update upgrade use "
    "utilize validate vendor verify wait wrap write join see visit click contact feel take "
    "look consider let go get give keep leave mention note open find search share develop"
)
# Verbs whose object is the means, a value ("Run `make lint`", "Use ruff", "Prefer `uv`"):
# after any other verb the object is what the instruction acts on ("Deploy payments").
_MEANS_VERBS = lx.word_set(
    "run use execute invoke call apply employ prefer avoid choose pick adopt install pin "
    "utilize utilise do perform type enter try"
)
# Verbs that say "do it" in other words: "Run `ruff`" and "Use `ruff`" give one instruction.
_DOING = lx.word_set("run use execute invoke call apply employ utilize utilise do perform")
# Words that end an instruction's object and begin a slot with a value.
_SLOT = lx.word_set(
    "with using via through in on at to into from for against by before after as when if "
    "unless until so because over under instead rather than"
)
# Manner and time adverbs: "rerun it by hand" / "… manually", "announce it first" / "…
# beforehand" say one thing.
_ADVERBS = lx.word_set(
    "first beforehand afterwards afterward later then again manually hand always usually "
    "normally typically generally also too"
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


def _word(raw: str) -> Token | None:
    low = raw.lower().replace("’", "'").strip(".'")
    if not low:
        return None
    if low in _NEGATORS or low.endswith("n't"):
        return Token(raw, "not", "neg")
    if low in _STOP:
        return Token(raw, low, "stop")
    if "_" in low:
        # An identifier is spelled, not inflected: `STARLETTE_TEST_DATABASE` and
        # `STARLETTE_TEST_DATABASES` are two variables.
        return Token(raw, low, "word")
    return Token(raw, _stem(low), "word")


@functools.lru_cache(maxsize=16384)
def tokens(text: str) -> tuple[Token, ...]:
    """The tokens of a text as a reader takes them: markup and the spelling of small
    numbers aside; a link is its text and its target (a moved page is a changed value)."""
    text = _LINK.sub(r"\1 \2", text)
    text = _HTML_LINK.sub(r"\2 \1", text)
    text = _EMPHASIS.sub("", text)
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


_CONTENT = frozenset(("code", "url", "path", "qty", "ver", "num", "flag", "channel", "word", "cjk"))
_VALUE = frozenset(("code", "url", "path", "qty", "ver", "num", "flag", "channel"))


def _content(toks: tuple[Token, ...] | list[Token]) -> list[Token]:
    return [t for t in toks if t.kind in _CONTENT]


@dataclass(frozen=True)
class Edit:
    """One difference between the texts: what `a` says there, what `b` says, and how a
    reviewer reads it."""

    old: str
    new: str
    # value (a value of its slot), word (a plain word in a slot), verb (another relation),
    # subject (another thing), flip (a negation added or removed), denial (a negation inside
    # a changed span), added, dropped
    kind: str
    frame: str = ""  # the words around it in `a`, for the reason
    # For a subject: what says so (head, condition, object, command, label, slot, names,
    # chinese); the strong cues outweigh a contradiction rule's reading.
    why: str = ""


@dataclass(frozen=True)
class Reading:
    """A near-identical pair: each edit, and how much of the text the alignment keeps."""

    edits: tuple[Edit, ...]
    kept: float

    def _of(self, *kinds: str) -> tuple[Edit, ...]:
        return tuple(e for e in self.edits if e.kind in kinds)

    @property
    def substitutions(self) -> tuple[Edit, ...]:
        return self._of("value", "word", "verb", "subject")

    @property
    def values(self) -> tuple[Edit, ...]:
        return self._of("value")

    @property
    def wording(self) -> tuple[Edit, ...]:
        """Plain words and verbs substituted: another wording, or another statement."""
        return self._of("word", "verb")

    @property
    def subjects(self) -> tuple[Edit, ...]:
        return self._of("subject")

    @property
    def flips(self) -> tuple[Edit, ...]:
        return self._of("flip")

    @property
    def negations(self) -> tuple[Edit, ...]:
        """Negations added or removed, alone (a flip) or inside a changed span."""
        return self._of("flip", "denial")

    @property
    def details(self) -> tuple[Edit, ...]:
        return self._of("added", "dropped")

    @property
    def same(self) -> bool:
        """Nothing but wording differs: the same statement."""
        return not self.edits


def _join(toks: list[Token] | tuple[Token, ...]) -> str:
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


def _equivalent(xa: list[Token], xb: list[Token]) -> bool:
    """Two spans that say one thing: the same stems, one verb of doing for another, an
    abbreviation (repo / repository, Postgres / PostgreSQL), an inflection (commit /
    committing), a manner or time adverb."""
    ca, cb = _content(xa), _content(xb)
    if [t.norm for t in ca] == [t.norm for t in cb]:
        return True
    if " ".join(t.norm for t in ca) == " ".join(t.norm for t in cb):
        return True  # `make migrate` and make migrate
    if all(
        t.norm in _ADVERBS or t.norm.endswith("ly") for t in (*ca, *cb) if t.kind == "word"
    ) and all(t.kind == "word" for t in (*ca, *cb)):
        return True
    if len(ca) != 1 or len(cb) != 1:
        return False
    x, y = ca[0].norm, cb[0].norm
    if x in _DOING and y in _DOING:
        return True
    if ca[0].kind != "word" or cb[0].kind != "word" or min(len(x), len(y)) < 4:
        return False
    if not (x.isalpha() and y.isalpha()):
        # identifiers: `ruff_cli` and `ruff` are two crates; "re-exports" is exporting
        return wording.same_lemma(x, y)
    if x.startswith(y) or y.startswith(x) or wording.same_lemma(x, y):
        return True
    p = 0
    while p < min(len(x), len(y)) and x[p] == y[p]:
        p += 1
    return p >= max(4, min(len(x), len(y)) - 1) and abs(len(x) - len(y)) <= 4


def _flip(xa: list[Token], xb: list[Token]) -> bool:
    def said(toks: list[Token]) -> str:
        return " ".join(t.norm for t in toks if t.kind != "stop" or t.norm in ("on", "off"))

    return frozenset((said(xa), said(xb))) in _FLIP


@dataclass(frozen=True)
class _Roles:
    """Per token: where its sentence's subject ends (0: it has none), where the object of an
    instruction whose verb acts on it ends (0: none), where its line's label ends, and where
    its sentence starts."""

    head: tuple[int, ...]
    obj: tuple[int, ...]
    label: tuple[int, ...]
    start: tuple[int, ...]
    cue: tuple[str, ...]  # head, condition, object or command
    obj_from: tuple[int, ...]  # where the object starts (after the verb or the command)


def _sentences(toks: tuple[Token, ...]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    for i, t in enumerate(toks):
        if t.kind == "end":
            if i > start:
                spans.append((start, i))
            start = i + 1
    if start < len(toks):
        spans.append((start, len(toks)))
    return spans


def _cjk_head(toks: tuple[Token, ...], start: int, end: int) -> int:
    text = ""
    owner: list[int] = []
    for i in range(start, end):
        text += toks[i].text
        owner += [i] * len(toks[i].text)
    at = min((p for w in _PREDICATE_ZH if (p := text.find(w, 1)) > 0), default=-1)
    return owner[at] if at > 0 else start


def _label_end(toks: tuple[Token, ...], start: int, end: int) -> int:
    """Where a line's label ends ("`packages/core`: …", "| `pnpm lint` | …", "**包管理器**：
    …"): a separator after at most six tokens; `start` when there is none."""
    for i in range(start, min(end, start + 7)):
        if toks[i].kind == "sep":
            return i if i > start else start
    return start


def _head_and_object(toks: tuple[Token, ...], start: int, end: int) -> tuple[int, int, str]:
    """Where a sentence's subject ends and where an instruction's acted-on object ends."""
    first = next(
        (i for i in range(start, end) if toks[i].kind not in ("glue", "stop", "sep", "comma")),
        None,
    )
    if first is None:
        return start, start, ""
    t = toks[first]
    lead = "".join(x.text for x in toks[start : start + 2]).lower()
    if toks[start].norm in _CONDITIONS or lead.startswith(_CONDITIONS_ZH):
        # "If you use X, …", "若要使用 X 记录数据，…": the condition names what the rest of the
        # sentence is about.
        comma = next((i for i in range(start, end) if toks[i].kind == "comma"), None)
        return (comma, start, "condition") if comma is not None else (start, start, "")
    if t.kind in ("cjk", "glue"):
        return _cjk_head(toks, start, end), start, "head"
    determiner = toks[start].norm in _DETERMINERS
    aux = next((i for i in range(first + 1, min(end, first + 5)) if toks[i].norm in _AUX), None)
    if (
        aux is None
        and t.kind in ("word", "neg")
        and t.text.lower().replace("’", "'") in _IMPERATIVE
    ):
        # An instruction: what it acts on runs to the first slot word or value.
        if t.norm in _MEANS_VERBS:
            return start, start, ""
        i = first + 1
        while i < end and toks[i].norm not in _SLOT and toks[i].kind not in _STOPS_OBJECT:
            i += 1
        return start, i, "object"
    command = t.norm in _PROGRAMS
    if command:
        return start, _command_object(toks, first, end), "command"
    if t.kind in _VALUE or (toks[start].kind == "stop" and not determiner):
        # A line that starts with a value ("`pnpm fix` | …") is a labelled entry; one that
        # starts with "if", "to", "in" … puts its subject later, if anywhere.
        return start, start, ""
    for i in range(first + 1, min(end, first + 7)):
        u = toks[i]
        low = u.text.lower()
        if u.kind in _VALUE:
            break  # the head of a sentence names a thing; a value comes after its verb
        plural_verb = determiner and u.kind == "word" and low.endswith("s") and i > first + 1
        verb = u.kind == "word" and (u.norm in _VERB_LEMMAS or low in _VERB_LEMMAS)
        if (
            u.norm in _PREDICATE
            or u.norm in _AUX
            or verb
            or (plural_verb and not low.endswith("ss"))
        ):
            return i, start, "head"
    return start, start, ""


# Programs a command line starts with, beside the tools of `memkit.audit.lexicon`.
_COMMANDS = lx.word_set(
    "uvx npx pnpx bunx python python3 node deno pip3 cargo rustc go java mvn dotnet ruby gem "
    "bundle rake php composer swift xcodebuild flutter dart docker kubectl sudo cd ls cp mv rm "
    "mkdir chmod curl wget export source tox nox hatch pdm rye just task"
)
# A program a command line starts with: a tool, or a command of the shell or a language.
_PROGRAMS = lx.TOOLS | _COMMANDS
_AUX = lx.word_set("is are was were has have had will would shall should must can could may might")
# Verbs a statement's subject is followed by ("Session tokens expire after 12 hours").
_VERB_LEMMAS = _IMPERATIVE | lx.word_set(
    "expire live listen point belong depend support contain hold mean happen fail work need "
    "take go come become stay sit fall end get give run lives expires listens points belongs "
    "depends supports contains holds means happens fails works needs takes goes comes "
    "becomes stays sits falls ends gets gives happen"
)


_CONDITIONS = lx.word_set("if when whenever unless once")
_CONDITIONS_ZH = ("若", "如果", "假如", "当", "當")


def _command_object(toks: tuple[Token, ...], first: int, end: int) -> int:
    """Where a command line's object ends: its subcommand and the first argument after it
    ("npm run `build:all`", "pip install browser-use") name which command this is; a value
    after a flag (`-p ruff_cli`, `-g react-devtools@4`) is a value. `first` when none."""
    sub = first + 1
    if sub >= end or toks[sub].kind not in ("word", "stop"):
        return first
    arg = sub + 1
    while arg < end and toks[arg].kind in ("stop", "glue"):
        arg += 1
    value = toks[arg].kind in _VALUE if arg < end else True  # a file or a command is a value
    if arg < end and not value and toks[arg - 1].kind != "flag":
        return arg + 1
    return sub + 1


# Programs that run another's job: one for another at a command's head is the same command.
_RUNNERS = lx.word_set(
    "npm pnpm yarn bun npx pnpx bunx yarnpkg uv uvx pip pipx poetry pdm hatch rye pipenv "
    "conda python python3 node deno tsx ts-node make just task"
)


def _same_command(xa: list[Token], xb: list[Token], cue: str) -> bool:
    """Two spans at a command's head that run one job: one runner for another, or the same
    words joined otherwise (`test --watch` / `test-watch`)."""
    ca, cb = _content(xa), _content(xb)
    if not ca or not cb:
        return False
    if len(ca) == len(cb) == 1 and ca[0].norm in _RUNNERS and cb[0].norm in _RUNNERS:
        return True
    if cue != "command" and not any(t.kind == "flag" for t in (*ca, *cb)):
        return False
    parts = [re.findall(r"[a-z0-9]+", " ".join(t.norm for t in c)) for c in (ca, cb)]
    return parts[0] == parts[1]


def _command_detail(toks: tuple[Token, ...], s1: int, s2: int) -> bool:
    """A span one side adds inside a command line: flags (`--frozen-lockfile`), a subcommand
    right after the program (`yarn run init`), or a runner before it (`uv run pytest`). The
    command is another one: its value changed, not a detail added."""
    span = _content(toks[s1:s2])
    if not span:
        return False
    if all(t.kind == "flag" for t in span):  # (a flag's value is the flag's: `-p ruff`)
        return _command_line(toks, s1)
    before = toks[s1 - 1] if s1 > 0 else None
    after = toks[s2] if s2 < len(toks) else None
    program = before is not None and (before.norm in lx.TOOLS or before.norm in _RUNNERS)
    if program and len(span) == 1 and span[0].kind == "word" and _command_line(toks, s1):
        return True  # (not "Run pre-commit hooks …": a sentence about the program)
    if _argument(toks, s1, s2, span):
        return True
    words = [t.norm for t in span]
    runner = words[0] in _RUNNERS and all(w in _RUN_WORDS for w in words[1:]) and len(words) <= 2
    return runner and after is not None and after.norm in _PROGRAMS


_RUN_WORDS = lx.word_set("run exec x dlx")


def _sentence_at(toks: tuple[Token, ...], at: int) -> tuple[int, int]:
    """Where the sentence `toks[at]` stands in starts and ends."""
    start = at
    while start > 0 and toks[start - 1].kind != "end":
        start -= 1
    end = next((i for i in range(at, len(toks)) if toks[i].kind == "end"), len(toks))
    return start, end


def _shell_line(toks: tuple[Token, ...], at: int) -> bool:
    """A command line with options (`python3 -m venv env`), where every word is an argument,
    not prose about a program ("Poetry provides more …"), nor its comment."""
    start, end = _sentence_at(toks, at)
    return (
        _command_line(toks, at)
        and any(t.kind == "flag" for t in toks[start:end])
        and not any(t.norm == "#" for t in toks[start:at])
    )


_SEPARATORS = re.compile(r"[-_\s]+")


def _renamed(old: str, new: str) -> bool:
    """A name joined or split otherwise (`image-preview` / `ImagePreview`, `reset_memories`
    / `reset-memories`), or given a suffix (`opentiny` / `opentiny-official`): to code,
    another name. Case alone is spelling (GitHub / Github)."""
    if old.lower() == new.lower() or not old.strip() or not new.strip():
        return False
    if _SEPARATORS.sub("", old).lower() == _SEPARATORS.sub("", new).lower():
        return True
    short, long = sorted((old.lower(), new.lower()), key=len)
    return " " not in long and bool(re.fullmatch(re.escape(short) + r"[-_][a-z0-9]+", long))


_FILE_NAME = re.compile(r"\w\.[A-Za-z]{1,5}$")


def _program_of(toks: tuple[Token, ...], at: int, xa: list[Token], xb: list[Token]) -> bool:
    """One program for another at the start of a command line with options."""
    start, end = _sentence_at(toks, at)
    first = next((i for i in range(start, end) if toks[i].kind in _CONTENT), -1)
    spans = (_content(xa), _content(xb))
    return (
        first == at
        and all(len(c) == 1 and c[0].kind == "word" and c[0].text.islower() for c in spans)
        and not any(c[0].norm in _IMPERATIVE for c in spans)
        and any(t.kind == "flag" for t in toks[at:end])
    )


def _one_place(span: list[Token]) -> bool:
    content = _content(span)
    return len(content) == 1 and (
        content[0].kind in ("url", "path")
        or (content[0].kind == "word" and bool(_FILE_NAME.search(content[0].text)))
    )


def _plural_of(old: str, new: str) -> bool:
    """One identifier the other with an `s`: a variable or option renamed, never another
    thing of the same kind."""
    short, long = sorted((old, new), key=len)
    return "_" in short and " " not in long and long.lower() == short.lower() + "s"


def _argument(toks: tuple[Token, ...], s1: int, s2: int, span: list[Token]) -> bool:
    """Arguments a command line adds or drops ("pip install -U pip setuptools wheel" / "pip
    install -U pip"): other packages, files, targets. Not what its comment says ("make docs #
    run translations and build when explicitly required")."""
    if len(span) > 3 or len(span) != s2 - s1 or s1 == 0 or toks[s1 - 1].kind not in _CONTENT:
        return False
    if any(t.kind not in ("word", "path", "ver", "num", "flag") for t in span):
        return False
    return _shell_line(toks, s1)


def _command_line(toks: tuple[Token, ...], at: int) -> bool:
    """Whether the sentence `toks[at]` stands in is a command line: it starts with a program."""
    start, end = _sentence_at(toks, at)
    first = next((t for t in toks[start:at] if t.kind in _CONTENT), None)
    if first is None:
        return False
    if first.norm in _PROGRAMS:  # (every runner is one)
        return True
    # A program of its own ("crewai create flow <name> --skip_provider"): a lowercase word
    # that is no verb of an instruction, and flags after it.
    return (
        first.kind == "word"
        and first.text.islower()
        and first.norm not in _IMPERATIVE
        and any(t.kind == "flag" for t in toks[start:end])
    )


_STOPS_OBJECT = frozenset(
    ("neg", "end", "code", "url", "path", "qty", "ver", "num", "flag", "channel")
)


@functools.lru_cache(maxsize=16384)
def _roles(toks: tuple[Token, ...]) -> _Roles:
    head = [0] * len(toks)
    obj = [0] * len(toks)
    label = [0] * len(toks)
    starts = [0] * len(toks)
    cues = [""] * len(toks)
    obj_from = [0] * len(toks)
    for start, end in _sentences(toks):
        h, o, cue = _head_and_object(toks, start, end)
        lab = _label_end(toks, start, end)
        verb = next(
            (i for i in range(start, end) if toks[i].kind not in ("glue", "stop", "sep")), start
        )
        for i in range(start, end):
            head[i], obj[i], label[i], starts[i], cues[i] = h, o, lab, start, cue
            obj_from[i] = verb + 1
    return _Roles(
        tuple(head), tuple(obj), tuple(label), tuple(starts), tuple(cues), tuple(obj_from)
    )


@functools.lru_cache(maxsize=16384)
def read(a: str, b: str) -> Reading | None:
    """The edits that make `b` from `a`, when the two are near-identical; None otherwise."""
    if max(len(a), len(b)) > MAX_CHARS:
        return None  # a record, not a line: never tokenised for this
    ta, tb = tokens(a), tokens(b)
    if len(ta) > MAX_TOKENS or len(tb) > MAX_TOKENS:
        return None
    ta, tb = _quoted_as(tb, ta), _quoted_as(ta, tb)
    ca, cb = _content(ta), _content(tb)
    if not ca or not cb:
        return None
    # Most pairs share too little to be one line: no alignment.
    sa, sb = {t.norm for t in ca}, {t.norm for t in cb}
    if len(sa & sb) < NEAR * max(len(sa), len(sb)) - 1:
        return None
    ops = SequenceMatcher(None, [t.norm for t in ta], [t.norm for t in tb], autojunk=False)
    opcodes = ops.get_opcodes()
    kept = sum(len(_content(ta[i1:i2])) for tag, i1, i2, _, _ in opcodes if tag == "equal")
    if kept < 2 or kept < NEAR * max(len(ca), len(cb)):
        return None
    edits: list[Edit] = []
    changed: list[tuple[list[Token], list[Token], int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            edits.extend(_recased(ta, tb, i1, j1, i2 - i1))
            continue
        xa, xb = list(ta[i1:i2]), list(tb[j1:j2])
        content_a, content_b = _content(xa), _content(xb)
        if any(t.kind == "neg" for t in xa) != any(t.kind == "neg" for t in xb):
            pure = not content_a and not content_b
            # Alone, a negation denies the statement; inside a changed span it says no to
            # something else ("publish from the workflow" / "never with a token").
            edits.append(
                Edit(_join(xa), _join(xb), "flip" if pure else "denial", _frame(ta, i1, i2))
            )
            if pure:
                continue
        if _flip(xa, xb):
            changed.append((xa, xb, i1, i2, j1, j2))
        elif not content_a and not content_b:
            continue  # function words
        elif content_a and content_b:
            if not _equivalent(xa, xb):
                changed.append((xa, xb, i1, i2, j1, j2))
        elif _inside_cjk_word(ta, i1, i2) if content_a else _inside_cjk_word(tb, j1, j2):
            # Characters added inside a run of Chinese ("插件" / "插件集"): another word.
            edits.append(Edit(_join(xa), _join(xb), "word", _frame(ta, i1, i2)))
        elif wording.lead_in(*((ta, i1, i2, tb, j1) if content_a else (tb, j1, j2, ta, i1))):
            continue  # "Pre-commit formatting: make sure to run …" / "Run …"
        elif _command_detail(ta, i1, i2) if content_a else _command_detail(tb, j1, j2):
            whole_a, whole_b = _join(ta[max(0, i1 - 2) : i2]), _join(tb[max(0, j1 - 2) : j2])
            edits.append(Edit(whole_a, whole_b, "value", _frame(ta, i1, i2), "command"))
        else:
            kind = "added" if not content_a else "dropped"
            why = _member(ta, i1, i2) if content_a else _member(tb, j1, j2)
            edits.append(Edit(_join(xa), _join(xb), kind, _frame(ta, i1, i2), why))
    roles = (_roles(ta), _roles(tb))
    for xa, xb, i1, i2, j1, j2 in changed:
        edit = _substitution(ta, xa, xb, at=(i1, i2, j1, j2), roles=roles, changed=changed)
        if edit is not None:
            edits.append(edit)
    edits = _scoped(_moved(edits), ta, tb)
    if len([e for e in edits if e.kind not in ("flip", "denial")]) > MAX_EDITS:
        return None
    return Reading(tuple(edits), kept / max(len(ca), len(cb)))


def _quoted_as(other: tuple[Token, ...], toks: tuple[Token, ...]) -> tuple[Token, ...]:
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


# A line read against the lines of a longer atom: at most this many sentences on its side.
SHORT = 2


def read_in(a: str, b: str) -> Reading | None:
    """A short text read against the one sentence of a longer text that it is the same line
    as, with one value changed or not ("Bump the version with `just bump`" against a release
    procedure whose third line says `make bump`); None when no sentence is near-identical."""
    pieces_a, pieces_b = _pieces(a), _pieces(b)
    if len(pieces_a) > SHORT < len(pieces_b) or len(pieces_a) == len(pieces_b) == 1:
        return None
    short, long, flipped = (
        (a, pieces_b, False) if len(pieces_a) <= len(pieces_b) else (b, pieces_a, True)
    )
    if len(long) <= SHORT:
        return None
    best: Reading | None = None
    for piece in long:
        found = read(piece, short) if flipped else read(short, piece)
        if found is not None and (best is None or found.kept > best.kept):
            best = found
    return best


@functools.lru_cache(maxsize=16384)
def _pieces(text: str) -> tuple[str, ...]:
    """The sentences of a text as written (code spans and links kept), one per line item."""
    out: list[str] = []
    for line in text.splitlines():
        out += [p for p in _SENTENCE_END.split(line) if _content(list(tokens(p)))]
    return tuple(out)


_SENTENCE_END = re.compile(r"(?<=[.!?;。！？；])\s+(?=[A-Z`*\[(\u4e00-\u9fff])")


def _moved(edits: list[Edit]) -> list[Edit]:
    """Words one side drops and the other adds elsewhere moved, they did not change: "Do not
    use `print` for debugging — use `logging`" / "Use `logging` for debugging; no `print`"."""
    moving = [e for e in edits if e.kind in ("added", "dropped", "word", "verb", "denial")]
    if not any(e.kind == "added" for e in moving) and not any(e.kind == "dropped" for e in moving):
        return edits
    if not any(e.old.strip() for e in moving) or not any(e.new.strip() for e in moving):
        return edits  # words on one side only moved nowhere: "to format and test" / "to format"

    def said(texts: list[str]) -> tuple[list[str], int]:
        toks = [t for text in texts for t in tokens(text)]
        kept = [
            t.norm for t in _content(toks) if t.norm not in _DOING and t.norm not in _IMPERATIVE
        ]
        return sorted(kept), sum(t.kind == "neg" for t in toks)

    if said([e.old for e in moving]) == said([e.new for e in moving]):
        return [e for e in edits if e not in moving]
    return edits


def _scoped(edits: list[Edit], ta: tuple[Token, ...], tb: tuple[Token, ...]) -> list[Edit]:
    """A scope word ("before", "unless", …) added, dropped or moved that now governs other
    words: "Transfer the changes, or ask the user before using X" / "Ask the user before
    transferring the changes or using X" is one condition changed, a value of the rule
    (`wording.scope_changed`), however few words differ."""
    moving = [e for e in edits if e.kind in ("added", "dropped", "word", "verb")]
    words = [t.norm for e in moving for t in (*tokens(e.old), *tokens(e.new))]
    if not any(w in wording.SCOPE for w in words):
        return edits
    seq_a, seq_b = ([(t.norm, t.kind in _CONTENT) for t in toks] for toks in (ta, tb))
    scope = wording.scope_changed(seq_a, seq_b, words)
    if scope is None:
        return edits
    return [*(e for e in edits if e not in moving), Edit(*scope, "value", moving[0].frame)]


def _mixed_case(text: str) -> bool:
    return sum(c.isupper() for c in text) >= 2 and any(c.islower() for c in text)


def _recased(ta: tuple[Token, ...], tb: tuple[Token, ...], i: int, j: int, n: int) -> list[Edit]:
    """Names the alignment took as equal that differ in case where case is part of the name:
    `EXASearchTool` / `ExaSearchTool` is a renamed class (not "GitHub" / "Github")."""
    return [
        Edit(x.text, y.text, "value", _frame(ta, i + k, i + k + 1))
        for k, (x, y) in enumerate(zip(ta[i : i + n], tb[j : j + n], strict=True))
        if x.text != y.text and _mixed_case(x.text) and _mixed_case(y.text)
    ]


_JOINING = lx.word_set("and or nor plus") | frozenset("和与與及或、")
_RESTRICTING = lx.word_set("when whenever if unless only except until once while where")


def _member(toks: tuple[Token, ...], s1: int, s2: int) -> str:
    """What a span one side adds says of its own, beyond a value: a member of a list ("tools,
    agents and crews" / "agents and crews", "模型和数据集") or a condition ("when explicitly
    required"). The statement with it is another one: never a duplicate."""
    span = toks[s1:s2]
    first, last = span[0], span[-1]
    after = toks[s2] if s2 < len(toks) else None
    if first.norm == "only" and len(_content(span)) == 1 and after and after.kind != "end":
        # "Add comments only to explain …": a restriction added ("`import` syntax only." is
        # emphasis).
        return "condition"
    if len(_content(span)) < 2:
        # "and technologies", "if applicable": a word more, said otherwise. Not an action
        # more: "review and complete our checklist" / "review our checklist".
        joined = toks[s1 - 1].norm if s1 > 0 else ""
        verb = (
            first.norm in _JOINING
            and last.kind == "word"
            and (last.norm in _VERB_LEMMAS or joined in _VERB_LEMMAS)
        )
        return "member" if verb else ""
    if first.norm in _RESTRICTING:
        return "condition"
    if any(t.norm in _JOINING or t.kind == "comma" for t in (first, last)):
        return "member"
    return ""


def _inside_cjk_word(toks: tuple[Token, ...], i1: int, i2: int) -> bool:
    """One Chinese character between two others that are no glue, or closing a word before
    glue ("插件" / "插件集的"): part of a word."""
    if i2 - i1 != 1 or i1 == 0 or i2 >= len(toks):
        return False
    span = toks[i1:i2]
    if not all(t.kind == "cjk" for t in (toks[i1 - 1], *span)):
        return False
    if toks[i2].kind != "cjk" and not (toks[i2].kind == "glue" and _cjk_word_before(toks, i1)):
        return False
    # 用 / 使用: a verb said in two ways, not another word.
    joined = (toks[i1 - 1].text + span[0].text, span[0].text + toks[i2].text)
    return not any(j in _VERBS_ZH for j in joined)


def _cjk_word_before(toks: tuple[Token, ...], i: int) -> bool:
    """Two characters of a word (no glue) right before `i`: a suffix there makes another
    word (插件 → 插件集), not a particle."""
    return i >= 2 and toks[i - 1].kind == toks[i - 2].kind == "cjk"


def _frame(toks: tuple[Token, ...], i1: int, i2: int, width: int = 6) -> str:
    before = _join(toks[max(0, i1 - width) : i1])
    after = _join(toks[i2 : i2 + width])
    return f"{before} … {after}".strip()


def _parts(toks: list[Token]) -> set[str]:
    """The words of a span and of its compound tokens (`packages/core` holds core)."""
    out = {t.norm for t in _content(toks)}
    for t in toks:
        if t.kind in ("code", "path", "url", "word"):
            out |= {p for p in re.split(r"[/._\s:-]+", t.norm) if len(p) > 1}
    return out


def _is_verb(t: Token) -> bool:
    low = t.text.lower()
    return (
        t.norm in _MEANS_VERBS
        or t.norm in _PREDICATE
        or t.norm in _VERB_LEMMAS
        or low in _VERB_LEMMAS
        or low.endswith(("ed", "ing"))
    )


_ADJECTIVES = lx.word_set(
    "clear clean new old good simple short long small large big better best more most other "
    "additional specific special proper correct real full main primary general common "
    "different same certain various several extra detailed helpful useful concrete quick "
    "easy hard important relevant necessary required possible"
)


def _is_adjective(t: Token) -> bool:
    low = t.text.lower()
    return low in _ADJECTIVES or (
        len(low) > 5 and low.endswith(("ful", "ous", "ive", "able", "ible", "al", "ic", "less"))
    )


def _wording(toks: list[Token]) -> bool:
    """A span of verbs and adjectives: how a statement is put, not what it is about."""
    words = [t for t in _content(toks) if t.kind == "word"]
    return (
        bool(words)
        and len(words) == len(_content(toks))
        and all(_is_verb(t) or _is_adjective(t) or t.norm in _ADVERBS for t in words)
    )


# Chinese verbs of doing and changing: a run of characters holding one is a relation.
_VERBS_ZH = (
    "使用", "用", "升級", "升级", "改", "採用", "采用", "部署", "執行", "执行", "跑", "管理",
    "負責", "负责", "主持", "遷移", "迁移", "換成", "换成", "取代", "停用", "啟用", "启用",
    "設定", "设置", "寫", "写", "建立", "維護", "维护", "發佈", "发布", "上線", "上线", "合併",
    "合并",
)  # fmt: skip


def _value_token(toks: list[Token]) -> bool:
    """A code span, path, URL, number, version, option or channel, or an identifier
    (`ruff_cli`, `config.yaml`, `test:e2e`)."""
    return any(t.kind in _VALUE or (t.kind == "word" and _IDENTIFIER.search(t.text)) for t in toks)


_IDENTIFIER = re.compile(r"\d|_|\w[.:]\w|^[a-z]+[A-Z]")  # (camelCase: `getEntireUrl`, not OpenAI)
_QUANTIFIERS = frozenset(
    (  # noqa: SIM905  (a word list reads better as text)
        "at least|at most|exactly|up to|no more than|no less than|more than|less than|"
        "fewer than|only|minimum|maximum|至少|最多|恰好|不超过|不少于|超过|少于|仅"
    ).split("|")
)


def quantifiers(old: str, new: str) -> bool:
    """Two spans that say how many, not what: "at least" / "exactly"."""
    return old.lower() in _QUANTIFIERS and new.lower() in _QUANTIFIERS


@functools.lru_cache(maxsize=16384)
def values_of(text: str) -> frozenset[str]:
    """The value tokens, identifiers (`lang_base.basic_health_check`) and tool names of a
    text."""
    return frozenset(
        t.norm
        for t in tokens(text)
        if t.kind in _VALUE
        or t.norm in _PROGRAMS
        or (t.kind == "word" and _IDENTIFIER.search(t.text))
    )


_TINY = 12  # tokens: a line too short to align (one word kept), read token by token


def one_value(a: str, b: str) -> tuple[str, str, str] | None:
    """The one value a tiny line changed, everything else the same ("Configuration in
    `jest.config.mjs`" / "… `vitest.config.ts`", one command span for another): `a`'s
    value, `b`'s and the frame. Too short for `read`, which needs two words kept."""
    ta = [t for t in tokens(a) if t.kind != "end"]
    tb = [t for t in tokens(b) if t.kind != "end"]
    if len(ta) != len(tb) or len(ta) > _TINY:
        return None
    diff = [i for i, (x, y) in enumerate(zip(ta, tb, strict=True)) if x.norm != y.norm]
    if len(diff) != 1:
        return None
    i = diff[0]
    # A value, or any word of a command line: `make install_all` / `make install`.
    if not all(x[i].kind in _VALUE or (i > 0 and _command_line(tuple(x), i)) for x in (ta, tb)):
        return None
    if i > 0 and ta[i - 1].norm in _DETERMINERS:
        # The head of the sentence: "The `response_model` you are using" / "The `messages` …"
        return None
    frame = " ".join([*(t.text for t in ta[:i]), "…", *(t.text for t in ta[i + 1 :])])
    return ta[i].text, tb[i].text, frame


_VALUE_WORD = re.compile(r"[\w.:/@+-]+")


def unmatched_value(a: str, b: str) -> str:
    """A value one text states that the other does not hold even as words (`pnpm
    test:server`, `judge_worker_num`), or "": a line that states more than the same thing
    ("`make lint`" / "make lint" is one value)."""
    ta, tb = tokens(a), tokens(b)
    for mine, theirs in ((ta, tb), (tb, ta)):
        held = {w for t in theirs for w in _VALUE_WORD.findall(t.norm)}
        for t in mine:
            if t.kind in _VALUE and not set(_VALUE_WORD.findall(t.norm)) <= held:
                return t.text
        first = next((t for t in mine if t.kind in _CONTENT), None)
        if (
            first is not None
            and first.norm in _PROGRAMS
            and first.text.islower()  # (not "Make sure …", "Bash commands …": prose)
            and first.norm not in held
        ):
            # The program a command line starts with: `node ./scripts/publish.js` /
            # `./scripts/publish.js` run the script two ways.
            return first.text
    return ""


def _one_sentence(toks: tuple[Token, ...]) -> bool:
    return all(t.kind != "end" for t in toks[:-1])


_RATHER = re.compile(r"\b(?:instead of|rather than)\b|而不是|而非", re.I)
# Past a sentence, a negation is as often said with other words ("so others don't
# duplicate your effort" / "preventing duplicate work") as left out.
_DENIED_UP_TO = 25


def denied(a: str, b: str) -> bool:
    """One short text says no ("never modify this package") where the other says nothing of
    the kind: never the same statement, however close the vectors. "Use X instead of Y" says
    no to Y as "Use X, not Y" does."""
    ta, tb = tokens(a), tokens(b)
    if max(len(_content(ta)), len(_content(tb))) > _DENIED_UP_TO or not (
        _one_sentence(ta) and _one_sentence(tb)
    ):
        return False
    no_a = any(t.kind == "neg" for t in ta) or bool(_RATHER.search(a))
    return no_a != (any(t.kind == "neg" for t in tb) or bool(_RATHER.search(b)))


def swapped(a: str, b: str) -> bool:
    """Each text holds a value the other does not: two claims, whatever else they share."""
    va, vb = values_of(a), values_of(b)
    return bool(va - vb) and bool(vb - va)


def holds_value(text: str) -> bool:
    """Whether a span of text holds a value token (a code span, path, number, …)."""
    return _value_token(list(tokens(text)))


def states_more(text: str) -> bool:
    """Whether a detail added or dropped states something of its own: a value other than a
    link's target (a command, path, number), a tool or a name ("page them through
    PagerDuty"); a link, or words of manner and purpose, are how it is put."""
    toks = [t for t in tokens(text) if t.kind != "url"]
    return _value_token(toks) or _named(toks, False)


def _identifier(ta: tuple[Token, ...], i1: int, xa: list[Token]) -> bool:
    """A number substituted right after a word that numbers things (`memkit.audit.claims`)."""
    nums = [t for t in _content(xa) if t.kind in ("num", "ver")]
    if len(nums) != len(_content(xa)) or not nums:
        return False
    before = next((t for t in reversed(ta[:i1]) if t.kind not in ("sep", "comma")), None)
    return before is not None and is_identifier(before.text, nums[0].text)


def _named(toks: list[Token], start: bool) -> bool:
    """A tool, or a name (a capitalised word where a sentence does not start)."""
    for n, t in enumerate(_content(toks)):
        if t.norm in lx.TOOLS:
            return True
        compound = re.search(r"-[a-z]+$", t.text)  # "OpenAI-specific" describes
        if t.kind == "word" and t.text[:1].isupper() and not (start and n == 0) and not compound:
            return True
    return False


_BRANCH = lx.word_set("branch")
# git's verbs whose last word names a branch: `git pull upstream main`, `git checkout dev`.
_GIT_REF = lx.word_set("pull push fetch checkout switch merge rebase reset")


def _branch(ta: tuple[Token, ...], i1: int, i2: int, xa: list[Token], xb: list[Token]) -> bool:
    """One word for another where a branch is named: beside "branch" (分支), or the last
    word of a git command that takes one. A branch is a value: "create a branch based on the
    master branch" / "… main branch" is the line updated, not another branch's rule."""
    ca, cb = _content(xa), _content(xb)
    if len(ca) != 1 or len(cb) != 1 or ca[0].kind != "word" or cb[0].kind != "word":
        return False
    near = [t.norm for t in (*ta[max(0, i1 - 2) : i1], *ta[i2 : i2 + 2]) if t.kind != "stop"]
    if any(w in _BRANCH for w in near) or "".join(t.text for t in ta[i2 : i2 + 2]) == "分支":
        return True
    start, end = _sentence_at(ta, i1)
    before = [t.norm for t in ta[start:i1] if t.kind in _CONTENT][-3:]
    git = len(before) - 1 - before[::-1].index("git") if "git" in before else -1
    return (
        0 <= git < len(before) - 1
        and before[git + 1] in _GIT_REF
        and not any(t.kind in _CONTENT for t in ta[i2:end])
    )


# Words after which a plain word is the value of a slot: "against the `main` branch", "to
# `debug`", "in the releases channel".
_VALUE_SLOT = lx.word_set("to against with using via in into on at from as")
# Chinese nouns that say what kind of thing the word before them names: 支付服務, 订单表.
_THING_ZH = (
    "服務", "服务", "表", "團隊", "团队", "隊列", "队列", "倉庫", "仓库", "模組", "模块", "集群",
    "環境", "环境", "資料庫", "数据库", "分支", "頻道", "频道", "項目", "项目", "套件", "包",
)  # fmt: skip


def _substitution(
    ta: tuple[Token, ...],
    xa: list[Token],
    xb: list[Token],
    *,
    at: tuple[int, int, int, int],
    roles: tuple[_Roles, _Roles],
    changed: list[tuple[list[Token], list[Token], int, int, int, int]],
) -> Edit | None:
    """How a substituted span reads (`Edit.kind`)."""
    i1, i2, j1, _ = at
    ra, rb = roles
    old, new, frame = _join(xa), _join(xb), _frame(ta, i1, i2)
    if _same_command(xa, xb, ra.cue[i1] if i1 < ra.head[i1] else ""):
        # "yarn dev" / "pnpm dev", "pnpm test --watch" / "pnpm test-watch": the same job run
        # another way, not another command.
        return Edit(old, new, "value", frame)
    if _plural_of(old, new):
        return Edit(old, new, "value", frame)  # `…_DATABASE` / `…_DATABASES`: renamed
    if len(changed) == 1 and _one_place(xa) and _one_place(xb):
        # Nothing but a link's target or a path changed, even where the line starts with it:
        # the page or file moved ("[Operators](Operators_ZH.md)" / "… (Operators.md)").
        return Edit(old, new, "value", frame)
    if i1 < ra.head[i1] and j1 < rb.head[j1]:
        return Edit(old, new, "subject", frame, ra.cue[i1])  # what the sentence is about
    if i1 < ra.label[i1] and j1 < rb.label[j1] and len(changed) > 1:
        # A label and its description both changed: another entry of the list ("`packages/
        # core`: Backend logic" / "`packages/cli`: terminal UI"). A label changed alone is a
        # renamed entry: its value.
        return Edit(old, new, "subject", frame, "label")
    if i1 < ra.label[i1] and j1 < rb.label[j1] and len(_content(xa)) == len(_content(xb)) == 1:
        # A list entry's name renamed: "**Bash**: Execute shell commands" / "**Shell**: …"
        # (not a heading reworded: "Follow proper naming conventions: …" / "For Python: …").
        return Edit(old, new, "value", frame)
    if ra.obj_from[i1] <= i1 < ra.obj[i1] and rb.obj_from[j1] <= j1 < rb.obj[j1]:
        return Edit(old, new, "subject", frame, ra.cue[i1])  # what the instruction acts on
    if _branch(ta, i1, i2, xa, xb):
        return Edit(old, new, "value", frame)  # "based on the master branch" / "… main …"
    # One name substituted in several places, once as a plain word ("`packages/core`" …
    # "the core package"): the thing the line is about.
    mine_a, mine_b = _parts(xa), _parts(xb)
    for ya, yb, k1, _, _, _ in changed:
        shared = k1 != i1 and mine_a & _parts(ya) and mine_b & _parts(yb)
        plain = [t for t in (*xa, *ya, *xb, *yb) if t.kind == "word"]
        if shared and plain and not all(_IDENTIFIER.search(t.text) for t in plain):
            # (Not "index.test.ts … xxx.test.ts" / "… .spec.ts": one value changed twice.)
            return Edit(old, new, "subject", frame, "names")
    slots = {t.norm for t in xa[:1] + xb[:1] if t.norm in _SLOT}
    values = _value_token(xa) or _value_token(xb)
    bare = len(xa) == 1 or len(xb) == 1
    if values and (len(slots) == 2 or (slots and xa[0].norm != xb[0].norm and not bare)):
        # Two slots, not one slot's two values: "Run tests using `pytest`" / "Run tests for
        # a specific crate" say two things. A slot against one bare word is that slot's
        # value said otherwise ("drops idle sockets at 60 s" / "keeps idle sockets open").
        return Edit(old, new, "subject", frame, "slot")
    if _identifier(ta, i1, xa):
        # "Step 2" / "Step 4", "ADR 14" / "ADR 45", "33." / "34.": a number that names a
        # record or a place in a list names a thing, never a value of one.
        return Edit(old, new, "subject", frame, "names")
    if _flip(xa, xb) or _value_token(xa) or _value_token(xb) or wording.kin(old, new):
        return Edit(old, new, "value", frame)
    if i1 > 0 and ta[i1 - 1].kind == "flag" and _command_line(ta, i1):
        return Edit(old, new, "value", frame)  # a flag's value: `--with test` / `--with dev`
    if _shell_line(ta, i1):
        return Edit(old, new, "value", frame)  # an argument: `python3 -m venv env` / `… .venv`
    if _program_of(ta, i1, xa, xb):
        return Edit(old, new, "value", frame)  # `mkdocs serve --dev-addr 8008` / `zensical …`
    if _renamed(old, new):
        return Edit(old, new, "value", frame)  # `image-preview` / `ImagePreview`
    if quantifiers(old, new):
        return Edit(old, new, "value", frame)  # "at least one" / "exactly one"
    if _named(xa, i1 == ra.start[i1]) and _named(xb, j1 == rb.start[j1]):
        return Edit(old, new, "value", frame)
    text_a = "".join(t.text for t in xa if not t.text.isascii())
    text_b = "".join(t.text for t in xb if not t.text.isascii())
    if text_a or text_b:
        if not (text_a and text_b):
            return Edit(old, new, "word", frame)  # 仓库管理员 / 仓库 Committer: someone else
        after = "".join(t.text for t in ta[i2 : i2 + 3])
        if after.startswith(_THING_ZH):
            return Edit(old, new, "subject", frame, "chinese")  # 部署支付服務 / 部署搜索服務
        if any(
            v in text if len(v) > 1 else text == v for text in (text_a, text_b) for v in _VERBS_ZH
        ):
            return Edit(old, new, "verb", frame)
        return Edit(old, new, "word", frame)
    ca, cb = _content(xa), _content(xb)
    if _wording(xa) and _wording(xb) and not wording.noun_head(ta, i1, i2, len(cb)):
        return Edit(old, new, "verb", frame)  # "Return" / "Prefer returning", clear / helpful
    before = next((t for t in reversed(ta[:i1]) if t.kind != "stop" or t.norm in _VALUE_SLOT), None)
    following = next((t for t in ta[i2:] if t.kind != "stop"), None)
    last = following is None or following.kind not in _CONTENT  # its phrase's head, no modifier
    if len(ca) == 1 and len(cb) == 1 and before is not None and before.norm in _VALUE_SLOT and last:
        return Edit(old, new, "value", frame)  # "open pull requests against develop"
    return Edit(old, new, "word", frame)
