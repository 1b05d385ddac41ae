"""Classify a pair of atoms without an LLM: duplicate, extends, contradicts or unrelated.

Contradiction rules, each explainable in one line:
- same key, different value: both speak of the same thing (a shared anchor word before the
  value) and give different numbers with the same kind of unit, different versions of the same
  named thing, or different paths;
- opposite polarity: one says always/must/use/enable/必須/要, the other never/don't/disable/
  禁止/不要, about the same object (and a negation with a named subject, "Session tokens no
  longer live in Redis", only about that subject);
- opposite instructions in the imperative (`memkit.audit.imperative`): "roll back payments
  with helm rollback" against "…, never with helm rollback", the same step and means;
- negation: the same statement once affirmed and once negated;
- a changed value in an unchanged frame (`memkit.audit.frame`): the same statement with one
  person, team, tool, place, date, number or version swapped;
- an update written as a migration (`memkit.audit.migration`): "we moved CI for the monorepo
  from Jenkins to GitHub Actions" against "use Jenkins for CI builds of the monorepo".

Negation and polarity verdicts need real shared content: sentences are split where a sentence
ends (not inside `2.5`, `v1.2`, `e.g.`), and a fragment with fewer than two content words is
never compared.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from memkit.audit import frame, imperative, migration
from memkit.audit.claims import is_identifier, key_stems, other_subjects
from memkit.audit.lexicon import CJK, word_set
from memkit.audit.text import clauses, sentences
from memkit.gate.duplicates import words_agree

# Raised whenever a rule here (or in the modules it calls) comes to see a contradiction it did
# not see before: a memory audited in full with older rules may hold pairs a pull never
# shows (a pull audits only what it brings), and `memkit health` says to run `--all` once.
RULES = 3  # 2: imperative steps, migrations, per-subject values; 3: the claim model (issue 27)
DUPLICATE = "duplicate"
EXTENDS = "extends"
CONTRADICTS = "contradicts"
UNRELATED = "unrelated"

_WORD = re.compile(r"[a-z][a-z0-9+#.-]*[a-z0-9+#]|[a-z]|[\u4e00-\u9fff]{2}|[\u3040-\u30ff]{2,}")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
_STOP = frozenset(
    (  # noqa: SIM905  (a word list reads better as text)
        "a an the is are was were be been to of in on at for by with and or not no never always "
        "must should use using do does don't dont this that these those it its we you they "
        "our your "
        "their if then when than as from into after before every each per all any can will need "
        "needs set only also so but via about over under up down out more less"
    ).split()
)
_UNITS = {
    "duration": r"ms|milliseconds?|s|secs?|seconds?|min|mins|minutes?|h|hrs?|hours?|days?|weeks?"
    r"|毫秒|秒|分鐘|分钟|小時|小时|天|週|周",
    "size": r"[kmgt]i?b|[kmgt]i|bytes?|字節|字节",  # 512 MB, 512 MiB, Kubernetes' 512Mi
    "percent": r"%|percent|個百分點",
    "rate": r"rps|qps|rpm|req/s",
    "count": r"times|retries|attempts|replicas|workers|threads|connections|次|個|个|台|執行緒|线程",
    "pixels": r"px|pixels?",
}
_DIGIT = re.compile(r"[\d/]")  # a number, a version or a path
# Counting words that say nothing of what is counted (1 個核准, 4 個請求).
_CLASSIFIERS = frozenset(("個", "个", "台"))
# A number is read whole from where its digits start, never split to try a unit after a part
# of it: 4 KB of digits took 110 s (each start, each split, each unit).
_VALUE = re.compile(
    r"(?<!\d)(?P<num>\d++(?:\.\d+)?+)\s*+(?P<unit>"
    + "|".join(f"(?:{u})" for u in _UNITS.values())
    + r")(?![a-z])",
    re.I,
)
_VERSION = re.compile(
    # A name, then its version after a space, or after ">=" or "版本" (and a colon before
    # them): "Node.js 18", "**Node.js**: >= 18.12.0", "Node.js 版本 >= 16".
    r"(?<![\w.+-])(?P<name>[A-Za-z][\w.+-]*)"
    r"(?:\s+|(?:\*\*)?\s*[:：]?\s*(?:(?:版本|version)\s*(?:(?:>=|≥|=>|\^|~|==)\s*)?"
    r"|(?:>=|≥|=>|\^|~|==)\s*))"
    r"v?(?P<ver>\d+(?:\.\d+){0,3})\b(?!\s*(?:" + "|".join(_UNITS.values()) + r")(?![a-z]))",
    re.I,
)
# `dir/file.ext` starts where its run starts and reads the run once ("a-a-a-…": from every
# letter to the end, quadratic).
# A path's characters: not CJK, which is a word character to `\w` ("当前支持CPT/SFT/DPO" is
# a list, not a path "/SFT/DPO"), and a path starts where its run starts.
_PC = rf"[^\W{CJK}]"
_PATH = re.compile(
    rf"(?<!{_PC})(?<![.~-])(?<![^:]/)(?:~|\.{{1,2}})?/(?:{_PC}|[.-])+(?:/(?:{_PC}|[.*-])+)+"
    rf"|(?<![\w-])(?:{_PC}|-)++/(?:{_PC}|[.-])+\.{_PC}{{1,5}}\b"
)
_POSITIVE = re.compile(
    r"\b(?:always|must|should|use|enable|enabled|allow|allowed|prefer|require|required|keep|"
    r"do)\b|必須|必须|一律|務必|务必|要用|使用|啟用|启用|開啟|开启|打開|打开|允許|允许|總是|总是|"
    r"必ず|使う",
    re.I,
)
_NEGATIVE = re.compile(
    r"\b(?:never|must not|mustn't|should not|shouldn't|don't|do not|avoid|disable|disabled|"
    r"forbid|forbidden|disallow|stop using|no longer)\b|禁止|不要|不准|不得|別用|别用|停用|"
    r"禁用|關閉|关闭|不可以|不能用|從不|从不|絕不|绝不|しない|使わない",
    re.I,
)
_NEGATION = re.compile(
    r"\b(?:not|no|isn't|aren't|doesn't|don't|cannot|can't|won't)\b|不|沒|没|無|无", re.I
)


# An atom of more sentences than this is a record, not a note: coincidences between its
# clauses and another record's are many.
_SHORT = 6
# Verbs an instruction starts with: shared alone, they say nothing of what is done to what.
_VERBS = word_set(
    "run runs use uses make makes keep keeps do does set sets get gets go take send add check "
    "start call"
)


@dataclass(frozen=True)
class Verdict:
    kind: str
    reason: str
    # Nothing for a person to do: the same line about another subject is another claim, not a
    # near copy to merge (no MK104 either).
    quiet: bool = False
    # The same line with a detail added, dropped or reworded: it may belong in the other
    # atom (the gate's MK104).
    near: bool = False
    # The one value that changed, the other atom's then this one's ("make lint", "make
    # check"): the fix may be that value edited in the other atom rather than a new atom.
    edit: tuple[str, ...] = ()


@functools.lru_cache(maxsize=65536)
def words(text: str) -> set[str]:
    lowered = text.lower()
    found = {w.strip(".-") for w in _WORD.findall(lowered)}
    for run in _CJK_RUN.findall(lowered):
        found |= {run[i : i + 2] for i in range(len(run) - 1)}
    return {w for w in found if w and w not in _STOP}


def _unit_kind(unit: str) -> str:
    for kind, pattern in _UNITS.items():
        if re.fullmatch(pattern, unit, re.I):
            return kind
    return "other"


def _norm_duration(num: float, unit: str) -> float:
    unit = unit.lower()
    if unit in ("ms", "millisecond", "milliseconds", "毫秒"):
        return num / 1000
    if unit.startswith("min") or unit in ("分鐘", "分钟"):
        return num * 60
    if unit.startswith("h") or unit in ("小時", "小时"):
        return num * 3600
    if unit.startswith("day") or unit == "天":
        return num * 86400
    if unit.startswith("week") or unit in ("週", "周"):
        return num * 604800
    return num


def _norm_size(num: float, unit: str) -> float:
    """Bytes: 1024Mi and 1Gi are one value. Decimal and binary prefixes are both read as
    powers of 1024: the difference never decides whether two atoms disagree."""
    power = "kmgt".find(unit[0].lower())
    return num * 1024 ** (power + 1) if power >= 0 else num


def _ordered_words(text: str) -> list[str]:
    lowered = text.lower()
    out: list[str] = []
    for m in re.finditer(r"[a-z][a-z0-9+#.-]*[a-z0-9+#]|[a-z]|[\u4e00-\u9fff]+", lowered):
        token = m.group(0).strip(".-")
        if _CJK_RUN.fullmatch(token):
            out.extend(token[i : i + 2] for i in range(max(1, len(token) - 1)))
        elif token and token not in _STOP:
            out.append(token)
    return out


def _anchor(text: str, start: int, end: int | None = None) -> set[str]:
    """What a value is the value of: the words right after it when it is used as an
    attribute ("a 5 s pong timeout"), otherwise the few content words before it."""
    if end is not None:
        after = re.match(r"\s*([A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*)?)", text[end : end + 40])
        if after and not re.match(r"\s*(?:and|or|to|for|if|when|then|but)\b", text[end:]):
            following = _ordered_words(after.group(1))
            if following:
                return {_stem(w) for w in following} - _GENERIC_ANCHORS
    before = _ordered_words(text[max(0, start - 60) : start])[-3:]
    # A verb the value is given with ("sets a deadline of", "has it set to") names nothing.
    return {_stem(w) for w in before} - _GENERIC_ANCHORS


# Words near a value that name neither its key nor anything in particular: the verb it is
# given with ("sets a deadline of") or the kind of thing a subject is ("the X service").
_GENERIC_ANCHORS = word_set(
    "set has get use make keep run take give service app application system job server team "
    "http https www com org html"  # a URL's scheme and host say which site, not which key
)


def _stem(word: str) -> str:
    """Plural to singular, enough for "logs" to name the same thing as "log"."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


