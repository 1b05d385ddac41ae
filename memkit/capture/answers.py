"""L0 for what the agent says: decisions, conventions and root causes stated in Claude's
answers, English and Chinese, scored 0-1 without a model; and what in the user's next prompt
disputes them, and which of the answer's sentences leave work open.

An answer is not a prompt: the agent narrates ("Let me read the file", "I've updated
`db.py`"), hedges ("this might be the cause"), offers ("Shall I also…?") and plans the turn
("First, I'll…"). None of that is kept. What is kept says how the team works or why something
broke, as a settled fact: "The root cause is the pool size of 5: each worker holds two
connections", "We'll use alembic for every schema change from now on", "這個專案一律用 pnpm".
Such a sentence becomes a candidate only once the user's next prompt does not dispute it ("no,
that's wrong", "不對"), or the session ends without a word against it (`memkit.capture.hooks`).
The rules were written on `benchmarks/data/answers_dev.jsonl`; `answers_heldout.jsonl` measures
them (docs/benchmarks.md).

Standard library only: the transcript pass runs it in hooks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memkit.capture.detect import (
    _CONCRETE,
    _TEAM,
    Rules,
    _clean,
    _en,
    _Lazy,
    _zh,
    penalties_in,
    sentences,
    strongest,
    triggers_of,
)

MAX_ANSWER = 12_000  # characters of one answer looked at
MAX_LEFT = 5  # open next steps kept from one answer
TYPE_OF = {"root-cause": "pitfall", "decision": "decision", "convention": "decision"}

_SIGNALS: Rules = (
    (
        "root-cause",
        0.7,
        _en(
            r"\b(?:the )?root cause\b|\bthe (?:real |actual |underlying )?(?:cause|culprit|"
            r"reason)(?: of [\w\s`'.-]{1,40})? (?:is|was)\b|\bturn(?:s|ed) out (?:to be|that)\b"
            r"|\b(?:is|was|are|were) caused by\b|\b(?:happens|happened|fails|failed|breaks|broke|"
            r"crashe[sd]|hangs|hung|times out|timed out) because\b"
        ),
    ),
    (
        "root-cause",
        0.6,
        _en(
            # "The failure is in the lint step" only says where; "is that" says why.
            r"\bthe (?:bug|issue|problem|failure|error|crash|leak|flakiness) (?:is|was) (?:that|"
            r"due to)\b|\bdue to\b|\bbecause\b"
        ),
    ),
    (
        "root-cause",
        0.7,
        _zh(r"根本原因|根因|原因是|問題出在|问题出在|罪魁禍首|罪魁祸首|真正的原因"),
    ),
    ("root-cause", 0.55, _zh(r"是因為|是因为|導致|导致|造成")),
    (
        "decision",
        0.75,
        _en(
            r"\b(?:from now on|going forward|moving forward|henceforth)\b|\bwe(?:'ll| will) "
            r"(?:use|go with|keep|switch to|standardi[sz]e on|stick (?:with|to)|always|never)\b"
            r"|\bwe(?:'ve| have)? (?:decided|agreed|settled on|chose|chosen)\b|\bthe decision "
            r"(?:is|was)\b|\bwe(?:'re| are) (?:going with|standardi[sz]ing on)\b"
        ),
    ),
    (
        "decision",
        0.6,
        _en(r"\bI(?:'ve| have)? (?:decided|chose|chosen|settled on|gone with|went with)\b"),
    ),
    ("decision", 0.75, _zh(r"從現在開始|从现在开始|從現在起|从现在起|今後|今后|往後|以後|以后")),
    ("decision", 0.7, _zh(r"決定|决定|採用|采用|改用|統一用|统一用|定案|說好|说好")),
    (
        "convention",
        0.7,
        _en(
            r"\bthe (?:convention|rule|standard|policy|pattern|practice)(?: here| in this "
            r"(?:repo(?:sitory)?|project|codebase|team))? (?:is|says)\b|\bby convention\b"
            r"|\b(?:this|the) (?:project|repo(?:sitory)?|codebase|team) (?:uses|follows|expects|"
            r"requires|keeps|pins|never|always)\b|\bin this (?:repo(?:sitory)?|project|codebase)"
            r",? (?:we |you )?(?:always|never|must|use)\b"
        ),
    ),
    ("convention", 0.55, _en(r"\b(?:always|never|must(?: not)?|mustn'?t)\b")),
    (
        "convention",
        0.7,
        _zh(
            r"慣例|惯例|一律|規範|规范|規定|规定|約定|约定|這個專案用|这个项目用|這個專案都|这个项目都"
        ),
    ),
    ("convention", 0.55, _zh(r"必須|必须|不要|禁止|不能|只能|都要")),
)

_PENALTIES: Rules = (
    ("question", 0.6, _Lazy(r"[?？]\s*$")),
    (
        "offer",
        0.6,
        _en(
            r"\b(?:would you like|do you want|want me to|shall I|should I|if you(?:'d)? (?:like|"
            r"want|prefer)|let me know|happy to)\b"
        ),
    ),
    ("offer", 0.6, _zh(r"要不要|需要我|你想|如果你|是否需要|我可以幫|我可以帮")),
    (
        "narration",
        0.55,
        _en(
            r"^(?:let me|let's|now,? I|first,? I|next,? I|then,? I|I(?:'ll| will) (?:now |first |"
            r"next |then )?(?:read|check|look|run|open|start|search|update|create|write|add|fix|"
            r"edit|try|investigate|examine|inspect|review|verify|test|change|remove|implement|"
            r"make|go)|I(?:'m| am) going to|I(?:'ve| have) (?:updated|added|created|fixed|"
            r"changed|removed|written|renamed|edited|implemented|made|run|read|looked|checked|"
            r"found|moved|refactored)|here(?:'s| is| are)|done\b|sure\b|great\b|okay\b|ok\b)"
        ),
    ),
    (
        "narration",
        0.55,
        _zh(r"^(?:我來|我来|讓我|让我|我先|我會先|我会先|我已經|我已经|好的|完成|以下是|下面是)"),
    ),
    (
        "hedge",
        0.45,
        _en(
            r"\b(?:might|may|could|probably|perhaps|possibly|likely|maybe|I think|I suspect|"
            r"I believe|seems?|appears? to|not sure|one option|consider|you could|worth)\b"
        ),
    ),
    (
        "hedge",
        0.45,
        _zh(r"可能|也許|也许|或許|或许|大概|似乎|好像|看起來|看起来|建議|建议|可以考慮|可以考虑"),
    ),
    (
        "moment",
        0.4,
        _en(r"\b(?:for now|this time|temporarily|right now|in this (?:run|test|change|PR|turn))\b"),
    ),
    ("moment", 0.4, _zh(r"這次|这次|暫時|暂时|先這樣|先这样")),
    ("conditional", 0.35, _en(r"^(?:if|when|unless|once)\b")),
    ("conditional", 0.35, _zh(r"^(?:如果|假如|要是|若)")),
)

_DISPUTE = (
    _en(
        r"^(?:no\b|nope\b|not quite\b|not really\b|wrong\b|incorrect\b|that'?s (?:not|wrong|"
        r"incorrect)|that is (?:not|wrong)|actually\b|wait\b|hmm\b|I disagree\b|disagree\b|"
        r"don'?t\b|do not\b|stop\b|revert\b|undo\b|never mind\b)"
        r"|\b(?:that'?s|that is|this is|it'?s|it is) (?:not (?:right|true|correct|it)|wrong|"
        r"incorrect)\b|\bisn'?t (?:right|true|correct)\b|\bI don'?t (?:think so|agree)\b"
    ),
    _zh(
        r"不對|不对|不是這樣|不是这样|錯了|错了|不正確|不正确|不同意|別這樣|别这样|等等|不行|不要這樣|不要这样|並不是|并不是"
    ),
)
_OPEN = (
    _en(
        r"\b(?:next steps?|still (?:need|needs|to do|missing|failing|open)|remaining|left to do|"
        r"TODO|to-do|not yet|follow[- ]up|you(?:'ll| will)? (?:also )?need to|still have to|"
        r"pending|outstanding|afterwards,? (?:you|we)|before (?:merging|release|shipping))\b"
    ),
    _zh(r"下一步|接下來|接下来|還需要|还需要|尚未|還沒|还没|待辦|待办|之後要|之后要|仍需|剩下"),
)
_MARKUP = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+|#+\s+)|\*\*|__|(?<!\w)_(?=\w)|(?<=\w)_(?!\w)")


@dataclass(frozen=True)
class Said:
    """A sentence of an answer worth keeping, with its score and why."""

    score: float
    kind: str
    statement: str
    why: str
    triggers: tuple[str, ...]

    @property
    def type(self) -> str:
        return TYPE_OF.get(self.kind, "fact")


def _plain(sentence: str) -> str:
    """A sentence without Markdown list marks, headings and emphasis."""
    return _MARKUP.sub("", sentence).strip()


def _score(sentence: str) -> tuple[float, str, str]:
    ranked = strongest(sentence, _SIGNALS)
    if not ranked:
        return 0.0, "", ""
    kind, (top, word) = ranked[0]
    score = top + 0.1 * min(2, sum(1 for _, (w, _) in ranked[1:] if w >= 0.55))
    why = [f"'{word}' ({kind}, in the answer)"]
    if _CONCRETE.get().search(sentence[1:]):
        score += 0.1
    if _TEAM.get().search(sentence):
        score += 0.05
    taken = penalties_in(sentence, _PENALTIES)
    if taken:
        score -= min(1.0, sum(taken.values()))
        why.append("less for " + ", ".join(sorted(taken)))
    return max(0.0, min(0.99, round(score, 3))), kind, "; ".join(why)


def stated(answer: str, *, floor: float = 0.5) -> list[Said]:
    """The sentences of `answer` (free of `<private>` text) that state a decision, a
    convention or a root cause, best first, each scoring at least `floor`."""
    out: list[Said] = []
    for raw in sentences(answer[:MAX_ANSWER]):
        sentence = _plain(raw)
        if len(sentence) < 12:
            continue
        score, kind, why = _score(sentence)
        if score >= floor:
            statement = _clean(sentence)
            out.append(Said(score, kind, statement, why, triggers_of(statement)))
    return sorted(out, key=lambda s: -s.score)[:3]


def disputes(prompt: str) -> bool:
    """Whether the user's prompt after an answer disputes it ("no, that's wrong", "不對")."""
    head = prompt.strip()[:400]
    return any(pattern.find(head) is not None for pattern in _DISPUTE)


def open_items(answer: str) -> list[str]:
    """The sentences of an answer that leave work open ("Next step: run the migration on
    staging", "還需要更新文件"), for the session summary's "left" part."""
    out: list[str] = []
    for raw in sentences(answer[:MAX_ANSWER]):
        sentence = _plain(raw)
        if len(sentence) >= 8 and any(p.find(sentence) is not None for p in _OPEN):
            out.append(_clean(sentence)[:200])
            if len(out) >= MAX_LEFT:
                break
    return out
