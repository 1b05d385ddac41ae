"""What `memkit import claude-md` does with the real history of instruction files: the labelled
pairs of `benchmarks/data/instruction_pairs_<split>.jsonl` (update, paraphrase, unrelated,
extends), each read back in the files it came from, as a team's memory meets them.

    HOME=/tmp/home-reimport python benchmarks/reimport_bench.py [--split dev,heldout3 …]
        [--before SRC] [--limit N] [--show]

Every row whose two lines come from one repository is read from that repository's git mirror
(`/work/.mirror/<owner>+<name>/`, or `--mirrors DIR`) at its commits. Rows of one (repository,
old path, old commit, new path, new commit) make one memory: a fresh memory repository and a
fake code work tree named after the repository (so the atoms' `project:` is its name) holding
the file at its path.

- same path, two commits: the old version imported and committed, then the new version over
  it imported again (an import of a file that changed);
- two paths (the rule in two files): the old side's file imported, then the new side's file
  beside it;
- one path at one commit (two lines of one file): the file imported once.

Each row's lines are then found among the import's candidates (the candidate holding most of
the line's word tokens, at least 80% of them: an import reflows list items and paragraphs) and
the new line's outcome is read against the old line's atom, from the import's report and the
atoms written:

- `replaced`: written (or sent to review) with `supersedes` naming the old line's atom;
- `refused-duplicate`: refused as a duplicate of it (MK103, or duplicate-in-import of its line);
- `beside-flagged`: written beside it with a finding naming it (MK104-MK106);
- `beside-silent`: written beside it, nothing said (or a line the old version of the file
  already held, its atom left as it was);
- `same-atom`: both lines in one candidate already imported: the change never reached memory;
- `not-located`: a line not found, or not imported (refused by the import's own checks, a
  duplicate of another atom…): each reason counted.

Right outcomes: update → replaced; paraphrase → replaced or refused-duplicate; extends →
replaced (one file) or beside-flagged; unrelated → beside-silent or same-atom. A wrong
replacement is a `supersedes` naming an atom whose text still stands in a file of the work
tree. Time: each import (collect + `run_import`), p50 per tree.

Imports run in worker processes (`--worker`, one per tree, the model loaded once each), given
one memory at a time and in turn, so that machine noise hits both trees alike; `--before SRC`
(e.g. `git archive main memkit | tar -x -C /tmp/before`) is the tree run with
`PYTHONPATH=SRC` beside this working tree's memkit.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Any

from _common import PYTHON, ROOT, p50_p95, read_jsonl
from instruction_bench import TUNING

DATA = ROOT / "benchmarks" / "data"
MIRRORS = Path("/work/.mirror")
LABELS = ("update", "paraphrase", "extends", "unrelated")
OUTCOMES = (
    "replaced",
    "refused-duplicate",
    "beside-flagged",
    "beside-silent",
    "same-atom",
    "not-located",
)
RIGHT = {
    "update": {"replaced"},
    "paraphrase": {"replaced", "refused-duplicate"},
    "extends": {"replaced", "beside-flagged"},
    "unrelated": {"beside-silent", "same-atom"},
}
FLAGS = ("MK104", "MK105", "MK106")
# heldout12 and heldout13 were read once (docs/benchmarks.md, 2026-11-30); their misses stay
# unread (no --show). TUNING is instruction_bench's: the splits whose misses may be read.
SPLITS = (*TUNING, "heldout12", "heldout13")
COVER = 0.8  # a line is found in a candidate holding this share of its word tokens
# The git identity of every commit the bench makes (the workers inherit it): only in the
# environment, never in a config file, so that the machine's shared HOME is left alone.
IDENTITY = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}
_WORD = re.compile(r"\w+")
# The candidate a duplicate-in-import refusal names (memkit.importers.run).
_NAMED = re.compile(r"(?:says the same as|duplicate of) (.+?:\d+)(?: \(|$)")
_CJK_RUN = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+)")


# -- pure helpers: tokens, location, outcome -------------------------------------------------


def tokens(text: str) -> list[str]:
    """Word tokens of `text`, lowercased; Chinese, Japanese and Korean, written without
    spaces, as pairs of neighbouring characters (single characters match too much)."""
    out: list[str] = []
    for word in _WORD.findall(text.lower()):
        for part in _CJK_RUN.split(word):
            if _CJK_RUN.fullmatch(part):
                out += [part[i : i + 2] for i in range(max(1, len(part) - 1))]
            elif part.strip("_"):
                out.append(part)
    return out


def cover(line: str, candidate: str) -> float:
    """The share of `line`'s word tokens (counted with repeats) that `candidate` holds."""
    want = Counter(tokens(line))
    if not want:
        return 0.0
    have = Counter(tokens(candidate))
    return sum((want & have).values()) / sum(want.values())


