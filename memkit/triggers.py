"""What makes a usable trigger: a word that says what an atom is about.

A trigger brings its atom up whenever a prompt contains it, so `the`, `is`, `的` or a two-letter
abbreviation would bring it up for almost every prompt. Those are refused at commit time
(MK021), as are more than `limits.triggers` triggers on one atom (MK022). Recall still checks
a trigger match against the rest of the prompt (`memkit.recall.pipeline`).

Standard library only: the recall path imports it.
"""

from __future__ import annotations

import re

# English function words, and the most common verbs and pronouns of prompts.
_ENGLISH = """
a about above after again against all also am an and any are aren't as at be because been
before being below between both but by can can't cannot could couldn't did didn't do does
doesn't doing don't down during each else ever every few for from further get gets got had
hadn't has hasn't have haven't having he her here hers herself him himself his how however i
if in into is isn't it it's its itself just let let's like may me might more most much must
mustn't my myself need no nor not now of off often on once one only or other ought our ours
ourselves out over own please same shall shan't she should shouldn't so some such than that
that's the their theirs them themselves then there there's these they this those through thus
to too under until up upon us use used using very via was wasn't we were weren't what what's
when where which while who whom whose why will with won't would wouldn't yes yet you your
yours yourself yourselves
"""

# Chinese (simplified and traditional), Japanese and Korean function words: particles,
# pronouns, copulas, conjunctions, question words.
_CJK = """
的 地 得 了 着 著 过 過 是 在 和 与 與 及 或 也 就 都 而 把 被 让 讓 给 給 从 從 对 對 向 跟 同
这 這 那 哪 个 個 些 一 不 没 沒 我 你 您 他 她 它 们 們 吗 嗎 呢 吧 啊 呀 嘛 之 其 此 为 為 以
于 於 由 上 下 中 里 裡 裏 要 有 会 會 能 可 很 又 再 才 还 還 但 并 並 且 如 若 则 則 即 等 到
去 来 來 说 說 我们 我們 你们 你們 他们 他們 她们 她們 它们 它們 大家 自己 这个 這個 那个 那個
这些 這些 那些 哪个 哪個 什么 什麼 怎么 怎麼 怎样 怎樣 如何 为何 為何 为什么 為什麼 因为 因為
所以 但是 可是 然后 然後 如果 虽然 雖然 已经 已經 还是 還是 或者 就是 可以 可能 应该 應該 需要
一个 一個 一些 没有 沒有 不是 现在 現在 时候 時候 这样 這樣 那样 那樣 这里 這裡 那里 那裡 一下
一起 以及 而且 并且 並且 还有 還有 の に は を た が で て と し も な か だ や へ より から
まで です ます この その あの これ それ あれ どれ こと もの ため よう する いる ある なる れる
られる ない 및 이 그 저 것 수 등 를 을 에 의 가 은 는 도 로 으로 와 과 하다 있다 없다
多少 幾 几 哪裡 哪里 哪兒 哪儿 誰 谁 甚麼 什么样 什麼樣 怎么样 怎麼樣 是不是
有沒有 有没有 能不能 要不要 多久
"""

STOP_WORDS = frozenset(_ENGLISH.split()) | frozenset(_CJK.split())
MAX_TRIGGERS = 20  # per atom, unless `limits.triggers` says otherwise
_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_WORDS = re.compile(r"[\w][\w'.+#-]*")


def trigger_problem(trigger: str) -> str | None:
    """Why `trigger` would match nearly every prompt, or None when it is usable."""
    text = trigger.strip().lower()
    if not any(ch.isalnum() for ch in text):
        return "has no letters or digits"
    cjk = len(_CJK_CHAR.findall(text))
    if cjk == 0 and len(text) <= 2:
        return "is one or two letters long (it is part of too many words and prompts)"
    if cjk == 1 and len(text) == 1:
        return "is a single character (it is part of too many prompts)"
    if text in STOP_WORDS:
        return "is a stop word (it is in almost every prompt)"
    words = _WORDS.findall(text)
    if words and all(w in STOP_WORDS for w in words) and not cjk:
        return "is made of stop words only (they are in almost every prompt)"
    return None
