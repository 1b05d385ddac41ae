"""Review: what waits in shared/_pending/, what the checks say of it, and the three moves that
settle it — a member proposes, management approves (retiring what it replaces in the same
change) or rejects.

Every refusal here names the command that works from where the person stands, and no
suggestion leads back to a refusal: approve runs the commit's own checks on the atom as it
will stand in shared/ before it moves anything, and asks for `--supersedes` when the commit
would ask for it; propose turns an edit of an approved atom (or a move of it back into
review, or an edit committed past the hooks) into a pending proposal of it, and puts the
approved one back as review last saw it; approving a proposal writes it over the atom it
changes, which keeps its id. The commands print; this module only decides and writes
(`memkit.reviewlog` reads the decisions back).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from memkit import git
from memkit.admission.decide import read_admitted
from memkit.atom import ID_MAX_LEN, Atom, id_from_path
from memkit.atom.plain import read_meta
from memkit.atom.read import read_atom
from memkit.atom.write import update_frontmatter
from memkit.audit.write import conflicts
from memkit.changeset import reviewed_point
from memkit.checks.gate import gate_atoms
from memkit.config import Config
from memkit.errors import MemkitError
from memkit.files import write_atomic
from memkit.repo import list_atom_files
from memkit.reviewlog import REVIEW_LOG, is_revision
from memkit.roles import Identity

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"ruamel.yaml.comments", "ruamel.yaml.error"}


PENDING = "shared/_pending/"
REJECTED = "archive/rejected/"
_TICKED_ID = re.compile(r"`([a-z0-9][a-z0-9-]*)`")


@dataclass(frozen=True)
class Concern:
    """One finding of the checks about a pending atom, as it would stand in shared/."""

    kind: str  # contradicts | duplicate | close | quality
    other: str  # the other atom's id ("" for quality)
    message: str
    blocks: bool  # the approval's commit would be refused over it


@dataclass(frozen=True)
class _Approver:
    """Whoever approves is management: the checks judge the atom as their commit would."""

    is_management: bool = True


def pending_paths(root: Path) -> list[str]:
    return [p for p in list_atom_files(root) if p.startswith(PENDING)]


def pending_path(root: Path, atom_id: str) -> str | None:
    found = [p for p in pending_paths(root) if p.endswith(f"/{atom_id}.md")]
    return found[0] if found else None


def concerns(root: Path, atom: Atom, config: Config) -> list[Concern]:
    """What the commit's checks find in `atom` placed in shared/ by management: contradictions
    with live atoms (with whom), duplicates and near copies, its quality verdict.

    The one place review asks the write checks (`memkit.audit.write.conflicts`, the same call
    the gate and `memkit add` make, and `memkit.checks.gate.gate_atoms`)."""
    placed = replace(atom, path="shared/" + atom.path.removeprefix(PENDING), pending=False)
    out = [
        Concern(
            "contradicts",
            c.other_id,
            f"contradicts `{c.other_id}` ({c.other_path}): {c.reason}",
            c.route,
        )
        for c in conflicts(root, [placed], config, identity=_Approver())
    ]
    for result in gate_atoms(root, [placed], config):
        for finding in result.findings:
            kind = {"MK103": "duplicate", "MK104": "close"}.get(finding.code, "quality")
            ticked = _TICKED_ID.search(finding.message) if kind != "quality" else None
            out.append(
                Concern(kind, ticked.group(1) if ticked else "", finding.message, finding.is_error)
            )
    return out


def settle_with(atom_id: str, concern: Concern) -> str:
    """The command that settles a blocking concern from review."""
    if concern.other and concern.kind in ("contradicts", "duplicate"):
        return f"memkit review approve {atom_id} --supersedes {concern.other}"
    return f'memkit review reject {atom_id} --reason "…"'


@dataclass(frozen=True)
class Approved:
    id: str
    source: str
    target: str
    retired: tuple[str, ...]  # paths of the atoms it supersedes, now `status: superseded`
    concerns: tuple[Concern, ...]  # what the checks still say (warnings only)
    revises: str = ""  # the approved atom it is a new version of, now holding its text


def approve(
    root: Path, atom_id: str, who: Identity, config: Config, supersedes: Sequence[str] = ()
) -> Approved:
    """Move a pending atom into shared/ (or, with `supersedes`, confirm one already there),
    link it to the atoms it replaces and retire them, all staged for one commit. A proposal
    of a change to an approved atom (`memkit review propose`: `ID-2` superseding `ID`) is
    written over that atom instead, which keeps its id, links and history. Refuses,
    changing nothing, what the commit would refuse."""

    _need_management(who, "approve")
    source = pending_path(root, atom_id)
    if source is None:
        in_shared = f"shared/{atom_id}.md"
        if not supersedes or not (root / in_shared).is_file():
            raise MemkitError(
                f"no atom `{atom_id}` is waiting in {PENDING}; `memkit review` lists what is"
            )
        source = in_shared
    atom = _admitted(root, source, config)
    live = {
        a.id: a for p in list_atom_files(root) if (a := read_atom(root, p, config, fast=True).atom)
    }
    old_ids = list(dict.fromkeys([*atom.supersedes, *supersedes]))
    for old in old_ids:
        other = live.get(old)
        if old == atom.id or other is None or other.pending:
            raise MemkitError(
                f"--supersedes {old}: no approved atom `{old}` in this repository"
                + ("" if old != atom.id else " other than the one approved")
            )
    revises = ""
    if source.startswith(PENDING):
        revises = next(
            (
                old
                for old in atom.supersedes
                if is_revision(atom.id, old) and live[old].path == f"shared/{old}.md"
            ),
            "",
        )
    target = live[revises].path if revises else "shared/" + source.removeprefix(PENDING)
    if not revises and source != target and (root / target).exists():
        raise MemkitError(
            f"{target} already exists; rename the pending atom first "
            f"(`git mv {source} {PENDING}<new-id>.md` and set its `id:`)"
        )
    retire = [old for old in old_ids if old != revises]
    linked = replace(atom, supersedes=tuple(retire))
    if revises:
        linked = replace(linked, id=revises, path=target, created=live[revises].created)
    found = concerns(root, linked, config)
    blocking = [c for c in found if c.blocks]
    if blocking:
        lines = [f"`{atom_id}` is not approved: its commit would be refused:"]
        lines += [f"  {c.message}" for c in blocking]
        lines.append(
            f"approve it with `{settle_with(atom_id, blocking[0])}` "
            f"if it replaces that atom, or reject it with "
            f'`memkit review reject {atom_id} --reason "…"`'
        )
        raise MemkitError("\n".join(lines))
    if revises:
        _write_revision(root, source, target, linked, retire)
    else:
        if source != target:
            move(root, source, target)
        if retire != list(atom.supersedes):
            _set_list(root / target, "supersedes", retire)
    retired = []
    for old in retire:
        other = live[old]
        if other.is_active:  # an archived one stays archived; it is not served either way
            ids = list(dict.fromkeys([*other.superseded_by, linked.id]))
            _set_list(root / other.path, "superseded_by", ids, status="superseded")
            retired.append(other.path)
    git.run(root, "add", "--", target, *retired)
    append_log(
        root,
        who,
        "approve",
        atom_id,
        moved=(source, target),
        supersedes=retire,
        revises=revises,
    )
    return Approved(atom_id, source, target, tuple(retired), tuple(found), revises)


def _write_revision(
    root: Path, source: str, target: str, revised: Atom, supersedes: Sequence[str]
) -> None:
    """The proposal's text over the approved atom it revises: its id, its `created`, today
    as `updated`, and no link to itself. The proposal's file goes."""
    write_atomic(root / target, (root / source).read_text(encoding="utf-8"))
    changes: dict[str, object] = {
        "id": revised.id,
        "supersedes": _flow(supersedes) if supersedes else None,
        "updated": dt.date.today(),
        "status": None,
        "superseded_by": None,
    }
    with contextlib.suppress(ValueError):  # a created that is no date is kept as written
        changes["created"] = dt.date.fromisoformat(revised.created)
    update_frontmatter(root / target, changes)
    if git.tracked(root, source):
        git.run(root, "rm", "--quiet", "--force", "--", source)
    else:
        (root / source).unlink()


