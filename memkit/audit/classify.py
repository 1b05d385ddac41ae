"""Classify a pair of atoms without an LLM: duplicate, extends, contradicts or unrelated.

Contradiction rules, each explainable in one line:
- same key, different value: both speak of the same thing (a shared anchor word before the
  value) and give different numbers with the same kind of unit, different versions of the same
  named thing, or different paths;
- opposite polarity: one says always/must/use/enable/必須/要, the other never/don't/disable/
  禁止/不要, about the same object;
- negation: the same statement once affirmed and once negated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
_VALUE = re.compile(
    r"(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>"
    + "|".join(f"(?:{u})" for u in _UNITS.values())
    + r")(?![a-z])",
    re.I,
)
_VERSION = re.compile(
    r"(?P<name>[A-Za-z][\w.+-]*)\s+v?(?P<ver>\d+(?:\.\d+){0,3})\b(?!\s*(?:"
    + "|".join(_UNITS.values())
    + r")(?![a-z]))",
    re.I,
)
_PATH = re.compile(r"(?:~|\.{1,2})?/[\w.-]+(?:/[\w.*-]+)+|\b[\w-]+/[\w.-]+\.\w{1,5}\b")
_POSITIVE = re.compile(
    r"\b(?:always|must|should|use|enable|enabled|allow|allowed|prefer|require|required|keep|"
    r"do)\b|必須|必须|一律|務必|务必|要用|使用|啟用|启用|允許|允许|總是|总是|必ず|使う",
    re.I,
)
_NEGATIVE = re.compile(
    r"\b(?:never|must not|mustn't|should not|shouldn't|don't|do not|avoid|disable|disabled|"
    r"forbid|forbidden|disallow|stop using|no longer)\b|禁止|不要|不准|不得|別用|别用|停用|"
    r"禁用|不可以|不能用|從不|从不|絕不|绝不|しない|禁止|使わない",
    re.I,
)
_NEGATION = re.compile(
    r"\b(?:not|no|isn't|aren't|doesn't|cannot|can't|won't)\b|不|沒|没|無|无", re.I
)
_SENTENCE = re.compile(r"(?<=[.!?;。！？；\n])\s*")


@dataclass(frozen=True)
class Verdict:
    kind: str
    reason: str


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
                return {_stem(w) for w in following}
    return {_stem(w) for w in _ordered_words(text[max(0, start - 60) : start])[-3:]}


def _stem(word: str) -> str:
    """Plural to singular, enough for "logs" to name the same thing as "log"."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


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
        if kind == "count":  # "3 replicas": the unit is what is counted
            anchor = anchor | {m.group("unit").lower()}
        out.setdefault(kind, []).append((num, anchor, m.group(0)))
    return out


def _versions(text: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for m in _VERSION.finditer(text):
        name = m.group("name").lower()
        if name in _STOP or name.isdigit():
            continue
        out.setdefault(name, set()).add(m.group("ver"))
    return out


def _different_values(a: str, b: str) -> str:
    va, vb = _values(a), _values(b)
    for kind in va.keys() & vb.keys():
        for num_a, anchor_a, raw_a in va[kind]:
            for num_b, anchor_b, raw_b in vb[kind]:
                shared = anchor_a & anchor_b
                if shared and num_a != num_b:
                    nums_b = {n for n, _, _ in vb[kind]}
                    if num_a not in nums_b:
                        return (
                            f"different values for {'/'.join(sorted(shared)[:2])}: "
                            f"{raw_a} vs {raw_b}"
                        )
    ver_a, ver_b = _versions(a), _versions(b)
    for name in ver_a.keys() & ver_b.keys():
        if ver_a[name].isdisjoint(ver_b[name]):
            return (
                f"different versions of {name}: {sorted(ver_a[name])[0]} vs "
                f"{sorted(ver_b[name])[0]}"
            )
    paths_a, paths_b = set(_PATH.findall(a)), set(_PATH.findall(b))
    if paths_a and paths_b and paths_a.isdisjoint(paths_b):
        pa, pb = sorted(paths_a)[0], sorted(paths_b)[0]
        if pa.rsplit("/", 1)[-1] == pb.rsplit("/", 1)[-1] or words(a) & words(b) - words(pa):
            anchor = _anchor(a, a.find(pa)) & _anchor(b, b.find(pb))
            if anchor:
                return f"different paths for {'/'.join(sorted(anchor)[:2])}: {pa} vs {pb}"
    return ""


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s.strip()]


def _object(sentence: str, pattern: re.Pattern[str]) -> set[str]:
    m = pattern.search(sentence)
    if not m:
        return set()
    return words(sentence[m.end() : m.end() + 60])


def _opposite_polarity(a: str, b: str) -> str:
    for sa in _sentences(a):
        neg_a = bool(_NEGATIVE.search(sa))
        pos_a = bool(_POSITIVE.search(sa)) and not neg_a
        if not (neg_a or pos_a):
            continue
        for sb in _sentences(b):
            neg_b = bool(_NEGATIVE.search(sb))
            pos_b = bool(_POSITIVE.search(sb)) and not neg_b
            if (pos_a and neg_b) or (neg_a and pos_b):
                obj_a = _object(sa, _NEGATIVE if neg_a else _POSITIVE)
                obj_b = _object(sb, _NEGATIVE if neg_b else _POSITIVE)
                shared = obj_a & obj_b
                if shared:
                    return f"opposite instructions about {'/'.join(sorted(shared)[:2])}"
    return ""


def _negated(a: str, b: str) -> str:
    for sa in _sentences(a):
        wa = words(sa)
        for sb in _sentences(b):
            if bool(_NEGATION.search(sa)) == bool(_NEGATION.search(sb)):
                continue
            wb = words(sb)
            if len(wa) >= 2 and len(wa & wb) >= 0.7 * min(len(wa), len(wb)):
                return "the same statement affirmed in one and negated in the other"
    return ""


def classify(
    a: str,
    b: str,
    *,
    similarity: float,
    duplicate_at: float = 0.92,
    related_at: float = 0.60,
    shared_triggers: int = 0,
) -> Verdict:
    """Classify the texts of two atoms; `similarity` is their embedding cosine."""
    wa, wb = words(a), words(b)
    overlap = len(wa & wb) / max(1, min(len(wa), len(wb)))
    related = similarity >= related_at or shared_triggers > 0 or overlap >= 0.3
    if not related:
        return Verdict(UNRELATED, f"similarity {similarity:.2f}, no shared triggers")
    for rule in (_different_values, _opposite_polarity, _negated):
        reason = rule(a, b) or rule(b, a)
        if reason:
            return Verdict(CONTRADICTS, reason)
    if similarity >= duplicate_at or (wa == wb and wa):
        return Verdict(DUPLICATE, f"similarity {similarity:.2f}")
    if overlap >= 0.2 or shared_triggers or similarity >= related_at:
        return Verdict(
            EXTENDS,
            f"same subject (similarity {similarity:.2f}, "
            f"{shared_triggers} shared trigger(s)), no conflict found",
        )
    return Verdict(UNRELATED, f"similarity {similarity:.2f}")
