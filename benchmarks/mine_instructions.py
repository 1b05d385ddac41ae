"""List candidate pairs from the history of agent instruction files (issue 38).

Given a folder of bare git mirrors (``owner+name/repo`` as the ``fetch`` tool lays them out, or
any ``*.git``/``repo`` git directory below it), this prints, one JSON object a line:

- ``changed``: a removed and an added line of one hunk of ``git log -p`` of an instruction file
  (CLAUDE.md, AGENTS.md, GEMINI.md, .cursorrules, copilot-instructions, CONTRIBUTING, Chinese
  docs and changelogs named with ``--path``) that share most of their words: where the
  ``update`` / ``extends`` / reworded rows of ``data/instruction_pairs_*.jsonl`` came from.
  ``old_commit`` is the parent (the text was current there), ``new_commit`` the change.
- ``same_rule``: two lines of two different instruction files of one repository at its head
  that share many words: where the ``paraphrase`` rows and same-template negatives came from.

It only lists candidates. Every row of the data files was read and labelled by hand; nothing
here decides a label. Standard library only, so it runs anywhere git does::

    python benchmarks/mine_instructions.py MIRRORS --kind changed > changed.jsonl
    python benchmarks/mine_instructions.py MIRRORS --kind same_rule --repo astral-sh/uv
    python benchmarks/mine_instructions.py MIRRORS --repo umijs/umi --path 'docs/*/guides/*.md'
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

DEFAULT_PATHS = (
    "CLAUDE.md",
    "AGENTS.md",
    "GEMINI.md",
    ".cursorrules",
    ".clinerules",
    ".github/copilot-instructions.md",
    "CONTRIBUTING.md",
    ".github/CONTRIBUTING.md",
    "CONTRIBUTING_CN.md",
    "*/CLAUDE.md",
    "*/AGENTS.md",
)
_WORD = re.compile(r"`[^`]+`|[A-Za-z0-9_./:@=<>~+-]+|[\u3400-\u9fff]")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")


@dataclass(frozen=True)
class Candidate:
    kind: str
    repo: str
    path: str
    old: str
    new: str
    old_commit: str
    new_commit: str
    overlap: float
    path_new: str = ""


def words(line: str) -> list[str]:
    """Tokens for overlap: code spans whole, ASCII words, one token per CJK character."""
    return [w.lower() for w in _WORD.findall(line)]


def overlap(a: str, b: str) -> float:
    """Dice overlap of the two lines' token sets (0 when either has none)."""
    wa, wb = set(words(a)), set(words(b))
    if not wa or not wb:
        return 0.0
    return 2 * len(wa & wb) / (len(wa) + len(wb))


def clean(line: str) -> str:
    """A Markdown line as a stored rule: the bullet marker and outer spaces gone."""
    return _BULLET.sub("", line).strip()


def is_rule_line(line: str) -> bool:
    """Lines worth a look: prose or bullets, not headings, fences, tables' rules or blanks."""
    text = line.strip()
    if len(text) < 12 or len(text) > 400:
        return False
    if text.startswith(("#", "```", "|-", "| -", "<!--", "---")):
        return False
    return len(words(text)) >= 4


def git(gitdir: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "core.quotePath=false", f"--git-dir={gitdir}", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        check=False,
    )
    return done.stdout


def repo_name(gitdir: Path) -> str:
    """``owner/name`` from a ``owner+name/repo`` mirror folder, else the folder's name."""
    folder = gitdir.parent.name if gitdir.name == "repo" else gitdir.name.removesuffix(".git")
    return folder.replace("+", "/", 1)


def mirrors(root: Path) -> list[Path]:
    """The git directories under root, one per repository, sorted by name."""
    found = [p for p in root.glob("*/repo") if (p / "HEAD").exists()]
    found += [p for p in root.glob("*.git") if (p / "HEAD").exists()]
    return sorted(found)


def _pairs_in_hunk(
    removed: list[str], added: list[str], threshold: float
) -> Iterator[tuple[str, str, float]]:
    """Each removed line with its best added line, when they share enough and differ."""
    for old in removed:
        best, score = "", 0.0
        for new in added:
            s = overlap(old, new)
            if s > score:
                best, score = new, s
        if score >= threshold and clean(old) != clean(best):
            yield clean(old), clean(best), round(score, 3)


def changed_pairs(
    gitdir: Path, paths: Sequence[str], threshold: float = 0.6
) -> Iterator[Candidate]:
    """Removed/added line pairs of ``git log -p`` over the instruction files of one mirror."""
    log = git(
        gitdir, "log", "-p", "-U0", "--no-color", "--no-renames", "--format=@@@%H %P", "--", *paths
    )
    repo = repo_name(gitdir)
    commit = parent = path = ""
    removed: list[str] = []
    added: list[str] = []

    def flush() -> Iterator[Candidate]:
        for old, new, score in _pairs_in_hunk(removed, added, threshold):
            yield Candidate("changed", repo, path, old, new, parent, commit, score)

    for line in log.splitlines():
        if line.startswith("@@@"):
            yield from flush()
            removed, added = [], []
            head = line[3:].split()
            commit = head[0]
            parent = head[1] if len(head) > 1 else ""
        elif line.startswith("+++ "):
            yield from flush()
            removed, added = [], []
            path = line[6:] if line.startswith("+++ b/") else path
        elif _HUNK.match(line):
            yield from flush()
            removed, added = [], []
        elif line[:1] in "+-" and line[:3] not in ("+++", "---") and is_rule_line(line[1:]):
            (added if line[0] == "+" else removed).append(line[1:])
    yield from flush()


def head_lines(gitdir: Path, paths: Sequence[str]) -> dict[str, list[str]]:
    """The rule lines of each instruction file at the mirror's HEAD."""
    listing = git(gitdir, "ls-tree", "-r", "--name-only", "HEAD", "--", *paths)
    out: dict[str, list[str]] = {}
    for name in listing.splitlines():
        text = git(gitdir, "show", f"HEAD:{name}")
        out[name] = [clean(x) for x in text.splitlines() if is_rule_line(x)]
    return out


def same_rule_pairs(
    gitdir: Path, paths: Sequence[str], threshold: float = 0.45
) -> Iterator[Candidate]:
    """Lines of two different files at HEAD that share many words (paraphrase candidates)."""
    files = head_lines(gitdir, paths)
    head = git(gitdir, "rev-parse", "HEAD").strip()
    repo = repo_name(gitdir)
    names = sorted(files)
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            for a in files[first]:
                for b in files[second]:
                    score = overlap(a, b)
                    if score >= threshold:
                        yield Candidate(
                            "same_rule", repo, first, a, b, head, head, round(score, 3), second
                        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="folder of mirrors (owner+name/repo)")
    parser.add_argument("--kind", choices=("changed", "same_rule"), default="changed")
    parser.add_argument("--repo", action="append", default=[], help="only this owner/name")
    parser.add_argument("--path", action="append", default=[], help="git pathspec to read")
    parser.add_argument("--threshold", type=float, default=None)
    args = parser.parse_args(argv)
    paths = tuple(args.path) or DEFAULT_PATHS
    found = 0
    for gitdir in mirrors(args.root):
        if args.repo and repo_name(gitdir) not in args.repo:
            continue
        if args.kind == "changed":
            rows = changed_pairs(gitdir, paths, args.threshold or 0.6)
        else:
            rows = same_rule_pairs(gitdir, paths, args.threshold or 0.45)
        for row in rows:
            found += 1
            sys.stdout.write(json.dumps(asdict(row), ensure_ascii=False) + "\n")
    return 0 if found else 1


if __name__ == "__main__":
    raise SystemExit(main())