@functools.lru_cache(maxsize=65536)
def _values(text: str) -> dict[str, list[tuple[float, set[str], str]]]:
    out: dict[str, list[tuple[float, set[str], str]]] = {}
    for m in _VALUE.finditer(text):
        kind = _unit_kind(m.group("unit"))
        num = float(m.group("num"))
        if kind == "duration":
            num = _norm_duration(num, m.group("unit"))
        elif kind == "size":
            num = _norm_size(num, m.group("unit"))
        anchor = _anchor(text, m.start(), m.end())
        if kind == "count" and m.group("unit").lower() not in _CLASSIFIERS:
            anchor = anchor | {m.group("unit").lower()}  # "3 replicas": what is counted
        out.setdefault(kind, []).append((num, anchor, m.group(0)))
    return out


@functools.lru_cache(maxsize=65536)
def _versions(text: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for m in _VERSION.finditer(text):
        name = m.group("name").lower()
        if name in _STOP or name.isdigit() or re.fullmatch(r"0\d+", m.group("ver")):
            continue  # "Svc 00" numbers an item; it is no version
        if is_identifier(m.group("name")):
            continue  # "ADR 45", "Step 3": a record or a position, not a version
        out.setdefault(name, set()).add(m.group("ver"))
    return out


def _all_values(text: str) -> dict[str, set[float]]:
    return {kind: {n for n, _, _ in found} for kind, found in _values(text).items()}


_VALUES_PER_SENTENCE = 40


def _different_values(
    a: str, b: str, held_a: dict[str, set[float]], held_b: dict[str, set[float]]
) -> tuple[str, frozenset[str]]:
    """A value of `a` and a value of `b` for the same key that differ, and the key. Values
    are sets: two values each whole atom holds (`held_a`, `held_b`) are no disagreement ("30 s
    and 60 s" against an atom saying both); "10 s caused failures, set 30 s" against "10 s"
    is one."""
    va, vb = _values(a), _values(b)
    for kind in va.keys() & vb.keys():
        # A sentence states a few values; a run of text with hundreds is no statement, and
        # comparing every pair would cost their product.
        for num_a, anchor_a, raw_a in va[kind][:_VALUES_PER_SENTENCE]:
            for num_b, anchor_b, raw_b in vb[kind][:_VALUES_PER_SENTENCE]:
                shared = anchor_a & anchor_b
                both = num_a in held_b.get(kind, ()) and num_b in held_a.get(kind, ())
                if shared and num_a != num_b and not both:
                    return (
                        f"different values for {'/'.join(sorted(shared)[:2])}: {raw_a} vs {raw_b}",
                        frozenset(shared),
                    )
    ver_a, ver_b = _versions(a), _versions(b)
    for name in ver_a.keys() & ver_b.keys():
        if ver_a[name].isdisjoint(ver_b[name]):
            one, other = sorted(ver_a[name])[0], sorted(ver_b[name])[0]
            # `port 6379` is a value; `node 20.11` a version (a whole number says neither).
            what = "versions of" if "." in one + other else "values for"
            return f"different {what} {name}: {one} vs {other}", frozenset([name])
    paths_a, paths_b = set(_PATH.findall(a)), set(_PATH.findall(b))
    if paths_a and paths_b and paths_a.isdisjoint(paths_b):
        pa, pb = sorted(paths_a)[0], sorted(paths_b)[0]
        if pa.rsplit("/", 1)[-1] == pb.rsplit("/", 1)[-1] or words(a) & words(b) - words(pa):
            anchor = _anchor(a, a.find(pa)) & _anchor(b, b.find(pb))
            if anchor:
                return (
                    f"different paths for {'/'.join(sorted(anchor)[:2])}: {pa} vs {pb}",
                    frozenset(anchor),
                )
    return "", frozenset()


@functools.lru_cache(maxsize=65536)
def _clauses(sentence: str) -> tuple[str, ...]:
    return tuple(clauses(sentence))


@functools.lru_cache(maxsize=65536)
def _polar(clause: str) -> tuple[int, set[str]]:
    """+1 (do it), -1 (do not) or 0, and the words of what it is about."""
    neg = _NEGATIVE.search(clause)
    if neg:
        return -1, words(clause[neg.end() : neg.end() + 60])
    pos = _POSITIVE.search(clause)
    if pos:
        return 1, words(clause[pos.end() : pos.end() + 60])
    return 0, set()


@functools.lru_cache(maxsize=65536)
def _negated_subject(clause: str) -> frozenset[str]:
    """The content words before a clause's negative marker: "Session tokens no longer live
    in Redis" is about session tokens, not about every use of Redis ("Never use npm": none)."""
    neg = _NEGATIVE.search(clause)
    return frozenset(words(clause[: neg.start()])) if neg else frozenset()


def _object(sentence: str, pattern: re.Pattern[str]) -> set[str]:
    m = pattern.search(sentence)
    if not m:
        return set()
    return words(sentence[m.end() : m.end() + 60])


def _opposite_polarity(a: str, b: str) -> str:
    """One clause says do, the other do not, about the same object: clause by clause, so
    "Always use pnpm, never npm" against "Never use pnpm; use npm" is about pnpm."""
    clauses_b = [c for sb in sentences(b) for c in _clauses(sb)]
    polar_b = [(*_polar(c), _negated_subject(c)) for c in clauses_b]
    words_a = words(a)
    words_b = words(b)
    long = min(len(sentences(a)), len(sentences(b))) > _SHORT
    for sa in sentences(a):
        for ca in _clauses(sa):
            sign_a, obj_a = _polar(ca)
            if not sign_a or not obj_a:
                continue
            for sign_b, obj_b, subject_b in polar_b:
                shared = obj_a & obj_b
                if sign_a != -sign_b or not shared or shared <= _VERBS:
                    continue  # "run" alone: two instructions about two things
                # One word in common names the same object only when it is the whole object
                # of one instruction ("never npm"); in long clauses it is a coincidence.
                smaller = min(len(obj_a), len(obj_b))
                # Between two long records, any two clauses may share a word: one word is
                # enough only between short atoms ("never npm").
                if len(shared - _VERBS) < 2 and (smaller > 2 or long):
                    continue
                if len(shared) < 0.5 * smaller:
                    continue  # two long instructions with a word or two in common
                # A negation about a named subject speaks of that subject only.
                if not subject_b <= words_a or not _negated_subject(ca) <= words_b:
                    continue
                # What each clause is about comes first after its marker: "Do not use
                # `print` for debugging" and "use `logging` for debugging" share only the
                # purpose, and forbid and prescribe two different things.
                heads = _object_head(ca), *(_object_head(c) for c in _with_object(clauses_b, obj_b))
                if all(h.isascii() and h for h in heads) and not shared & set(heads):
                    continue
                return f"opposite instructions about {'/'.join(sorted(shared)[:2])}"
    return ""


@functools.lru_cache(maxsize=65536)
def _object_head(clause: str) -> str:
    """The first content word after a clause's marker, past a verb of doing ("never use
    npm": npm); "" when there is none."""
    marker = _NEGATIVE.search(clause) or _POSITIVE.search(clause)
    if not marker:
        return ""
    for word in _ordered_words(clause[marker.end() : marker.end() + 60]):
        if word not in _VERBS:
            return word
    return ""


def _with_object(clauses: list[str], obj: set[str]) -> list[str]:
    """The clauses whose polar object is `obj`."""
    return [c for c in clauses if _polar(c)[1] == obj][:1]


@functools.lru_cache(maxsize=65536)
def _has_negation(sentence: str) -> bool:
    # Once per sentence, not once per pair of sentences: a 256 KB "sentence" (no space after
    # its stops) against each of a neighbour's sentences was a scan of 256 KB each.
    # A no inside a condition is the condition's ("Add yourself to AUTHORS if not there yet"):
    # the statement itself is affirmed.
    return bool(_NEGATION.search(_CONDITION.sub(" ", sentence)))


_CONDITION = re.compile(r"\b(?:if|unless|whether|when)\b[^,.;:()]*", re.I)


def _negated(a: str, b: str) -> str:
    # Between two long records, a short sentence and its negation may be about anything.
    least = 4 if min(len(sentences(a)), len(sentences(b))) > _SHORT else 3
    for sa in sentences(a):
        wa = words(sa)
        negated_a = _has_negation(sa)
        for sb in sentences(b):
            if negated_a == _has_negation(sb):
                continue
            wb = words(sb)
            shared = wa & wb
            # What the affirmed sentence says must be in the negated one (in a long sentence,
            # one word may be worded apart): "Kenji is no longer the lead of the checkout
            # squad" does not deny "Kenji is the lead of the search squad". And two content
            # words in common at least: a fragment never matches everything.
            affirmed = wb if negated_a else wa
            slack = 1 if len(affirmed) >= 6 else 0
            if (
                min(len(wa), len(wb)) >= least
                and len(shared) >= max(least - 1, 0.7 * min(len(wa), len(wb)))
                and len(affirmed - shared) <= slack
                and not _denied_in_both(sa if negated_a else sb, b if negated_a else a)
            ):
                return "the same statement affirmed in one and negated in the other"
    return ""


def _denied_in_both(negated: str, other: str) -> bool:
    """What the negated sentence denies (the first content word after its negation) is
    denied by the other text too: "Do not use `print` — use `logging`" and "use `logging`;
    no `print`" pair their negations."""
    m = _NEGATION.search(negated)
    if not m:
        return False
    head = next((w for w in _ordered_words(negated[m.end() : m.end() + 60]) if w not in _VERBS), "")
    if not head or not head.isascii():
        return False
    for sentence in sentences(other):
        for clause in _clauses(sentence):
            n = _NEGATION.search(clause)
            if n and head in _ordered_words(clause[n.end() : n.end() + 60]):
                return True
    return False


def _values_per_sentence(a: str, b: str) -> str:
    """Different values for the same key, sentence by sentence, unless the two sentences are
    parallel statements about different subjects."""
    # A value needs a digit or a slash: most sentence pairs are skipped without more regexes.
    with_digits = [sb for sb in sentences(b) if _DIGIT.search(sb)]
    if not with_digits:
        return ""
    held_a, held_b = _all_values(a), _all_values(b)
    for sa in sentences(a):
        if not _DIGIT.search(sa):
            continue
        for sb in with_digits:
            reason, key = _different_values(sa, sb, held_a, held_b)
            if (
                reason
                and not frame.other_subject(sa, sb)
                and not other_subjects(sa, sb, key_stems(key))
            ):
                return reason
    return ""


@functools.lru_cache(maxsize=65536)
def _units(text: str) -> tuple[str, ...]:
    """Sentences and their clauses: a changed value is looked for in both ("…; Amara is the
    tech lead" holds a whole statement in a clause)."""
    out: list[str] = []
    for sentence in sentences(text):
        parts = _clauses(sentence)
        out += parts if len(sentence) > 200 or len(parts) == 1 else [sentence, *parts]
    return tuple(dict.fromkeys(out))


def _same_frame(a: str, b: str) -> str:
    for ua in _units(a):
        wa = words(ua)
        for ub in _units(b):
            if not wa & words(ub):
                continue  # one frame shares a content word at least
            change = frame.changed_value(ua, ub)
            if (
                change is not None
                and frame.one_value(change)
                and not _same_quantity(change.old, change.new)
                and not _holds_both(change, a, b)
            ):
                return frame.reason(change)
    return ""


def _holds_both(change: frame.Change, a: str, b: str) -> bool:
    """Each atom also states the other's value: the sets of values agree."""

    def states(value: str, text: str) -> bool:
        return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.I) is not None

    return states(change.new, a) and states(change.old, b)


