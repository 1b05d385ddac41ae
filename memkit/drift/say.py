"""A verdict in words: what the atom says, what the code holds now, and since when.

The same sentence goes to the terminal, CI's annotations, `memkit health`, the site and the
hook's "may be stale" line. A value of a key named like a secret (`API_KEY`, `db_password`) is
never repeated: the project's config may hold a real one. Every sentence is masked for
secrets as findings are.
"""

from __future__ import annotations

import re

from memkit.drift.check import CHANGED, CONFIRMED, GONE, Verdict
from memkit.drift.claims import COMMAND, GLOB, PATH, VALUE, VERSION
from memkit.safety.secrets import redact_secrets

_SECRET_KEY = re.compile(
    r"pass|secret|token|credential|private|auth|api[_-]?key|(^|[_.-])key$", re.I
)
MAX_VALUE = 60


def _value(key: str, value: str) -> str:
    if _SECRET_KEY.search(key):
        return "another value"
    value = " ".join(value.split())
    return value if len(value) <= MAX_VALUE else value[: MAX_VALUE - 1] + "…"


def _since(verdict: Verdict, verb: str) -> str:
    if not verdict.since:
        return ""
    if verdict.since == "this change":
        return ""
    commit, _, date = verdict.since.partition(" ")
    return f" ({verb} in {commit}{', ' + date if date else ''})"


def describe(verdict: Verdict) -> str:
    """One line: "`max_retries` is 8 in `config/worker.yaml` now (the atom says 5)"."""
    return verdict.said or redact_secrets(_describe(verdict))


def _describe(v: Verdict) -> str:
    claim = v.claim
    if v.state == CONFIRMED:
        return f"`{claim.text}` holds"
    if v.state not in (GONE, CHANGED):
        return (
            f"`{claim.text}`: not checkable ({v.why})"
            if v.why
            else f"`{claim.text}`: not checkable"
        )
    if claim.kind == PATH:
        shown = v.file or claim.path
        if v.now:
            return f"`{shown}` is gone: renamed to `{v.now}`" + _since(v, "renamed")
        return f"`{shown}` is gone" + _since(v, "deleted")
    if claim.kind == GLOB:
        return f"`paths:` `{claim.path}` matches no file of the project any more"
    if claim.kind == COMMAND and claim.tool == "entry":
        return f"`{claim.key}`: `{v.file}` no longer declares this program" + _since(v, "taken out")
    if claim.kind == COMMAND:
        if v.why:
            return f"`{claim.text}`: {v.why}"
        return f"`{claim.text}`: `{v.file}` no longer defines `{claim.key}`" + _since(
            v, "taken out"
        )
    if claim.kind == VALUE:
        if v.state == GONE:
            return f"`{claim.key}` is no longer in `{v.file}`" + _since(v, "taken out")
        now = _value(claim.key, v.now)
        said = _value(claim.key, claim.value)
        if now == "another value":
            return f"`{claim.key}` holds another value in `{v.file}` now" + _since(v, "changed")
        return f"`{claim.key}` is {now} in `{v.file}` now (the atom says {said})" + _since(
            v, "changed"
        )
    if claim.kind == VERSION and v.state == GONE:
        return f"`{claim.key}` is no longer a dependency (`{v.file}`)" + _since(v, "taken out")
    if claim.kind == VERSION:
        return (
            f"`{claim.key}` is {v.now} in `{v.file}` now (the atom says {claim.tool}{claim.value})"
        )
    return f"`{claim.text}` is {v.state}"


def pr_sentence(verdict: Verdict, atom_id: str) -> str:
    """For a pull request of the code project: "this change renames `src/net/conn.py` (to
    `src/net/connection.py`), named by `ws-heartbeat-interval`"."""
    claim = verdict.claim
    if claim.kind == PATH and verdict.now:
        what = f"renames `{verdict.file}` (to `{verdict.now}`)"
    elif claim.kind == PATH:
        what = f"deletes `{verdict.file or claim.path}`"
    elif claim.kind == COMMAND:
        what = (
            f"removes `{claim.key}` from `{verdict.file}`"
            if verdict.file
            else f"removes `{claim.text}`"
        )
    elif claim.kind == VALUE and verdict.state == CHANGED:
        now, was = _value(claim.key, verdict.now), _value(claim.key, claim.value)
        what = f"sets `{claim.key}` to {now} in `{verdict.file}` (was {was})"
    elif claim.kind == VALUE:
        what = f"removes `{claim.key}` from `{verdict.file}`"
    elif claim.kind == VERSION:
        was = f"{claim.tool}{claim.value}"
        what = f"changes `{claim.key}` to {verdict.now} in `{verdict.file}` (was {was})"
    else:
        what = f"changes what `{claim.text}` names"
    return redact_secrets(f"this change {what}, named by `{atom_id}`")
