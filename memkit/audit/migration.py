"""Updates written as migrations: "We moved CI for the monorepo from Jenkins to GitHub Actions"
against "Use Jenkins for CI builds of the monorepo".

Teams announce a change as the change itself: moved / migrated / switched from A to B, A is
deprecated or no longer used, A was replaced by B, upgraded to Kubernetes 1.29, the checkout
team handed payments over to billing; 從 A 遷移到 B, A 已停用, 由 B 取代 A, 不再用 A, 把 X 移交給
B. Each such sentence is read as a `Change`: what was retired (A), what replaced it (B, when
named) and the subject words of the clause (what moved: "CI", "monorepo").

A change contradicts another atom when that atom still states the retired thing and the two
are about the same subject: every content word of the change's subject (in Chinese, half of its
character pairs) is in the other atom, the retired thing is there and not negated, and the new
thing is not (the other atom already says it, or tells history). A plan ("we will migrate to
vite next quarter"), history ("until 2023 we used Jenkins") and advice ("upgrade Kubernetes one
minor version at a time") are no change: the old statement is still true.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from memkit.audit import lexicon as lx
from memkit.audit.lexicon import word_set
from memkit.audit.text import sentences

# A named thing in English: one word, then capitalised words or versions ("Argo CD",
# "AWS Secrets Manager", "Node 18").
# It starts only where a run of name characters starts, and holds at most six words: a search
# tries each start once and reads a bounded stretch from it (a 16 KB word, or a thousand
# capitalised words, made every start read to the end: 11 s for 16 KB).
_NAME = (
    r"(?<![\w.+#-])[A-Za-z][\w.+#-]*[\w+#]"
    r"(?:\s+(?:[A-Z][\w.+#-]*[\w+#]|v?\d[\w.]*\d|v?\d)){0,5}"
)
_PHRASE = r"[^,;:.!?]{1,60}?"
# A past change: the sentence reports a move that was made.
_DONE_EN = re.compile(
    r"\b(?:moved|migrated|switched|upgraded|transferred|changed|ported|shifted|handed|swapped|"
    r"converted|replaced|went|bumped|updated)\b",
    re.I,
)
_END_EN = r"(?=\s+(?:for|in|last|this|after|on|at|since|because|so|and|as|during|with)\b|$)"
_FROM_EN = re.compile(
    rf"\b(?:from|off)\s+(?P<old>{_PHRASE})\s+(?:to|onto|into|for)\s+(?P<new>{_PHRASE}){_END_EN}",
    re.I,
)
_RETIRED_EN = re.compile(
    rf"(?P<old>{_NAME})\s+(?:is|are|was|were|has been|have been|got)\s+(?:now\s+)?"
    r"(?P<how>deprecated|retired|decommissioned|sunset|removed|shut down|turned off|dropped|"
    rf"replaced\s+(?:by|with)\s+(?P<new>{_NAME}))"
)
_REPLACED_EN = re.compile(rf"\breplaced\s+(?P<old>{_NAME})\s+with\s+(?P<new>{_NAME})")
_NO_LONGER_EN = re.compile(
    rf"(?:^|\b(?:[Ww]e|[Tt]hey)\s+)(?P<old>{_NAME})\s+(?:is|are)\s+no\s+longer\b"
    rf"|\bno\s+longer\s+(?:\w+\s+){{0,3}}?(?:in|on|with|by|through|to)\s+(?P<old2>{_NAME})"
    rf"|\bstopped\s+(?:\w+\s+){{0,4}}?(?:in|on|with|by|through|to)\s+(?P<old3>{_NAME})"
)
_HANDED_EN = re.compile(
    rf"^(?P<old>{_PHRASE})\s+(?:handed|passed|gave)\s+(?P<thing>{_PHRASE})\s+(?:over\s+)?to\s+"
    rf"(?P<new>{_PHRASE}){_END_EN}",
    re.I,
)
_VERSIONED = re.compile(
    r"(?<![\w.+#-])(?P<name>[A-Za-z][\w.+#-]*)\s+v?(?P<ver>\d+(?:\.\d+){0,3})\b"
)
_UPGRADE_EN = re.compile(r"\b(?:upgraded|bumped|updated|upgrade)\b", re.I)

_ZH_PHRASE = r"[^，。；、,;:：!?！？]{1,40}?"
_ZH_END = r"(?=了|[，。；、,;:：!?！？]|$)"
_ZH_MOVE = (
    r"(?:遷移|迁移|搬遷|搬迁|切換|切换|升級|升级|移交|轉移|转移|換成|换成|換到|换到|改成|改到|"
    r"遷|迁|搬|移|換|换|轉|转)"
)
_FROM_ZH = re.compile(
    rf"[從从]\s*(?P<old>{_ZH_PHRASE})\s*{_ZH_MOVE}(?:到|至|成|為|为|給|给)?\s*(?P<new>{_ZH_PHRASE})"
    rf"{_ZH_END}"
)
_LATIN = r"(?<![\w.+#-])[A-Za-z][\w.+#-]*(?:\s+[A-Za-z0-9][\w.+#-]*){0,5}"  # as _NAME
_REPLACED_ZH = re.compile(
    rf"[由被]\s*(?P<new>{_LATIN})\s*(?:所)?取代\s*(?P<old>{_LATIN})?"
    rf"|改用\s*(?P<new2>{_LATIN})\s*[，,]?\s*取代\s*(?P<old2>{_LATIN})"
)
_REPLACED_BEFORE_ZH = re.compile(rf"(?P<old>{_LATIN})\s*已?(?:經|经)?被\s*(?P<new>{_LATIN})\s*取代")
_RETIRED_ZH = re.compile(
    rf"(?P<old>{_LATIN})\s*已?(?:經|经)?(?:停用|下線|下线|淘汰|棄用|弃用|廢棄|废弃|退役|移除)"
    rf"|(?:不再|停止)[\u4e00-\u9fff]{{0,3}}?\s*(?P<old2>{_LATIN})"
)
_HANDED_ZH = re.compile(
    rf"^(?P<old>{_ZH_PHRASE})\s*已?(?:經|经)?把\s*(?P<thing>{_ZH_PHRASE})\s*"
    rf"(?:移交|交接|轉交|转交|交)[給给]\s*(?P<new>{_ZH_PHRASE}){_ZH_END}"
)
_UPGRADE_ZH = re.compile(rf"已[^，。；]{{0,6}}?升[級级](?:到|至)\s*(?P<new>{_LATIN}\s*\d[\d.]*)")

_PLAN = re.compile(
    r"\b(?:will|plan|plans|planned|planning|going to|evaluating|considering|propose|proposed|"
    r"proposal|next (?:week|month|quarter|sprint|year)|in q[1-4]|no decision|soon|should we)\b"
    r"|將會|将会|預計|预计|計劃|计划|打算|準備|准备|評估|评估|考慮|考虑|還沒|还没|下一?季|第.季|明年",
    re.I,
)
_HISTORY = re.compile(
    r"\b(?:until|before \d{4}|in \d{4}|back in|used to|previously|formerly|originally)\b"
    r"|以前|之前|當時|当时|曾經|曾经|\d{4}\s*年",
    re.I,
)
_NEGATED = re.compile(
    r"\b(?:never|not|don't|do not|no longer|stop|stopped|avoid|instead of|deprecated|retired)\b"
    r"|不要|不再|別|别|禁止|停用|下線|下线|取代|淘汰",
    re.I,
)

_OWNER = re.compile(r"\b(?:team|squad|group)\b|團隊|团队|小組|小组", re.I)
_WORD = re.compile(r"[a-z0-9][a-z0-9.+#-]*[a-z0-9+#]|[a-z0-9]")
_CJK = re.compile(r"[\u4e00-\u9fff]+")
# Words that say nothing of what moved: function words, change and ownership words, the
# generic verbs a statement of use is written with, and when it happened.
_GENERIC = word_set(
    "a an the is are was were be been has have had it its this that these those we our us "
    "they their them you your of in on at for by with and or to from off onto into as now "
    "no longer instead still all also then so which who there "
    "use used using uses run runs running ran live lives stored store stores kept keep keeps "
    "send sent sends go goes went handle handled handles manage managed manages do does done "
    "host hosted hosts put moved move migrated migrate switched switch upgraded upgrade "
    "replaced replace retired deprecated decommissioned transferred transfer handed over "
    "passed changed ported swapped converted shifted bumped updated stopped ownership owner "
    "owned owns own last week month sprint year quarter ago yesterday today recently after "
    "upgrade team"
)
# Chinese characters that are glue, markers of the change or generic verbs; a subject is the
# character pairs of what remains between them.
_ZH_DROP = frozenset(
    "的了在是由用和與与把被將将給给要就都也已經经從从到至成為为改存放跑上裡里中使換换遷迁移搬"
    "轉转切升級级交接停止再不下線线取代棄弃廢废退役除我們们這这個个迭代月週周年季昨今去所"
)


@dataclass(frozen=True)
class Change:
    old: str  # what was retired, as written
    new: str  # what replaced it, "" when not named
    subject: frozenset[str]  # content words of what moved
    cjk_subject: frozenset[str]  # character pairs of what moved (Chinese)
    verb: str  # moved, retired, replaced, upgraded, handed over


def _stem(word: str) -> str:
    """ "logging" and "log", "scheduled" and "schedule", "releases" and "release" are one."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            word = word[: -len(suffix)]
            break
    if word.endswith("ment") and len(word) >= 8:
        word = word[:-4]  # "deployments" are what "deployed" does
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "ls":
        word = word[:-1]
    return word.rstrip("e") or word


