"""An optional judge for grey cases: a local Ollama HTTP endpoint, off by default.

Bounded by a timeout; any failure keeps the heuristic verdict, so the audit never depends on
a model being up.
"""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memkit.audit.classify import CONTRADICTS, DUPLICATE, EXTENDS, UNRELATED, Verdict

log = logging.getLogger(__name__)
_LABELS = (CONTRADICTS, DUPLICATE, EXTENDS, UNRELATED)
_PROMPT = """You compare two notes from a team's engineering memory.
Answer with exactly one word: duplicate (same knowledge), extends (same subject, adds to it),
contradicts (they cannot both be true or followed), or unrelated.

Note A:
{a}

Note B:
{b}

Answer:"""


@dataclass(frozen=True)
class Judge:
    url: str
    model: str
    timeout: float = 5.0
    grey_from: float = 0.85

    @classmethod
    def from_config(cls, section: Mapping[str, Any]) -> Judge | None:
        judge = section.get("judge")
        if not isinstance(judge, Mapping) or not judge.get("enabled", False):
            return None
        url, model = judge.get("url", "http://127.0.0.1:11434"), judge.get("model")
        if not isinstance(url, str) or not isinstance(model, str):
            return None
        timeout = judge.get("timeout", 5.0)
        grey = judge.get("grey_from", 0.85)
        return cls(
            url.rstrip("/"),
            model,
            float(timeout) if isinstance(timeout, (int, float)) else 5.0,
            float(grey) if isinstance(grey, (int, float)) else 0.85,
        )

    def is_grey(self, verdict: Verdict, similarity: float) -> bool:
        return verdict.kind == EXTENDS and similarity >= self.grey_from

    def settle(self, a: str, b: str, verdict: Verdict) -> Verdict:
        body = json.dumps(
            {
                "model": self.model,
                "prompt": _PROMPT.format(a=a[:2000], b=b[:2000]),
                "stream": False,
                "options": {"temperature": 0},
            }
        ).encode()
        request = urllib.request.Request(  # noqa: S310  (a configured local endpoint)
            f"{self.url}/api/generate", data=body, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                answer = json.loads(response.read().decode("utf-8")).get("response", "")
        except (OSError, ValueError, urllib.error.URLError) as exc:
            log.info("audit judge unavailable (%s); keeping %s", exc, verdict.kind)
            return verdict
        words = str(answer).strip().lower().split()
        label = next((w.strip(".,:;!\"'") for w in words if w.strip(".,:;!\"'") in _LABELS), "")
        if not label:
            log.info("audit judge gave no label (%r); keeping %s", answer[:80], verdict.kind)
            return verdict
        return Verdict(label, f"judge ({self.model}): {label}; heuristic said {verdict.kind}")
