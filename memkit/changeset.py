"""A change to a memory repository as git records it, with the content on both sides.

The commit being made (the index against HEAD) or a pull request (the merge base against the
head): additions, modifications, deletions, renames and type changes (a file replaced by a
symlink), each with its blobs, so that a check judges what the change does, not only the file
names pre-commit passes (which never include deletions or symlinks).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from memkit.git import output, rev_exists
from memkit.git import run as run_git

SYMLINK_MODE = "120000"


@dataclass(frozen=True)
class Change:
    status: str  # git's letter: A, M, D, R, C, T
    path: str  # where the file is after the change (for D: where it was)
    old_path: str = ""  # R and C: where it came from
    old_mode: str = ""
    new_mode: str = ""
    old_blob: str = ""
    new_blob: str = ""

    @property
    def before(self) -> str | None:
        """The path on the old side, or None when the change creates the file."""
        if self.status in ("A", "C"):
            return None
        return self.old_path or self.path

    @property
    def after(self) -> str | None:
        """The path on the new side, or None when the change deletes the file."""
        return None if self.status == "D" else self.path

    @property
    def is_symlink(self) -> bool:
        return self.new_mode == SYMLINK_MODE


def parse_raw(out: bytes) -> list[Change]:
    """`git diff --raw -z --no-abbrev` output as changes."""
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    changes: list[Change] = []
    i = 0
    while i < len(fields) and fields[i].startswith(":"):
        old_mode, new_mode, old_blob, new_blob, status = fields[i][1:].split(" ")
        letter = status[0]
        sides = {"old_mode": old_mode, "new_mode": new_mode}
        sides.update(old_blob=old_blob, new_blob=new_blob)
        if letter in ("R", "C"):
            changes.append(Change(letter, fields[i + 2], fields[i + 1], **sides))
            i += 3
        else:
            changes.append(Change(letter, fields[i + 1], **sides))
            i += 2
    return changes


_RAW = ("--raw", "-z", "--no-abbrev", "--find-renames", "--relative", "--no-ext-diff")


def staged_changes(root: Path) -> list[Change]:
    """What the commit being made changes: the index against HEAD (everything, on the first
    commit). Honours GIT_INDEX_FILE, as `git commit PATH` sets it.

    Finishing a merge, what the other side brought was its authors' change, judged when they
    made it: only files that differ from both parents are the person merging's own."""
    changes = parse_raw(run_git(root, "diff", "--cached", *_RAW, "--"))
    if not rev_exists(root, "MERGE_HEAD"):
        return changes
    theirs = parse_raw(run_git(root, "diff", "--cached", *_RAW, "MERGE_HEAD", "--"))
    touched = {p for c in theirs for p in (c.path, c.old_path) if p}
    return [c for c in changes if c.path in touched or (c.old_path and c.old_path in touched)]


def changes_between(root: Path, base: str, head: str) -> list[Change]:
    """What `head` changes since `base` (a commit, e.g. the merge base of a pull request)."""
    return parse_raw(run_git(root, "diff", *_RAW, base, head, "--"))


def read_blobs(root: Path, blobs: Iterable[str]) -> dict[str, bytes]:
    """The content of each blob (one `git cat-file --batch` for all of them)."""
    wanted = [b for b in dict.fromkeys(blobs) if b and b.strip("0")]
    if not wanted:
        return {}
    out = run_git(root, "cat-file", "--batch", stdin=("\n".join(wanted) + "\n").encode())
    found: dict[str, bytes] = {}
    pos = 0
    for blob in wanted:
        end = out.index(b"\n", pos)
        header = out[pos:end].split(b" ")
        pos = end + 1
        if len(header) != 3 or header[1] != b"blob":
            continue  # "<sha> missing": not in this clone
        size = int(header[2])
        found[blob] = out[pos : pos + size]
        pos += size + 1
    return found


def reviewed_point(root: Path) -> str | None:
    """The last commit of this branch that review has seen: where it meets the remote's
    default branch (`origin/HEAD`, else the branch's upstream), or None when there is no
    remote to compare with (HEAD is then all there is).

    A commit made with `--no-verify` is in HEAD but was never reviewed: judged against HEAD,
    putting its edit of an approved atom back would look like an edit, and moving a decision
    it added straight into shared/ back to review like taking an approved one out."""
    for ref in ("refs/remotes/origin/HEAD", "@{upstream}"):
        point = output(root, "merge-base", "HEAD", ref)
        if point:
            return point
    return None


def blobs_at(root: Path, rev: str, paths: Iterable[str]) -> dict[str, str]:
    """path -> the blob it has at `rev`, for those of `paths` that exist there."""
    wanted = list(dict.fromkeys(paths))
    if not wanted:
        return {}
    out = run_git(root, "ls-tree", "-z", "--full-tree", rev, "--", *wanted)
    found: dict[str, str] = {}
    for entry in out.decode("utf-8", "surrogateescape").split("\0"):
        meta, _, path = entry.partition("\t")
        parts = meta.split(" ")
        if path and len(parts) == 3 and parts[1] == "blob":
            found[path] = parts[2]
    return found
