"""What a teammate's commit could make a clone do as it is fetched and checked out, stopped
before it acts.

Review (`memkit-roles`, `memkit ci`: MK206, MK208) keeps these out of the branches a team
merges; a clone does not rely on it alone, because a push that skipped review (a management
member with `--no-verify`, a forge without branch protection) reaches every clone at its next
pull, and what git does then happens before any memkit hook runs:

- a tracked `.memkit` (a file, a link, a folder) replaces the clone's own state folder: git
  deletes ignored files in its way, so the index, the waiting candidates, the session
  summaries and the usage log are gone at the checkout. A `reference-transaction` hook
  refuses the fetch of a branch or tag whose tree holds one, so nothing is merged or checked
  out from it (`git pull` stops at its fetch, with the reason);
- a `.gitattributes` rule (`working-tree-encoding=UTF-16LE`, `eol`, `ident`, a filter) makes
  git rewrite the memory's files as it writes them: memkit reads UTF-16 and recall is empty.
  `$GIT_DIR/info/attributes`, which git reads before every `.gitattributes` and which no
  commit can change, says the memory's files are written as committed. A clone that was
  checked out before (`git clone` runs before `memkit init --join`) has the files git rewrote
  written again, as committed, when the guard is installed.

Installed by `memkit init` and `memkit init --join` with the git hooks, and by `memkit index
--quiet` (the post-checkout, post-merge and post-rewrite hook) in a clone that lacks it.
"""

from __future__ import annotations

import logging
import shlex
from pathlib import Path

from memkit.files import write_atomic
from memkit.git import output, run

log = logging.getLogger(__name__)

MARK = "memkit clone guard"
HOOK = "reference-transaction"
BEGIN = "# >>> memkit: the memory's files are written as committed (docs/reliability.md)"
END = "# <<< memkit"
# Unset: no line-end conversion, no encoding, no $Id$ expansion, no filter of any driver.
NEUTRAL = "-text -working-tree-encoding -ident -filter"
STATE = ".memkit"

_SCRIPT = """#!/bin/sh
# {mark}: written by memkit (memkit/cloneguard.py, docs/reliability.md).
# A fetched branch or tag whose tree holds {state} would replace this clone's own state
# folder (index, waiting candidates, session summaries, usage log) at the next merge or
# checkout: git deletes ignored files in its way. Such a fetch is refused, before anything
# is merged or checked out from it.
[ "$1" = prepared ] || exit 0
refused=0
while read -r old new ref; do
    case "$ref" in refs/remotes/*|refs/tags/*) ;; *) continue ;; esac
    case "$new" in *[!0]*) ;; *) continue ;; esac
    [ -n "$(git ls-tree --full-tree --name-only "$new" -- {path} 2>/dev/null)" ] || continue
    # A commit a branch of this clone already holds is not a teammate's: the push of one's
    # own branch updates its remote-tracking ref too, and review (MK208) answers that push.
    [ -z "$(git for-each-ref --count=1 --contains "$new" refs/heads/ 2>/dev/null)" ] || continue
    echo "memkit: not fetching $ref: its tree holds {state}, the folder where this clone" \\
        "keeps its own state (index, waiting candidates, session summaries, usage log);" \\
        "checking it out would delete that folder. Ask a management member to remove it" \\
        "from the branch (git rm -r --cached {state}, then commit), and pull again." >&2
    refused=1
done
exit $refused
"""


def _where(root: Path) -> tuple[str, Path, Path] | None:
    """Where the memory repository sits in its git repository ("" at the top, "team/" in a
    code repository), and the paths of the hook and of info/attributes; None outside git.
    One git command: the post-checkout hook asks it every time."""
    found = output(root, "rev-parse", *_PATHS, "--show-prefix")
    lines = found.split("\n") if found is not None else []
    if len(lines) not in (2, 3):  # the prefix, last, is "" at the top: stripped away
        return None
    hook, attributes, prefix = (*lines, "")[:3]
    return prefix, (root / hook).resolve(), (root / attributes).resolve()


_PATHS = ("--git-path", f"hooks/{HOOK}", "--git-path", "info/attributes")


def _pattern(prefix: str) -> str:
    if not prefix:
        return "*"
    pattern = f"{prefix}**"
    if any(c.isspace() or c in '"\\' for c in pattern):
        escaped = pattern.replace("\\", "\\\\").replace('"', '\\"')
        return f'"{escaped}"'
    return pattern


