"""The fences around memory in Claude's context, and the check of an engine's answer.

Everything memkit adds to a session sits inside `<memkit-memory>…</memkit-memory>` or
`<memkit-index …>…</memkit-index>`, whose opening line says it is reference data, not
instructions. An atom's text must never be able to close that fence (its next line would
read as the session's own), so inside a fence every tag-like `<memkit-…` or `</memkit-…` is
neutralised. The hook client re-checks whatever an engine answers the same way before printing
it: only the documented JSON of the event, every part of the text fenced.

Standard library only, no `re` or `json` (their imports cost ~7 ms): the hook's fast path uses it.
"""

from __future__ import annotations

import _json  # the C scanner and encoder only

MEMORY_OPEN = "<memkit-memory>"
MEMORY_CLOSE = "</memkit-memory>"
INDEX_OPEN = "<memkit-index"
INDEX_CLOSE = "</memkit-index>"
_NAME = "memkit-"
_LOOK_BACK = 8  # `<`, an optional `/`, and spaces between them and the name


def _tag_starts(text: str) -> list[int]:
    """Offsets of the `<` of every tag-like `<memkit-…` / `< / MEMKIT-…` in `text`."""
    lowered = text.lower()
    out = []
    at = lowered.find(_NAME)
    while at >= 0:
        i = at - 1
        while i >= 0 and at - i <= _LOOK_BACK and lowered[i] in " \t/":
            i -= 1
        if i >= 0 and lowered[i] in "<\uff1c":
            out.append(i)
        at = lowered.find(_NAME, at + 1)
    return out


def neutralise(text: str) -> str:
    """`text` with no tag that could open or close a memkit fence (`<` becomes `‹`)."""
    if _NAME not in text.lower():
        return text
    starts = _tag_starts(text)
    if not starts:
        return text
    chars = list(text)
    for i in starts:
        chars[i] = "\u2039"
    return "".join(chars)


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
        if end < 0 or _tag_starts(rest[head:end]):
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
