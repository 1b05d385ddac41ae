"""Instructions in the imperative mood: "Roll back payments with helm rollback" against "Roll
back payments with Argo CD, never with helm rollback".

Teams write procedures as bare commands, with no "always" or "must" to mark them. A clause is an
instruction when its first word is a verb from a small list ("deploy", "roll back", "run"),
optionally after a negation ("never", "do not", "stop …ing"); in Chinese when it holds a
means marker (用, 使用, 改用, 透過, 從) or a negation. Each instruction is cut into an action
(the verb and the words up to the means), a means (the words after with/using/via/from, or
after 用) and a sign. A negative clause with no verb of its own ("…, never with helm
rollback", "not black", "不要用 GPG") is about the action of the instruction before it in
the same sentence.

Two instructions disagree when one says do and the other do not, for the same action (the same
verb, or the same object words), with a shared means, and they are not about different subjects
(each action naming a thing the other does not: "billing" against "payments").
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from memkit.audit.lexicon import word_set
from memkit.audit.text import sentences

# Verbs that start procedure steps. Deliberately common engineering verbs only: a clause that
# starts with a noun ("helm rollback breaks the sync") is a statement, never an instruction.
VERBS = word_set(
    "add apply approve archive back build bump call cancel check clean clear commit compile "
    "configure copy create delete deploy disable downgrade drain drop enable encrypt export "
    "fetch flush format generate import install invalidate kill launch lint load lock "
    "merge migrate mount move pin promote provision prune publish pull purge push rebase "
    "rebuild redeploy refresh regenerate reindex release reload remove rename renew "
    "replace reset restart restore retry revert review roll rotate run scale schedule seed "
    "send set ship sign snapshot squash start store switch sync tag take test trigger "
    "truncate uninstall unlock update upgrade upload vendor wipe"
)
_PARTICLES = word_set("back out up down over off")
_LEAD = word_set("always please only first then and so just also")
_NEGATION_EN = re.compile(
    r"^(?:never|don't|dont|do not|must not|mustn't|should not|shouldn't|no longer|not|"
    r"instead of|rather than|stop|avoid)\b\s*",
    re.I,
)
_MEANS_EN = re.compile(r"\b(?:with|using|via|through|from)\b", re.I)
_WORD_EN = re.compile(r"[A-Za-z][\w.+#'-]*[\w+#]|[A-Za-z]")
# Words that say nothing of what is done or with what.
_STOP_EN = word_set(
    "a an the is are was be to of in on at for by and or it its this that these those "
    "your our their my we you they each every any all then after before when if"
)

_NEGATION_ZH = re.compile(r"不要|不准|不得|不再|不用|別|别|禁止|絕不|绝不|避免|不能|不可|切勿|勿")
_MEANS_ZH = re.compile(r"改用|使用|用|透過|透过|通過|通过|經由|经由|從|从")
_LATIN_RUN = re.compile(r"\s*([A-Za-z][\w.+#'/-]*(?:\s+-{0,2}[A-Za-z][\w.+#'/-]*)*)")
_CJK = re.compile(r"[\u4e00-\u9fff]+")
_LATIN = re.compile(r"[a-z][a-z0-9_.+#'-]*[a-z0-9+#]|[a-z]")
_ZH_GLUE = frozenset("的了在是由和與与把被將将給给要就都也")


@dataclass(frozen=True)
class Instruction:
    sign: int  # +1 do, -1 do not
    verb: str  # the English verb ("roll back"); "" in Chinese
    action: frozenset[str]  # what is done to what: the object words
    means: frozenset[str]  # with what
    text: str  # the clause; in English, the step as written ("roll back payments")


def _content(text: str) -> frozenset[str]:
    """Lowercase Latin words and CJK bigrams, without function words."""
    low = text.lower()
    out = {w.strip("'.-") for w in _LATIN.findall(low)} - _STOP_EN
    for raw in _CJK.findall(low):
        run = "".join(c for c in raw if c not in _ZH_GLUE)
        out |= {run[i : i + 2] for i in range(len(run) - 1)} if len(run) > 1 else {run}
    return frozenset(_singular(w.removesuffix("'s")) for w in out if w)


def _singular(word: str) -> str:
    """ "offsets" names what "offset" does."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _base(word: str) -> str:
    """ "taking" and "takes" are "take": the verb of a step, however it is inflected."""
    word = word.lower()
    for form in (word, word[:-3], word[:-3] + "e", word[:-4], word[:-1], word[:-2]):
        if form in VERBS:
            return form
    return ""


_CLAUSE = re.compile(
    r"[;；:：，,、]|\s[-–—]\s|\b(?:but|whereas)\b|(?=\binstead of\b)|(?=\brather than\b)"
    # "…using Argo CD and never by hand": what follows "and never" is no part of the means.
    r"|\b(?:and|or)\b(?=\s+(?:never|not|don't|do not|no longer)\b)"
    r"|但是|而是|改為|改为|(?=改用)"
)


