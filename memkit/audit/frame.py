"""A changed value in an unchanged frame: "the payments service is owned by team Atlas" against
"… by team Orion".

Both statements are cut into tokens (words, names, numbers, versions, dates, single CJK
characters) and aligned. They disagree when the alignment leaves exactly one changed span,
that span is a value of one kind on both sides (a person, a team, a tool or product, a place,
a date, a number or a version) and the unchanged frame around it says enough to be the same
statement: at least two content words, and when the value is the sentence's subject, at least
three after it ("Priya ran the onboarding workshop" names what she ran; "team Atlas meets on
Mondays" does not say that only one team meets then).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from memkit.audit import lexicon as lx
from memkit.audit import wording
from memkit.audit.claims import functional_for_subject, is_identifier, set_valued

_TOKEN = re.compile(
    r"(?P<path>(?:~|\.{1,2})?/?[\w.*-]+(?:/[\w.*-]+)+)"
    r"|(?P<date>\d{4}-\d{2}-\d{2}|\b[qh][1-4]\b)"
    r"|(?P<code>\b[a-z]{2,}(?:-[a-z]+)+-\d+\b)"
    r"|(?P<num>v?\d+(?:[.,]\d+)*(?:\.x)?(?:st|nd|rd|th)?[a-z%]*)"
    r"|(?P<word>[A-Za-z][\w+#'-]*[\w+#]|[A-Za-z])"
    r"|(?P<cjk>[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff])",
    re.I,
)
_STOP = frozenset(
    (  # noqa: SIM905  (a word list reads better as text)
        "a an the is are was were be been being to of in on at for by with and or as from "
        "into this that these those it its we our us they their every each per all any "
        "will shall can may also so than then there here which who whom whose"
    ).split()
)
# Chinese function characters: frame glue, not content.
_CJK_GLUE = frozenset("的了在是由用和與与跟及把被將将給给會会要都也就上裡里中之以為为每個个於于")
_CJK_CLASS = ("團隊", "团队", "小組", "小组")
_GENERIC_VERBS = frozenset(
    ("use", "uses", "used", "using", "has", "have", "had", "can", "is", "are")
)
_NEGATORS = frozenset(("not", "no", "never", "don't", "doesn't", "isn't", "aren't", "cannot"))
# One statement's frame: a run of text longer than this with no sentence end is no statement to
# align (the alignment's cost grows with the product of the two lengths).
MAX_TOKENS = 300
MAX_CHARS = 3_000


@dataclass(frozen=True)
class Token:
    text: str
    norm: str
    kind: str  # word, stop, name, number, version, date, code, cjk
    start: int = 0  # sentence-initial words are capitalised without being names


def tokens(text: str) -> list[Token]:
    out: list[Token] = []
    for m in _TOKEN.finditer(lx.cjk_spaced(text)):
        group = m.lastgroup or "word"
        raw = m.group(0)
        if group == "word" or (group == "path" and lx.ACRONYMS.fullmatch(raw)):
            out.extend(_word(part, first=not out) for part in raw.rstrip(".,;:").split("/"))
        elif group == "num":
            kind = "version" if re.search(r"\d\.\d+\.|\.x$|^v\d", raw, re.I) else "number"
            if re.fullmatch(r"\d+(?:st|nd|rd|th)", raw, re.I):
                kind = "date"
            out.append(Token(raw, raw.lower(), kind))
        else:
            out.append(Token(raw, raw.lower(), group))
    _merge_names(out)
    _refine_numbers(out)
    return [t for t in out if t.kind != "_merged"]


def _word(raw: str, *, first: bool) -> Token:
    low = raw.lower()
    if low in lx.MONTHS and raw[0].isupper():
        return Token(raw, low, "date")  # "in May"; "may" is a verb
    if low in _STOP:
        return Token(raw, low, "stop")
    if low in lx.UPDATE_WORDS:
        return Token(raw, low, "update")
    if low in lx.WEEKDAYS:
        return Token(raw, low.rstrip("s"), "date")
    norm = low[:-1] if len(low) > 3 and low.endswith("s") and not low.endswith("ss") else low
    capital = raw[0].isupper() and low not in lx.TEAM_WORDS and low not in lx.THING_WORDS
    inner_caps = any(c.isupper() for c in raw[1:])
    if capital and (not first or low in lx.FIRST_NAMES or low in lx.PLACES or inner_caps):
        return Token(raw, low, "name")
    if capital and first:
        return Token(raw, norm, "word", start=1)  # a name only if another capital follows
    if low in lx.TOOLS:
        return Token(raw, low, "code")
    return Token(raw, norm, "word")


def _merge_names(out: list[Token]) -> None:
    """Consecutive capitalised words are one name: "Li Wei", "Argo CD", "AWS Secrets Manager"."""
    i = 0
    while i < len(out):
        t = out[i]
        if t.kind == "name" or (t.start and i + 1 < len(out) and out[i + 1].kind == "name"):
            j = i + 1
            while j < len(out) and out[j].kind == "name":
                j += 1
            if j > i + 1 or t.kind != "name":
                text = " ".join(x.text for x in out[i:j])
                out[i] = Token(text, text.lower(), "name")
                for k in range(i + 1, j):
                    out[k] = Token("", "", "_merged")
            i = j
        else:
            i += 1


def _refine_numbers(out: list[Token]) -> None:
    """A number after a product name is its version (Node 20, Java 17); after a month or
    before one it is a day (December 10, 12 September)."""
    at = [n for n, t in enumerate(out) if t.kind != "_merged"]  # where each live token is
    live = [out[n] for n in at]
    for i, t in enumerate(live):
        if t.kind != "number":
            continue
        prev = live[i - 1] if i else None
        nxt = live[i + 1] if i + 1 < len(live) else None
        if (prev and is_identifier(prev.text)) or is_identifier("", t.text):
            kind = "ident"  # "Step 3", "ADR 45": a name, never a value
        elif (prev and prev.norm in lx.MONTHS) or (nxt and nxt.norm in lx.MONTHS):
            kind = "date"
        elif prev and prev.kind in ("name", "code") and not re.search(r"[a-z%]$", t.norm):
            kind = "version"
        else:
            continue
        out[at[i]] = Token(t.text, t.norm, kind)


@functools.lru_cache(maxsize=65536)
def _prepared(text: str) -> tuple[list[Token], list[str]]:
    """Tokens without update words, and their normal forms; an audit compares each atom's
    sentences with many others, so each is cut once. Callers never change the lists."""
    toks = _strip_updates(tokens(text))
    return toks, [t.norm for t in toks]


def _content(toks: list[Token]) -> float:
    score = 0.0
    for t in toks:
        if t.kind == "cjk":
            score += 0 if t.text in _CJK_GLUE else 0.5
        elif t.kind not in ("stop", "update") or t.norm in ("we", "our"):
            score += 1  # "we" is the team itself: "we deploy with Flux" is about us
    return score


def _strip_updates(toks: list[Token]) -> list[Token]:
    """Drop words that mark an update ("now", 現在, 改由) so "X is now Y" aligns with "X is Y"."""
    text = "".join(t.text for t in toks if t.kind == "cjk")
    drop: set[int] = set()
    cjk_at = [i for i, t in enumerate(toks) if t.kind == "cjk"]
    for word in lx.UPDATE_WORDS_ZH:
        for m in re.finditer(word, text):
            drop.update(cjk_at[m.start() : m.end()])
    for i, t in enumerate(toks):
        following = toks[i + 1].text if i + 1 < len(toks) else ""
        if t.text == "改" and following and following in "由用為为成到在":
            drop.add(i)
    return [t for i, t in enumerate(toks) if t.kind != "update" and i not in drop]


def _cjk_value(left: list[Token], span: list[Token], right: list[Token]) -> str:
    text = "".join(t.text for t in span)
    after = "".join(t.text for t in right[:3])
    before = "".join(t.text for t in left[-2:])
    numeral = len(text) <= 2 and all(c in lx.CJK_NUMERALS for c in text)
    if numeral and (before.endswith(lx.DATE_BEFORE_ZH) or after.startswith(lx.DATE_AFTER_ZH)):
        return "date"
    if text in lx.PLACES_ZH or (len(text) <= 4 and after.startswith(lx.PLACE_AFTER_ZH)):
        return "place"
    if len(text) <= 6 and after.startswith(lx.TEAM_AFTER_ZH):
        return "team"
    if 2 <= len(text) <= 3 and text[0] in lx.SURNAMES_ZH:
        return "person"
    return ""


def _value_kind(left: list[Token], span: list[Token], right: list[Token]) -> str:
    """The kind of value `span` is, given the unchanged tokens around it; "" when none."""
    span = [t for t in span if t.kind != "stop"]
    if not span:
        return ""
    if all(t.kind == "cjk" for t in span):
        return _cjk_value(left, span, right)
    values = [t for t in span if t.kind in ("date", "version", "number")]
    rest = [t for t in span if t not in values]
    if len(values) == 1 and (len(rest) <= 1 or all(t.kind == "cjk" for t in rest[:3])):
        return values[0].kind  # "12 hours" against "30 days", "12 小時" against "30 天"
    if len(span) != 1:
        # A list of names ("Li Wei and Tom") counts as people.
        names = [t for t in span if t.kind == "name"]
        if names and all(t.kind == "name" or t.norm in ("and", "&") for t in span):
            return "person"
        return ""
    t = span[0]
    prev = left[-1].norm if left else ""
    nxt = right[0].norm if right else ""
    after = "".join(x.text for x in right[:2])
    if t.kind in ("date", "version", "number", "path"):
        return t.kind
    if t.kind == "code" and re.search(r"-\d+$", t.norm):
        return "place"  # a cloud region: us-east-1
    if t.kind == "word" and nxt in lx.TEAM_WORDS and prev not in lx.THING_WORDS:
        return "team"  # "the payments team": a lowercase name is still the team's
    if t.kind not in ("name", "code") or prev in lx.THING_WORDS:
        return ""
    if prev in lx.TEAM_WORDS or nxt in lx.TEAM_WORDS or after.startswith(_CJK_CLASS):
        return "team"
    first = t.norm.split()[0]
    if (t.norm in lx.PLACES and t.norm not in lx.FIRST_NAMES) or nxt in lx.PLACE_AFTER:
        return "place"
    if t.kind == "name" and first in lx.FIRST_NAMES:
        return "person"
    if t.kind == "name" and len(t.norm.split()) == 2 and t.text.istitle():
        return "person"  # "Marta Costa", "Li Wei"
    return "tool" if t.kind == "code" or prev in ("with", "using", "via", "through") else "name"


_COMPATIBLE = {"person": "who", "team": "who", "name": "who", "tool": "who", "place": "where"}


def _same_kind(ka: str, kb: str) -> bool:
    if ka == kb:
        return True
    # A tool against a name, a team against a person: both are "who/what does it"; a name
    # not in the list of places may still be one.
    if "place" in (ka, kb):
        return {ka, kb} == {"place", "name"}
    return ka in _COMPATIBLE and kb in _COMPATIBLE


@dataclass(frozen=True)
class Change:
    kind: str
    old: str
    new: str
    frame: str
    # Nothing but function words before the value ("In Staging, …", "The French …"): the
    # value is what the sentence speaks of, not what it says of it.
    at_head: bool = False


def changed_value(a: str, b: str) -> Change | None:
    """The one value that differs between two statements of one frame, if that is all."""
    if max(len(a), len(b)) > MAX_CHARS:
        return None
    ta, na = _prepared(a)
    tb, nb = _prepared(b)
    if not ta or not tb or max(len(ta), len(tb)) > MAX_TOKENS:
        return None
    # Most candidate pairs share too little to be one frame: skip the alignment.
    sa, sb = set(na), set(nb)
    if len(sa & sb) < max(2, 0.5 * min(len(sa), len(sb))) or len(sa - sb) > 8:
        return None
    if any(n in _NEGATORS for n in na) != any(n in _NEGATORS for n in nb):
        return None  # affirmed against negated: the negation rule's case
    ops = [
        op
        for op in SequenceMatcher(None, na, nb, autojunk=False).get_opcodes()
        if op[0] != "equal" and _content(ta[op[1] : op[2]]) + _content(tb[op[3] : op[4]]) > 0
    ]
    # One replaced span, and at most an added or dropped tail after it ("… 10 times with
    # backoff"): a reason appended to an update.
    tail = ops[1:] if len(ops) == 2 and ops[1][0] != "replace" else []
    if tail and not (tail[0][2] == len(ta) and tail[0][4] == len(tb)):
        return None
    if len(ops) - len(tail) != 1 or ops[0][0] != "replace":
        return None
    _, i1, i2, j1, j2 = ops[0]
    if tail:
        # A value that moved rather than changed ("王芳是搜索团队的…" / "支付团队的…是王芳"):
        # what the tail adds or drops is in the other side's changed span.
        _, t1, t2, u1, u2 = tail[0]
        moved = {t.norm for t in tb[u1:u2]} & {t.norm for t in ta[i1:i2]}
        moved |= {t.norm for t in ta[t1:t2]} & {t.norm for t in tb[j1:j2]}
        if any(_content([t]) for t in [*ta[i1:i2], *tb[j1:j2]] if t.norm in moved):
            return None
        # Or a second value in the tail ("…的技术负责人是李明"): two changes, not one.
        if _tail_value(ta, t1, t2) or _tail_value(tb, u1, u2):
            return None
    ka = _value_kind(ta[:i1], ta[i1:i2], ta[i2:])
    kb = _value_kind(tb[:j1], tb[j1:j2], tb[j2:])
    if not ka or not kb or not _same_kind(ka, kb):
        return None
    frame = ta[:i1] + ta[i2 : tail[0][1] if tail else len(ta)]
    if _content(frame) < (3 if tail else 2):
        return None
    # A tool or a name needs a frame that says what it is for, not only that it is used: "FAC
    # uses Docker" and "FAC uses Django" are both true; "we deploy with Argo CD" holds one.
    named = "tool" in (ka, kb) or "name" in (ka, kb)
    if named and _content([t for t in frame if t.norm not in _GENERIC_VERBS]) < 2:
        return None
    head = [t for t in ta[:i1] if t.norm not in lx.TEAM_WORDS and t.norm not in lx.THING_WORDS]
    if _content(head) == 0 and _content(ta[i2:]) < 3:
        return None  # the subject changed, and the rest does not pin one statement down
    old = _join(ta[i1:i2])
    new = _join(tb[j1:j2])
    if _one_spelling(old, new):
        return None
    kind = ka if ka == kb else ("person" if "person" in (ka, kb) else ka)
    shown = _join(ta[:i1]) + " … " + _join(ta[i2:])
    return Change(kind, old, new, shown.strip(), at_head=_content(ta[:i1]) == 0)


def _tail_value(toks: list[Token], start: int, end: int) -> str:
    """The kind of value an added or dropped tail holds, its glue ("是", "the") left out."""
    span = [t for t in toks[start:end] if not (t.kind == "cjk" and t.text in _CJK_GLUE)]
    return _value_kind(toks[:start], span, toks[end:]) if span else ""


def one_value(change: Change) -> bool:
    """Whether a changed value is two values of one thing (`memkit.audit.claims`). Who the
    statement is about changed ("Lukas maintains …" / "Fatima maintains …"): only when what is
    said of them is a role one holder fills. Otherwise the value changed: only when the
    relation holds one value at a time ("speaks Portuguese" / "speaks Japanese" holds both)."""
    who = change.at_head and change.kind in ("person", "team", "name")
    if who and not functional_for_subject(change.frame):
        return False
    # A count or a version is one value even of a set ("made up of 5 members").
    return change.kind in ("number", "version") or not set_valued(change.frame)


def other_subject(a: str, b: str) -> bool:
    """Two parallel statements about different things: the same frame with a changed word at
    its head that is not a value ("session tokens expire after 12 hours" / "refresh tokens …
    30 days").
    A value that differs between them is not a contradiction."""
    if max(len(a), len(b)) > MAX_CHARS:
        return False
    ta, na = _prepared(a)
    tb, nb = _prepared(b)
    if max(len(ta), len(tb)) > MAX_TOKENS:
        return False
    ops = [
        op
        for op in SequenceMatcher(None, na, nb, autojunk=False).get_opcodes()
        if op[0] != "equal" and _content(ta[op[1] : op[2]]) + _content(tb[op[3] : op[4]]) > 0
    ]
    if len(ops) != 2 or any(op[0] != "replace" for op in ops):
        return False
    kinds = [
        (_value_kind(ta[:i1], ta[i1:i2], ta[i2:]), _value_kind(tb[:j1], tb[j1:j2], tb[j2:]))
        for _, i1, i2, j1, j2 in ops
    ]
    # One value changed, and one ordinary word at the head of the sentence: the word names
    # another subject. Elsewhere it may be a synonym ("heartbeat" / "ping").
    words = [op for op, k in zip(ops, kinds, strict=True) if not any(k)]
    if not words or not any(all(k) for k in kinds):
        return False
    _, i1, i2, _, _ = words[0]
    # At the head of the sentence, or naming the noun after it ("the rating service", "session
    # tokens", "庫存的 API"): another subject. Before a value it may be a synonym ("a heartbeat
    # every 30 s" / "a ping every 90 s").
    if _content(ta[:i1]) == 0:
        return True
    after = next((t for t in ta[i2:] if _content([t]) > 0), None)
    return after is not None and after.kind in ("word", "cjk", "name", "code")


def _join(toks: list[Token]) -> str:
    out = ""
    prev_cjk = False
    for t in toks:
        cjk = t.kind == "cjk"
        if out and not (cjk and prev_cjk):
            out += " "
        out += t.text
        prev_cjk = cjk
    return out


def reason(change: Change, limit: int = 70) -> str:
    frame = change.frame if len(change.frame) <= limit else change.frame[: limit - 1] + "…"
    return f'different {change.kind} in "{frame}": {change.old} vs {change.new}'


def swapped_value(a: str, b: str) -> tuple[str, str] | None:
    """A value (a person, team, place, tool, number, version, date) in `a` whose place `b`
    fills with another value that `a` does not state anywhere, and the other way round: two
    texts of one frame about different things, whatever the relation. None when every value
    of each is stated in the other ("30 s" and "30 seconds", the same names reordered)."""
    if max(len(a), len(b)) > MAX_CHARS:
        return None
    ta, na = _prepared(a)
    tb, nb = _prepared(b)
    if not ta or not tb or max(len(ta), len(tb)) > MAX_TOKENS:
        return None
    all_a, all_b = set(na), set(nb)
    for op, i1, i2, j1, j2 in SequenceMatcher(None, na, nb, autojunk=False).get_opcodes():
        if op != "replace":
            continue
        ka = _value_kind(ta[:i1], ta[i1:i2], ta[i2:])
        kb = _value_kind(tb[:j1], tb[j1:j2], tb[j2:])
        if not ka or not kb:
            continue
        mine = {t.norm for t in ta[i1:i2] if t.kind not in ("stop", "word", "update")}
        theirs = {t.norm for t in tb[j1:j2] if t.kind not in ("stop", "word", "update")}
        old, new = _join(ta[i1:i2]), _join(tb[j1:j2])
        swapped = mine and theirs and not mine & all_b and not theirs & all_a
        if swapped and not _one_spelling(old, new):
            return old, new
    return None


def _one_spelling(x: str, y: str) -> bool:
    """Two spellings of one name: Postgres and PostgreSQL (one begins the other), or one
    mended ("Function Foloder" / "Function Folder")."""
    x, y = x.lower(), y.lower()
    if min(len(x), len(y)) >= 4 and (x.startswith(y) or y.startswith(x)):
        return True
    wx, wy = x.split(), y.split()
    return (
        len(wx) == len(wy)
        and any(a != b for a, b in zip(wx, wy, strict=True))
        and all(a == b or wording.typo(a, b) for a, b in zip(wx, wy, strict=True))
    )