_GENERIC_STEMS = frozenset(_stem(w) for w in _GENERIC) | _GENERIC


@functools.lru_cache(maxsize=65536)
def _latin_words(text: str) -> frozenset[str]:
    stems = {_stem(w) for w in _WORD.findall(text.lower()) if w not in lx.MONTHS}
    return frozenset(stems - _GENERIC_STEMS)


@functools.lru_cache(maxsize=65536)
def _cjk_pairs(text: str) -> frozenset[str]:
    out: set[str] = set()
    for run in _CJK.findall(text):
        for part in re.split(f"[{''.join(_ZH_DROP)}]+", run):
            out |= {part[i : i + 2] for i in range(len(part) - 1)}
    return frozenset(out)


def _subject(clause: str, *names: str) -> tuple[frozenset[str], frozenset[str]]:
    rest = clause
    for name in names:
        if name:
            rest = rest.replace(name, " ")
    return _latin_words(rest), _cjk_pairs(rest)


def _clean(phrase: str | None) -> str:
    """A phrase as the reason quotes it: "the checkout team", "Unleash" (not "Unleash 了")."""
    text = (phrase or "").strip().removesuffix("了").strip()
    return re.sub(r"^The\b", "the", text)


def _english(sentence: str) -> list[Change]:
    out: list[Change] = []
    for part in re.split(r"[;:]\s*|,\s+(?=(?:but|and|so|they|we|it)\b)", sentence):
        clause = part.strip().rstrip(".!?")
        m = _HANDED_EN.search(clause)
        if m:
            old, new = _clean(m["old"]), _clean(m["new"])
            out.append(Change(old, new, *_subject(m["thing"]), "handed over"))
            continue
        m = _FROM_EN.search(clause)
        if m and _DONE_EN.search(clause):
            old, new = _clean(m["old"]), _clean(m["new"])
            verb = "upgraded" if _UPGRADE_EN.search(clause) else "moved"
            out.append(Change(old, new, *_subject(clause, m.group(0)), verb))
            continue
        m = _RETIRED_EN.search(clause) or _REPLACED_EN.search(clause)
        if m:
            old, new = m["old"], m["new"] or ""
            how = "replaced" if new else m.groupdict().get("how") or "retired"
            out.append(Change(old, new, *_subject(clause, old, new), how))
            continue
        m = _NO_LONGER_EN.search(clause)
        if m:
            old = m["old"] or m["old2"] or m["old3"]
            out.append(Change(old, "", *_subject(clause, old), "stopped using"))
            continue
        if re.search(r"\b(?:upgraded|bumped|updated)\b|\bnow on\b.*\bupgrade\b", clause, re.I):
            for v in _VERSIONED.finditer(clause):
                out.append(Change(v["name"], v.group(0), *_subject(clause, v.group(0)), "upgraded"))
    return out


