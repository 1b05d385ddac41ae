"""The title an atom gets from its text when its writer gave none (`memkit add TEXT`, an
accepted capture candidate, the MCP `save`): its first sentence, without the words that announce
it as a rule. The write gate's subject check asks the same question to tell a made title from a
name the writer chose."""

from __future__ import annotations

import re

from memkit.safety.text import has_cjk

TITLE_MAX = 80
_READ = 4_000  # characters of a text read for its title
# A sentence ends at . ! ? followed by a space (not inside "16.2" or "config.yaml"), at a CJK
# full stop, or at a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n")
_CODE_SPAN = re.compile(r"`[^`\n]*`")


# How people announce a rule ("From now on we…", "Remember that…", "以後一律…"): it says the
# text is worth keeping (the write gate scores it), not what the rule is about, and a title and
# an id built from it would all start alike. "we" goes too, unless it starts a description
# ("we are on call in pairs").
_ANNOUNCED = re.compile(
    r"^(?:(?:ok(?:ay)?|so|also|and|please|fyi)\b[,:]?\s*)*"
    r"(?:from now on|going forward|from today on|from today|starting (?:today|now)|"
    r"in (?:the )?future|henceforth|(?:always )?remember(?: that)?|keep in mind(?: that)?|"
    r"note that)\b[,:]?\s*"
    r"(?:(?:we|you|everyone|the team)\s+(?!(?:are|is|were|was|have|had|'re)\b)"
    r"(?:(?:will|should|must|shall|are going to)\s+)?)?"
    r"|^(?:請|请)?(?:記住|记住|注意)[，,：:\s]*"
    r"|^(?:從現在開始|从现在开始|從今以後|从今以后|從今天起|从今天起|以後|以后|今後|今后)"
    r"[，,：:\s]*(?:我們|我们|大家)?",
    re.I,
)


def title_of(text: str) -> str:
    """The first sentence, without its full stop or the words that announce it as a rule, cut
    at a word boundary if it is long."""
    # The title is at most TITLE_MAX characters of the first sentence: reading past a few
    # thousand changes nothing but the time (a 256 KB atom's title was derived for each of
    # its neighbours at the gate).
    text = text.strip()[:_READ]
    # A full stop inside inline code (`./...`, `v1.2`) ends no sentence.
    masked = _CODE_SPAN.sub(lambda m: "x" * len(m.group(0)), text)
    end = _SENTENCE_END.search(masked)
    first = (text[: end.start()] if end else text).strip().rstrip(".。")
    rest = _ANNOUNCED.sub("", first, count=1).strip()
    if rest != first and (len(rest.split()) >= 3 or (has_cjk(rest) and len(rest) >= 4)):
        first = rest[:1].upper() + rest[1:]
    return shorten(first or text.strip(), TITLE_MAX)


def shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:  # a word boundary not too far back; CJK text has none
        cut = cut[:space]
    return cut.rstrip(" ,;:-–—") + "…"