def _same_quantity(x: str, y: str) -> bool:
    """1024Mi and 1Gi, 60 s and 1 min: one value in two notations."""
    vx, vy = _values(x), _values(y)
    return any({n for n, _, _ in vx[k]} & {n for n, _, _ in vy[k]} for k in vx.keys() & vy.keys())


def conflict(
    a: str,
    b: str,
    *,
    similarity: float,
    shared_triggers: int = 0,
    loose_from: float = 0.75,
) -> str:
    """Why the texts of two atoms contradict, or "": each reader of a claim (values, polarity,
    imperative steps, negation, a changed value in one frame, a migration) in both directions.
    The readers share the claim model's parts (`memkit.audit.claims`): identifiers are not
    values, a set-valued relation is never contradicted by a second value, two subjects are
    two things, and values are sets."""
    a, b = _focus(a, b)
    # The word-anchored readers were built for close pairs; a pair found only by a wide
    # candidate source (BM25, a lower cosine) needs the frame reader's structural evidence.
    loose = similarity >= loose_from or shared_triggers > 0
    word_rules = (
        _values_per_sentence,
        _opposite_polarity,
        imperative.opposite,
        _negated,
    )
    rules = word_rules if loose else ()
    # An update written as a migration carries structural evidence of its own (a change
    # marker, the retired thing named in the other atom, the same subject), like the frame
    # rule: it runs on wide pairs too ("前端已經從 webpack 遷移到 vite" is at cosine 0.73 from
    # "前端用 webpack 打包"). Last, so a pair another rule explains keeps its reason.
    for rule in (*rules, _same_frame, migration.retired):
        reason: str = rule(a, b) or rule(b, a)
        if reason:
            return reason
    return ""


