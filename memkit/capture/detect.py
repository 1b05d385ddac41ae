"""L0: rules that find a decision, convention, preference, pitfall or correction in what the user
types, English and Chinese, scored 0-1, in well under 5 ms a prompt and without a model.

A sentence scores by its strongest signal ("from now on", "we use X", "never", "記住",
"以後", "一律", "不要再", "統一用", "no, it's X not Y", "careful: …"), a little more for each
other kind of signal and for concrete values (names, paths, versions, numbers), and loses for
what makes it something else: a question, a one-off request ("fix this", "幫我…"), a
hypothetical ("what if we always…"), reported speech ("he said never…"), an emotional remark
("I'll never get this right", "我永遠學不會") or a moment ("for now", "這次"). A prompt scores as
its best sentence; the candidate's statement is that sentence (and any other that also
scores). The rules were written and tuned on `benchmarks/data/capture_*.jsonl`; the held-out
sets measure them (docs/benchmarks.md).

Standard library only: every UserPromptSubmit hook runs this.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_CHARS = 4_000  # of prose looked at per prompt: a pasted log or file is not a decision
MAX_SENTENCE = 400  # longer "sentences" are pasted text
MAX_SENTENCES = 40
MAX_TRIGGERS = 5

# Kinds of what is worth keeping, and the atom type each proposes.
TYPE_OF = {
    "decision": "decision",
    "convention": "decision",
    "preference": "preference",
    "pitfall": "pitfall",
    "correction": "fact",
}


_LITERAL = re.compile(r"[^\\.^$*+?{}\[\]()]+")


class _Lazy:
    """A pattern compiled when first used. A hook process pays for every pattern it compiles
    before it answers, and most prompts need few of them: an English prompt no Chinese one, a
    sentence without any signal no penalty. A Chinese pattern that only lists words is matched
    without a regex at all."""

    __slots__ = ("cjk", "compiled", "flags", "pattern", "words")

    def __init__(self, pattern: str, flags: int = 0, *, cjk: bool = False) -> None:
        self.pattern, self.flags, self.cjk = pattern, flags, cjk
        self.compiled: re.Pattern[str] | None = None
        literal = cjk and _LITERAL.fullmatch(pattern) is not None
        self.words = tuple(pattern.split("|")) if literal else None

    def get(self) -> re.Pattern[str]:
        if self.compiled is None:
            self.compiled = re.compile(self.pattern, self.flags)
        return self.compiled

    def find(self, text: str) -> str | None:
        """The text the pattern matches in `text`, or None."""
        if self.words is not None:
            return next((w for w in self.words if w in text), None)
        m = self.get().search(text)
        return m.group(0) if m is not None else None


def _en(pattern: str) -> _Lazy:
    return _Lazy(pattern, re.I)


def _zh(pattern: str) -> _Lazy:
    return _Lazy(pattern, cjk=True)


Rules = tuple[tuple[str, float, _Lazy], ...]  # (kind or name, weight, pattern)


# (kind, weight, pattern): a sentence's signals, strongest first within each kind.
_SIGNALS: Rules = (
    # Decisions: about the future, or settled by the team.
    (
        "decision",
        0.75,
        _en(
            r"\b(?:from now on|going forward|moving forward|henceforth|from (?:today|here|this "
            r"point|now) on|for the future|in future)\b"
        ),
    ),
    (
        "decision",
        0.7,
        _en(
            r"\bwe(?:'ve| have)? (?:decided|agreed)\b|\blet'?s (?:make it official|"
            r"standardi[sz]e|go with|stick (?:with|to))\b|\bwe(?:'re| are) (?:standardi[sz]ing|"
            r"moving (?:everything |all \w+ )?to|switching to|migrating to)\b|\bwe (?:switched|"
            r"moved|migrated)\b[^.]{0,40}\bto\b|\bwe no longer\b|\bmake it a rule\b|\bfor the "
            r"record\b|\bstandardi[sz]e on\b"
        ),
    ),
    ("decision", 0.45, _en(r"\banymore\b|\bno longer\b")),
    (
        "decision",
        0.75,
        _zh(r"從現在開始|从现在开始|從現在起|从现在起|從今天起|从今天起|今後|今后|往後|以後|以后"),
    ),
    (
        "decision",
        0.7,
        _zh(
            r"決定|决定|說好了|说好了|就這麼定了|就这么定了|(?<!搞)定了|全面改用|改用|換成了|换成了|"
            r"不再支持|不再用|不再"
        ),
    ),
    # Conventions: how the team does things.
    (
        "convention",
        0.7,
        _en(
            r"\b(?:our|the|team|house|project|repo) (?:convention|standard|policy|rule|default)\b"
            r"|\bthe rule is\b|\brule of thumb\b|\bby convention\b|\bteam standard\b"
            r"|\b(?:don'?t|do not) ever\b|\bnever ever\b"
        ),
    ),
    ("convention", 0.6, _en(r"\b(?:always|never)\b(?! mind)")),
    (
        "convention",
        0.55,
        _en(
            r"^avoid\b|^no more\b|\b(?:don'?t|do not|never|stop|avoid|no more)\s+(?:using|use|run|"
            r"running|touch|commit|call|create|log|store|put|add|adding|hard-?code|push|merge|deploy|"
            r"rotate|remove|delete|write|ship)\b"
        ),
    ),
    (
        "convention",
        0.5,
        _en(
            r"\bwe (?:use|name|store|write|run|deploy|ship|keep|put|prefix|tag|follow|format|pin|"
            r"release)\b|\b(?:must|mustn'?t|must not|is not allowed|are not allowed|have to be)\b"
            r"|\bshould (?:always|never)\b|\binstead of\b"
        ),
    ),
    (
        "convention",
        0.4,
        _en(
            r"\b(?:all|every|each) [\w-]+(?: [\w-]+){0,3} (?:must|should|need|needs|go|goes|come|"
            r"comes|get|gets|use|are|is)\b|\b(?:is|are) (?:stored|kept|written|named|shown|"
            r"formatted|documented|deployed|called|served|run|pinned)\b|\b(?:go|goes) (?:in|into|"
            r"to|through)\b|\bonly\b|\bstandard\b|\bpolicy\b"
        ),
    ),
    ("convention", 0.45, _en(r"^(?:please )?(?:use|store|keep|put|name|follow|pin|prefix)\b")),
    ("convention", 0.35, _en(r"\bin this (?:project|repo(?:sitory)?|codebase|team|company)\b")),
    (
        "convention",
        0.65,
        _zh(
            r"一律|統一|统一|不要再|別再|别再|禁止|不准|不許|不许|絕對|绝对|千萬|千万|永遠不要|"
            r"永远不要|規定|规定|約定|约定|規範|规范|規矩|规矩|慣例|惯例|標準|标准"
        ),
    ),
    (
        "convention",
        0.5,
        _zh(r"必須|必须|一定要|務必|务必|只能|只寫|只写|都要|都用|不能|命名規則|命名规则|固定用"),
    ),
    ("convention", 0.5, _zh(r"[^\s，,。！？]{2}不要")),
    ("convention", 0.4, _zh(r"默认|默認|預設")),
    ("convention", 0.35, _zh(r"不要|這個專案|这个项目|這個倉庫|这个仓库|這個代碼庫|这个代码库")),
    # Preferences: the user's own.
    (
        "preference",
        0.55,
        _en(
            r"\bI(?:'d| would)? (?:prefer|rather|like you to)\b|\bI (?:like|want)\b|\bprefer\b"
            r"|\brather than\b"
        ),
    ),
    (
        "preference",
        0.55,
        _zh(
            r"我(?:都|也|一直|總是|总是)?(?:比較|比较|更)?(?:喜歡|喜欢|偏好|習慣|习惯|希望)|比起|偏好"
        ),
    ),
    # Pitfalls: what breaks, and what to keep in mind.
    (
        "pitfall",
        0.6,
        _en(
            r"\b(?:heads[- ]up|careful|watch out|beware|gotcha|pitfall|caveat|keep in mind|note "
            r"that|don'?t forget|remember(?! when)|keep that in mind)\b"
        ),
    ),
    (
        "pitfall",
        0.4,
        _en(
            r"\b(?:breaks?|fails?|crash(?:es)?|hangs?|times? out|drops?|deletes?|wipe[sd]?|gets? "
            r"(?:\w+ )?killed|silently|otherwise|idempotent|twice)\b"
        ),
    ),
    (
        "pitfall",
        0.6,
        _zh(r"注意|小心|踩坑|這個坑|这个坑|是個坑|是个坑|記住|记住|記得|记得|別忘了|别忘了|提醒"),
    ),
    (
        "pitfall",
        0.4,
        _zh(
            r"會掛|会挂|就會|就会|會失敗|会失败|失效|丟掉|丢掉|清空|刪掉|删掉|斷線|断线|超時|超时|"
            r"找不回|誤判|误判|會被|会被|重複|重复"
        ),
    ),
    # Corrections: "no, it's X, not Y".
    (
        "correction",
        0.6,
        _en(
            r"^(?:no(?! more\b)|nope|actually|correction|quick correction|that'?s wrong|wrong|"
            r"not quite)\b"
        ),
    ),
    ("correction", 0.5, _en(r",? not (?:in |the |a |an )?(?:`[^`]+`|[\w./<>-]+)[.!]?$")),
    ("correction", 0.6, _zh(r"^(?:不對|不对|說錯了|说错了|更正)|更正")),
    (
        "correction",
        0.5,
        _zh(
            r"不是[^，,。]{1,40}[，,]\s*(?:是|而是)"
            r"|[，,]\s*不是\s*(?:`[^`]+`|[^，,。\s]{1,30})[。.]?$"
        ),
    ),
)

# (name, penalty, pattern): what makes a sentence something other than a rule.
_PENALTIES: Rules = (
    ("question", 0.55, _Lazy(r"[?？]\s*$")),
    (
        "question",
        0.45,
        _en(
            # "so how do we deploy to production": a question without its "?", after a filler.
            r"^(?:(?:ok(?:ay)?|so|and|but|also|hey|hi|btw|well|then|now|quick question|one more "
            r"thing)[,:]?\s+)*(?:what|why|how|where|which|who|is|are|do|does|did|can|could|"
            r"would|will|should|shall|has|have)\b|^when\b(?![^,]*,)|[,;:]\s*(?:what|why|how|"
            r"where|which|who)\s+(?:do|does|did|is|are|can|should|would|will)\b"
        ),
    ),
    (
        "question",
        0.45,
        _zh(
            r"什麼|什么|為什麼|为什么|怎麼|怎么|如何|哪裡|哪里|哪個|哪个|是不是|能不能|可不可以|"
            r"有沒有|有没有|多久|會不會|会不会"
        ),
    ),
    ("question", 0.45, _zh(r"[嗎吗呢][\s。.!！]*$")),
    (
        "request",
        0.3,
        _en(
            r"^(?:please |ok,? |now,? |then,? )?(?:fix|add|refactor|rename|run|show|explain|"
            r"delete|make|generate|create|implement|move|install|check|find|list|print|open|undo|"
            r"revert|bump|summari[sz]e|translate|compare|format|convert|try|look|give|help|update|"
            r"remove|change|set|tell|review|test|build|debug|investigate|clean|let'?s see)\b"
        ),
    ),
    (
        "request",
        0.3,
        _zh(
            r"^把|^(?:跑|看|寫|写|加|刪|删|找|列|印|打開|打开|撤銷|撤销|修|解釋|解释|總結|总结|翻譯|"
            r"翻译|安裝|安装|實作|实作|檢查|检查|生成|比較|比较|再|只在|在|為|为)"
        ),
    ),
    ("request", 0.3, _zh(r"幫我|帮我|給我|给我|請幫|请帮|幫忙|帮忙")),
    (
        "moment",
        0.4,
        _en(
            r"\b(?:for now|this time|just (?:in|for) this|for this (?:test|run|experiment|once|"
            r"one|function|file|change|pr)|temporarily|right now|just this once)\b"
        ),
    ),
    (
        "deictic",
        0.2,
        _en(r"\b(?:here|this|these)\b(?! (?:project|repo|repository|codebase|team|company))"),
    ),
    ("deictic", 0.2, _zh(r"這裡|这里|這個(?!專案|倉庫|代碼庫)|这个(?!项目|仓库|代码库)|這段|这段")),
    ("moment", 0.4, _zh(r"這次|这次|先試|先试|暫時|暂时|只在這|只在这|今天先|先別|先别")),
    (
        "emotional",
        0.6,
        _en(
            r"\bI(?:'ll| will|'m| am)? (?:never|always) (?:get|understand|finish|learn|remember|"
            r"figure|mess|screw|forget|make it|going to)\b|\bI can never\b|\bI keep (?:forgetting|"
            r"breaking|messing|getting)\b|\b(?:ugh|argh|damn|lol|haha|hate|frustrat\w*|annoying|"
            r"tired of|my brain|give up|oh no|my bad|why would anyone|weird|strange)\b"
        ),
    ),
    (
        "emotional",
        0.6,
        _zh(
            r"學不會|学不会|做不完|搞砸|煩|烦|討厭|讨厌|受不了|頭好痛|头好痛|唉|糟了|哈哈|笑死|"
            r"放棄|放弃|我的錯|我的错|老是|好慢|記不住|记不住"
        ),
    ),
    (
        "hypothetical",
        0.45,
        _en(
            r"\b(?:what if|I wonder|wonder whether|maybe|might|not sure|would happen|what would|"
            r"perhaps|should we)\b"
        ),
    ),
    (
        "hypothetical",
        0.45,
        _zh(r"如果.{0,30}(?:會|会).{0,6}(?:怎|發生|发生)"),
    ),
    (
        "hypothetical",
        0.45,
        _zh(r"我在想|不太確定|不太确定|也許|也许|或許|或许|看看會|看看会|會怎樣|会怎样"),
    ),
    (
        "reported",
        0.5,
        _en(
            r"\b(?:he|she|they|someone|somebody) (?:said|says|told|tells)\b"
            r"|\b[A-Z][a-z]+ (?:said|says|told (?:us|me)|thinks|mentioned)\b"  # "Dana said"
        ),
    ),
    (
        "reported",
        0.5,
        _zh(
            r"(?:他|她|他們|他们|有人)(?:說|说|叫我|講|讲)|聽說|听说"
            # "小王說千萬不要…": someone else's word, not the user's (not 我說).
            r"|(?:^|[，,。])(?!我)[\u4e00-\u9fff]{1,3}(?:說|说|講|讲)(?!好|明|過|过|清楚|一下)"
        ),
    ),
    (
        "narrative",
        0.5,
        _en(
            r"\bremember when\b|\bI never thought\b|\bdid it\b|\bwho (?:wrote|did)\b|\b(?:never|"
            r"always) (?:got|had|was|were|did|thought|knew|saw|went|came|made|took|found|\w+ed)\b"
        ),
    ),
    ("narrative", 0.5, _zh(r"還記得|还记得|沒想到|没想到")),
)

_CONCRETE = _Lazy(
    r"`[^`]+`|\b\d+(?:\.\d+)*\s*(?:%|ms|s|kb|mb|gb|gi|mi|px|am|pm|minutes?|seconds?|hours?|"
    r"days?|lines?|requests?)?\b|[\w-]+[./][\w./-]+|\b[A-Z][a-z]+[A-Z]\w*|\b[A-Z]{2,}\w*|"
    r"\b[A-Z][a-z]{2,}\b|[a-z]+_[a-z_]+"
)
# A report of one event: past tense, or a moment in time ("last night", "昨晚").
_INCIDENT = _Lazy(
    r"\b(?:\w{3,}ed|broke|went|ran|took|lost|hung|got|was|were|this morning|last (?:night|week))"
    r"\b|昨晚|昨天|前天|今早|今天早上|上週|上周|剛剛|刚刚|剛才|刚才|這週|这周",
    re.I,
)
# What makes it a rule after all: a condition, an instruction, a need.
_RULE = _Lazy(
    r"\b(?:if|when|whenever|unless|always|never|must|should|need|needs|make sure|don'?t|do not|"
    r"every time|each time)\b|如果|只要|每次|一定|必須|必须|不要|記得|记得",
    re.I,
)
# "X, not Y" / "是 X，不是 Y": the correction names the value it replaces.
_CONTRAST = _Lazy(
    r"[,;]\s*not\b|\bnot \S+[.!]?$|\binstead of\b"
    r"|[，,]\s*不是|不是.{1,30}[，,]\s*(?:是|而是)|而不是|而非",
    re.I,
)
_TEAM = _Lazy(r"\b(?:we|our|us|team|everyone|all|every)\b|我們|我们|團隊|团队|大家|所有", re.I)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_CODE_LINE = re.compile(
    r"^(?:\s{4}|\t|\s*(?:>|\$ |#!|Traceback|File \"|at [\w.$]+\(|\d{4}-\d\d-\d\d[ T]\d\d:))"
)
_SPLIT = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")
_FILLER = _Lazy(
    r"^(?:ok(?:ay)?|so|also|and|btw|by the way|hey|hi|oh|well|alright|right|one more thing)"
    r"\b[,:;]?\s*",
    re.I,
)


@dataclass(frozen=True)
class Detection:
    """What L0 found in a prompt: the best score, its kind, and the sentence(s) that say it."""

    score: float
    kind: str
    statement: str
    why: str
    triggers: tuple[str, ...] = ()

    @property
    def type(self) -> str:
        return TYPE_OF.get(self.kind, "fact")

    @property
    def scope(self) -> str:
        """A preference in the first person is the user's own; the rest is the team's."""
        if self.kind == "preference" and not _TEAM.get().search(self.statement):
            return "personal"
        return "shared"


def sentences(text: str) -> list[str]:
    """The prose sentences of a prompt: code blocks, indented code, quotes and log lines out."""
    text = _FENCE.sub("\n", text[: MAX_CHARS * 2])
    prose = "\n".join(line for line in text.split("\n") if not _CODE_LINE.match(line))
    out: list[str] = []
    used = 0
    for raw in _SPLIT.split(prose):
        part = raw.strip()
        if not part or len(part) > MAX_SENTENCE:
            continue
        out.append(part)
        used += len(part)
        if used >= MAX_CHARS or len(out) >= MAX_SENTENCES:
            break
    return out


def strongest(sentence: str, signals: Rules) -> list[tuple[str, tuple[float, str]]]:
    """Each kind's strongest signal found in `sentence` (its weight, the words matched),
    strongest first. Chinese patterns are tried only on a sentence with Chinese in it, the
    others only on one with Latin letters."""
    best: dict[str, tuple[float, str]] = {}
    has_cjk = _CJK.search(sentence) is not None
    has_latin = _LATIN.search(sentence) is not None
    for kind, weight, pattern in signals:
        if not (has_cjk if pattern.cjk else has_latin):
            continue
        if weight <= best.get(kind, (0.0, ""))[0]:
            continue
        found = pattern.find(sentence)
        if found is not None:
            best[kind] = (weight, found.strip(" ,"))
    return sorted(best.items(), key=lambda kv: -kv[1][0])


def penalties_in(sentence: str, penalties: Rules) -> dict[str, float]:
    """Each kind of penalty `sentence` takes (the largest of its patterns that match)."""
    has_cjk = _CJK.search(sentence) is not None
    taken: dict[str, float] = {}
    for name, penalty, pattern in penalties:
        if pattern.cjk and not has_cjk:
            continue
        if penalty > taken.get(name, 0.0) and pattern.find(sentence) is not None:
            taken[name] = penalty
    return taken


def score_sentence(sentence: str) -> tuple[float, str, str]:
    """(score, kind, why) of one sentence."""
    ranked = strongest(sentence, _SIGNALS)
    if not ranked:
        return 0.0, "", ""
    kind, (top, word) = ranked[0]
    # "Careful: … never …", "注意：…不要…": a sentence that opens with a warning is a pitfall,
    # whatever rule it then gives.
    lead = next((m for k, (w, m) in ranked if k == "pitfall" and w == top), "")
    if lead and kind != "pitfall" and sentence.lower().startswith(lead.lower()):
        kind, word = "pitfall", lead
    others = [w for k, (w, _) in ranked if w >= 0.35 and k != kind]
    score = top + 0.15 * min(2, len(others))
    why = [f"'{word}' ({kind})", *(f"'{m}'" for k, (_, m) in ranked if k != kind)][:3]
    concrete = _CONCRETE.get().search(sentence[1:] if not _CJK.search(sentence[:1]) else sentence)
    if concrete:
        score += 0.1
    if _TEAM.get().search(sentence):
        score += 0.05
    taken = penalties_in(sentence, _PENALTIES)
    # A request or a "this" with a strong signal in it ("please always use type hints here")
    # is still a rule.
    if top >= 0.6:
        taken.pop("request", None)
    if top >= 0.5:
        taken.pop("deictic", None)
    if kind == "pitfall" and top < 0.5 and _INCIDENT.find(sentence) and not _RULE.find(sentence):
        # "The webhook handler charged a customer twice.": what happened once, not a lesson.
        taken["incident"] = 0.3
    if kind == "correction" and not concrete and not _CONTRAST.find(sentence):
        # "no, that's not a rule, just this one": a correction with nothing to keep.
        taken["nothing concrete"] = 0.3
    if taken:
        score -= min(1.0, sum(taken.values()))
        why.append("less for " + ", ".join(sorted(taken)))
    return max(0.0, min(0.99, round(score, 3))), kind, "; ".join(why)


def detect(text: str, *, floor: float = 0.5) -> Detection | None:
    """The best of `detect_all`: the strongest statement of `text`, or None."""
    found = detect_all(text, floor=floor)
    return max(found, key=lambda d: d.score) if found else None


def detect_all(text: str, *, floor: float = 0.5) -> list[Detection]:
    """What `text` (already free of `<private>` text) states, one Detection per kind of
    statement, best first; [] when nothing in it scores at all. The sentences scoring at
    least `floor` are grouped by the type and scope they propose: "No, staging runs Postgres
    15, not 14. Also I prefer short answers." is a correction for the team and a preference of
    the user's own, two candidates, not one shared fact (issue 43). When no sentence reaches
    `floor`, the best one alone (it is counted as dropped)."""
    scored = [(s, *score_sentence(s)) for s in sentences(text)]
    scored = [x for x in scored if x[1] > 0]
    if not scored:
        return []
    kept = [x for x in scored if x[1] >= floor][:3] or [max(scored, key=lambda x: x[1])]
    groups: dict[tuple[str, str], list[tuple[str, float, str, str]]] = {}
    for sentence, score, kind, why in kept:
        scope = Detection(score, kind, sentence, why).scope
        groups.setdefault((TYPE_OF.get(kind, "fact"), scope), []).append(
            (sentence, score, kind, why)
        )
    out = []
    for group in groups.values():
        best = max(group, key=lambda x: x[1])
        statement = " ".join(_clean(x[0]) for x in group)
        out.append(Detection(best[1], best[2], statement, best[3], triggers_of(statement)))
    return sorted(out, key=lambda d: -d.score)


def _clean(sentence: str) -> str:
    sentence = _FILLER.get().sub("", sentence.strip()).strip()
    if sentence and sentence[0].isascii() and sentence[0].isalpha():
        sentence = sentence[0].upper() + sentence[1:]
    if sentence and sentence[-1] not in ".!?。！？」)`":
        sentence += "。" if _CJK.search(sentence[-1]) else "."
    return sentence


_TERM = _Lazy(
    r"`([^`]{3,40})`|((?:[A-Z][\w+#-]*)(?: [A-Z][\w+#-]*)*)|([\w-]+(?:[./][\w-]+)+/?|[a-z]+_[\w]+)"
)
_STOP = frozenset(
    (
        *("the", "and", "for", "not", "never", "always", "all", "any", "this", "that", "with"),
        *("from", "now", "use", "using", "are", "our", "we", "you", "please", "don't", "dont"),
        *("remember", "note", "careful"),
    )
)


def triggers_of(statement: str) -> tuple[str, ...]:
    """Terms a proposed atom could be recalled by: code spans, names (Argo CD, PostgreSQL),
    paths and file names; none a stop word or shorter than three characters."""
    out: list[str] = []
    for m in _TERM.get().finditer(statement):
        starts = m.start() == 0 or statement[m.start() - 2 : m.start()] in (". ", ": ")
        if m.group(2) is not None and starts:
            continue  # a capital that only starts a sentence
        term = (m.group(1) or m.group(2) or m.group(3) or "").strip().lower().rstrip("./")
        if len(term) < 3 or term in _STOP or term.replace(".", "").isdigit() or term in out:
            continue
        out.append(term)
        if len(out) >= MAX_TRIGGERS:
            break
    return tuple(out)