def _need_management(who: Identity, action: str) -> None:
    if not who.is_management:
        raise MemkitError(
            f"only management may {action} atoms (you are `{who.user}`; management needs the "
            "whitelist entry and personal/<you>/role.md): ask a management member to run "
            f"`memkit review {action} …`"
        )


def _admitted(root: Path, relpath: str, config: Config) -> Atom:
    parsed, codes = read_admitted(root, relpath, config)
    if parsed.atom is None or codes:
        raise MemkitError(
            f"{relpath} is refused by validation ({', '.join(codes) or 'unreadable'}); "
            f"`memkit validate {relpath}` says what to fix"
        )
    return parsed.atom


def _flow(ids: Sequence[str]) -> object:
    """A YAML list written `[a, b]`, as atoms write lists."""
    from ruamel.yaml.comments import CommentedSeq

    seq = CommentedSeq(list(ids))
    seq.fa.set_flow_style()
    return seq


def _set_list(path: Path, key: str, ids: Sequence[str], status: str | None = None) -> None:
    changes: dict[str, object] = {key: _flow(ids)}
    if status:
        changes["status"] = status
    update_frontmatter(path, changes)


def reject(root: Path, atom_id: str, who: Identity, reason: str) -> tuple[str, str]:
    """Move a pending atom into archive/rejected/ with the reason, who and when."""
    _need_management(who, "reject")
    source = pending_path(root, atom_id)
    if source is None:
        raise MemkitError(
            f"no atom `{atom_id}` is waiting in {PENDING}; `memkit review` lists what is"
        )
    target = REJECTED + source.removeprefix(PENDING)
    if (root / target).exists():
        raise MemkitError(f"{target} already exists; resolve that first")
    update_frontmatter(
        root / source,
        {
            "status": "archived",
            "rejected_reason": reason,
            "reviewed_by": who.user,
            "reviewed": dt.date.today(),
        },
    )
    move(root, source, target)
    append_log(root, who, "reject", atom_id, moved=(source, target), reason=reason)
    return source, target