# The readers compare sentence with sentence; past this many pairs, only sentences that share
# words with one of the other text's are compared (the work stays linear in the text).
PAIR_BUDGET = 2_500
_FOCUS_SENTENCES = 60
_COMMON = 40  # a word in more of the other text's sentences than this says nothing of a pair


def _focus(a: str, b: str) -> tuple[str, str]:
    """The two texts, or for two long ones only the sentences of each that share two content
    words with a sentence of the other (at most `_FOCUS_SENTENCES` each): no rule can find a
    conflict between sentences that share nothing, and every rule compares pairs."""
    sa, sb = sentences(a), sentences(b)
    if len(sa) * len(sb) <= PAIR_BUDGET:
        return a, b
    index: dict[str, list[int]] = {}
    for j, sentence in enumerate(sb):
        for w in words(sentence):
            index.setdefault(w, []).append(j)
    keep_a: list[int] = []
    keep_b: set[int] = set()
    for i, sentence in enumerate(sa):
        counts: dict[int, int] = {}
        for w in words(sentence):
            posting = index.get(w, ())
            if len(posting) > _COMMON:
                continue
            for j in posting:
                counts[j] = counts.get(j, 0) + 1
        hits = [j for j, n in counts.items() if n >= 2]
        if hits:
            keep_a.append(i)
            keep_b.update(hits)
    kept_a = "\n".join(sa[i] for i in keep_a[:_FOCUS_SENTENCES])
    kept_b = "\n".join(sb[j] for j in sorted(keep_b)[:_FOCUS_SENTENCES])
    return kept_a, kept_b


