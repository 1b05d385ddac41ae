"""The values a line states, and what the verdict asks of a pair the cosine calls a
duplicate: one value changed in a tiny line, a value only one side states, a no only one
side says, a value each side lacks.
"""

from __future__ import annotations

import functools
import re

from memkit.audit import commands as cmd
from memkit.audit import lexicon as lx
from memkit.audit import tokens as tk

_FILE_NAME = re.compile(r"\w\.[A-Za-z]{1,5}$")
_VERSION = re.compile(r"v?\d+(?:\.\d+)+(?:[-+][\w.]+)?")
IDENTIFIER = re.compile(r"\d|_|\w[.:]\w|^[a-z]+[A-Z]")  # (camelCase: `getEntireUrl`, not OpenAI)
_LIST_GLUE = lx.word_set("and or") | frozenset("和与與及或、")
# The joining word or comma a list member is cut out with ("`embedchain/` and", "or `yarn test`").
_GLUE_EDGE = re.compile(r"^(?:and|or|[,、和与與及或])\s*|\s*(?:and|or|[,、和与與及或])$")
_QUANTIFIERS = frozenset(
    (  # noqa: SIM905  (a word list reads better as text)
        "at least|at most|exactly|up to|no more than|no less than|more than|less than|"
        "fewer than|only|minimum|maximum|至少|最多|恰好|不超过|不少于|超过|少于|仅"
    ).split("|")
)


def one_place(span: list[tk.Token]) -> bool:
    """A span that names files or pages and nothing else: a path, a URL, a file name, or
    several joined (`a.yaml` 和 `b.yaml`)."""
    content = [t for t in tk.content_of(span) if t.norm not in _LIST_GLUE]
    return bool(content) and all(
        t.kind in ("url", "path") or (t.kind == "word" and bool(_FILE_NAME.search(t.text)))
        for t in content
    )


def versions(xa: list[tk.Token], xb: list[tk.Token]) -> bool:
    """One version for another, bare or quoted (`10.9.0` / `9.15.4`)."""
    ca, cb = tk.content_of(xa), tk.content_of(xb)
    return len(ca) == len(cb) == 1 and all(
        c[0].kind == "ver" or (c[0].kind == "code" and _VERSION.fullmatch(c[0].norm))
        for c in (ca, cb)
    )


def plural_of(old: str, new: str) -> bool:
    """One identifier the other with an `s`: a variable or option renamed, never another
    thing of the same kind."""
    short, long = sorted((old, new), key=len)
    return tk.spelled(short) and " " not in long and long.lower() == short.lower() + "s"


def value_token(toks: list[tk.Token]) -> bool:
    """A code span, path, URL, number, version, option or channel, or an identifier
    (`ruff_cli`, `config.yaml`, `test:e2e`)."""
    return any(t.kind in tk.VALUE or (t.kind == "word" and IDENTIFIER.search(t.text)) for t in toks)


def quantifiers(old: str, new: str) -> bool:
    """Two spans that say how many, not what: "at least" / "exactly"."""
    return old.lower() in _QUANTIFIERS and new.lower() in _QUANTIFIERS


@functools.lru_cache(maxsize=16384)
def values_of(text: str) -> frozenset[str]:
    """The value tokens, identifiers (`lang_base.basic_health_check`) and tool names of a
    text."""
    return frozenset(
        t.norm
        for t in tk.tokens(text)
        if t.kind in tk.VALUE
        or t.norm in cmd.PROGRAMS
        or (t.kind == "word" and IDENTIFIER.search(t.text))
    )


# git's verbs, said in Chinese as they are in English: wording, not a name.
_GIT_VERBS = cmd.GIT_REF | lx.word_set("fork clone cherry-pick squash")
_TINY = 12  # tokens: a line too short to align (one word kept), read token by token


def one_value(a: str, b: str) -> tuple[str, str, str] | None:
    """The one value a tiny line changed, everything else the same ("Configuration in
    `jest.config.mjs`" / "… `vitest.config.ts`", one command span for another): `a`'s
    value, `b`'s and the frame. Too short for `read`, which needs two words kept."""
    ta = [t for t in tk.tokens(a) if t.kind != "end"]
    tb = [t for t in tk.tokens(b) if t.kind != "end"]
    if len(ta) != len(tb) or len(ta) > _TINY:
        return None
    diff = [i for i, (x, y) in enumerate(zip(ta, tb, strict=True)) if x.norm != y.norm]
    # Versions change together (`hyperf:8.0-alpine-v3.15-swoole` / `…:8.1-alpine-v3.18-…`).
    versions = len(diff) == 2 and all(x[i].kind == "ver" for i in diff for x in (ta, tb))
    if len(diff) != 1 and not versions:
        return None
    i = diff[0]
    # A value, an identifier (`koishi.config.yml`), or any word of a command line: `make
    # install_all` / `make install`.
    if not all(
        x[i].kind in tk.VALUE
        or (x[i].kind == "word" and tk.spelled(x[i].norm))
        or (i > 0 and cmd.command_line(tuple(x), i))
        for x in (ta, tb)
    ):
        return None
    if i > 0 and ta[i - 1].norm in lx.DETERMINERS:
        # The head of the sentence: "The `response_model` you are using" / "The `messages` …"
        return None
    frame = " ".join("…" if k in diff else t.text for k, t in enumerate(ta))
    return " ".join(ta[k].text for k in diff), " ".join(tb[k].text for k in diff), frame


