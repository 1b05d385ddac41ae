"""Where each sentence's head, the object of its instruction and a list entry's label end:
a span substituted before them is what the line is about (its subject), not a value of it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from memkit.audit import commands as cmd
from memkit.audit import lexicon as lx
from memkit.audit import tokens as tk

# Verbs an instruction starts with (many more do: any sentence without a subject of its own).
PREDICATE = lx.word_set(
    "is are was were be has have had will would shall should must can could may might does do "
    "did needs need uses lives live runs listens listen requires require expects expect "
    "defaults takes goes sits stays belongs belong supports contains holds points reads writes "
    "sends gets stores loads returns calls depends means sets targets lands land"
)
_PREDICATE_ZH = (
    "是", "為", "为", "用", "使用", "在", "要", "必須", "必须", "應", "应", "需要", "預設",
    "默认", "默認", "由", "從", "从", "於", "于", "每",
)  # fmt: skip
# Verbs whose object is the means, a value ("Run `make lint`", "Use ruff", "Prefer `uv`"):
# after any other verb the object is what the instruction acts on ("Deploy payments").
MEANS_VERBS = lx.word_set(
    "run use execute invoke call apply employ prefer avoid choose pick adopt install pin "
    "utilize utilise do perform type enter try"
)
# Words that end an instruction's object and begin a slot with a value.
SLOT = lx.word_set(
    "with using via through in on at to into from for against by before after as when if "
    "unless until so because over under instead rather than"
)


@dataclass(frozen=True)
class Roles:
    """Per token: where its sentence's subject ends (0: it has none), where the object of an
    instruction whose verb acts on it ends (0: none), where its line's label ends, and where
    its sentence starts."""

    head: tuple[int, ...]
    obj: tuple[int, ...]
    label: tuple[int, ...]
    start: tuple[int, ...]
    cue: tuple[str, ...]  # head, condition, object or command
    obj_from: tuple[int, ...]  # where the object starts (after the verb or the command)


def _sentences(toks: tuple[tk.Token, ...]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    for i, t in enumerate(toks):
        if t.kind == "end":
            if i > start:
                spans.append((start, i))
            start = i + 1
    if start < len(toks):
        spans.append((start, len(toks)))
    return spans


def _cjk_head(toks: tuple[tk.Token, ...], start: int, end: int) -> int:
    text = ""
    owner: list[int] = []
    for i in range(start, end):
        text += toks[i].text
        owner += [i] * len(toks[i].text)
    at = min((p for w in _PREDICATE_ZH if (p := text.find(w, 1)) > 0), default=-1)
    return owner[at] if at > 0 else start


def _label_end(toks: tuple[tk.Token, ...], start: int, end: int) -> int:
    """Where a line's label ends ("`packages/core`: …", "| `pnpm lint` | …", "**包管理器**：
    …"): a separator after at most six tokens; `start` when there is none."""
    for i in range(start, min(end, start + 7)):
        if toks[i].kind == "sep":
            # Nothing after it: a heading ("**Create a virtual environment:**"), no label.
            said = any(t.kind in tk.CONTENT for t in toks[i + 1 : end])
            return i if i > start and said else start
    return start


def _head_and_object(toks: tuple[tk.Token, ...], start: int, end: int) -> tuple[int, int, str]:
    """Where a sentence's subject ends and where an instruction's acted-on object ends."""
    first = next(
        (i for i in range(start, end) if toks[i].kind not in ("glue", "stop", "sep", "comma")),
        None,
    )
    if first is None:
        return start, start, ""
    t = toks[first]
    lead = "".join(x.text for x in toks[start : start + 2]).lower()
    if toks[start].norm in _CONDITIONS or lead.startswith(_CONDITIONS_ZH):
        # "If you use X, …", "若要使用 X 记录数据，…": the condition names what the rest of the
        # sentence is about.
        comma = next((i for i in range(start, end) if toks[i].kind == "comma"), None)
        return (comma, start, "condition") if comma is not None else (start, start, "")
    if t.kind in ("cjk", "glue"):
        return _cjk_head(toks, start, end), start, "head"
    determiner = toks[start].norm in lx.DETERMINERS
    aux = next((i for i in range(first + 1, min(end, first + 5)) if toks[i].norm in _AUX), None)
    if (
        aux is None
        and t.kind in ("word", "neg")
        and t.text.lower().replace("’", "'") in lx.IMPERATIVE
    ):
        # An instruction: what it acts on runs to the first slot word or value.
        if t.norm in MEANS_VERBS:
            return start, start, ""
        i = first + 1
        while i < end and toks[i].norm not in SLOT and toks[i].kind not in _STOPS_OBJECT:
            i += 1
        return start, i, "object"
    command = t.norm in cmd.PROGRAMS
    if command:
        return start, cmd.command_object(toks, first, end), "command"
    if t.kind in tk.VALUE or (toks[start].kind == "stop" and not determiner):
        # A line that starts with a value ("`pnpm fix` | …") is a labelled entry; one that
        # starts with "if", "to", "in" … puts its subject later, if anywhere.
        return start, start, ""
    for i in range(first + 1, min(end, first + 7)):
        u = toks[i]
        low = u.text.lower()
        if u.kind in tk.VALUE:
            break  # the head of a sentence names a thing; a value comes after its verb
        plural_verb = determiner and u.kind == "word" and low.endswith("s") and i > first + 1
        verb = u.kind == "word" and (u.norm in VERB_LEMMAS or low in VERB_LEMMAS)
        if (
            u.norm in PREDICATE
            or u.norm in _AUX
            or verb
            or (plural_verb and not low.endswith("ss"))
        ):
            return i, start, "head"
    return start, start, ""


_AUX = lx.word_set("is are was were has have had will would shall should must can could may might")
# Verbs a statement's subject is followed by ("Session tokens expire after 12 hours").
VERB_LEMMAS = lx.IMPERATIVE | lx.word_set(
    "expire live listen point belong depend support contain hold mean happen fail work need "
    "take go come become stay sit fall end get give run lives expires listens points belongs "
    "depends supports contains holds means happens fails works needs takes goes comes "
    "becomes stays sits falls ends gets gives happen"
)


_CONDITIONS = lx.word_set("if when whenever unless once")
_CONDITIONS_ZH = ("若", "如果", "假如", "当", "當")


_STOPS_OBJECT = frozenset(
    ("neg", "end", "code", "url", "path", "qty", "ver", "num", "flag", "channel")
)


@functools.lru_cache(maxsize=16384)
def read_roles(toks: tuple[tk.Token, ...]) -> Roles:
    head = [0] * len(toks)
    obj = [0] * len(toks)
    label = [0] * len(toks)
    starts = [0] * len(toks)
    cues = [""] * len(toks)
    obj_from = [0] * len(toks)
    for start, end in _sentences(toks):
        h, o, cue = _head_and_object(toks, start, end)
        lab = _label_end(toks, start, end)
        verb = next(
            (i for i in range(start, end) if toks[i].kind not in ("glue", "stop", "sep")), start
        )
        for i in range(start, end):
            head[i], obj[i], label[i], starts[i], cues[i] = h, o, lab, start, cue
            obj_from[i] = verb + 1
    return Roles(tuple(head), tuple(obj), tuple(label), tuple(starts), tuple(cues), tuple(obj_from))
