"""`memkit roles check` / hook `memkit-roles`: may this person make this change?

The change is judged as a whole, both sides of every file: additions, modifications,
deletions, renames and type changes (a file replaced by a symlink), so that taking something
out of review needs the authority that putting it in needs.
- `roles/<r>/` needs role r and `personal/<u>/` needs to be u, on either side of a change;
- `usage/<u>.json`, a person's exported usage, is written by u alone (MK207);
- the whitelist and the review log need management (MK203), and so do the files that set the
  rules a change is judged by: memkit.yaml, the hook set, the golden queries, the CI workflow,
  and every `.gitignore`, which decides what is ever staged and judged; and the files every
  clone obeys without a review of its own: every `.gitattributes` (how git writes each file
  into a clone: an encoding, line ends), `.gitmodules` (repositories git fetches into it), and
  what runs programs on a teammate's machine (`.githooks/`, `.husky/`, `.claude/`,
  `.mcp.json`) (MK206);
- nothing named `.memkit` (a clone's own derived state: the folder, a file or a link in its
  place) is ever committed, by anyone (MK208);
- sensitive atoms (type or `audience` in `roles.sensitive`, default architecture and decision)
  enter `shared/` only from management (MK204); others go through `shared/_pending/`;
- an approved sensitive atom in `shared/` is deleted, retyped or moved out only by
  management (MK205);
- and, whoever makes it, a change breaks no link: an atom others name is not deleted or
  archived from under them (MK024, `memkit.checks.links`).
Except in a repository's first commit, the whitelist and the settings come from a committed
revision (HEAD locally, the base in CI), never from the change being judged. Locally the
identity is the git author; in CI it is the pull-request author (`--actor`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from memkit.atom import Atom, scope_from_path
from memkit.atom.read import ParsedAtom, parse_atom_bytes
from memkit.changeset import (
    SYMLINK_MODE,
    Change,
    blobs_at,
    read_blobs,
    reviewed_point,
    staged_changes,
)
from memkit.checks.links import link_findings
from memkit.checks.validate import resolve_targets
from memkit.config import CONFIG_NAME, Config, load_config, parse_config
from memkit.findings import Finding
from memkit.git import has_commits, show
from memkit.repo import find_root
from memkit.reviewlog import REVIEW_LOG
from memkit.roles import ROLES_FILE, Identity, identify, sensitive_kinds

QUERIES_FILE = "evals/queries.yaml"
# What a change is judged by: changing these is management's, like the whitelist.
RULE_FILES = (CONFIG_NAME, ".pre-commit-config.yaml", QUERIES_FILE, ".gitlab-ci.yml")
RULE_FOLDERS = (".github/workflows/",)  # the CI that runs `memkit ci` on pull requests
# What every clone obeys as it is checked out or opened, with no review of its own: git's
# attributes (any folder) and submodules, and what runs programs on a teammate's machine.
CLONE_FILES = (".gitmodules", ".mcp.json")
CLONE_FOLDERS = (".githooks/", ".husky/", ".claude/")
CLONE_NAMES = (".gitattributes",)
# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.safety.injection"}
WHY_CLONE = {
    ".gitattributes": "git applies it to every file it writes into a teammate's clone (an "
    "encoding, line ends, a filter), before memkit reads one",
    ".gitmodules": "it names repositories git fetches into every clone",
}
WHY_PROGRAM = "what it names runs as a program on every teammate's machine"


def is_rule_file(path: str) -> bool:
    """Changing it is management's: it decides how changes are judged, or, for a
    `.gitignore` (in any folder), what the hooks and review ever see (an ignored file is never
    staged, so never judged), or every clone obeys it (`is_clone_file`)."""
    return (
        path in RULE_FILES
        or path.startswith(RULE_FOLDERS)
        or path.rsplit("/", 1)[-1] == ".gitignore"
        or is_clone_file(path)
    )


def is_clone_file(path: str) -> bool:
    return (
        path in CLONE_FILES
        or path.startswith(CLONE_FOLDERS)
        or path.rsplit("/", 1)[-1] in CLONE_NAMES
    )


def _why_rule(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    if name == ".gitignore":
        return "it decides which files are ever staged, and so reviewed"
    if is_clone_file(path):
        return WHY_CLONE.get(name, WHY_PROGRAM)
    return (
        "it sets the rules this change is judged by, which stay the base's until management "
        "changes them"
    )


LOCAL_STATE = ".memkit"  # this clone's derived state: the index, the usage log, logs, a socket


def is_local_state(path: str) -> bool:
    """Anything named `.memkit`, or under it: a tracked file of that name replaces a clone's
    state folder at its next checkout (git deletes ignored files in the way)."""
    return LOCAL_STATE in path.split("/")


def local_state_finding(path: str) -> Finding:
    parts = path.split("/")
    folder = "/".join(parts[: parts.index(LOCAL_STATE) + 1])
    effect = (
        "a teammate's clone would read it as theirs"
        if folder != path
        else "in its place, a teammate's next pull would delete their own .memkit/ folder "
        "(index, waiting candidates, session summaries, usage log)"
    )
    return Finding(
        path,
        1,
        1,
        "MK208",
        f"{LOCAL_STATE}/ is this clone's own derived state (index, usage log, logs) and is "
        f"never committed: {effect}; remove it with `git rm -r --cached {folder}` (it stays "
        "on your disk)",
    )


WORKTREE = "worktree:"  # stands for a blob: the file as it is in the working tree


def committed_config(root: Path, rev: str | None) -> Config:
    """The settings as committed at `rev` (None: the working tree, for a first commit)."""
    if rev is None:
        return load_config(root)
    text = show(root, rev, CONFIG_NAME)
    return parse_config(text, f"{CONFIG_NAME} at {rev}") if text is not None else Config()


def describe(identity: Identity) -> str:
    if not identity.known:
        email = f" <{identity.email}>" if identity.email else " (git knows no email for you)"
        return f"you are `{identity.user}`{email}, not listed in {ROLES_FILE}"
    roles = ", ".join(sorted(identity.roles)) or "none"
    mgmt = ""
    if "management" in identity.roles and not identity.is_management:
        mgmt = f"; management is not declared in personal/{identity.user}/role.md"
    elif "management" in identity.declared and not identity.is_management:
        mgmt = f"; {ROLES_FILE} does not list you as management"
    return f"you are `{identity.user}`, roles: {roles}{mgmt}"


def grant(identity: Identity, role: str) -> str:
    """The command a management member runs to give `identity` the role (listing them
    first, by the email git commits with, when the whitelist does not know them)."""
    email = f" --email {identity.email}" if identity.email and not identity.known else ""
    return f"memkit roles add {identity.user}{email} --role {role}"


class _Judge:
    def __init__(
        self,
        identity: Identity,
        config: Config,
        blobs: Mapping[str, bytes],
        first: bool,
        *,
        reviewed: Mapping[str, str] | None = None,
        restore_from: str = "HEAD",
    ) -> None:
        self.identity = identity
        # The revision a hint puts a file back from: HEAD locally, the base in CI.
        self.restore_from = restore_from
        self.config = config
        self.blobs = blobs
        self.first = first
        # path -> blob where review last saw the branch (None: the old side is what review
        # saw, as in CI, or there is nothing else to go by).
        self.reviewed = reviewed
        self.sensitive = sensitive_kinds(config)
        self.findings: list[Finding] = []
        self.parsed: dict[tuple[str, str], ParsedAtom] = {}

    def add(self, path: str, line: int, code: str, message: str) -> None:
        self.findings.append(Finding(path, line, 1, code, f"{message} ({describe(self.identity)})"))

    def live_atom(self, path: str | None, blob: str, mode: str) -> ParsedAtom | None:
        """The atom at `path` if it stands in live shared memory (not pending, not a symlink,
        an atom), parsed once per blob: the sensitive and the held check both read it."""
        key = f"{WORKTREE}{path}" if blob == WORKTREE else blob
        if path is None or scope_from_path(path) != ("shared", False) or mode == SYMLINK_MODE:
            return None
        if key not in self.blobs:
            return None
        if (path, key) not in self.parsed:
            self.parsed[(path, key)] = parse_atom_bytes(path, self.blobs[key], self.config)
        parsed = self.parsed[(path, key)]
        return parsed if parsed.atom is not None else None

    def sensitive_atom(self, path: str, blob: str, mode: str) -> tuple[Atom, str] | None:
        """The atom at `path` and its sensitive kind, if it is an approved-place atom of a
        sensitive kind; None otherwise (not in shared/, pending, not an atom, a symlink)."""
        parsed = self.live_atom(path, blob, mode)
        if parsed is None or parsed.atom is None:
            return None
        atom = parsed.atom
        kind = atom.audience if atom.audience in self.sensitive else atom.type
        return (atom, kind) if kind in self.sensitive else None

    def held_atom(
        self, path: str | None, blob: str, mode: str
    ) -> tuple[Atom | None, list[tuple[str, int]]]:
        """The atom at `path` and what reads in it like an order to the agent
        (`memkit.safety.injection.held_for_review`) when it stands in live shared memory;
        (None, []) when it is not there or holds no such sentence."""
        parsed = self.live_atom(path, blob, mode)
        if parsed is None:
            return None, []
        from memkit.safety.injection import held_for_review, where

        held = held_for_review(parsed.text, self.config)
        return parsed.atom, [(h.what, where(parsed.text, h.start)[0]) for h in held]

    def folders(self, path: str, gone: bool, added: bool = False) -> bool:
        """Role and personal folders, the whitelist, the review log, the rule files, local
        state: True when `path` is one of them (judged here, nothing more to check)."""
        who = self.identity
        parts = path.split("/")
        verb = "removing from" if gone else "writing in"
        if is_local_state(path):
            if not gone:  # taking it out of git is the fix, whoever makes it
                self.findings.append(local_state_finding(path))
            return True
        if path in (ROLES_FILE, REVIEW_LOG):
            if not self.first and not who.is_management:
                what = "the role whitelist" if path == ROLES_FILE else "the review log"
                self.add(path, 1, "MK203", f"only management may change {what}")
            return True
        if is_rule_file(path):
            if not self.first and not who.is_management:
                self.add(path, 1, "MK206", f"only management may change {path}: {_why_rule(path)}")
            return True
        if parts[0] == "usage" and len(parts) == 2:
            # A person's exported usage counts toward promotions (`fixed_users`): only they
            # write it; management may remove a broken one.
            own = parts[1] == f"{who.user}.json"
            if not own and not self.first and not (gone and who.is_management):
                undo = (
                    f"git rm --cached {path}"
                    if added
                    else f"git restore --source={self.restore_from} --staged --worktree {path}"
                )
                self.add(
                    path,
                    1,
                    "MK207",
                    f"{path} is another person's usage export; take it out of this change "
                    f"with `{undo}`, and write your own with `memkit usage export --write` "
                    f"(usage/{who.user}.json)",
                )
            return True
        if parts[0] == "roles" and len(parts) >= 3:
            if not who.has_role(parts[1]):
                self.add(
                    path,
                    1,
                    "MK201",
                    f"{verb} roles/{parts[1]}/ needs the role `{parts[1]}` in {ROLES_FILE}; "
                    f"a management member gives it with `{grant(who, parts[1])}` (pull once "
                    "they have pushed it)",
                )
            return True
        if parts[0] == "personal" and len(parts) >= 3:
            if parts[1] != who.user:
                self.add(
                    path,
                    1,
                    "MK202",
                    f"personal/{parts[1]}/ belongs to `{parts[1]}`; write your own atoms in "
                    f"personal/{who.user}/",
                )
            return True
        return False

    def restores(self, change: Change) -> bool:
        """Whether `change` only brings a file back to where review last saw it: undoes, in
        part, commits it never saw (`--no-verify`), which is what their findings ask for."""
        if self.reviewed is None:
            return False
        before, after = change.before, change.after
        if after is None:
            return before is not None and before not in self.reviewed
        # Leaving a place review never saw (a rename back) undoes nothing it saw either.
        unseen = before is None or before == after or before not in self.reviewed
        return unseen and self.reviewed.get(after) == change.new_blob

    def change(self, change: Change) -> None:
        before, after = change.before, change.after
        if self.restores(change):
            return
        if before is not None and before != after:
            self.folders(before, gone=True)
        if after is not None and self.folders(after, gone=False, added=before != after):
            return
        if self.identity.is_management:
            return
        old = (
            self.sensitive_atom(before, change.old_blob, change.old_mode)
            if before is not None
            else None
        )
        if self.reviewed is not None and before is not None and before not in self.reviewed:
            old = None  # it came in with a commit review never saw (`--no-verify`)
        if after is not None:
            new = self.sensitive_atom(after, change.new_blob, change.new_mode)
            if new is not None:
                atom, kind = new
                if old is not None and before == after:
                    # An edit of an approved atom: moving it back into review would take the
                    # approved one out (MK205); a proposal that supersedes it does not.
                    fix = (
                        f"propose your change with `memkit review propose {old[0].id}` (it "
                        f"puts {after} back as approved and your version in shared/_pending/ "
                        "for management to approve)"
                    )
                elif old is not None:  # an approved atom renamed: a new atom, unreviewed
                    fix = f"put it back with `git mv {after} {before}`"
                else:
                    pending = "shared/_pending/" + after.removeprefix("shared/")
                    fix = (
                        f"move it with `git mv {after} {pending}` and a management member "
                        f"will `memkit review approve {atom.id}`"
                    )
                self.add(
                    after,
                    atom.line_of("type"),
                    "MK204",
                    f"`{kind}` atoms enter shared/ only through review; {fix}",
                )
                return
            if self.held(change, after):
                return
        if old is None:
            return
        atom, kind = old
        back = f"shared/_pending/{atom.id}.md"
        propose = (
            f"`memkit review propose {atom.id}` (it puts {atom.path} back and writes your "
            f"version to shared/_pending/ with `supersedes: [{atom.id}]` for management "
            "to approve)"
        )
        if after is None:
            where, what = atom.path, "deleting it"
            fix = f"to replace or retire it, {propose}"
        elif after == back:
            where, what = after, f"moving it to {after}"
            fix = f"propose your change with {propose}"
        elif after != atom.path:
            where, what = after, f"moving it to {after}"
            fix = f"put it back with `git mv {after} {atom.path}`"
        else:
            where, what = after, f"changing it into something other than a `{kind}` atom"
            fix = f"propose your change with {propose}"
        self.add(
            where,
            1,
            "MK205",
            f"`{atom.id}` is an approved `{kind}` atom; {what} takes it out of review, which "
            f"needs management as adding it does: {fix}",
        )

    def held(self, change: Change, after: str) -> bool:
        """MK204 for an atom that reads like an order to the agent: the same road as a
        sensitive atom's, review, with the reason said. True when it found one."""
        atom, held = self.held_atom(after, change.new_blob, change.new_mode)
        if atom is None or not held:
            return False
        before = change.before
        seen = self.reviewed is None or (before is not None and before in self.reviewed)
        if seen:
            # What live memory already said (approved, or older than this check) is not held
            # again for an edit of another line.
            was = {w for w, _ in self.held_atom(before, change.old_blob, change.old_mode)[1]}
            held = [h for h in held if h[0] not in was]
            if not held:
                return False
        what, line = held[0]
        if before == after and change.old_blob and seen:
            # An edit of a live atom: moving it into review would take the live one out of
            # recall until approval; a proposal leaves it serving meanwhile.
            fix = (
                f"propose your change with `memkit review propose {atom.id}` (it puts "
                f"{after} back as it was and your version in shared/_pending/ for management "
                "to approve)"
            )
        else:
            pending = "shared/_pending/" + after.removeprefix("shared/")
            fix = (
                f"move it with `git mv {after} {pending}` and a management member will read "
                f"it and `memkit review approve {atom.id}`"
            )
        self.add(
            after,
            line,
            "MK204",
            f"held for review: it {what}, and every teammate's agent reads shared memory; if "
            f"it is a rule for people or a fact, a person says so by approving it; {fix}",
        )
        return True