_FEW_WORDS = 6
_VALUE_WORD = re.compile(r"[\w.:/@+-]+")


def unmatched_value(a: str, b: str) -> str:
    """A value one text states that the other does not hold even as words (`pnpm
    test:server`, `judge_worker_num`), or "": a line that states more than the same thing
    ("`make lint`" / "make lint" is one value)."""
    ta, tb = tk.tokens(a), tk.tokens(b)
    short = max(len(tk.content_of(ta)), len(tk.content_of(tb))) <= _FEW_WORDS
    chinese = all(any(t.kind in ("cjk", "glue") for t in toks) for toks in (ta, tb))
    for mine, theirs in ((ta, tb), (tb, ta)):
        held = {w for t in theirs for w in _VALUE_WORD.findall(t.norm)}
        for t in mine:
            # In a line of a few words an identifier is what it says (`webctl kill_proxy`);
            # in a sentence it can be a detail said in passing ("(config ws.ping_interval)").
            identifier = t.kind == "word" and "_" in t.norm.strip("_") and short
            # In Chinese a Latin word is a name (Github Issue, PR, axml), not wording; a verb
            # of the trade (pull, merge, fix) is wording.
            latin = (
                chinese
                and t.kind == "word"
                and len(t.norm) > 1
                and t.text.isascii()
                and t.norm not in lx.IMPERATIVE
                and t.norm not in _GIT_VERBS
            )
            if (t.kind in tk.VALUE or identifier or latin) and not set(
                _VALUE_WORD.findall(t.norm)
            ) <= held:
                return t.text  # (`kill_proxy` is not `proxy kill`)
        first = next((t for t in mine if t.kind in tk.CONTENT), None)
        if (
            first is not None
            and first.norm in cmd.PROGRAMS
            and first.text.islower()  # (not "Make sure …", "Bash commands …": prose)
            and first.norm not in held
        ):
            # The program a command line starts with: `node ./scripts/publish.js` /
            # `./scripts/publish.js` run the script two ways.
            return first.text
    return ""


def _one_sentence(toks: tuple[tk.Token, ...]) -> bool:
    return all(t.kind != "end" for t in toks[:-1])


_RATHER = re.compile(r"\b(?:instead of|rather than)\b|而不是|而非", re.I)
# Past a sentence, a negation is as often said with other words ("so others don't
# duplicate your effort" / "preventing duplicate work") as left out.
_DENIED_UP_TO = 25


def denied(a: str, b: str) -> bool:
    """One short text says no ("never modify this package") where the other says nothing of
    the kind: never the same statement, however close the vectors. "Use X instead of Y" says
    no to Y as "Use X, not Y" does."""
    ta, tb = tk.tokens(a), tk.tokens(b)
    if max(len(tk.content_of(ta)), len(tk.content_of(tb))) > _DENIED_UP_TO or not (
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
    return value_token(list(tk.tokens(text)))


def states_more(text: str) -> bool:
    """Whether a detail added or dropped states something of its own: a value other than a
    link's target (a command, path, number), a tool or a name ("page them through
    PagerDuty"); a link, or words of manner and purpose, are how it is put."""
    toks = [t for t in tk.tokens(text) if t.kind != "url"]
    return value_token(toks) or is_named(toks, False)


def is_named(toks: list[tk.Token], start: bool) -> bool:
    """A tool, or a name (a capitalised word where a sentence does not start)."""
    for n, t in enumerate(tk.content_of(toks)):
        if t.norm in lx.TOOLS:
            return True
        compound = re.search(r"-[a-z]+$", t.text)  # "OpenAI-specific" describes
        if t.kind == "word" and t.text[:1].isupper() and not (start and n == 0) and not compound:
            return True
    return False


def one_of_values(span: str, text: str) -> bool:
    """A span that is only values (`embedchain/` and) of a kind `text` still lists: a member of
    an enumeration of values, not a detail said in words."""
    toks = [t for t in tk.tokens(span) if t.kind not in ("comma", "end")]
    values = [t for t in toks if t.kind in tk.VALUE and t.kind != "num"]
    if not values or len(values) + sum(t.norm in _LIST_GLUE for t in toks) != len(toks):
        return False
    kinds = {t.kind for t in values}
    return any(t.kind in kinds for t in tk.tokens(text))


def member(span: str) -> str:
    """A list member as the reason names it: without the joining word or comma beside it."""
    return _GLUE_EDGE.sub("", span)


def count(
    ta: tuple[tk.Token, ...], i1: int, i2: int, xa: list[tk.Token], xb: list[tk.Token]
) -> bool:
    """One number for another that counts what follows it, not one named by what comes
    before ("~17 examples total" / "~20 examples total"; not "Step 2" / "Step 4"): a value
    even heading the sentence."""
    ca, cb = tk.content_of(xa), tk.content_of(xb)
    if not (len(ca) == len(cb) == 1 and ca[0].kind == cb[0].kind == "num"):
        return False
    before = next((t for t in reversed(ta[:i1]) if t.kind != "stop"), None)
    after = ta[i2] if i2 < len(ta) else None
    named = before is not None and before.kind == "word" and tk.sentence_at(ta, i1)[0] < i1
    return not named and after is not None and after.kind == "word"