def _chinese(sentence: str) -> list[Change]:
    out: list[Change] = []
    for clause in re.split(r"[，。；,;]", sentence):
        m = _HANDED_ZH.search(clause)
        if m:
            out.append(
                Change(_clean(m["old"]), _clean(m["new"]), *_subject(m["thing"]), "handed over")
            )
            continue
        m = _FROM_ZH.search(clause)
        if m:
            old, new = _clean(m["old"]), _clean(m["new"])
            verb = "upgraded" if re.search("升[級级]", clause) else "moved"
            out.append(Change(old, new, *_subject(clause, m.group(0)), verb))
            continue
        m = _REPLACED_BEFORE_ZH.search(clause)
        if m:
            out.append(
                Change(m["old"], m["new"], *_subject(clause, m["old"], m["new"]), "replaced")
            )
            continue
        m = _REPLACED_ZH.search(sentence)  # "改用 Redoc，取代 Swagger UI" spans a comma
        if m and (m["old"] or m["old2"]) and (m["new"] or m["new2"]) in clause:
            old, new = m["old"] or m["old2"], m["new"] or m["new2"]
            out.append(Change(old, new, *_subject(clause, old, new, "取代"), "replaced"))
            continue
        m = _RETIRED_ZH.search(clause)
        if m:
            old = m["old"] or m["old2"]
            how = "retired" if m["old"] else "stopped using"
            out.append(Change(old, "", *_subject(clause, old), how))
            continue
        m = _UPGRADE_ZH.search(clause)
        if m:
            name = re.match(r"[A-Za-z][\w.+#-]*", m["new"])
            out.append(
                Change(
                    name.group(0) if name else "", m["new"], *_subject(clause, m["new"]), "upgraded"
                )
            )
    return out


