"""The text of a session summary, without a model: what was asked, what was decided, what
changed, what is left, and the memory the session was given.

- asked: the session's prompts, shortened (the first one word for word, up to 200 characters);
- decided and learned: the capture candidates the session produced (from the user's prompts
  and from the agent's answers the user did not dispute), by id and statement: decisions and
  conventions under "Decided", pitfalls, corrections and preferences under "Learned" (a root
  cause is no decision);
- changed: files edited, commands run, files read;
- left: the open next steps the last answer named ("Next step: …", "還需要…"), and commands
  that failed and were not made to work.

Every line passes `memkit.capture.queue.refusal` (no `<private>` text, no secret, nothing the
injection check flags) or is left out.
"""

from __future__ import annotations

import datetime as dt
import json

from memkit.capture.queue import refusal
from memkit.capture.state import SessionState

DECISION_TYPES = ("decision", "architecture", "procedure")
MAX_LISTED = 12  # files, commands or atoms named per line
MAX_ASKED = 5


def _safe(items: list[str]) -> list[str]:
    return [i for i in items if i and not refusal(i)]


def _listed(label: str, items: list[str]) -> str:
    safe = [i.replace("`", "'") for i in _safe(items)]
    if not safe:
        return ""
    shown = ", ".join(f"`{i}`" for i in safe[:MAX_LISTED])
    more = f" and {len(safe) - MAX_LISTED} more" if len(safe) > MAX_LISTED else ""
    return f"- {label}: {shown}{more}"


def _quoted(text: str, size: int) -> str:
    return json.dumps(" ".join(text.split())[:size], ensure_ascii=False)


def _asked(state: SessionState) -> list[str]:
    asked = _safe(state.asked) or _safe([state.first_prompt])
    lines = [f"- {_quoted(p, 200 if i == 0 else 160)}" for i, p in enumerate(asked[:MAX_ASKED])]
    if state.prompts > len(lines) and lines:
        lines.append(f"- … {state.prompts} prompts in all")
    return lines


def _left(state: SessionState) -> list[str]:
    lines = [f"- {_quoted(item, 200)}" for item in _safe(state.left)]
    for failed in state.errors:
        command = failed.get("command", "").split("\n", 1)[0][:120].replace("`", "'")
        error = failed.get("error", "")[:160]
        if command and not refusal(command) and not refusal(error):
            lines.append(f"- `{command}` failed and was not made to work: {_quoted(error, 160)}")
    return lines


def render(
    state: SessionState,
    *,
    atom_id: str,
    author: str,
    today: dt.date,
    expires: dt.date,
    project: str,
    decided: list[tuple[str, str, str]],
) -> str:
    first = " ".join(state.first_prompt.split())
    if refusal(first):
        first = ""
    title = f"Session of {today.isoformat()} in {project}"
    if first:
        short = first if len(first) <= 70 else first[:69].rstrip() + "…"
        title += ": " + short.replace("`", "'").lstrip("#").strip()
    head = [
        "---",
        f"id: {atom_id}",
        "type: fact",
        "confidence: observed",
        f"created: {today.isoformat()}",
        f"author: {author}",
        f"expires: {expires.isoformat()}",
        f"source: {json.dumps(f'claude-code session {state.session} in {project}')}",
        "tags: [episodic]",
        "---",
        f"# {title}",
        "",
        f"What a Claude Code session in {project} did, written by memkit when it ended; yours "
        f"only, kept on this machine until {expires.isoformat()}.",
    ]
    told = [(cid, text, kind) for cid, text, kind in decided[:6] if not refusal(text)]
    decisions = [f"- `{c}` {_quoted(t, 160)}" for c, t, k in told if k in DECISION_TYPES]
    learned = [f"- `{c}` {_quoted(t, 160)}" for c, t, k in told if k not in DECISION_TYPES]
    changed = [
        _listed("Files edited", state.edited),
        _listed("Commands run", state.commands),
        _listed("Files read", state.read),
    ]
    parts = [
        ("Asked", _asked(state)),
        ("Decided", decisions),
        ("Learned", learned),
        ("Changed", [line for line in changed if line]),
        ("Left", _left(state)),
        ("Memory used", [line for line in [_listed("Atoms", state.given)] if line]),
    ]
    body: list[str] = []
    for name, lines in parts:
        if lines:
            body += ["", f"## {name}", *lines]
    if not body:
        body = ["", "Nothing was asked, read, edited or run."]
    return "\n".join([*head, *body, ""])
