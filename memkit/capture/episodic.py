"""Episodic summaries: at SessionEnd, one summary of the session, kept on this machine for its
author alone; on the first prompt of that person's next session in the same project, that
summary; on request (`memkit search --episodes`, the MCP `search` with `episodes`), a search
of their summaries.

Where they live: `.memkit/episodic/` of the memory repository (0700, files 0600), the
person's local state, never in the working tree. A summary holds what the person asked word
for word; in the tree, `git add -A` would share it with the team and the index would serve it
like an atom. `.memkit/` is never committed (`.gitignore`, and the checks refuse it), so no
edit of a team's committed `.gitignore` is needed and `git add -f episodic/` cannot happen
by mistake; and recall, which reads only the index, cannot bring a summary at all.

Whose: a summary names its author (the git identity, as the roles check reads it:
`memkit.roles.git_email`). Through the warm engine that is the identity of the hook that
asked (`memkit.claude.engine._as_asker`), so two git identities on one account never see each
other's. It is never given on or after the day it `expires` (`capture.episodic.expires_days`,
24 by default), and expired ones are removed at SessionEnd.

Built from the transcript pass without a model (`memkit.capture.outline`). Text the secret or
injection checks refuse, or `<private>` text, is never written (`memkit.capture.queue.refusal`),
and a summary is checked again before it is given.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
import time
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memkit.capture import outline, queue
from memkit.capture.queue import refusal
from memkit.capture.state import SessionState
from memkit.errors import MemkitError
from memkit.files import private_dirs, write_atomic
from memkit.recall.client import identity_key
from memkit.roles import git_email

if TYPE_CHECKING:
    from memkit.recall.pipeline import Recalled

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.recall.budget", "memkit.recall.pipeline", "memkit.triggers"}


FOLDER = "episodic"  # under .memkit/
MAX_SUMMARY = 8_000  # characters of a summary read back
_KEY = re.compile(r"^(author|expires|source|created|id):[ \t]*(.*?)[ \t]*$", re.M)
_EMAILS: dict[tuple[Path, tuple[str | None, ...]], tuple[float, str]] = {}
EMAIL_TTL = 60.0  # the warm engine asks git at most once a minute per repository and person


@dataclass(frozen=True)
class Summary:
    """One stored summary: its keys and its body (the Markdown after the frontmatter)."""

    path: Path
    id: str
    author: str
    created: str
    expires: str
    source: str
    title: str
    body: str


def folder(root: Path) -> Path:
    return root / ".memkit" / FOLDER


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
    """The git author email of the person asking, in `root` (cached for a minute per
    identity: the engine answers many hooks, of any git identity of this account)."""
    key = (root, identity_key())
    cached = _EMAILS.get(key)
    if cached is not None and time.monotonic() - cached[0] < EMAIL_TTL:
        return cached[1]
    email = git_email(root)
    if len(_EMAILS) > 64:
        _EMAILS.pop(next(iter(_EMAILS)))
    _EMAILS[key] = (time.monotonic(), email)
    return email


def write_summary(root: Path, state: SessionState, expires_days: int) -> str:
    """Write (or rewrite, for a resumed session) the summary of `state` under
    `.memkit/episodic/`; returns its path relative to `root`, or "" when there is nothing to
    tell (a session opened and closed) or no git identity to name as its author."""
    touched = (state.prompts, state.read, state.edited, state.commands, state.candidates)
    if not any(touched) and not state.given:
        return ""
    author = email_of(root)
    if not author:
        return ""
    today = dt.date.today()
    name = Path(state.episodic).name if state.episodic.startswith(f".memkit/{FOLDER}/") else ""
    atom_id = Path(name).stem if name else summary_id(state.session, today)

    decided = []
    for cid in state.candidates:
        with contextlib.suppress(MemkitError):  # gone since: not named
            cand = queue.get(root, cid)
            decided.append((cid, cand.statement, cand.type))
    text = outline.render(
        state,
        atom_id=atom_id,
        author=author,
        today=today,
        expires=today + dt.timedelta(days=expires_days),
        project=project_name(root, state.project),
        decided=decided,
    )
    where = private_dirs(folder(root))
    write_atomic(where / f"{atom_id}.md", text, durable=False, mode=0o600)
    state.episodic = f".memkit/{FOLDER}/{atom_id}.md"
    return state.episodic


def _read(path: Path) -> Summary | None:
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            text = fh.read(MAX_SUMMARY)
    except OSError:
        return None
    if not text.startswith("---\n"):
        return None
    front, sep, body = text[4:].partition("\n---\n")
    if not sep:
        return None
    keys = {k: v.strip().strip("\"'") for k, v in _KEY.findall(front)}
    title = next((ln[2:].strip() for ln in body.splitlines() if ln.startswith("# ")), "")
    return Summary(
        path,
        keys.get("id", path.stem),
        keys.get("author", "").lower(),
        keys.get("created", ""),
        keys.get("expires", ""),
        keys.get("source", ""),
        title,
        body.strip(),
    )


def served_to(summary: Summary, email: str, today: dt.date) -> bool:
    """Whether `summary` may be given to `email` today: only its author, only before the day
    it expires, and only while nothing in it is refused (a secret, an injection, private
    text: a file under `.memkit/` is still checked before it reaches a prompt)."""
    if not email or summary.author != email.lower():
        return False
    try:
        if today >= dt.date.fromisoformat(summary.expires):
            return False
    except ValueError:
        return False
    return not refusal(summary.body)


def mine(root: Path, email: str | None = None) -> list[Summary]:
    """The asking person's unexpired summaries in `root`, newest first."""
    email = email_of(root) if email is None else email
    today = dt.date.today()
    try:
        paths = [Path(e.path) for e in os.scandir(folder(root)) if e.name.endswith(".md")]
    except OSError:
        return []
    found = []
    for path in paths:
        summary = _read(path)
        if summary is not None and served_to(summary, email, today):
            with contextlib.suppress(OSError):
                found.append((summary.created, path.stat().st_mtime, summary))
    return [s for *_, s in sorted(found, key=lambda x: (x[0], x[1]), reverse=True)]