@functools.lru_cache(maxsize=65536)
def instructions(text: str) -> tuple[Instruction, ...]:
    """The instructions of a text, clause by clause."""
    out: list[Instruction] = []
    for sentence in sentences(text):
        last: Instruction | None = None
        for clause in (c.strip() for c in _CLAUSE.split(sentence)):
            if not clause:
                continue
            found = _english(clause, last) if re.match(r"[A-Za-z]", clause) else None
            if found is None and _CJK.search(clause):
                found = _chinese(clause, last)
            if found is not None:
                out.append(found)
                last = found
    return tuple(out)


def _english(clause: str, last: Instruction | None) -> Instruction | None:
    rest, sign = clause, 1
    while True:
        first = rest.split(maxsplit=1)
        if first and first[0].lower().strip(",") in _LEAD:
            rest = first[1] if len(first) > 1 else ""
            continue
        neg = _NEGATION_EN.match(rest)
        if neg and sign == 1:
            sign, rest = -1, rest[neg.end() :]
            continue
        break
    if rest.lower().startswith("use ") and sign == -1 and last is None:
        # "Never use helm rollback": whatever step it would be used for.
        means = _content(rest[4:])
        return Instruction(-1, "use", frozenset(), means, "") if means else None
    head = _WORD_EN.findall(rest[:40])
    verb = _base(head[0]) if head else ""
    if verb and len(head) > 1 and head[1].lower() in _PARTICLES:
        verb = f"{verb} {head[1].lower()}"
    if not verb:
        if sign == -1 and last is not None:
            # "…, never with helm rollback": the means of the step just named.
            means = _content(_MEANS_EN.sub(" ", rest))
            if rest.lower().startswith("use "):
                means = _content(rest[4:])
            return Instruction(-1, last.verb, last.action, means, last.text) if means else None
        if rest.lower().startswith("use ") and last is not None:
            return Instruction(1, last.verb, last.action, _content(rest[4:]), last.text)
        return None
    body = rest[rest.lower().find(verb.split()[-1]) + len(verb.split()[-1]) :]
    split = _MEANS_EN.search(body)
    step = body[: split.start()] if split else body
    means = _content(body[split.end() :]) if split else frozenset()
    words = [w for w in step.split() if w.lower() not in _STOP_EN][:4]
    return Instruction(sign, verb, _content(step), means, " ".join([verb, *words]))


def _chinese(clause: str, last: Instruction | None) -> Instruction | None:
    neg = _NEGATION_ZH.search(clause)
    marker = _MEANS_ZH.search(clause)
    if not marker and not neg:
        return None
    sign = -1 if neg and (not marker or neg.start() < marker.start()) else 1
    if marker is None:
        if last is None:
            return None
        # "…，不要滾動重啟 API pod": what not to do instead of the step just named.
        means = _content(clause[neg.end() :] if neg else clause)
        return Instruction(sign, "", last.action, means, clause) if means else None
    before = clause[: neg.start() if neg and sign == -1 else marker.start()]
    after = clause[marker.end() :]
    latin = _LATIN_RUN.match(after)
    means_text, tail = (latin.group(1), after[latin.end() :]) if latin else (after, "")
    means = _content(means_text)
    action = _content(before + " " + tail)
    if last is not None and sign == -1:
        action |= last.action  # "用 SSH 金鑰簽署提交，不要用 GPG": the same step
    return Instruction(sign, "", action, means, clause) if means else None


def _other_subject(a: Instruction, b: Instruction) -> bool:
    """Each action names a thing the other does not: "roll back billing" and "roll back
    payments" are two procedures, not one said twice."""
    latin_a = {w for w in a.action if w.isascii()} - b.means
    latin_b = {w for w in b.action if w.isascii()} - a.means
    return bool(latin_a - latin_b) and bool(latin_b - latin_a)


def _same_action(a: Instruction, b: Instruction) -> bool:
    if a.verb == "use" or b.verb == "use":
        return True  # "never use X": checked on the means alone, below
    if a.verb and b.verb and a.verb != b.verb:
        return bool(a.action) and a.action == b.action
    if a.action and b.action:
        return bool(a.action & b.action)
    return True


def opposite(a: str, b: str) -> str:
    """One text says do a step with something, the other never with it: the reason, or ""."""
    for ia in instructions(a):
        if ia.sign != 1:
            continue
        for ib in instructions(b):
            if ib.sign != -1 or not _same_action(ia, ib) or _other_subject(ia, ib):
                continue
            shared = ia.means & ib.means
            if ib.verb == "use" and not ib.means <= ia.means:
                continue
            if shared:
                return _reason(ia, ib, shared)
    return ""


def _reason(do: Instruction, dont: Instruction, shared: frozenset[str]) -> str:
    """One line: the step, and the means one text prescribes and the other forbids."""
    means = "/".join(sorted(shared, key=lambda w: (not w.isascii(), w))[:2])
    if do.verb:
        step = f" to {do.text.rstrip('.')}"
    else:
        step = f" ({do.text[:40].rstrip('。.')} / {dont.text[:40].rstrip('。.')})"
    return f"opposite instructions{step}: with {means} in one, never in the other"
