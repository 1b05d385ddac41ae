"""memkit add TEXT: write a new atom through the same checks as a commit."""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import re
import subprocess
import unicodedata
from pathlib import Path
from typing import Any

from memkit.atom import CONFIDENCES, ID_MAX_LEN, TYPES, id_from_path
from memkit.atomfile import parse_atom_bytes
from memkit.checks.content import run_content_checks
from memkit.checks.gate import gate_atoms
from memkit.config import load_config
from memkit.errors import MemkitError, UsageError
from memkit.files import write_atomic
from memkit.repo import find_root, list_atom_files


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "add",
        help="write a new atom through the write gate",
        description="Write TEXT as a new atom: id from the title, frontmatter filled in, author "
        "from git config. Refuses junk, secrets and duplicates with the reason; never "
        "overwrites a file. Safe to call from an agent.",
    )
    parser.add_argument("text", help="what the atom says")
    parser.add_argument("--type", default="fact", choices=TYPES)
    parser.add_argument("--confidence", default="tentative", choices=CONFIDENCES)
    parser.add_argument(
        "--scope",
        default="shared",
        help="shared (default), role:<name>, personal[:<user>] or episodic",
    )
    parser.add_argument("--title", help="default: the first sentence of TEXT")
    parser.add_argument("--trigger", action="append", default=[], help="repeatable")
    parser.add_argument("--dry-run", action="store_true", help="show what would be written")
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON")
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.set_defaults(func=run)


def _title_of(text: str) -> str:
    first = re.split(r"(?<=[.!?。！？])\s*|\n", text.strip(), maxsplit=1)[0].strip()
    return first[:80].rstrip(" .。") or text.strip()[:80]


def slugify(title: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())
    slug = ""
    for word in words:
        if len(slug) + len(word) + 1 > 60:
            break
        slug = f"{slug}-{word}" if slug else word
    return slug


def _git_config(root: Path, key: str) -> str:
    out = subprocess.run(
        ["git", "config", key], cwd=root, capture_output=True, text=True, check=False
    )
    return out.stdout.strip()


def _folder(scope: str, root: Path) -> str:
    if scope == "shared":
        return "shared"
    if scope == "episodic":
        return "episodic"
    kind, _, name = scope.partition(":")
    if kind == "role" and re.fullmatch(r"[a-z0-9][a-z0-9-]*", name):
        return f"roles/{name}"
    if kind == "personal":
        user = name or slugify(_git_config(root, "user.name")) or "me"
        if re.fullmatch(r"[a-z0-9][a-z0-9-]*", user):
            return f"personal/{user}"
    raise UsageError(f"--scope {scope!r}: use shared, role:<name>, personal[:<user>] or episodic")


def _needs_review(root: Path, config: Any, atom_type: str) -> bool:
    """Whether the commit would refuse this atom in shared/ (MK204): sensitive types from
    anyone but management go to shared/_pending/ for review, so write it there at once."""
    from memkit.checks.roles import sensitive_kinds  # noqa: PLC0415
    from memkit.roles import identify  # noqa: PLC0415

    return atom_type in sensitive_kinds(config) and not identify(root).is_management


def _yaml_list(items: list[str]) -> str:
    return "[" + ", ".join(json.dumps(i, ensure_ascii=False) for i in items) + "]"


def run(args: argparse.Namespace) -> int:
    root = find_root(args.repo)
    config = load_config(root)
    text = args.text.strip()
    if not text:
        raise UsageError("TEXT is empty")
    title = (args.title or _title_of(text)).strip().replace("\n", " ")
    folder = _folder(args.scope, root)
    review = folder == "shared" and _needs_review(root, config, args.type)
    if review:
        folder = "shared/_pending"
    taken = {id_from_path(p) for p in list_atom_files(root)}
    base = slugify(title) or f"{args.type}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"  # noqa: S324
    atom_id, n = base[:ID_MAX_LEN], 2
    while atom_id in taken or (root / folder / f"{atom_id}.md").exists():
        atom_id, n = f"{base[: ID_MAX_LEN - 4]}-{n}", n + 1
    author = _git_config(root, "user.email")
    lines = [
        "---",
        f"id: {atom_id}",
        f"type: {args.type}",
        f"confidence: {args.confidence}",
        f"created: {dt.date.today().isoformat()}",
    ]
    if author:
        lines.append(f"author: {author}")
    if args.trigger:
        lines.append(f"triggers: {_yaml_list(args.trigger)}")
    content = "\n".join([*lines, "---", f"# {title}", "", text, ""])
    relpath = f"{folder}/{atom_id}.md"

    parsed = parse_atom_bytes(relpath, content.encode("utf-8"), config)
    findings = list(parsed.findings)
    outcome: dict[str, Any] = {
        "path": relpath,
        "id": atom_id,
        "written": False,
        "pending_review": review,
    }
    if parsed.atom is not None:
        findings += run_content_checks(parsed.atom, content, config)
        (result,) = gate_atoms(root, [parsed.atom], config)
        findings += result.findings
        outcome["score"] = result.score.score
        outcome["verdict"] = result.score.verdict
        outcome["explain"] = result.score.explain()
        outcome["similar"] = [
            {"id": m.id, "path": m.path, "similarity": round(m.similarity, 4)}
            for m in result.matches
        ]
    errors = [f for f in findings if f.is_error]
    outcome["findings"] = [f.format() for f in findings]
    if not errors and not args.dry_run:
        if (root / relpath).exists():
            raise MemkitError(f"{relpath} already exists")
        write_atomic(root / relpath, content)
        outcome["written"] = True
    if args.json:
        print(json.dumps(outcome, ensure_ascii=False))
    else:
        if args.dry_run:
            print(content, end="")
        for line in outcome["findings"]:
            print(line)
        if "explain" in outcome:
            print(f"{relpath}: {outcome['explain']}")
        if outcome["written"] and review:
            print(
                f"wrote {relpath}: `{args.type}` atoms from outside management wait for review; "
                f"commit it, and a management member runs `memkit review approve {atom_id}`"
            )
        elif outcome["written"]:
            print(f"wrote {relpath}; review it, then commit it")
        elif errors:
            print(f"refused: {relpath} was not written")
    return 1 if errors else 0