def overlap(a: str, b: str) -> float:
    """Content words in common, over the smaller text's."""
    wa, wb = words(a), words(b)
    return len(wa & wb) / max(1, min(len(wa), len(wb)))


# Below the duplicate cosine, the same claims still make a duplicate: the same numbers on both
# sides, most content words shared, and a cosine that says the texts are close at all.
SAME_CLAIMS_FROM = 0.80
SAME_CLAIMS_WORDS = 0.5  # of the words of both (Jaccard): a text that adds a claim is not one
SAME_WORDS = 0.6  # of the words of both
CONTAINED = 0.8  # of the smaller text's words
_VALUE_TOKEN = re.compile(r"[\w.:/-]*\d[\w.:/-]*")


def same_claims(a: str, b: str, similarity: float, duplicate_at: float) -> str:
    """Why two texts say the same, or "": the cosine (with enough words in common for long
    texts), or the same values with most content words shared."""
    if not words_agree(a, b) or frame.swapped_value(a, b) is not None:
        return ""  # a second value of something: two claims, however close the vectors
    if similarity >= duplicate_at:
        return f"similarity {similarity:.2f}"
    wa, wb = words(a), words(b)
    if wa == wb and wa:
        return "the same words"
    if similarity < SAME_CLAIMS_FROM:
        return ""
    va, vb = set(_VALUE_TOKEN.findall(a)), set(_VALUE_TOKEN.findall(b))
    if va != vb:
        return ""
    shared = len(wa & wb)
    if va and shared >= SAME_CLAIMS_WORDS * len(wa | wb):
        return f"the same values ({', '.join(sorted(va)[:3])}), similarity {similarity:.2f}"
    # No values: the same words, give or take a label or a verb ("**Verify Information**:
    # Always verify …" / "Always verify …"; "Use proper null safety" / "Implement …").
    if shared >= SAME_WORDS * len(wa | wb) and shared >= CONTAINED * min(len(wa), len(wb)):
        return f"the same words, similarity {similarity:.2f}"
    return ""