def by_id(root: Path, ident: str) -> Summary | None:
    """The asking person's unexpired summary with this id (`session-YYYYMMDD-xxxxxxxx`), as
    `search --episodes` and the MCP `search` list it; None for anyone else's."""
    if not ident.startswith("session-"):
        return None
    return next((s for s in mine(root) if s.id == ident), None)


def shown(summary: Summary) -> str:
    """A summary as `memkit show` and the MCP `get` print it: its whole text, said to be the
    asker's own session summary, local and expiring."""
    return (
        f"# {summary.id} · episode · yours — {summary.title}\n"
        f"(your session summary, kept on this machine in .memkit/{FOLDER}/ until "
        f"{summary.expires}; nobody else's memory holds it)\n{summary.body}\n"
    )


MAX_WEIGHED = 24  # the newest summaries of a project weighed against one prompt
_NOT_CONTENT = re.compile(r"^(?:#|What a Claude Code session )")


_PATH = re.compile(r"[\w.~-]*/[\w./~-]+|[\w-]+\.[A-Za-z]\w{0,4}\b")
# Pieces of a path every project has: a prompt naming `src/mod3/conn.py` is not about a session
# that read `src/billing/export.py` for sharing `src` and `py`.
_PATH_NOISE = frozenset(
    ("src", "lib", "app", "apps", "pkg", "cmd", "internal", "main", "index", "test", "tests")
)


_EXTENSIONS = frozenset(
    (
        *("py", "js", "ts", "tsx", "jsx", "mjs", "rb", "rs", "go", "java", "kt", "c", "h", "cc"),
        *("cpp", "hpp", "cs", "php", "swift", "sh", "md", "txt", "json", "yaml", "yml", "toml"),
        *("cfg", "ini", "html", "css", "scss", "sql", "lock", "xml", "csv", "log"),
    )
)


def _path_words(found: re.Match[str]) -> str:
    pieces = [p for p in re.split(r"[/._~-]+", found.group(0)) if p]
    if len(pieces) > 1 and pieces[-1].lower() in _EXTENSIONS:
        pieces.pop()
    return " ".join(p for p in pieces if p.lower() not in _PATH_NOISE)