@dataclass(frozen=True)
class Proposal:
    id: str  # the pending atom ("" when nothing is proposed)
    path: str
    supersedes: str  # the approved atom it revises
    restored: str  # the approved atom's path, put back as review approved it
    edited: bool  # the proposal carries the person's edit (else a copy to edit)
    again: bool = False  # an earlier proposal of the same atom was updated, no new one made
    retired_only: bool = False  # the edit only marked it superseded: nothing to propose


def propose(root: Path, atom_id: str, who: Identity) -> Proposal:
    """A change to an approved atom, as review takes it: the person's edit (in shared/ID.md,
    in shared/_pending/ID.md after moving it there, or in a commit that skipped the hooks)
    becomes the pending atom `ID-2` with `supersedes: [ID]`, which approval writes over ID;
    the approved file is put back as review last saw it (where this branch meets the
    remote's, else HEAD). Proposing again updates the same proposal. With no edit, the
    proposal is a copy to edit. Nothing is lost: the proposal is written first."""
    approved = f"shared/{atom_id}.md"
    point = reviewed_point(root) or "HEAD"
    committed = git.show(root, point, approved)
    if committed is None:
        if point != "HEAD" and git.show(root, "HEAD", approved) is not None:
            raise MemkitError(
                f"`{atom_id}` was never approved: {approved} came in with a commit that "
                "skipped the checks (`--no-verify`); send it to review with "
                f"`git mv {approved} {PENDING}{atom_id}.md`"
            )
        raise MemkitError(
            f"`{atom_id}` is not an approved atom ({approved} is not committed); edit it "
            f"where it is, or write a new atom with `supersedes: [{atom_id}]`"
        )
    edit = None
    for where in (approved, PENDING + f"{atom_id}.md", "HEAD:" + approved):
        if where.startswith("HEAD:"):
            text = git.show(root, "HEAD", approved)
        else:
            path = root / where
            is_file = path.is_file() and not path.is_symlink()
            text = path.read_text(encoding="utf-8") if is_file else None
        if text is not None and text != committed:
            edit = (where, text)
            break
    existing = _proposal_of(root, atom_id)
    retired_only = edit is not None and _retirement_only(edit[1], committed)
    if retired_only or (edit is None and existing is not None):
        _put_back(root, approved, point, edit)
        return Proposal(
            existing or "",
            PENDING + f"{existing}.md" if existing else "",
            atom_id,
            approved,
            False,
            again=existing is not None,
            retired_only=retired_only,
        )
    new_id = existing or _next_id(root, atom_id)
    target = f"{PENDING}{new_id}.md"
    write_atomic(root / target, edit[1] if edit else committed)
    from ruamel.yaml.error import YAMLError

    meta = read_meta(root / target) or {}
    earlier = [s for s in _listed(meta.get("supersedes")) if s != atom_id]
    changes: dict[str, object] = {
        "id": new_id,
        "created": dt.date.today(),
        "status": None,
        "superseded_by": None,
        "supersedes": _flow([*earlier, atom_id]),
    }
    if who.email and "author" in meta:
        changes["author"] = who.email
    try:
        update_frontmatter(root / target, changes)
    except (ValueError, YAMLError) as exc:  # the edit broke the frontmatter: kept as written
        raise MemkitError(
            f"{target} keeps your edit, but its frontmatter cannot be read ({exc}); fix it "
            f"there, set `id: {new_id}` and `supersedes: [{atom_id}]`"
        ) from exc
    _put_back(root, approved, point, edit)
    git.run(root, "add", "--", target)
    return Proposal(new_id, target, atom_id, approved, edit is not None, again=bool(existing))


