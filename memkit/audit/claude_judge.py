"""The user's own Claude Code CLI as the audit's judge for grey pairs, off by default.

    audit:
      judge:
        enabled: true
        provider: claude-cli
        command: claude        # the CLI on PATH, or a path to it
        model: ""              # optional: --model
        timeout: 60            # seconds per pair
        max_calls: 10          # pairs per run
        budget_seconds: 300    # for all calls of a run together

Each grey pair (`extends` at a cosine of `grey_from` or more) is one headless call, `claude
-p PROMPT --output-format json`, with no tools, no MCP servers, no settings files (so no hook
of any project, memkit's included, runs inside it) and no saved session, from an empty
folder; the answer's first label word is the verdict. It is asked only by the pull audit and
`memkit audit --all` (`memkit.audit.run.audit`), never by the pre-commit gate, `memkit add`,
the MCP save or a Claude Code hook: those must answer in a second. Bounded by calls, time per
call and time in all; a failure (no CLI, not logged in, a timeout, an answer without a label)
keeps the heuristic verdict and ends the judging for the run.
"""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memkit.audit.classify import CONTRADICTS, DUPLICATE, EXTENDS, UNRELATED, Verdict

log = logging.getLogger(__name__)
LABELS = (CONTRADICTS, DUPLICATE, EXTENDS, UNRELATED)
PROMPT = """You compare two notes from a team's engineering memory.
Answer with exactly one word: duplicate (same knowledge), extends (same subject, adds to it),
contradicts (they cannot both be true or followed), or unrelated.

Note A:
{a}

Note B:
{b}

Answer:"""


def label_of(answer: str) -> str:
    """The first label word of a model's answer, or ""."""
    for raw in answer.strip().lower().split():
        word = raw.strip(".,:;!\"'`*")
        if word in LABELS:
            return word
    return ""


@dataclass
class ClaudeJudge:
    command: str = "claude"
    model: str = ""
    timeout: float = 60.0
    max_calls: int = 10
    budget_seconds: float = 300.0
    grey_from: float = 0.85
    calls: int = 0
    spent: float = 0.0
    broken: bool = False

    @classmethod
    def from_config(cls, judge: Mapping[str, Any]) -> ClaudeJudge:
        def num(key: str, default: float) -> float:
            value = judge.get(key, default)
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
            return float(value) if ok else default

        return cls(
            str(judge.get("command") or "claude"),
            str(judge.get("model") or ""),
            num("timeout", cls.timeout),
            int(num("max_calls", cls.max_calls)),
            num("budget_seconds", cls.budget_seconds),
            num("grey_from", cls.grey_from),
        )

    def is_grey(self, verdict: Verdict, similarity: float) -> bool:
        return verdict.kind == EXTENDS and similarity >= self.grey_from

    def settle(self, a: str, b: str, verdict: Verdict) -> Verdict:
        left = self.budget_seconds - self.spent
        if self.broken or self.calls >= self.max_calls or left <= 0:
            return verdict
        self.calls += 1
        started = time.monotonic()
        try:
            answer = self._ask(PROMPT.format(a=a[:2000], b=b[:2000]), min(self.timeout, left))
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            self.broken = True  # N pairs must not cost N timeouts
            log.info("claude judge unavailable (%s); keeping %s", type(exc).__name__, verdict.kind)
            return verdict
        finally:
            self.spent += time.monotonic() - started
        label = label_of(answer)
        if not label:
            log.info("claude judge gave no label (%r); keeping %s", answer[:80], verdict.kind)
            return verdict
        return Verdict(label, f"judge (claude-cli): {label}; heuristic said {verdict.kind}")

    def _ask(self, prompt: str, timeout: float) -> str:
        command = shutil.which(self.command)
        if command is None:
            raise FileNotFoundError(self.command)
        argv = [
            command,
            "-p",
            prompt,
            "--output-format",
            "json",
            "--tools",
            "",
            "--strict-mcp-config",
            "--setting-sources",
            "",
            "--no-session-persistence",
        ]
        if self.model:
            argv += ["--model", self.model]
        # An empty folder: no project's CLAUDE.md, settings or hooks reach the judge.
        with tempfile.TemporaryDirectory(prefix="memkit-judge-") as where:
            done = subprocess.run(
                argv,
                cwd=where,
                capture_output=True,
                text=True,
                timeout=timeout,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        if done.returncode != 0:
            raise ValueError(f"claude exited {done.returncode}: {done.stderr.strip()[:200]}")
        reply = json.loads(done.stdout)
        if not isinstance(reply, dict) or reply.get("is_error"):
            raise ValueError("claude answered with an error")
        return str(reply.get("result", ""))