def locate(line: str, candidates: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The candidate (`where`, `text`) holding `line`: most of its tokens, then the shortest
    (the line itself rather than a section quoting it); None below `COVER`."""
    best: tuple[float, int] | None = None
    found = None
    for cand in candidates:
        share = cover(line, cand["text"])
        key = (share, -len(cand["text"]))
        if share >= COVER and (best is None or key > best):
            best, found = key, cand
    return found


def mentions(text: str, atom_id: str) -> bool:
    return bool(re.search(rf"(?<![\w-]){re.escape(atom_id)}(?![\w-])", text))


def atom_of(step: dict[str, Any], where: str) -> tuple[str, str]:
    """(atom id, "") of the candidate at `where` in an import step, or ("", why not): written,
    sent to review, already imported, or a duplicate-in-import of a line that was."""
    seen: set[str] = set()
    outcome = step["outcomes"].get(where)
    while outcome is not None and outcome["source"] not in seen:
        seen.add(outcome["source"])
        if outcome["action"] in ("write", "review") or outcome.get("reason") == "already-imported":
            return outcome.get("id", ""), ""
        if outcome.get("reason") != "duplicate-in-import":
            return "", f"{outcome['action']} {outcome.get('reason') or '?'}"
        named = _NAMED.search(outcome.get("message", ""))
        outcome = step["outcomes"].get(named.group(1)) if named else None
    return "", "no outcome"


def classify(
    row: dict[str, Any], steps: Sequence[dict[str, Any]], files: Sequence[str]
) -> tuple[str, str]:
    """(outcome, detail) of one row in its memory's import steps, the texts of the files
    imported first and last given (see the module's doc)."""
    first, last = steps[0], steps[-1]
    old_cand = locate(row["old"]["text"], first["candidates"])
    new_cand = locate(row["new"]["text"], last["candidates"])
    if old_cand is None or new_cand is None:
        side, text = ("old", files[0]) if old_cand is None else ("new", files[-1])
        # Left out by the import (a list's lead-in, a reference), or a line the file does not
        # hold as labelled.
        where = "in no candidate" if cover(row[side]["text"], text) >= COVER else "not in the file"
        return "not-located", f"{side} line {where}"
    old_id, why = atom_of(first, old_cand["where"])
    if not old_id:
        return "not-located", f"old line not imported: {why}"
    if len(steps) == 1 and new_cand["where"] == old_cand["where"]:
        return "same-atom", "one candidate"
    out = last["outcomes"].get(new_cand["where"])
    if out is None:
        return "not-located", "new line: no outcome"
    action, reason, message = out["action"], out.get("reason", ""), out.get("message", "")
    if reason == "already-imported":
        if out.get("id") == old_id:
            return "same-atom", "already imported"
        # A line the earlier version of the file already held: its atom stands beside.
        return "beside-silent", "already imported as another atom"
    if action in ("write", "review"):
        atom = last["atoms"].get(out.get("id", ""), {})
        if old_id in atom.get("supersedes", []):
            return "replaced", action
        # The old line's atom still waiting for review (shared/_pending/) when it was not
        # replaced: said, as a reason to read.
        pending = "/_pending/" in first["atoms"].get(old_id, {}).get("path", "")
        waits = ", old atom in review" if pending else ""
        flagged = [w.split()[0] for w in out.get("warnings", []) if mentions(w, old_id)]
        flagged = [code for code in flagged if code in FLAGS]
        if flagged:
            return "beside-flagged", ",".join(sorted(set(flagged))) + waits
        return "beside-silent", action + waits
    if reason == "MK103" and mentions(message, old_id):
        return "refused-duplicate", reason
    # A duplicate of another candidate of the same import: of the old line's atom when that
    # candidate is (or became) it.
    if reason == "duplicate-in-import" and atom_of(last, new_cand["where"])[0] == old_id:
        return "refused-duplicate", reason
    target = "another atom" if reason in ("MK103", "duplicate-in-import") else ""
    return "not-located", f"new line {action} {reason or '?'} {target}".rstrip()


def wrong_replacements(steps: Sequence[dict[str, Any]]) -> list[str]:
    """Ids a later import superseded although their text still stands in a file of the work
    tree (each file as its last import read it)."""
    standing: dict[str, set[str]] = {}
    for step in steps:
        standing[step["file"]] = {c["fingerprint"] for c in step["candidates"]}
    still = set().union(*standing.values())
    atoms = steps[-1]["atoms"]
    wrong = []
    for step in steps[1:]:
        for out in step["outcomes"].values():
            if out["action"] not in ("write", "review"):
                continue
            for old in atoms.get(out.get("id", ""), {}).get("supersedes", []):
                if atoms.get(old, {}).get("fingerprint") in still:
                    wrong.append(old)
    return wrong


def replacements(steps: Sequence[dict[str, Any]]) -> int:
    atoms = steps[-1]["atoms"]
    return sum(
        len(atoms.get(out.get("id", ""), {}).get("supersedes", []))
        for step in steps[1:]
        for out in step["outcomes"].values()
        if out["action"] in ("write", "review")
    )


# -- the rows and their files ----------------------------------------------------------------


def git_dir(repo: str, mirrors: Path) -> Path | None:
    base = mirrors / repo.replace("/", "+")
    for cand in (base / "repo", base):
        if (cand / "HEAD").is_file() and (cand / "objects").is_dir():
            return cand
    return None


def show_file(gitdir: Path, commit: str, path: str) -> str | None:
    out = subprocess.run(
        ["git", f"--git-dir={gitdir}", "show", f"{commit}:{path}"],
        capture_output=True,
        check=False,
    )
    if out.returncode:
        return None
    return out.stdout.decode("utf-8", errors="replace")


def group_key(row: dict[str, Any]) -> tuple[str, str, str, str, str]:
    old, new = row["old"], row["new"]
    return (old["repo"], old["path"], old["commit"], new["path"], new["commit"])


def memories(
    rows: Iterable[dict[str, Any]], mirrors: Path
) -> tuple[list[dict[str, Any]], Counter[str]]:
    """One job per memory (its files, in import order, and its rows), and the rows left out
    and why."""
    left: Counter[str] = Counter()
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row["old"]["repo"] != row["new"]["repo"]:
            left["two repositories"] += 1
            continue
        groups[group_key(row)].append(row)
    jobs = []
    for (repo, old_path, old_commit, new_path, new_commit), members in groups.items():
        gitdir = git_dir(repo, mirrors)
        if gitdir is None:
            left["no file (no mirror)"] += len(members)
            continue
        sides = [(old_path, old_commit)]
        if (new_path, new_commit) != (old_path, old_commit):
            sides.append((new_path, new_commit))
        files = [(path, show_file(gitdir, commit, path)) for path, commit in sides]
        if any(text is None for _, text in files):
            left["no file (not at its commit)"] += len(members)
            continue
        jobs.append(
            {
                "project": repo.split("/")[1],
                "files": [{"path": p, "text": t} for p, t in files],
                "rows": members,
            }
        )
    return jobs, left


# -- the worker: imports through the library, in process --------------------------------------


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _atoms(root: Path) -> dict[str, dict[str, Any]]:
    """Every atom of the memory: its supersedes and the fingerprint in its `source:`."""
    import frontmatter

    from memkit.importers import SOURCE_RE
    from memkit.repo import list_atom_files

    out = {}
    for relpath in list_atom_files(root):
        meta = frontmatter.load(root / relpath).metadata
        source = SOURCE_RE.match(str(meta.get("source") or ""))
        supersedes = meta.get("supersedes") or []
        out[str(meta.get("id"))] = {
            "path": relpath,
            "supersedes": [str(s) for s in supersedes]
            if isinstance(supersedes, list)
            else [str(supersedes)],
            "fingerprint": source["hash"] if source else "",
        }
    return out


def run_memory(job: dict[str, Any], tmp: Path) -> list[dict[str, Any]]:
    """Import the job's files one after the other into a fresh memory: each step's candidates,
    report outcomes by `where`, the atoms after it, and its time."""
    from memkit.config import load_config
    from memkit.importers.claude_md import collect
    from memkit.importers.run import run_import

    root, code = tmp / "memory-repo", tmp / job["project"]
    (root / "shared").mkdir(parents=True)
    (root / "memkit.yaml").write_text("version: 1\n", encoding="utf-8")
    (root / "shared" / ".gitkeep").write_text("", encoding="utf-8")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "--no-verify", "-m", "memory")
    code.mkdir()
    _git(code, "init", "-q")
    config = load_config(root)
    steps = []
    for file in job["files"]:
        path = code / file["path"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(file["text"], encoding="utf-8")
        start = time.perf_counter()
        collected = collect([path], max_lines=config.atom_lines)
        report = run_import(root, collected, "claude-md", config=config)
        seconds = time.perf_counter() - start
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "--no-verify", "--allow-empty", "-m", "import")
        data = report.as_json()
        steps.append(
            {
                "file": file["path"],
                "seconds": seconds,
                "candidates": [
                    {"where": c.where, "text": c.text, "fingerprint": c.fingerprint()}
                    for c in collected.candidates
                ],
                "outcomes": {o["source"]: o for o in data["outcomes"]},
                "atoms": _atoms(root),
                # Said to be no longer in their file, replaced by nothing (newer trees only).
                "gone": len(data.get("no_longer_in_file", [])),
            }
        )
    return steps


def worker(lines: IO[str], out: IO[str]) -> int:
    """Read jobs, one JSON a line; answer each with its steps (or its error), one JSON a line."""
    for line in lines:
        job = json.loads(line)
        with tempfile.TemporaryDirectory(
            prefix="memkit-reimport-", ignore_cleanup_errors=True
        ) as tmp:
            try:
                answer: dict[str, Any] = {"steps": run_memory(job, Path(tmp))}
            except Exception as exc:  # one memory's crash is counted, not the run's end
                answer = {"error": f"{type(exc).__name__}: {exc}"[:500]}
        out.write(json.dumps(answer, ensure_ascii=False) + "\n")
        out.flush()
    return 0


class Tree:
    """A worker process importing with one memkit source tree."""

    def __init__(self, name: str, source: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(source), **IDENTITY)
        self.name = name
        self.proc = subprocess.Popen(
            [PYTHON, __file__, "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            env=env,
        )

    def run(self, job: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(job, ensure_ascii=False) + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        if not answer:
            raise RuntimeError(f"the {self.name} worker died (exit {self.proc.wait()})")
        result: dict[str, Any] = json.loads(answer)
        return result

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


# -- the measure -------------------------------------------------------------------------------


def measure(
    jobs: Sequence[dict[str, Any]], trees: Sequence[Tree], show: bool
) -> dict[str, dict[str, Any]]:
    """Per tree: each row's (label, outcome, detail), the wrong replacements, the import times
    and the memories that crashed."""
    results: dict[str, dict[str, Any]] = {
        t.name: {"rows": [], "wrong": [], "replacements": 0, "gone": 0, "times": [], "errors": []}
        for t in trees
    }
    for job in jobs:
        texts = [f["text"] for f in job["files"]]
        shown: dict[str, list[str]] = defaultdict(list)
        for tree in trees:
            answer = tree.run(job)
            res = results[tree.name]
            if "error" in answer:
                res["errors"].append(answer["error"])
            else:
                steps = answer["steps"]
                res["times"] += [s["seconds"] for s in steps]
                res["wrong"] += wrong_replacements(steps)
                res["replacements"] += replacements(steps)
                res["gone"] += sum(s["gone"] for s in steps)
            for row in job["rows"]:
                outcome, detail = (
                    ("not-located", "crash") if "error" in answer else classify(row, steps, texts)
                )
                res["rows"].append((row["label"], outcome, detail))
                mark = "" if outcome in RIGHT[row["label"]] else "*"
                shown[row["id"]].append(f"{tree.name} {mark}{outcome} ({detail})")
        for row in job["rows"] if show else ():
            print(f"{row['id']} [{row['label']}] {'; '.join(shown[row['id']])}")
            print(f"    old: {row['old']['path']}: {row['old']['text'][:150]}")
            print(f"    new: {row['new']['path']}: {row['new']['text'][:150]}")
    return results


def table(split: str, results: dict[str, dict[str, Any]]) -> list[str]:
    names = list(results)
    out = [
        f"**{split}**",
        "",
        "| label | outcome | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for label in LABELS:
        counts = {n: Counter(o for lab, o, _ in results[n]["rows"] if lab == label) for n in names}
        total = sum(counts[names[0]].values())
        if not total:
            continue
        for outcome in OUTCOMES:
            if any(counts[n][outcome] for n in names):
                cells = [str(counts[n][outcome]) for n in names]
                out.append(f"| {label} | {outcome} | " + " | ".join(cells) + " |")
        right = " or ".join(sorted(RIGHT[label]))
        cells = [f"**{sum(counts[n][o] for o in RIGHT[label])}/{total}**" for n in names]
        out.append(f"| {label} | right ({right}) | " + " | ".join(cells) + " |")
    out.append("")
    for n in names:
        res = results[n]
        why = Counter(d for _, o, d in res["rows"] if o == "not-located")
        p50 = p50_p95(res["times"])[0] if res["times"] else 0.0
        out.append(
            f"- {n}: {len(res['times'])} imports, p50 {p50:.2f} s; "
            f"{res['replacements']} supersedes written, {len(res['wrong'])} wrong "
            f"(text still in the file), {res['gone']} atoms said gone from their file; "
            f"{len(res['errors'])} memories crashed"
        )
        if why:
            out.append("  not located: " + "; ".join(f"{k} {v}" for k, v in why.most_common()))
        waiting = Counter(lab for lab, _, d in res["rows"] if d.endswith("old atom in review"))
        if waiting:
            said = ", ".join(f"{k} {v}" for k, v in sorted(waiting.items()))
            out.append(f"  beside an old atom still in review (not replaced): {said}")
        for err in res["errors"][:3]:
            out.append(f"  crash: {err}")
    return out


def splits_of(values: Sequence[str]) -> list[str]:
    out = [s for v in values for s in v.split(",") if s]
    for s in out:
        if s not in SPLITS:
            raise SystemExit(f"--split {s}: one of {', '.join(SPLITS)}")
    return out or ["dev"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--split", action="append", default=[], help="split(s), comma list")
    parser.add_argument("--before", type=Path, help="another memkit source tree, side by side")
    parser.add_argument("--limit", type=int, default=0, help="the first N rows of each split")
    parser.add_argument("--show", action="store_true", help="each row's lines and outcome")
    parser.add_argument("--mirrors", type=Path, default=MIRRORS, help="the git mirrors")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(sys.stdin, sys.stdout)
    splits = splits_of(args.split)
    if args.show and any(s not in TUNING for s in splits):
        parser.error("--show prints the rows: only on the tuning splits")
    trees = []
    if args.before:
        if not (args.before / "memkit").is_dir():
            parser.error(f"--before {args.before}: no memkit/ in it")
        trees.append(Tree("before", args.before.resolve()))
    trees.append(Tree("after", ROOT))
    started = time.perf_counter()
    try:
        for split in splits:
            rows = read_jsonl(DATA / f"instruction_pairs_{split}.jsonl")
            rows = rows[: args.limit] if args.limit else rows
            jobs, left = memories(rows, args.mirrors)
            results = measure(jobs, trees, args.show)
            n = sum(len(j["rows"]) for j in jobs)
            skipped = ", ".join(f"{k} {v}" for k, v in sorted(left.items())) or "none"
            print(
                f"split {split}: {len(rows)} rows, {n} read in {len(jobs)} memories; "
                f"left out: {skipped}"
            )
            print("\n".join(table(split, results)))
            print()
    finally:
        for tree in trees:
            tree.close()
    print(f"run: {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
