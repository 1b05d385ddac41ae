"""How each agent's hooks speak, translated to and from the one hook protocol memkit answers
(Claude Code's: docs/claude-code.md), by the hook client before and after it answers.

- Codex CLI (0.171.0): Claude Code's shape: `SessionStart` and `UserPromptSubmit` answer
  `hookSpecificOutput.additionalContext`, which reaches the model as a developer message.
- Gemini CLI (0.61.0): `BeforeAgent` for a prompt, `AfterAgent` (with `prompt_response`) for
  the answer; the same `hookSpecificOutput.additionalContext`. In `gemini -p` the session
  start's context is put in front of the prompt as `<hook_context>…</hook_context>`, and the
  prompt the hooks then see holds it: taken out before recall reads the prompt.
- Cursor: `sessionStart` answers `additional_context`; `beforeSubmitPrompt` may only let the
  prompt through (`continue`), so it is capture only.
- Copilot CLI (1.0.102): `sessionStart` and `userPromptSubmitted` answer `additionalContext`;
  the payload carries `sessionId` and `cwd`.
- OpenCode (1.18.33): no command hooks; memkit's plugin (`.opencode/plugin/memkit.js`) runs
  the hook client with Claude Code's payload and reads its answer as it is.

A transcript of another agent is not Claude Code's format: it is left out, so capture reads
the prompt (and, where the agent gives it, the answer), never a file it would misread.

Standard library only; `json` is imported only when an agent is named (the hook's fast path
for Claude Code never loads this module).
"""

from __future__ import annotations

import json
import os
from typing import Any

AGENTS = ("codex", "gemini", "cursor", "opencode", "copilot")

# The file that marks an agent's project root (a relative `--repo` is taken from its folder).
PROJECT_MARK = {
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
    "cursor": ".cursor/hooks.json",
    "opencode": "opencode.json",
    "copilot": ".github/hooks/memkit.json",
}
# memkit's event -> the event name each agent's answer carries (None: no answer at all).
ANSWER_EVENT = {
    "codex": {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit"},
    "gemini": {"session-start": "SessionStart", "user-prompt-submit": "BeforeAgent"},
    "cursor": {"session-start": "sessionStart"},
    "copilot": {"session-start": "sessionStart", "user-prompt-submit": "userPromptSubmitted"},
    "opencode": {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit"},
}
_HOOK_CONTEXT = ("<hook_context>", "</hook_context>")


def strip_hook_context(prompt: str) -> str:
    """The prompt without the `<hook_context>` blocks Gemini CLI put in front of it."""
    head, tail = _HOOK_CONTEXT
    while True:
        start = prompt.find(head)
        end = prompt.find(tail, start + len(head)) if start >= 0 else -1
        if start < 0 or end < 0:
            return prompt.strip()
        prompt = prompt[:start] + prompt[end + len(tail) :]


def _session(data: dict[str, Any]) -> str:
    for key in ("session_id", "sessionId", "conversation_id"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _cwd(data: dict[str, Any]) -> str:
    cwd = data.get("cwd")
    if isinstance(cwd, str) and cwd:
        return cwd
    roots = data.get("workspace_roots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str):
        return roots[0]
    return os.getcwd()  # noqa: PTH109


def payload(agent: str, event: str, raw: str) -> dict[str, Any]:
    """The agent's hook input as the payload memkit's handlers take (Claude Code's fields):
    `session_id`, `cwd`, `prompt`, `last_assistant_message`, `source`, `reason`."""
    data = json.loads(raw) if raw.strip() else {}
    if not isinstance(data, dict):
        raise ValueError("hook input is not a JSON object")
    out: dict[str, Any] = {"session_id": _session(data), "cwd": _cwd(data)}
    prompt = data.get("prompt")
    if isinstance(prompt, str):
        out["prompt"] = strip_hook_context(prompt) if agent == "gemini" else prompt
    answer = data.get("last_assistant_message") or data.get("prompt_response") or data.get("text")
    if isinstance(answer, str):
        out["last_assistant_message"] = answer
    for key in ("source", "reason", "prompt_id"):
        if isinstance(data.get(key), str):
            out[key] = data[key]
    if agent == "opencode" and isinstance(data.get("transcript_path"), str):
        out["transcript_path"] = data["transcript_path"]  # none today; the plugin's own shape
    return out


def project_root(agent: str, start: str) -> str:
    """The folder a relative `--repo` of this agent's files is taken from: the nearest one at
    or above `start` that holds the agent's project file (`start` itself when none does)."""
    mark = PROJECT_MARK.get(agent)
    folder = os.path.abspath(start)  # noqa: PTH100
    while mark:
        if os.path.isfile(os.path.join(folder, mark)):  # noqa: PTH113, PTH118
            return folder
        parent = os.path.dirname(folder)  # noqa: PTH120
        if parent == folder:
            break
        folder = parent
    return os.path.abspath(start)  # noqa: PTH100


def resolve_repos(agent: str, repos: list[str], start: str) -> list[str]:
    """`repos` with each relative one taken from the agent's project root."""
    base = ""
    out = []
    for repo in repos:
        path = os.path.expanduser(repo)  # noqa: PTH111
        if not os.path.isabs(path):  # noqa: PTH117
            base = base or project_root(agent, start)
            path = os.path.join(base, path)  # noqa: PTH118
        out.append(os.path.normpath(path))
    return out


def answer(agent: str, event: str, claude_answer: str) -> str:
    """memkit's answer (Claude Code's JSON, already checked and fenced) in the agent's shape;
    "" when the agent takes none for this event (then the hook prints nothing). Cursor's
    `beforeSubmitPrompt` is always let through."""
    if agent == "cursor" and event == "user-prompt-submit":
        return json.dumps({"continue": True})
    name = ANSWER_EVENT.get(agent, {}).get(event)
    text = context_of(claude_answer)
    if name is None or not text:
        return ""
    if agent == "cursor":
        return json.dumps({"additional_context": text}, ensure_ascii=False)
    if agent == "copilot":
        return json.dumps({"additionalContext": text}, ensure_ascii=False)
    out = {"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}
    return json.dumps(out, ensure_ascii=False)


def context_of(claude_answer: str) -> str:
    """The additionalContext of a Claude Code answer ("" when it has none)."""
    try:
        data = json.loads(claude_answer) if claude_answer.strip() else {}
    except ValueError:
        return ""
    specific = data.get("hookSpecificOutput") if isinstance(data, dict) else None
    text = specific.get("additionalContext") if isinstance(specific, dict) else None
    return text if isinstance(text, str) else ""


# What an agent's event is answered as, where it differs from its name: Cursor's prompt hook
# cannot add context, so it only shows capture the prompt.
HANDLED_AS = {("cursor", "user-prompt-submit"): "prompt-seen"}


def translate(
    agent: str, event: str, raw: str, repos: list[str]
) -> tuple[str, str, list[str], str]:
    """(the event to answer, the payload as memkit's handlers take it, the repositories with
    relative ones resolved, the folder the session is in). Bad input is an empty payload:
    the handlers then answer nothing, as for Claude Code."""
    try:
        data = payload(agent, event, raw)
    except ValueError:
        data = {"cwd": os.getcwd()}  # noqa: PTH109
    start = str(data.get("cwd") or os.getcwd())  # noqa: PTH109
    resolved = resolve_repos(agent, repos, start)
    return HANDLED_AS.get((agent, event), event), json.dumps(data), resolved, start
