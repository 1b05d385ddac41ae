"""What the MCP server says never carries a secret value or `<private>` text.

A served atom has passed the admission checks (`memkit.mcp.reading`), which refuse secrets and
private blocks outright; this is the second line, for text that did not go through them: titles
from an index built before a file changed, commit subjects in the timeline, error messages.
"""

from __future__ import annotations

import re

from memkit.safety.secrets import find_secrets

_PRIVATE = re.compile(r"<private\b[^>]*>.*?(?:</private\s*>|\Z)", re.S | re.I)
_TOKEN = re.compile(r"[^\s\"',;]+")
MASK = "[masked]"


def mask(text: str) -> str:
    """`text` with `<private>` blocks removed and every secret `find_secrets` sees masked."""
    text = _PRIVATE.sub("[private text removed]", text)
    hits = list(find_secrets(text))
    if not hits:
        return text
    lines = text.split("\n")
    # Right to left within a line, so that earlier columns stay where they were.
    for hit in sorted(hits, key=lambda h: (h.line, -h.col)):
        line = lines[hit.line - 1]
        start = hit.col - 1
        token = _TOKEN.match(line, start)
        end = token.end() if token else start + 1
        lines[hit.line - 1] = line[:start] + line[start : start + 4] + "…" + MASK + line[end:]
    return "\n".join(lines)