def classify(
    a: str,
    b: str,
    *,
    similarity: float,
    duplicate_at: float = 0.92,
    related_at: float = 0.60,
    shared_triggers: int = 0,
    loose_from: float = 0.75,
) -> Verdict:
    """Classify the texts of two atoms; `similarity` is their embedding cosine. Atoms are
    judged by `memkit.audit.verdict.verdict`, which reads their subjects too."""
    share = overlap(a, b)
    related = similarity >= related_at or shared_triggers > 0 or share >= 0.3
    if not related:
        return Verdict(UNRELATED, f"similarity {similarity:.2f}, no shared triggers")
    reason = conflict(
        a, b, similarity=similarity, shared_triggers=shared_triggers, loose_from=loose_from
    )
    if reason:
        return Verdict(CONTRADICTS, reason)
    return no_conflict(
        a,
        b,
        similarity=similarity,
        duplicate_at=duplicate_at,
        related_at=related_at,
        shared_triggers=shared_triggers,
    )


def no_conflict(
    a: str,
    b: str,
    *,
    similarity: float,
    duplicate_at: float,
    related_at: float,
    shared_triggers: int,
) -> Verdict:
    """A related pair with no conflict: the same claims (`duplicate`), `extends` or
    `unrelated`."""
    same = same_claims(a, b, similarity, duplicate_at)
    if same:
        return Verdict(DUPLICATE, same)
    if overlap(a, b) >= 0.2 or shared_triggers or similarity >= related_at:
        return Verdict(
            EXTENDS,
            f"same subject (similarity {similarity:.2f}, "
            f"{shared_triggers} shared trigger(s)), no conflict found",
        )
    return Verdict(UNRELATED, f"similarity {similarity:.2f}")
