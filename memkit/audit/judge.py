"""An optional judge for grey cases, off by default: a local Ollama, any OpenAI-compatible chat
endpoint (vLLM, llama.cpp's server, LM Studio, OpenAI itself) or the Anthropic Messages API.

Bounded: a timeout per call, at most `max_calls` calls per run, each note cut to 2,000
characters, and no further calls after the first failure. Any failure keeps the heuristic
verdict, so the audit never depends on a model being up. API keys come from the environment
(`api_key_env`), never from memkit.yaml, and are never logged.
"""

from __future__ import annotations

import json
import logging
import os
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
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
PROVIDERS = {
    # provider: (default url, environment variable of the key, key required)
    "ollama": ("http://127.0.0.1:11434", "", False),
    "openai": ("https://api.openai.com/v1", "OPENAI_API_KEY", False),
    "anthropic": ("https://api.anthropic.com", "ANTHROPIC_API_KEY", True),
}
ANTHROPIC_VERSION = "2023-06-01"


@dataclass
class Judge:
    url: str
    model: str
    timeout: float = 5.0
    grey_from: float = 0.85
    provider: str = "ollama"
    api_key: str = field(default="", repr=False)
    max_calls: int = 20
    calls: int = 0
    broken: bool = False

    @classmethod
    def from_config(cls, section: Mapping[str, Any]) -> Judge | None:
        judge = section.get("judge")
        if not isinstance(judge, Mapping) or not judge.get("enabled", False):
            return None
        provider = str(judge.get("provider", "ollama"))
        if provider not in PROVIDERS:
            log.warning("audit judge: unknown provider %r; judge off", provider)
            return None
        default_url, default_env, key_required = PROVIDERS[provider]
        url, model = judge.get("url", default_url), judge.get("model")
        if not isinstance(url, str) or not isinstance(model, str):
            return None
        key_env = str(judge.get("api_key_env", default_env) or "")
        api_key = os.environ.get(key_env, "") if key_env else ""
        if key_required and not api_key:
            log.warning("audit judge: %s needs a key in $%s; judge off", provider, key_env)
            return None

        def num(key: str, default: float) -> float:
            value = judge.get(key, default)
            return float(value) if isinstance(value, (int, float)) else default

        return cls(
            url.rstrip("/"),
            model,
            num("timeout", 5.0),
            num("grey_from", 0.85),
            provider,
            api_key,
            int(num("max_calls", 20)),
        )

    def is_grey(self, verdict: Verdict, similarity: float) -> bool:
        return verdict.kind == EXTENDS and similarity >= self.grey_from

    def settle(self, a: str, b: str, verdict: Verdict) -> Verdict:
        if self.broken or self.calls >= self.max_calls:
            return verdict
        self.calls += 1
        prompt = _PROMPT.format(a=a[:2000], b=b[:2000])
        url, body, headers = self._request(prompt)
        request = urllib.request.Request(  # noqa: S310  (a configured endpoint)
            url, data=json.dumps(body).encode(), headers=headers
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                answer = self._answer(json.loads(response.read().decode("utf-8")))
        except (OSError, ValueError, KeyError, IndexError, TypeError, urllib.error.URLError) as exc:
            # One failure ends the judging for this run: N pairs must not cost N timeouts.
            self.broken = True
            log.info("audit judge unavailable (%s); keeping %s", type(exc).__name__, verdict.kind)
            return verdict
        words = str(answer).strip().lower().split()
        label = next((w.strip(".,:;!\"'") for w in words if w.strip(".,:;!\"'") in _LABELS), "")
        if not label:
            log.info("audit judge gave no label (%r); keeping %s", answer[:80], verdict.kind)
            return verdict
        return Verdict(label, f"judge ({self.model}): {label}; heuristic said {verdict.kind}")

    def _request(self, prompt: str) -> tuple[str, dict[str, Any], dict[str, str]]:
        headers = {"Content-Type": "application/json"}
        if self.provider == "openai":
            if self.api_key:
                headers["Authorization"] = f"Bearer {self.api_key}"
            body = {
                "model": self.model,
                "messages": [{"role": "user", "content": prompt}],
                "temperature": 0,
                "max_tokens": 8,
            }
            return f"{self.url}/chat/completions", body, headers
        if self.provider == "anthropic":
            headers["x-api-key"] = self.api_key
            headers["anthropic-version"] = ANTHROPIC_VERSION
            body = {
                "model": self.model,
                "max_tokens": 8,
                "temperature": 0,
                "messages": [{"role": "user", "content": prompt}],
            }
            return f"{self.url}/v1/messages", body, headers
        body = {
            "model": self.model,
            "prompt": prompt,
            "stream": False,
            "options": {"temperature": 0, "num_predict": 8},
        }
        return f"{self.url}/api/generate", body, headers

    def _answer(self, data: Any) -> str:
        if self.provider == "openai":
            return str(data["choices"][0]["message"]["content"])
        if self.provider == "anthropic":
            return " ".join(str(b.get("text", "")) for b in data["content"] if isinstance(b, dict))
        return str(data.get("response", ""))