def _put_back(root: Path, approved: str, point: str, edit: tuple[str, str] | None) -> None:
    """The approved atom as review last saw it, in the index and the working tree; an
    approved atom moved into review (`shared/_pending/ID.md`) goes from there."""
    moved_back = root / PENDING / Path(approved).name
    if moved_back.is_file() and (edit is None or edit[0] != approved):
        git.run(
            root, "rm", "--quiet", "--cached", "--ignore-unmatch", "--", PENDING + moved_back.name
        )
        moved_back.unlink()
    git.run(root, "restore", f"--source={point}", "--staged", "--worktree", "--", approved)


def _proposal_of(root: Path, atom_id: str) -> str | None:
    """The id of a change to `atom_id` already waiting in review, if any."""
    for relpath in pending_paths(root):
        pid = id_from_path(relpath)
        if is_revision(pid, atom_id):
            meta = read_meta(root / relpath) or {}
            if atom_id in _listed(meta.get("supersedes")):
                return pid
    return None


_RETIREMENT = re.compile(r"^(status|superseded_by)\s*:.*\n", re.M)


def _retirement_only(edited: str, approved: str) -> bool:
    """Whether `edited` differs from `approved` only in the lines that retire an atom
    (`status:`, `superseded_by:`), which approving the atom that replaces it writes."""
    return _RETIREMENT.sub("", edited) == _RETIREMENT.sub("", approved)


def _listed(value: object) -> list[str]:
    if isinstance(value, str):
        value = value.strip().strip("[]")
        return [v.strip().strip("'\"") for v in value.split(",") if v.strip()]
    return [str(v) for v in value] if isinstance(value, list) else []


def _next_id(root: Path, atom_id: str) -> str:
    """`use-pnpm` → `use-pnpm-2` (`use-pnpm-2` → `use-pnpm-3`), the first id not taken."""
    taken = {id_from_path(p) for p in list_atom_files(root)}
    m = re.fullmatch(r"(.*)-(\d+)", atom_id)
    base, n = (m.group(1), int(m.group(2)) + 1) if m else (atom_id, 2)
    while True:
        suffix = f"-{n}"
        candidate = base[: ID_MAX_LEN - len(suffix)] + suffix
        if candidate not in taken:
            return candidate
        n += 1


def move(root: Path, source: str, target: str) -> None:
    if not git.move(root, source, target):
        git.run(root, "add", "--", target)  # the review commit takes it in


def append_log(
    root: Path,
    who: Identity,
    action: str,
    atom_id: str,
    *,
    moved: tuple[str, str],
    reason: str | None = None,
    supersedes: Sequence[str] = (),
    revises: str = "",
) -> None:
    source, target = moved
    path = root / REVIEW_LOG
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    entry: dict[str, object] = {
        "time": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "action": action,
        "id": atom_id,
        "by": who.user,
        "from": source,
        "to": target,
    }
    if reason:
        entry["reason"] = reason
    if supersedes:
        entry["supersedes"] = list(supersedes)
    if revises:
        entry["revises"] = revises
    write_atomic(path, old + json.dumps(entry, ensure_ascii=False) + "\n")
    git.run(root, "add", "--", REVIEW_LOG)
