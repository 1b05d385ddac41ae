"""Episodic summaries: at SessionEnd, one atom in `episodic/` saying what the session touched;
on the first prompt of its author's next session in the same project, that summary.

Built from the transcript pass and the usage log, without a model: the files read and edited,
the commands run, the capture candidates found and the atoms the session was given. The atom
names its author (the git identity, as the roles check reads it: `memkit.roles.git_email`) and
expires (`capture.episodic.expires_days`, default 24). It is a file in the working tree, for
its author to commit or delete: nothing is committed or pushed for them. It is served only to
its author, only from the index (so only once `memkit validate` passed it), and never after
the day it expires.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memkit.capture.queue import refusal
from memkit.capture.state import SessionState
from memkit.errors import MemkitError
from memkit.files import write_atomic

if TYPE_CHECKING:
    from memkit.claude.recall import Recalled

FOLDER = "episodic"
MAX_LISTED = 12  # files, commands or atoms named per line
_KEY = re.compile(r"^(author|expires|source|created):[ \t]*(.*?)[ \t]*$", re.M)
_EMAILS: dict[Path, tuple[float, str]] = {}
EMAIL_TTL = 60.0  # the warm engine asks git at most once a minute per repository


def summary_id(session: str, day: dt.date) -> str:
    tag = re.sub(r"[^a-z0-9]", "", session.lower())[:8] or "unknown"
    return f"session-{day:%Y%m%d}-{tag}"


def project_name(root: Path, project: str) -> str:
    """How a summary names the session's project: its path inside the memory repository, or
    the folder's name when it lies elsewhere."""
    if not project:
        return root.name
    path = Path(project)
    try:
        rel = path.resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return path.name or root.name
    return root.name if rel == "." else f"{root.name}/{rel}"


def email_of(root: Path) -> str:
    """The git author email of `root` (cached for a minute: the engine answers many hooks)."""
    from memkit.roles import git_email  # noqa: PLC0415  (a git call)

    cached = _EMAILS.get(root)
    if cached is not None and time.monotonic() - cached[0] < EMAIL_TTL:
        return cached[1]
    email = git_email(root)
    _EMAILS[root] = (time.monotonic(), email)
    return email


def _listed(label: str, items: list[str]) -> str:
    safe = [i.replace("`", "'") for i in items if i and not refusal(i)]
    if not safe:
        return ""
    shown = ", ".join(f"`{i}`" for i in safe[:MAX_LISTED])
    more = f" and {len(safe) - MAX_LISTED} more" if len(safe) > MAX_LISTED else ""
    return f"- {label}: {shown}{more}"


def render(
    state: SessionState,
    *,
    atom_id: str,
    author: str,
    today: dt.date,
    expires: dt.date,
    project: str,
    candidates: list[tuple[str, str]],
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
        f"What a Claude Code session in {project} touched, written by memkit when it ended; "
        f"it expires on {expires.isoformat()}.",
        "",
    ]
    lines = [f"- Prompts: {state.prompts}"] if state.prompts else []
    if first:
        lines.append(f"- First prompt: {json.dumps(first[:200], ensure_ascii=False)}")
    lines += [
        _listed("Files edited", state.edited),
        _listed("Files read", state.read),
        _listed("Commands run", state.commands),
    ]
    found = [f"`{cid}` {json.dumps(text[:120], ensure_ascii=False)}" for cid, text in candidates]
    if found:
        lines.append(
            f"- Capture candidates ({len(found)}, `memkit candidates list`): "
            + "; ".join(found[:5])
        )
    lines.append(_listed("Memory used", state.given))
    body = [line for line in lines if line] or ["- Nothing was read, edited or run."]
    return "\n".join([*head, *body, ""])


def write_summary(root: Path, state: SessionState, expires_days: int) -> str:
    """Write (or rewrite, for a resumed session) the summary of `state`; returns its path
    relative to `root`, or "" when there is nothing to tell (a session opened and closed) or
    no git identity to name as its author."""
    touched = (state.prompts, state.read, state.edited, state.commands, state.candidates)
    if not any(touched) and not state.given:
        return ""
    author = email_of(root)
    if not author:
        return ""
    today = dt.date.today()
    atom_id = summary_id(state.session, today)
    relpath = state.episodic or f"{FOLDER}/{atom_id}.md"
    atom_id = Path(relpath).stem
    from memkit.capture import queue  # noqa: PLC0415

    candidates = []
    for cid in state.candidates:
        with contextlib.suppress(MemkitError):  # gone since: not named
            candidates.append((cid, queue.get(root, cid).statement))
    text = render(
        state,
        atom_id=atom_id,
        author=author,
        today=today,
        expires=today + dt.timedelta(days=expires_days),
        project=project_name(root, state.project),
        candidates=candidates,
    )
    write_atomic(root / relpath, text)
    state.episodic = relpath
    return relpath


def _meta(path: Path) -> dict[str, str]:
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            head = fh.read(4096)
    except OSError:
        return {}
    front = head.split("\n---", 1)[0]
    return {k: v.strip().strip("\"'") for k, v in _KEY.findall(front)}


def served_to(meta: dict[str, str], email: str, today: dt.date) -> bool:
    """Whether an episodic atom with these keys may be given to `email` today: only its
    author, and only before the day it expires."""
    if not email or meta.get("author", "").lower() != email.lower():
        return False
    try:
        return today < dt.date.fromisoformat(meta.get("expires", ""))
    except ValueError:
        return False


def for_first_prompt(root: Path, reader: Any, session: str, project: str) -> Recalled | None:
    """The author's latest unexpired summary of an earlier session in this project, from the
    index (what validation admitted), or None."""
    folder = root / FOLDER
    try:
        paths = [p for p in folder.iterdir() if p.suffix == ".md"]
    except OSError:
        return None
    indexed = [p for p in paths if f"{FOLDER}/{p.name}" in reader.row_of]
    if not indexed:
        return None
    email = email_of(root)
    today = dt.date.today()
    where = f" in {project_name(root, project)}"
    mine: list[tuple[str, float, Path]] = []
    for path in indexed:
        meta = _meta(path)
        source = meta.get("source", "")
        if not served_to(meta, email, today) or not source.endswith(where):
            continue
        if source.startswith(f"claude-code session {session} "):
            continue  # this very session (resumed): not its own summary
        try:
            mine.append((meta.get("created", ""), path.stat().st_mtime, path))
        except OSError:
            continue
    if not mine:
        return None
    from memkit.claude.budget import estimate_tokens  # noqa: PLC0415
    from memkit.claude.recall import Recalled  # noqa: PLC0415

    *_, path = max(mine)
    rel = f"{FOLDER}/{path.name}"
    entry = reader.atoms[reader.row_of[rel]]
    body = reader.body(rel)
    if not body.strip():
        return None
    expires = _meta(path).get("expires", "")
    return Recalled(
        entry["id"],
        entry["title"],
        entry["type"],
        entry["confidence"],
        f"your last session in this project (episodic summary, yours only; expires {expires})",
        body,
        estimate_tokens(body) + 30,
        str(root),
    )
