"""The `save` tool: a new atom through exactly the path of `memkit add` (`memkit.add.add_atom`),
so what the agent saves meets the checks a commit applies: validation, secrets and `<private>`
text, the write gate's quality score, duplicates, roles and review.

The answer says where the atom went and why, or, when something refuses it, the findings
(`path:line:col: CODE message`), so that the model can fix the text and call again. Nothing is
staged unless `memkit.yaml` says `mcp: {commit: true}`; then each save is one commit of that
file alone, through the repository's own git hooks, its message naming the session.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from memkit.add import AddOutcome, Draft, add_atom
from memkit.atom import TYPES, id_from_path
from memkit.config import load_config
from memkit.errors import MemkitError
from memkit.mcp.lookup import BadInput
from memkit.recall.masking import mask
from memkit.repo import list_atom_files

MAX_TEXT = 20_000  # characters; an atom is at most 200 lines by default
MAX_TRIGGERS = 20
MAX_TRIGGER = 60
COMMIT_TIMEOUT = 120.0
LOCK_WAIT = 10.0  # seconds a save waits for another git command's index.lock


@dataclass(frozen=True)
class Saved:
    """What `save` did: `text` is the answer for the model; `refused` makes it a tool error;
    `neighbours` are the live atoms it asks the model to read before it saves again."""

    text: str
    refused: bool
    outcome: AddOutcome | None = None
    neighbours: tuple[str, ...] = ()


# A finding about a live neighbour: a copy (MK103), very close (MK104), a contradiction
# (MK105, MK106: a changed value, another holder, a denial).
_CLI_FIX = re.compile(
    r"; (?:add it with|send it to review|edit that atom|if it says what|if it replaces|"
    r"add `supersedes)"
)
_NEIGHBOUR = re.compile(r": (MK10[3-6]) [^`\n]*?`([a-z0-9][a-z0-9-]*)` \(([^,)\s]+)")


def check_draft(
    text: str,
    type: str = "fact",
    scope: str = "shared",
    triggers: Sequence[str] = (),
    *,
    supersedes: Sequence[str] = (),
    related: Sequence[str] = (),
) -> Draft:
    text = str(text or "")
    if not text.strip():
        raise BadInput("text is empty: write the fact, decision or pitfall to remember")
    if len(text) > MAX_TEXT:
        raise BadInput(
            f"text is {len(text)} characters; an atom holds one idea (at most {MAX_TEXT} "
            "characters): save the essential part, or several atoms"
        )
    if type not in TYPES:
        raise BadInput(f"type must be one of {', '.join(TYPES)}")
    clean = [str(t).strip() for t in triggers if str(t).strip()]
    if len(clean) > MAX_TRIGGERS:
        raise BadInput(f"at most {MAX_TRIGGERS} triggers")
    long = [t for t in clean if len(t) > MAX_TRIGGER]
    if long:
        raise BadInput(f"a trigger is a keyword or short phrase (at most {MAX_TRIGGER} characters)")
    return Draft(
        text=text,
        type=type,
        scope=str(scope or "shared").strip(),
        triggers=tuple(clean),
        supersedes=_ids(supersedes, "supersedes"),
        related=_ids(related, "related"),
    )


def _ids(given: Sequence[str], name: str) -> tuple[str, ...]:
    ids = tuple(dict.fromkeys(str(i).strip() for i in given if str(i).strip()))
    if len(ids) > MAX_TRIGGERS or any(not _ID.fullmatch(i) for i in ids):
        raise BadInput(f"{name} takes atom ids (lowercase-kebab-case), as `search` lists them")
    return ids


_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,99}")


def save(root: Path, draft: Draft, *, session: str, duplicate_of: str = "") -> Saved:
    if duplicate_of:
        return _same_as(root, duplicate_of.strip())
    try:
        planned = add_atom(root, draft, dry_run=True)
    except MemkitError as exc:  # a bad scope, a name already taken: the model can fix it
        raise BadInput(str(exc)) from exc
    near = _neighbours(planned, draft)
    if near:
        # The agent is a judge already in the loop: it reads the neighbour and says whether
        # its text replaces it, says the same, or goes with it; nothing is written until then.
        return Saved(_ask(planned, near), refused=False, outcome=planned, neighbours=tuple(near))
    try:
        outcome = add_atom(root, draft)
    except MemkitError as exc:
        raise BadInput(str(exc)) from exc
    if outcome.errors:
        return Saved(_refused(outcome), refused=True, outcome=outcome)
    lines = [_where(outcome)]
    if outcome.explain:
        lines.append(f"quality: {outcome.explain}")
    if outcome.findings:
        lines.append("warnings (the atom was written; consider acting on them):")
        lines += [f"  {f}" for f in outcome.findings]
    commit = load_config(root).section("mcp").get("commit") is True
    if commit:
        done, detail = _commit(root, outcome.path, f"memory: {outcome.id} (saved by {session})")
        if not done:
            lines.append(
                f"not committed: the commit was refused and the file left unstaged:\n{detail}"
            )
            return Saved(mask("\n".join(lines)), refused=True, outcome=outcome)
        lines.append(f"committed as {detail}")
    else:
        lines.append(
            "not staged or committed: the user reviews it and commits it (`git add` + "
            "`git commit`), which runs the same checks again"
        )
    return Saved(mask("\n".join(lines)), refused=False, outcome=outcome)


def _neighbours(outcome: AddOutcome, draft: Draft) -> dict[str, tuple[str, str, str]]:
    """The live atoms the findings name as a copy, a close line or a contradiction that the
    draft has not settled with `supersedes` or `related`: id -> (code, path, finding)."""
    settled = {*draft.supersedes, *draft.related}
    found: dict[str, tuple[str, str, str]] = {}
    for line in outcome.findings:
        m = _NEIGHBOUR.search(line)
        if m and m.group(2) not in settled and m.group(2) != outcome.id:
            found.setdefault(m.group(2), (m.group(1), m.group(3), line.split(": ", 1)[-1]))
    return found


def _ask(outcome: AddOutcome, near: dict[str, tuple[str, str, str]]) -> str:
    lines = [
        "nothing was written yet: the memory already holds a close neighbour of this text "
        "(its text is below). Read it, then call `save` again with the same text and:"
    ]
    for atom_id, (_, path, finding) in near.items():
        # The finding's own fix speaks to a person at a shell; the choices below replace it.
        reason = _CLI_FIX.split(finding, maxsplit=1)[0]
        lines.append(f"- `{atom_id}` ({path}): {reason}")
    ids = ", ".join(f'"{i}"' for i in near)
    codes = {code for code, _, _ in near.values()}
    lines += [
        f"- supersedes: [{ids}] if your text replaces it (a value changed, it is outdated);",
        f'- duplicate_of: "{next(iter(near))}" if it already says what you meant: nothing is '
        "written, and the memory keeps what it has;",
    ]
    if codes & {"MK104", "MK105"}:
        lines.append(f"- related: [{ids}] if both hold and both are needed.")
    others = [f for f in outcome.findings if not _NEIGHBOUR.search(f)]
    if others:
        lines.append("other findings on the text:")
        lines += [f"  {f}" for f in others]
    return mask("\n".join(lines))


def _same_as(root: Path, atom_id: str) -> Saved:
    """The agent judged its text the same as `atom_id`: nothing is written."""
    paths = {id_from_path(p): p for p in list_atom_files(root)}
    if not _ID.fullmatch(atom_id) or atom_id not in paths:
        raise BadInput(f"duplicate_of names no atom of this memory: {atom_id!r}")
    return Saved(
        f"nothing written: you judged this the same as `{atom_id}` ({paths[atom_id]}), which "
        "the memory keeps as it is",
        refused=False,
    )


def _where(outcome: AddOutcome) -> str:
    if not outcome.pending_review:
        return f"saved {outcome.path} (id {outcome.id})"
    why = outcome.review_reason or "it waits for review (the findings below say why)"
    return (
        f"saved {outcome.path} (id {outcome.id}) in shared/_pending/: {why}; a management "
        f"member approves it with `memkit review approve {outcome.id}`, and the hooks do not "
        "serve it until then"
    )


def _refused(outcome: AddOutcome) -> str:
    lines = [f"refused: nothing was written ({outcome.path} would have been the file)."]
    lines += [f"  {f}" for f in outcome.findings]  # MK101 carries the quality score itself
    lines.append("Fix what the findings say and call save again.")
    return mask("\n".join(lines))


def _commit(root: Path, relpath: str, message: str) -> tuple[bool, str]:
    """One commit of `relpath` alone (other staged work stays staged), hooks included."""

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", *args],
            cwd=root,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=COMMIT_TIMEOUT,
            check=False,
        )

    def locked(*args: str) -> subprocess.CompletedProcess[str]:
        """`git ARGS`, again while another git command holds the index (`index.lock`: the
        user committing at the same moment), for up to LOCK_WAIT seconds."""
        deadline = time.monotonic() + LOCK_WAIT
        pause = 0.1
        while True:
            done = git(*args)
            busy = done.returncode != 0 and "index.lock" in done.stderr
            if not busy or time.monotonic() + pause > deadline:
                return done
            time.sleep(pause)
            pause = min(1.0, pause * 2)

    try:
        added = locked("add", "--", relpath)
        if added.returncode != 0:
            return False, added.stderr.strip()[-2000:]
        done = locked("commit", "-q", "-m", message, "--only", "--", relpath)
        if done.returncode != 0:
            locked("reset", "-q", "--", relpath)
            return False, (done.stdout + done.stderr).strip()[-2000:]
        sha = git("rev-parse", "--short", "HEAD").stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, str(exc)
    return True, f"{sha} ({message})"
