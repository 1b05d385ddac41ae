"""`<private>…</private>`: text the user marked as theirs alone. It never reaches the index,
the usage log, a log file, a query or the engine (stripped in the hook process itself)."""

from __future__ import annotations

import json
import re
from typing import Any

PRIVATE = re.compile(r"<private\b[^>]*>.*?(?:</private\s*>|\Z)", re.S | re.I)


def strip_private(text: str, placeholder: str = " ") -> str:
    return PRIVATE.sub(placeholder, text)


def _strip_all(value: Any) -> Any:
    if isinstance(value, str):
        return strip_private(value)
    if isinstance(value, dict):
        return {k: _strip_all(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strip_all(v) for v in value]
    return value


def strip_payload(raw: str) -> str:
    """The hook's JSON with every `<private>` block removed from every string in it."""
    try:
        data = json.loads(raw)
    except ValueError:
        return strip_private(raw)  # not JSON: refused downstream, but never passed on as is
    return json.dumps(_strip_all(data), ensure_ascii=False)
