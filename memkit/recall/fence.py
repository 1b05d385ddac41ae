"""The fences around memory in Claude's context, and the check of an engine's answer.

Everything memkit adds to a session sits inside `<memkit-memory>…</memkit-memory>` or
`<memkit-index …>…</memkit-index>`, whose opening line says it is reference data, not
instructions. An atom's text must never be able to close that fence (its next line would
read as the session's own), so inside a fence every tag-like `<memkit-…` or `</memkit-…` is
neutralised, and so is what a reader takes for one (`&lt;/memkit-memory&gt;`, a zero-width
character or a line break inside it, a Unicode hyphen: `memkit.safety.lookalike`). The hook
client re-checks whatever an engine answers the same way before printing it: only the
documented JSON of the event, every part of the text fenced.

Standard library only, no `re` or `json` (their imports cost ~7 ms): the hook's fast path uses it.
"""

from __future__ import annotations

import _json  # the C scanner and encoder only

from memkit.safety.lookalike import span_of, tag_starts

MEMORY_OPEN = "<memkit-memory>"
MEMORY_CLOSE = "</memkit-memory>"
INDEX_OPEN = "<memkit-index"
INDEX_CLOSE = "</memkit-index>"


# Letters of other scripts drawn like the Latin ones of `memkit-memory` and `memkit-index`
# (Cyrillic, Greek): NFKC keeps them apart, a reader does not. One character for one, so
# offsets stay those of the text.
_HOMOGLYPHS = {
    **dict.fromkeys("\u0430\u03b1", "a"),
    **dict.fromkeys("\u0441\u03f2", "c"),
    **dict.fromkeys("\u0501", "d"),
    **dict.fromkeys("\u0435\u0454\u04bd", "e"),
    **dict.fromkeys("\u04bb", "h"),
    **dict.fromkeys("\u0456\u0457\u03b9\u0131", "i"),
    **dict.fromkeys("\u043a\u03ba\u049b\u045c", "k"),
    **dict.fromkeys("\u043c\u03bc", "m"),
    **dict.fromkeys("\u043f\u03b7\u0578", "n"),
    **dict.fromkeys("\u043e\u03bf\u03c3", "o"),
    **dict.fromkeys("\u0440\u03c1", "p"),
    **dict.fromkeys("\u0433\u0491", "r"),
    **dict.fromkeys("\u0442\u03c4", "t"),
    **dict.fromkeys("\u0443\u04af\u03b3", "y"),
    **dict.fromkeys("\u0445\u03c7", "x"),
}
_HOMOGLYPHS.update({k.upper(): v.upper() for k, v in list(_HOMOGLYPHS.items())})


def _seen(text: str) -> str:
    """`text` with the homoglyphs above read as the Latin letters they imitate."""
    if text.isascii():
        return text
    for char in set(text).intersection(_HOMOGLYPHS):
        text = text.replace(char, _HOMOGLYPHS[char])
    return text


def _tags(text: str) -> list[int]:
    """Where a tag that could open or close a fence starts, homoglyphs included."""
    return tag_starts(_seen(text))


def neutralise(text: str) -> str:
    """`text` with no tag that could open or close a memkit fence (its `<`, or the entity or
    lookalike standing for one, becomes `‹`)."""
    starts = _tags(text)
    if not starts:
        return text
    out: list[str] = []
    done = 0
    for at in starts:
        out += (text[done:at], "\u2039")
        done = at + span_of(text, at)
    return "".join(out) + text[done:]


def attribute(value: str) -> str:
    """A value safe inside a fence's opening tag."""
    return value.replace("<", "\u2039").replace(">", "\u203a").replace('"', "'").replace("\n", " ")


def is_fenced(text: str) -> bool:
    """The whole text is fenced blocks, nothing outside them, no fence tag inside one."""
    rest = text.strip()
    if not rest:
        return False
    while rest:
        if rest.startswith(MEMORY_OPEN):
            head, close = len(MEMORY_OPEN), MEMORY_CLOSE
        elif rest.startswith(INDEX_OPEN) and rest[len(INDEX_OPEN) : len(INDEX_OPEN) + 1] in " >":
            head, close = rest.find(">") + 1, INDEX_CLOSE
            if head <= 0 or "\n" in rest[:head]:
                return False
        else:
            return False
        end = rest.find(close, head)
        if end < 0 or _tags(rest[head:end]):
            return False
        rest = rest[end + len(close) :].lstrip()
    return True


def fence(text: str) -> str:
    """`text` as it is when well fenced, else neutralised inside one memory fence."""
    if is_fenced(text):
        return text
    return f"{MEMORY_OPEN}\n{neutralise(text)}\n{MEMORY_CLOSE}"


def _string_field(answer: str, head: str, tail: str) -> str | None:
    """The JSON string value between `head` and `tail`, when `answer` is exactly that."""
    if not answer.startswith(head):
        return None
    try:
        value, end = _json.scanstring(answer, len(head), True)
    except ValueError:
        return None
    return str(value) if answer[end:] == tail else None


def checked_answer(event: str, answer: str) -> str | None:
    """An engine's answer to hook `event` (a Claude Code event name) as the client prints it,
    or None when it is not an answer memkit gives (then the hook answers by itself)."""
    if not answer:
        return ""
    head = '{"hookSpecificOutput": {"hookEventName": "' + event + '", "additionalContext": "'
    text = _string_field(answer, head, "}}")
    if text is not None:
        return head + _json.encode_basestring(fence(text))[1:] + "}}"
    if event == "PostToolUse":
        head = '{"decision": "block", "reason": "'
        reason = _string_field(answer, head, "}")
        if reason is not None and reason.startswith("memkit: "):
            return head + _json.encode_basestring(neutralise(reason))[1:] + "}"
    return None
