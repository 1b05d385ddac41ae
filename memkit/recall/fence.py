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


def neutralise(text: str) -> str:
    """`text` with no tag that could open or close a memkit fence (its `<`, or the entity or
    lookalike standing for one, becomes `‹`)."""
    starts = tag_starts(text)
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
        if end < 0 or tag_starts(rest[head:end]):
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
