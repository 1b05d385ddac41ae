"""Labelled pair sets from public repositories (issue 27), derived from local mirrors.

    python benchmarks/public_sets.py MIRROR_DIR [--write]

MIRROR_DIR holds bare git mirrors named `owner+name/repo` (as the `fetch` tool lays them out).
Without `--write` it prints what it would write; with it, it writes
`benchmarks/data/public_{adr,rules,history}.jsonl`. Every collection read here is MIT, CC0 or
Apache-2.0 (benchmarks/data/README.md names each with its commit), so the extracted text is
committed and the benchmarks need no mirror; this script says how it was made and makes it
again from the same commits. A mirror that is absent is named and skipped.

- `adr`: the records of six ADR collections, each the text of a record without its title line
  and status section (a status line saying "Superseded by …" would give the answer away).
  Positives: a record and the record its status names as superseding it. Every record is an
  incoming atom of its own collection in the pull benchmark, so every other pair of records of
  the same collection is a negative.
- `rules`: bullets of awesome-cursorrules rule sets. The collection keeps most rule sets twice,
  as one `.cursorrules` file and as the `.mdc` files it was split into, often reworded a little:
  a bullet of the `.cursorrules` file and its counterpart in an `.mdc` file of the same folder
  (the most words in common, at least 60%, not the same text after normalising case and
  punctuation) are a duplicate; the same bullet against another bullet of the same rule set is
  a negative.
- `history`: a line of a README or doc whose value changed in one commit: the line before and
  after, when the change is one number or version in an otherwise unchanged line of at least
  six words (a value change, labelled `contradicts`); negatives are other lines of the same
  repository's docs that hold a number.

Each row has `split`: `heldout` for a stable third of the ids (a hash), `dev` for the rest.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from _common import ROOT

DATA = ROOT / "benchmarks" / "data"
ADRS = (
    # (mirror, commit, folder, [(superseded record, superseding record)])
    (
        "GSA-TTS+FAC",
        "fe766b097",
        "docs/architecture/decisions",
        [("0014-compliance-documentation.md", "0016-compliance-documentation.md")],
    ),
    (
        "alphagov+govuk-aws",
        "81ee9f6e",
        "docs/architecture/decisions",
        [
            ("0003-aws-networking-outline.md", "0033-ip-ranges.md"),
            ("0004-dns-definitions-for-hosts-and-services.md", "0015-dns-infrastructure.md"),
        ],
    ),
    (
        "cisagov+manage.get.gov",
        "839b75860",
        "docs/architecture/decisions",
        [("0012-user-models.md", "0020-user-models-revisited-plus-whois.md")],
    ),
    (
        "ministryofjustice+cloud-platform",
        "7f879f3",
        "architecture-decision-record",
        [("021-Multi-cluster.md", "036-multi-cluster.md")],
    ),
    (
        "alphagov+content-publisher",
        "a268264b",
        "docs/adr",
        [("0006-tagging-governments.md", "0014-political-and-government-tagging.md")],
    ),
    (
        "ministryofjustice+modernisation-platform",
        "ed8a7936d",
        "architecture-decision-record",
        [
            (
                "0004-use-bash-node-python-as-core-languages.md",
                "0019-use-bash-go-as-core-languages.md",
            )
        ],
    ),
)
RULES = ("PatrickJS+awesome-cursorrules", "8477f22")
HISTORY = (
    ("ministryofjustice+modernisation-platform", "ed8a7936d"),
    ("ministryofjustice+cloud-platform", "7f879f3"),
    ("alphagov+govuk-aws", "81ee9f6e"),
    ("alphagov+content-publisher", "a268264b"),
    ("cisagov+manage.get.gov", "839b75860"),
    ("GSA-TTS+FAC", "fe766b097"),
)
_WORD = re.compile(r"\w+")
_VALUE = re.compile(r"^v?\d+(?:[.,]\d+)*[a-z%]*$", re.I)


def split_of(key: str) -> str:
    return "heldout" if int(hashlib.sha256(key.encode()).hexdigest(), 16) % 3 == 0 else "dev"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={repo}", *args], capture_output=True, text=True, check=True
    ).stdout


def _mirror(root: Path, name: str) -> Path | None:
    repo = root / name / "repo"
    if not repo.is_dir():
        print(f"absent: {repo} (skipped)", file=sys.stderr)
        return None
    return repo


_STATUS = re.compile(r"^#+\s*status\b.*?(?=^#+\s|\Z)", re.I | re.M | re.S)


def adr_body(text: str) -> tuple[str, str]:
    """The title and the text of a record without its title line, status section, status
    lines and tables of metadata: what a record says, not what became of it."""
    lines = text.splitlines()
    title = ""
    for i, line in enumerate(lines):
        if line.startswith("# "):
            title = line[2:].strip()
            lines = lines[i + 1 :]
            break
    body = _STATUS.sub("", "\n".join(lines))
    kept = [
        line
        for line in body.splitlines()
        if not re.search(r"supersed|amended by|^\s*(?:status|date|deciders?)\s*:", line, re.I)
        and not line.lstrip().startswith("|")
    ]
    return title, "\n".join(kept).strip()


def adr_rows(root: Path) -> Iterator[dict[str, Any]]:
    for name, commit, folder, pairs in ADRS:
        repo = _mirror(root, name)
        if repo is None:
            continue
        files = [
            f
            for f in git(repo, "ls-tree", "--name-only", commit, f"{folder}/").split("\n")
            if f.endswith(".md") and re.match(r"\d", Path(f).name) and Path(f).name[:4] != "0000"
        ]
        later = {new: old for old, new in pairs}
        for path in files:
            file = Path(path).name
            title, body = adr_body(git(repo, "show", f"{commit}:{path}"))
            if len(body) < 200:
                continue
            key = f"{name}/{file}"
            yield {
                "set": "adr",
                "id": key,
                "collection": name,
                "commit": commit,
                "path": path,
                "title": title,
                "text": body,
                "supersedes": f"{name}/{later[file]}" if file in later else "",
                "split": split_of(name),  # a collection is held out whole
            }


def _bullets(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        m = re.match(r"\s*(?:[-*+]|\d+\.)\s+(.*\S)", line)
        if m and 5 <= len(_WORD.findall(m.group(1))) <= 60:
            out.append(m.group(1).strip())
    return out


def _norm(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _overlap(a: str, b: str) -> float:
    wa, wb = set(_WORD.findall(a.lower())), set(_WORD.findall(b.lower()))
    return len(wa & wb) / max(1, len(wa | wb))


def rule_rows(root: Path) -> Iterator[dict[str, Any]]:
    repo = _mirror(root, RULES[0])
    if repo is None:
        return
    commit = RULES[1]
    files = git(repo, "ls-tree", "-r", "--name-only", commit, "rules/").split("\n")
    folders: dict[str, list[str]] = {}
    for f in files:
        if f.endswith((".cursorrules", ".mdc")):
            folders.setdefault(str(Path(f).parent), []).append(f)
    for folder, paths in sorted(folders.items()):
        main = [p for p in paths if p.endswith(".cursorrules")]
        parts = [p for p in paths if p.endswith(".mdc")]
        if not main or not parts:
            continue
        mine = _bullets(git(repo, "show", f"{commit}:{main[0]}"))
        theirs = [(p, b) for p in parts for b in _bullets(git(repo, "show", f"{commit}:{p}"))]
        if not theirs:
            continue
        split = split_of(folder)
        found = 0
        for i, bullet in enumerate(mine):
            _, best = max(theirs, key=lambda t: _overlap(bullet, t[1]))
            if _overlap(bullet, best) >= 0.6 and _norm(bullet) != _norm(best) and found < 4:
                found += 1
                yield _pair("rules", f"{folder}#{i}", split, bullet, best, "duplicate", commit)
                # The same bullet against another rule of the same set: a negative.
                other = [b for _, b in theirs if _overlap(bullet, b) < 0.25]
                if other:
                    pick = other[(i * 7) % len(other)]
                    yield _pair("rules", f"{folder}#{i}n", split, bullet, pick, "distinct", commit)


def _pair(  # noqa: PLR0917  (one row's fields, in the order they are written)
    kind: str, key: str, split: str, a: str, b: str, label: str, commit: str
) -> dict[str, Any]:
    return {
        "set": kind,
        "id": key,
        "lang": "en",
        "a": a,
        "b": b,
        "label": label,
        "commit": commit,
        "split": split,
    }


# Words before a number that make it a position or a name, not a value: "Step 3", "ADR 14",
# "instance 2", "Amended by 17."
_POSITION = frozenset(
    [
        "step",
        "steps",
        "adr",
        "rfc",
        "phase",
        "part",
        "stage",
        "by",
        "instance",
        "no.",
        "number",
        "item",
        "#",
    ]
)


def value_change(old: str, new: str) -> str:
    """ "contradicts" when one number or version changed in an otherwise unchanged line,
    "identifier" when that number is a position or a record number (a list item's number, a
    step, an ADR), "" when the lines differ otherwise."""
    ta, tb = old.split(), new.split()
    if len(ta) < 6 or len(ta) != len(tb) or "http" in old:
        return ""
    ops = [
        o for o in SequenceMatcher(None, ta, tb, autojunk=False).get_opcodes() if o[0] != "equal"
    ]
    if len(ops) != 1 or ops[0][0] != "replace" or ops[0][2] - ops[0][1] != 1:
        return ""
    at = ops[0][1]
    x, y = ta[at].strip(".,;:`*()"), tb[ops[0][3]].strip(".,;:`*()")
    if not (_VALUE.match(x) and _VALUE.match(y)) or x == y:
        return ""
    before = ta[at - 1].lower().rstrip(":") if at else ""
    if (at == 0 and ta[0].endswith(".")) or before in _POSITION:
        return "identifier"
    return "contradicts"


def history_rows(root: Path) -> Iterator[dict[str, Any]]:
    for name, commit in HISTORY:
        repo = _mirror(root, name)
        if repo is None:
            continue
        log = git(
            repo,
            "log",
            "-p",
            "-U0",
            "--no-merges",
            "--format=@@commit %h",
            commit,
            "--",
            "*.md",
            ":!*CHANGELOG*",
        )
        seen: set[str] = set()
        sha = ""
        minus: list[str] = []
        n = 0
        for line in log.splitlines():
            if line.startswith("@@commit "):
                sha, minus = line.split()[1], []
            elif line.startswith("@@"):
                minus = []
            elif line.startswith("-") and not line.startswith("---"):
                minus.append(line[1:].strip())
            elif line.startswith("+") and not line.startswith("+++") and len(minus) == 1:
                # git log shows the newest commit first: `+` is the later text.
                new, old = line[1:].strip(), minus[0]
                clean_old, clean_new = _clean(old), _clean(new)
                label = value_change(clean_old, clean_new)
                if label and clean_new not in seen and n < 40:
                    seen.add(clean_new)
                    n += 1
                    key = f"{name}@{sha}"
                    row = _pair("history", key, split_of(key), clean_old, clean_new, label, sha)
                    yield {**row, "collection": name}
                minus = []
        # Negatives: lines of the docs at the commit that hold a number, never one of the
        # changed lines: the memory the updates are pulled into.
        docs = [
            f
            for f in git(repo, "ls-tree", "-r", "--name-only", commit).split("\n")
            if f.endswith(".md") and "CHANGELOG" not in f
        ]
        lines: list[str] = []
        for path in docs[:400]:
            for raw in git(repo, "show", f"{commit}:{path}").splitlines():
                text = _clean(raw)
                if (
                    re.search(r"\d", text)
                    and 6 <= len(text.split()) <= 60
                    and "http" not in text
                    and text not in seen
                ):
                    lines.append(text)
        for i, text in enumerate(dict.fromkeys(lines)):
            if i >= 150:
                break
            key = f"{name}:line{i}"
            yield {
                "set": "history",
                "id": key,
                "lang": "en",
                "a": "",
                "b": text,
                "label": "memory",
                "commit": commit,
                "split": split_of(key),
                "collection": name,
            }


def _clean(line: str) -> str:
    """A Markdown line as prose: no list marker, heading marks, emphasis or link targets."""
    text = re.sub(r"^\s*(?:[-*+]|\d+\.|#+)\s+", "", line)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[*_]{1,2}", "", text).strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("mirrors", type=Path, help="folder of owner+name/repo git mirrors")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    if not args.mirrors.is_dir():
        print(f"no such folder: {args.mirrors}", file=sys.stderr)
        return 2
    for kind, rows in (
        ("adr", adr_rows(args.mirrors)),
        ("rules", rule_rows(args.mirrors)),
        ("history", history_rows(args.mirrors)),
    ):
        found = list(rows)
        splits = {s: sum(r["split"] == s for r in found) for s in ("dev", "heldout")}
        print(f"{kind}: {len(found)} rows {splits}")
        if args.write:
            text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in found)
            (DATA / f"public_{kind}.jsonl").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
