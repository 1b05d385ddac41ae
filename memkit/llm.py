"""One client for the optional models memkit may ask: a local Ollama, any OpenAI-compatible
chat endpoint (vLLM, llama.cpp's server, LM Studio, OpenAI itself) or the Anthropic Messages
API. The audit's judge and capture's L1/L2 both speak through it.

Configured per feature in memkit.yaml (`provider`, `url`, `model`, `api_key_env`, `timeout`);
off unless `enabled: true`. API keys come from the environment variable named by
`api_key_env`, never from memkit.yaml, and are kept out of every repr and log line. Standard
library only (urllib): no client SDK to install. A redirect is never followed: urllib would
carry the key's header to wherever the endpoint points (another host included).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any
from urllib.parse import urlsplit

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks: the
# gate and the pull audit import this module at every commit and pull, and urllib.request
# (http.client, ssl, email) cost them ~0.1 s for a model that is off by default.
__lazy_modules__ = {"urllib.request"}

log = logging.getLogger(__name__)
PROVIDERS = {
    # provider: (default url, environment variable of the key, key required)
    "ollama": ("http://127.0.0.1:11434", "", False),
    "openai": ("https://api.openai.com/v1", "OPENAI_API_KEY", False),
    "anthropic": ("https://api.anthropic.com", "ANTHROPIC_API_KEY", True),
}
ANTHROPIC_VERSION = "2023-06-01"
# What a failed call raises: no answer, a bad one, or an endpoint that is not there (urllib's
# URLError and HTTPError are OSErrors).
CALL_ERRORS = (OSError, ValueError, KeyError, IndexError, TypeError)


@cache
def _opener() -> Any:
    """An opener that refuses every redirect (urllib then raises the 3xx as an HTTPError):
    following one would send the Authorization or x-api-key header to the host it names. An
    API endpoint has no reason to redirect a POST; a moved one is fixed in memkit.yaml."""
    import urllib.request

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(  # noqa: PLR0917  (urllib's signature)
            self,
            req: urllib.request.Request,
            fp: Any,
            code: int,
            msg: str,
            headers: Any,
            newurl: str,
        ) -> None:

            log.warning(
                "%s answered %d, a redirect to %s; not followed (credentials stay with the "
                "configured endpoint: set its final URL in memkit.yaml)",
                urlsplit(req.full_url).netloc,
                code,
                urlsplit(newurl).netloc or "the same host",
            )

    return urllib.request.build_opener(NoRedirect)


@dataclass(frozen=True)
class Endpoint:
    provider: str
    url: str
    model: str
    api_key: str = field(default="", repr=False)
    timeout: float = 5.0

    @classmethod
    def from_config(cls, section: Mapping[str, Any], what: str) -> Endpoint | None:
        """The endpoint a config section describes, or None (off, or unusable: logged)."""
        if not section.get("enabled", False):
            return None
        provider = str(section.get("provider", "ollama"))
        if provider not in PROVIDERS:
            log.warning("%s: unknown provider %r; off", what, provider)
            return None
        default_url, default_env, key_required = PROVIDERS[provider]
        url, model = section.get("url", default_url), section.get("model")
        if not isinstance(url, str) or not isinstance(model, str):
            return None
        key_env = str(section.get("api_key_env", default_env) or "")
        api_key = os.environ.get(key_env, "") if key_env else ""
        if key_required and not api_key:
            log.warning("%s: %s needs a key in $%s; off", what, provider, key_env)
            return None
        timeout = section.get("timeout", 5.0)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            timeout = 5.0
        return cls(provider, url.rstrip("/"), model, api_key, float(timeout))

    def complete(
        self,
        prompt: str,
        max_tokens: int,
        *,
        timeout: float | None = None,
        model: str | None = None,
        json_output: bool = False,
    ) -> str:
        """The model's answer to `prompt` (temperature 0). Raises one of CALL_ERRORS when the
        endpoint does not answer in time or answers something unreadable."""
        import urllib.request

        url, body, headers = self.request(prompt, max_tokens, model or self.model, json_output)
        request = urllib.request.Request(  # noqa: S310  (a configured endpoint)
            url, data=json.dumps(body).encode(), headers=headers
        )
        wait = self.timeout if timeout is None else max(0.05, min(self.timeout, timeout))
        with _opener().open(request, timeout=wait) as response:
            return self.answer(json.loads(response.read().decode("utf-8")))

    def request(
        self, prompt: str, max_tokens: int, model: str, json_output: bool = False
    ) -> tuple[str, dict[str, Any], dict[str, str]]:
        headers = {"Content-Type": "application/json"}
        chat: dict[str, Any] = {
            "model": model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": 0,
            "max_tokens": max_tokens,
        }
        if self.provider == "openai":
            if self.api_key:
                headers["Authorization"] = f"Bearer {self.api_key}"
            return f"{self.url}/chat/completions", chat, headers
        if self.provider == "anthropic":
            headers["x-api-key"] = self.api_key
            headers["anthropic-version"] = ANTHROPIC_VERSION
            return f"{self.url}/v1/messages", chat, headers
        body: dict[str, Any] = {
            "model": model,
            "prompt": prompt,
            "stream": False,
            "options": {"temperature": 0, "num_predict": max_tokens},
        }
        if json_output:
            body["format"] = "json"
        return f"{self.url}/api/generate", body, headers

    def answer(self, data: Any) -> str:
        if self.provider == "openai":
            return str(data["choices"][0]["message"]["content"])
        if self.provider == "anthropic":
            return " ".join(str(b.get("text", "")) for b in data["content"] if isinstance(b, dict))
        return str(data.get("response", ""))
