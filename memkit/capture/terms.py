"""Triggers for an accepted candidate: what the statement is about, so that a plain question
brings it back.

L0 proposes names, code spans and paths (`memkit.capture.detect.triggers_of`); a statement in
lower case ("we write database migrations with alembic") or in Chinese ("以後部署一律用 Argo
CD") has none of those, and the atom it becomes is then missed by "write the alembic
migration" or "部署流程是什麼？": recall holds an atom that shares one word with a prompt to a
stricter floor than one whose trigger the prompt names (`memkit.recall.pipeline`). So at accept
the statement's topic words join the proposed ones: English words of four letters or more
that are neither stop words nor the words rules are made of ("never", "always", "from now
on"), and the Chinese runs left once the signal and function words are taken out. Every one
passes `memkit.triggers.trigger_problem` (MK021).
"""

from __future__ import annotations

import re

from memkit.triggers import STOP_WORDS, trigger_problem

MAX_TRIGGERS = 5
# The words rules, decisions and root causes are said with: about everything, so about nothing.
_RULE_WORDS = frozenset(
    (
        *("always", "never", "from", "forward", "going", "onward", "onwards", "decided", "agreed"),
        *("agree", "decide", "decision", "rule", "rules", "convention", "policy", "standard"),
        *("must", "should", "instead", "hand", "hands", "every", "each", "also", "only", "just"),
        *("sure", "make", "made", "keep", "kept", "write", "writes", "written", "wrote", "thing"),
        *("things", "work", "works", "worked", "need", "needs", "needed", "want", "wants", "like"),
        *("careful", "note", "remember", "heads", "please", "done", "fine", "good", "better"),
        *("best", "same", "other", "before", "after", "first", "last", "next", "time", "times"),
        *("today", "later", "again", "still", "else", "ever", "root", "cause", "caused", "because"),
        *("reason", "problem", "issue", "issues", "fails", "failed", "failing", "breaks", "broke"),
        *("broken", "happens", "happened", "change", "changes", "changed", "team", "everyone"),
        *("anyone", "someone", "something", "nothing", "into", "onto", "than", "then", "them"),
        *("they", "their", "there", "this", "that", "these", "those", "with", "without", "about"),
        *("over", "under", "use", "used", "using", "actually", "correct", "wrong", "right", "true"),
        *("false", "real", "really", "turned", "turns", "call", "calls", "called", "run", "runs"),
    )
)
_SIGNALS_ZH = (
    *("從現在開始", "从现在开始", "從現在起", "从现在起", "從今天起", "从今天起", "今後", "今后"),
    *("往後", "以後", "以后", "決定", "决定", "統一用", "统一用", "統一", "统一", "一律", "改用"),
    *("採用", "采用", "不要再", "別再", "别再", "不要", "禁止", "必須", "必须", "一定要", "務必"),
    *("务必", "只能", "不能", "記住", "记住", "記得", "记得", "注意", "小心", "慣例", "惯例"),
    *("規範", "规范", "規定", "规定", "約定", "约定", "根本原因", "原因是", "問題出在", "问题出在"),
    *("是因為", "是因为", "導致", "导致", "手動", "手动", "所有", "每個", "每个", "大家", "我們"),
    *("我们", "都要", "都用", "全部", "之後", "之后", "然後", "然后", "時候", "时候"),
)
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.+#-]*[A-Za-z0-9+#]|[A-Za-z]")
_CJK_SPLIT = re.compile(
    "|".join(
        re.escape(w)
        for w in sorted(
            {*_SIGNALS_ZH, *(w for w in STOP_WORDS if _CJK_RUN.fullmatch(w))}, key=len, reverse=True
        )
    )
)


_TECHNICAL = re.compile(r"[\d_.-]")


def _english(statement: str, *, plain: bool = True) -> list[str]:
    """Topic words; `plain`: English words too, not only technical-looking ones (a digit, `_`,
    `.`, `-`). A verb's past or progressive form (`created`, `failing`) names no topic."""
    words = []
    for word in _WORD.findall(statement):
        low = word.lower().rstrip(".")
        if len(low) < 4 or low in STOP_WORDS or low in _RULE_WORDS or low.endswith("n't"):
            continue
        technical = _TECHNICAL.search(low) is not None
        if not technical and (not plain or low.endswith(("ed", "ing"))):
            continue
        words.append(low)
    # Technical-looking words first, then the longest: they say more.
    return sorted(dict.fromkeys(words), key=lambda w: (not _TECHNICAL.search(w), -len(w)))


def _chinese(statement: str) -> list[str]:
    out = []
    for run in _CJK_RUN.findall(statement):
        for piece in _CJK_SPLIT.split(run):
            part = piece.strip("的了是在用把被和與与及或也就都而")
            if 2 <= len(part) <= 6:
                out.append(part)
    return list(dict.fromkeys(out))


def accepted_triggers(
    statement: str, proposed: tuple[str, ...] = (), atom_type: str = "decision"
) -> tuple[str, ...]:
    """The triggers an accepted candidate's atom gets: the proposed ones, then the
    statement's topic words, MAX_TRIGGERS at most, none that MK021 would refuse.

    A pitfall (a root cause, a failure) gets no plain topic words: they name the situation
    it happened in ("the deploy to staging created a second cron job": `deploy`, `staging`),
    not what it is about, and a trigger is served to any prompt that says it ("how do we
    deploy to production" got the root cause, issue 43). Names, code, paths and technical
    words it holds still are its triggers; its words still find it through the text."""
    plain = atom_type != "pitfall"
    chinese = _chinese(statement) if plain else []
    out: list[str] = []
    for found in (*proposed, *chinese, *_english(statement, plain=plain)):
        term = found.strip().lower()
        if not term or term in out or trigger_problem(term) is not None:
            continue
        if any(term in t.split() for t in out):
            continue  # a word of a name already there ("argo" of "argo cd")
        out.append(term)
        if len(out) >= MAX_TRIGGERS:
            break
    return tuple(out)