def judge_changes(
    root: Path,
    changes: Sequence[Change],
    identity: Identity,
    config: Config,
    *,
    first_commit: bool = False,
    reviewed: Mapping[str, str] | None = None,
    restore_from: str = "HEAD",
) -> list[Finding]:
    """Every finding for `changes` made by `identity` under `config` (the committed rules).
    `reviewed`: path -> blob where review last saw the branch (every path of `changes` that
    exists there), when the old side of `changes` may hold commits it never saw (a local
    commit judged against HEAD); a change back to that state is no change to judge.
    `restore_from`: what a hint puts a file back from (CI: its base, as given)."""
    wanted = [
        (path, blob)
        for c in changes
        for path, blob in ((c.before, c.old_blob), (c.after, c.new_blob))
        if path is not None and scope_from_path(path) == ("shared", False)
    ]
    blobs = read_blobs(root, [blob for _, blob in wanted])
    for path, blob in wanted:
        if blob == WORKTREE:  # a file named on the command line, not staged: as it stands
            blobs[f"{WORKTREE}{path}"] = (root / path).read_bytes()
    judge = _Judge(
        identity, config, blobs, first_commit, reviewed=reviewed, restore_from=restore_from
    )
    for change in changes:
        judge.change(change)
    return sorted(set(judge.findings))


def run_check(repo: Path | None, filenames: Sequence[str], *, actor: str | None, base: str) -> int:
    root = find_root(repo)
    changes = staged_changes(root)
    staged = {c.path for c in changes}
    # Files named on the command line but not staged are judged as they stand (a dry run).
    for relpath in resolve_targets(root, filenames):
        if relpath not in staged and (root / relpath).exists():
            changes.append(Change("A", relpath, new_blob=WORKTREE))
    first = not has_commits(root)
    rev = None if first else base
    identity = identify(root, actor, rev=rev)
    config = committed_config(root, rev)
    point = None if first else reviewed_point(root)
    reviewed = None
    if point is not None:
        sides = [p for c in changes for p in (c.before, c.after) if p]
        reviewed = blobs_at(root, point, sides)
    findings = judge_changes(root, changes, identity, config, first_commit=first, reviewed=reviewed)
    # The links the change breaks, in the tree it stages (files named but not staged aside).
    staged_only = [c for c in changes if c.new_blob != WORKTREE]
    findings += link_findings(root, staged_only, config, tree="")
    for finding in sorted(set(findings)):
        print(finding.format())
    return 1 if findings else 0