def attributes_block(prefix: str) -> str:
    return f"{BEGIN}\n{_pattern(prefix)} {NEUTRAL}\n{END}\n"


def hook_script(prefix: str) -> str:
    state = f"{prefix}{STATE}"
    return _SCRIPT.format(mark=MARK, state=state, path=shlex.quote(state))


def _write_attributes(path: Path, prefix: str) -> bool:
    """The block in info/attributes; True when it was missing or different (written now)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    block = attributes_block(prefix)
    if block in text:
        return False
    start, end = text.find(BEGIN), text.find(END)
    if 0 <= start < end:  # an older block (another prefix): replaced in place
        text = text[:start] + text[end + len(END) :].lstrip("\n")
    if text and not text.endswith("\n"):
        text += "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text + block, durable=False)
    return True


def _write_hook(path: Path, prefix: str) -> str | None:
    """The fetch guard; a note when a hook of someone else's is in its place."""
    script = hook_script(prefix)
    try:
        current = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        current = None
    if current == script:
        return None
    if current is not None and MARK not in current:
        return (
            f"{path} is a hook of your own: memkit's fetch guard is not installed (a pushed "
            f"{prefix}{STATE} would replace this clone's state folder at a pull); see "
            "docs/reliability.md to call it from your hook"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, script, durable=False, mode=0o755)
    return None


def rewritten_files(root: Path) -> list[str]:
    """Tracked files git wrote differently from what was committed (a conversion an
    attribute asks for) and that nobody edited since: their own bytes hash to another blob,
    while git, converting them back under the attributes in force, gets the committed one.
    Asked before the guard's attributes are in force."""
    listed = run(root, "ls-files", "-s", "-z", "--", ".").decode("utf-8", "surrogateescape")
    blobs: dict[str, str] = {}
    for entry in listed.split("\0"):
        info, _, path = entry.partition("\t")
        if path and info.split(" ")[0] in ("100644", "100755"):
            blobs[path] = info.split(" ")[1]
    paths = [p for p in blobs if (root / p).is_file() and not (root / p).is_symlink()]
    if not paths:
        return []
    names = "".join(f"{p}\n" for p in paths).encode("utf-8", "surrogateescape")
    raw = run(root, "hash-object", "--no-filters", "--stdin-paths", stdin=names).split()
    differ = [p for p, h in zip(paths, raw, strict=True) if h.decode() != blobs[p]]
    if not differ:
        return []
    names = "".join(f"{p}\n" for p in differ).encode("utf-8", "surrogateescape")
    cleaned = run(root, "hash-object", "--stdin-paths", stdin=names).split()
    return [p for p, h in zip(differ, cleaned, strict=True) if h.decode() == blobs[p]]


def _write_as_committed(root: Path, paths: list[str]) -> None:
    # `git checkout -- PATH` skips a file whose stat matches the index: removed first.
    for path in paths:
        (root / path).unlink()
    run(root, "checkout", "--", *paths)


def install(root: Path) -> list[str]:
    """Install the guard for the memory repository at `root` (both parts; the files git
    rewrote under a `.gitattributes` rule written again as committed). Returns notes for the
    user: what could not be done."""
    where = _where(root)
    if where is None:
        return []
    prefix, hook, attributes = where
    notes = [n for n in (_write_hook(hook, prefix),) if n]
    rewritten = rewritten_files(root)
    _write_attributes(attributes, prefix)
    if rewritten:
        _write_as_committed(root, rewritten)
        log.warning(
            "%d file(s) git had rewritten under a .gitattributes rule are written as "
            "committed again (%s)",
            len(rewritten),
            ", ".join(rewritten[:3]) + (", …" if len(rewritten) > 3 else ""),
        )
    return notes


def ensure(root: Path) -> None:
    """Install the guard where it is missing (a clone joined before it existed); cheap when
    it is in place: two small reads."""
    where = _where(root)
    if where is None:
        return
    prefix, hook, attributes = where
    # A hook of the user's own in its place was named when the guard was first installed.
    try:
        in_place = hook.exists() and attributes_block(prefix) in attributes.read_text("utf-8")
    except OSError:
        in_place = False
    if not in_place:
        for note in install(root):
            log.warning("%s", note)
