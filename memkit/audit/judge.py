"""An optional judge for grey cases, off by default: a local Ollama, any OpenAI-compatible chat
endpoint (vLLM, llama.cpp's server, LM Studio, OpenAI itself), the Anthropic Messages API, or
the user's own Claude Code CLI (`provider: claude-cli`, `memkit.audit.claude_judge`; the pull
audit and `memkit audit --all` only).

Bounded: a timeout per call, at most `max_calls` calls per run, each note cut to 2,000
characters, and no further calls after the first failure. Any failure keeps the heuristic
verdict, so the audit never depends on a model being up. API keys come from the environment
(`api_key_env`), never from memkit.yaml, and are never logged.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from memkit.audit.classify import EXTENDS, Verdict
from memkit.audit.claude_judge import PROMPT, ClaudeJudge, label_of
from memkit.llm import CALL_ERRORS, Endpoint

log = logging.getLogger(__name__)


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
    def from_config(cls, section: Mapping[str, Any]) -> Judge | ClaudeJudge | None:
        judge = section.get("judge")
        if not isinstance(judge, Mapping):
            return None
        if judge.get("provider") == "claude-cli":
            # The user's own Claude Code, headless (`memkit.audit.claude_judge`).
            return ClaudeJudge.from_config(judge) if judge.get("enabled") is True else None
        endpoint = Endpoint.from_config(judge, "audit judge")
        if endpoint is None:
            return None

        def num(key: str, default: float) -> float:
            value = judge.get(key, default)
            return float(value) if isinstance(value, (int, float)) else default

        return cls(
            endpoint.url,
            endpoint.model,
            endpoint.timeout,
            num("grey_from", 0.85),
            endpoint.provider,
            endpoint.api_key,
            int(num("max_calls", 20)),
        )

    def is_grey(self, verdict: Verdict, similarity: float) -> bool:
        return verdict.kind == EXTENDS and similarity >= self.grey_from

    def settle(self, a: str, b: str, verdict: Verdict) -> Verdict:
        if self.broken or self.calls >= self.max_calls:
            return verdict
        self.calls += 1
        prompt = PROMPT.format(a=a[:2000], b=b[:2000])
        endpoint = Endpoint(self.provider, self.url, self.model, self.api_key, self.timeout)
        try:
            answer = endpoint.complete(prompt, 8)
        except CALL_ERRORS as exc:
            # One failure ends the judging for this run: N pairs must not cost N timeouts.
            self.broken = True
            log.info("audit judge unavailable (%s); keeping %s", type(exc).__name__, verdict.kind)
            return verdict
        label = label_of(str(answer))
        if not label:
            log.info("audit judge gave no label (%r); keeping %s", answer[:80], verdict.kind)
            return verdict
        return Verdict(label, f"judge ({self.model}): {label}; heuristic said {verdict.kind}")