def about(summary: Summary) -> str:
    """What a summary is about, as a prompt is weighed against it: its title and its items
    (prompts, decisions, files, commands, what was left), not the words every summary has;
    a path by its telling folder and file names (not `src`, not the extension)."""
    kept = [ln for ln in summary.body.splitlines() if ln.strip() and not _NOT_CONTENT.match(ln)]
    topic = summary.title.partition(": ")[2]
    return _PATH.sub(_path_words, "\n".join([topic, *kept]))


def relevant_summary(
    root: Path,
    session: str,
    project: str,
    judge: Callable[[str], float | None],
    given: AbstractSet[str] = frozenset(),
) -> Recalled | None:
    """The asking person's summary of an earlier session in this project that the prompt is
    about, or None. `judge(text)`: how much of the prompt `text` covers, None below recall's
    floor (`memkit.recall.pipeline.relevant`): like any atom, a summary is served only where
    the prompt is about it, once a session (`given`). The author is checked (a git call) only
    for a summary that is relevant: most prompts pay for reading a few small files."""
    where = f" in {project_name(root, project)}"
    own = f"claude-code session {session} "
    today = dt.date.today()
    try:
        entries = sorted(
            (e for e in os.scandir(folder(root)) if e.name.endswith(".md")),
            key=lambda e: -e.stat().st_mtime,
        )[:MAX_WEIGHED]
    except OSError:
        return None
    scored: list[tuple[float, Summary]] = []
    for entry in entries:
        summary = _read(Path(entry.path))
        if summary is None or summary.id in given or not summary.source.endswith(where):
            continue
        if summary.source.startswith(own):
            continue  # this very session (resumed): not its own summary
        score = judge(about(summary))
        if score is not None:
            scored.append((score, summary))
    email = ""
    for score, summary in sorted(scored, key=lambda x: -x[0]):
        email = email or email_of(root)
        if not served_to(summary, email, today):
            continue
        from memkit.recall.budget import estimate_tokens
        from memkit.recall.pipeline import Recalled

        return Recalled(
            summary.id,
            summary.title,
            "episode",
            "yours",
            f"your earlier session in this project (episodic summary, yours only, kept on "
            f"this machine; expires {summary.expires}); covers {score:.0%} of the prompt",
            summary.body,
            estimate_tokens(summary.body) + 30,
            str(root),
        )
    return None


def search(root: Path, query: str, limit: int = 10) -> list[tuple[float, Summary]]:
    """The asking person's summaries that hold words of `query`, best first: a plain count
    of the query's words (CJK: its two-character pieces) in each summary. Summaries are few
    (they expire), so no index is kept for them."""
    words = _words(query)
    if not words:
        return []
    out = []
    for summary in mine(root):
        text = f"{summary.title}\n{summary.body}".lower()
        held = [w for w in words if w in text]
        if held:
            out.append((len(held) / len(words), summary))
    out.sort(key=lambda x: -x[0])  # stable: the newest first among equals (`mine`'s order)
    return out[:limit]


_WORD = re.compile(r"[a-z0-9][a-z0-9_.+#-]*|[\u3400-\u9fff\uf900-\ufaff]+")


def _words(query: str) -> list[str]:
    from memkit.triggers import STOP_WORDS

    out: list[str] = []
    for token in _WORD.findall(query.lower()):
        if token[0].isascii():
            parts = [token] if len(token) >= 3 and token not in STOP_WORDS else []
        else:
            pairs = [token[i : i + 2] for i in range(len(token) - 1)]
            parts = pairs or [token]
            parts = [p for p in parts if p not in STOP_WORDS]
        out += [p for p in parts if p not in out]
    return out


def prune(root: Path, today: dt.date | None = None) -> int:
    """Remove summaries past their `expires` date (anyone's: they are this account's own
    files); returns how many."""
    today = today or dt.date.today()
    gone = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder(root)):
            summary = _read(Path(entry.path)) if entry.name.endswith(".md") else None
            if summary is None:
                continue
            try:
                expired = dt.date.fromisoformat(summary.expires) <= today
            except ValueError:
                expired = True
            if expired:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)  # noqa: PTH108
                    gone += 1
    return gone