@functools.lru_cache(maxsize=65536)
def changes(text: str) -> tuple[Change, ...]:
    """The changes a text reports as done: no plan, no history."""
    out: list[Change] = []
    for sentence in sentences(text):
        if _PLAN.search(sentence) or _HISTORY.search(sentence):
            continue
        found = _chinese(sentence) if _CJK.search(sentence) else _english(sentence)
        out += [c for c in found if c.old]
    return tuple(out)


def _states(name: str, text: str) -> bool:
    """`text` names `name`: every word of it (or, in Chinese, the phrase itself)."""
    if _CJK.search(name):
        return name.replace(" ", "") in text.replace(" ", "")
    words = _latin_words(name)
    return bool(words) and words <= _latin_words(text)


def _versions(text: str) -> set[str]:
    return {m["ver"] for m in _VERSIONED.finditer(text)}


def _stated_version(change: Change, text: str) -> str:
    """For an upgrade to `Kubernetes 1.29`: the other version of Kubernetes `text` states."""
    new = _VERSIONED.search(change.new)
    if new is None:
        return ""
    for m in _VERSIONED.finditer(text):
        same_name = m["name"].lower() == new["name"].lower()
        if same_name and m["ver"] != new["ver"] and new["ver"] not in _versions(text):
            return m.group(0)
    return ""


def _about_same_subject(change: Change, other: str) -> bool:
    latin, cjk = _latin_words(other), _cjk_pairs(other)
    if not change.subject <= latin:
        return False
    return not change.cjk_subject or 2 * len(change.cjk_subject & cjk) >= len(change.cjk_subject)


def retired(a: str, b: str) -> str:
    """`a` reports a change that retires what `b` still states: the reason, or ""."""
    found = changes(a)
    if not found:
        return ""
    for sentence in sentences(b):
        if changes(sentence):
            continue  # two updates: each is checked as the update
        for change in found:
            if change.verb == "upgraded" and _VERSIONED.search(change.new):
                old = _stated_version(change, sentence)
            else:
                old = change.old if _states(change.old, sentence) else ""
            if not old or _NEGATED.search(sentence):
                continue
            if change.new and _states(change.new, sentence):
                continue
            if _about_same_subject(change, sentence):
                return _reason(change, old)
    return ""


def _reason(change: Change, old: str) -> str:
    """One line: what was retired, what replaced it, and what the other atom still says."""
    says = "says" if change.verb in ("upgraded", "handed over") or _OWNER.search(old) else "uses"
    still = f"the other still {says} {old}"
    if change.verb == "upgraded":
        return f"upgraded to {change.new}: {still}"
    if change.verb == "replaced":
        return f"replaced {change.old} with {change.new}: {still}"
    if change.new:
        return f"{change.verb} from {change.old} to {change.new}: {still}"
    return f"{change.verb} {change.old}: {still}"
