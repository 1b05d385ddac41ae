"""memkit import and export on public collections: what is read, written, refused and why.

    python benchmarks/import_bench.py [--cursor-rules DIR ...] [--claude-md DIR ...] [--adr DIR ...]
    python benchmarks/import_bench.py --speed RULES_DIR [--files 1000] [--atoms 1000] [--data DIR]

Each collection is imported into a fresh memory repository (made by `memkit init`, its maker
management, so that decisions are written to shared/ and meet the duplicate check of live
atoms) with the real CLI, as a user runs it: a dry run, the import, a commit, the same import
again (it must write nothing), `memkit validate` of the result, and `memkit export
claude-rules` of it. Without arguments the small CC0 samples committed in
benchmarks/data/import_samples/ are used; the collections measured in docs/benchmarks.md are
read from the paths given (see there for where they come from).

`--speed` asks whether an import's time depends on how much memory is already there: the
first `--files` rule files of RULES_DIR (Cursor rules, sorted by path) go into an empty memory
and into one holding `--atoms` atoms (`--prefill realsize`: real-size records and passages
from the public sets, benchmarks/realsize.py; `--prefill facts`: one-sentence facts,
benchmarks/facts.py), side by side in one run (a dry run of each, then the import into each).
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
from collections import Counter
from pathlib import Path
from typing import TypedDict

from _common import ROOT

SAMPLES = ROOT / "benchmarks" / "data" / "import_samples"
IDENTITY = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "MEMKIT_NO_ENGINE": "1",
}


def memkit(
    *args: str, cwd: Path, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "memkit", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return result, time.perf_counter() - started


class Measured(TypedDict):
    """One collection: what the import read, wrote and refused, and how long each step took."""

    format: str
    files: int
    candidates: int
    written: int
    for_review: int
    refused: dict[str, int]  # reason -> candidates
    duplicates: int
    unimported: dict[str, int]  # reason -> files
    dry_run_s: float
    import_s: float
    second_written: int
    second_s: float
    validate_errors: int
    export_s: float
    export: str  # the last line `memkit export claude-rules` printed


def measure(fmt: str, paths: list[str], work: Path) -> Measured:
    home = work / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **IDENTITY, "HOME": str(home), "MEMKIT_LOG_DIR": str(home / "logs")}
    repo = work / "memory"
    made, _ = memkit("init", str(repo), "--no-hooks", cwd=work, env=env)
    assert made.returncode == 0, made.stdout + made.stderr
    dry, dry_s = memkit("import", fmt, *paths, "--dry-run", "--json", cwd=repo, env=env)
    assert dry.returncode == 0, dry.stderr
    real, real_s = memkit("import", fmt, *paths, "--json", cwd=repo, env=env)
    assert real.returncode == 0, real.stderr
    report = json.loads(real.stdout)
    assert json.loads(dry.stdout)["written"] == report["written"], "dry run differs from the run"
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    subprocess.run(["git", "commit", "-qm", "import", "--no-verify"], cwd=repo, env=env, check=True)
    again, again_s = memkit("import", fmt, *paths, "--json", cwd=repo, env=env)
    second = json.loads(again.stdout)
    valid, _ = memkit("validate", cwd=repo, env=env)
    errors = sum(
        bool(re.search(r":\d+:\d+: MK\d+ (?!warning:)", line)) for line in valid.stdout.splitlines()
    )
    project = work / "project"
    project.mkdir()
    export, export_s = memkit(
        "export", "claude-rules", "--project", str(project), cwd=repo, env=env
    )
    assert export.returncode == 0, export.stderr
    unimported = Counter(u["reason"] for u in report["unimported"])
    refused: dict[str, int] = report["refused"]
    return {
        "format": fmt,
        "files": report["files"],
        "candidates": report["candidates"],
        "written": report["written"],
        "for_review": report["for_review"],
        "refused": refused,
        "duplicates": refused.get("duplicate-in-import", 0) + refused.get("MK103", 0),
        "unimported": dict(unimported),
        "dry_run_s": dry_s,
        "import_s": real_s,
        "second_written": second["written"],
        "second_s": again_s,
        "validate_errors": errors,
        "export_s": export_s,
        "export": export.stdout.strip().splitlines()[-1],
    }


def _rule_files(folder: Path, count: int, into: Path) -> int:
    """Copy the first `count` rule files of `folder` (sorted paths) into `into`."""
    import shutil

    found = sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and not p.is_symlink() and (p.suffix == ".mdc" or p.name == ".cursorrules")
    )[:count]
    for path in found:
        target = into / path.relative_to(folder)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return len(found)


def _prefill(kind: str, atoms: int, data: Path | None) -> list[tuple[str, str]]:
    """(path, text) of the atoms a memory holds before the import: `realsize`, real-size
    records and passages from the public sets (long); `facts`, one-sentence facts about
    made-up services and people (benchmarks/facts.py: short, as most atoms are)."""
    if kind == "facts":
        from facts import facts

        return [
            (
                f"shared/fact-{i:05d}.md",
                f"---\nid: fact-{i:05d}\ntype: fact\nconfidence: observed\n"
                f"created: 2026-01-01\ntriggers: [{triggers[0]}]\n---\n# {text}\n\n{text}\n",
            )
            for i, (_, text, triggers) in enumerate(facts(atoms))
        ]
    from realsize import Corpus
    from realsize import atoms as realsize_atoms

    assert data is not None
    return list(realsize_atoms(atoms, Corpus(data)))


def _memory(work: Path, name: str, atoms: list[tuple[str, str]], env: dict[str, str]) -> Path:
    repo = work / name
    made, _ = memkit("init", str(repo), "--no-hooks", cwd=work, env=env)
    assert made.returncode == 0, made.stdout + made.stderr
    if atoms:
        for rel, text in atoms:
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (repo / rel).write_text(text, encoding="utf-8")
        subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
        subprocess.run(
            ["git", "commit", "-qm", "atoms", "--no-verify"], cwd=repo, env=env, check=True
        )
    indexed, _ = memkit("index", cwd=repo, env=env)
    assert indexed.returncode == 0, indexed.stderr
    return repo


def speed(rules: Path, files: int, atoms: int, data_arg: str | None, prefill: str) -> None:
    from _common import data_dir

    data = data_dir(data_arg)
    if data is None and prefill == "realsize":
        print("public data sets not found (pass --data): no memory to fill", file=sys.stderr)
        raise SystemExit(1)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        home = work / "home"
        home.mkdir()
        env = {**os.environ, **IDENTITY, "HOME": str(home), "MEMKIT_LOG_DIR": str(home / "logs")}
        source = work / "rules"
        copied = _rule_files(rules, files, source)
        repos = {
            "empty": _memory(work, "empty", [], env),
            "full": _memory(work, "full", _prefill(prefill, atoms, data), env),
        }
        print(f"{copied} rule files; memories: empty, {atoms} atoms ({prefill})")
        print(f"load average at start: {os.getloadavg()[0]:.2f}")
        times: dict[str, list[float]] = {"empty": [], "full": []}
        reports: dict[str, dict[str, object]] = {}
        for name, repo in repos.items():
            done, seconds = memkit(
                "import", "cursor-rules", str(source), "--dry-run", "--json", cwd=repo, env=env
            )
            assert done.returncode == 0, done.stderr
            times[name].append(seconds)
            reports[name] = json.loads(done.stdout)
        for name, repo in repos.items():
            done, seconds = memkit(
                "import", "cursor-rules", str(source), "--json", cwd=repo, env=env
            )
            assert done.returncode == 0, done.stderr
            times[name].append(seconds)
        print("| memory | candidates | would be written | dry run | import |")
        print("|---|---|---|---|---|")
        for name in repos:
            r = reports[name]
            t = times[name]
            print(f"| {name} | {r['candidates']} | {r['written']} | {t[0]:.1f} s | {t[1]:.1f} s |")
        ratio = min(times["full"]) / min(times["empty"])
        print(f"full / empty (best of two each): {ratio:.2f}")
        print(f"load average at end: {os.getloadavg()[0]:.2f}")


def counted(items: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(items.items(), key=lambda kv: -kv[1])) or "–"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cursor-rules", nargs="*", default=[], metavar="DIR")
    parser.add_argument("--claude-md", nargs="*", default=[], metavar="DIR")
    parser.add_argument("--adr", nargs="*", default=[], metavar="DIR")
    parser.add_argument("--speed", type=Path, metavar="RULES_DIR")
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--atoms", type=int, default=1000)
    parser.add_argument("--data", help="folder with scifact/ and cmrc2018/ (for --speed)")
    parser.add_argument("--prefill", choices=("realsize", "facts"), default="realsize")
    args = parser.parse_args()
    if args.speed:
        speed(args.speed, args.files, args.atoms, args.data, args.prefill)
        return
    runs = [("cursor-rules", args.cursor_rules), ("claude-md", args.claude_md), ("adr", args.adr)]
    if not any(paths for _, paths in runs):
        print(f"(no collections given: the CC0 samples in {SAMPLES.relative_to(ROOT)})")
        runs = [("cursor-rules", [str(SAMPLES / "cursor")]), ("adr", [str(SAMPLES / "adr")])]
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    rows = []
    for fmt, paths in runs:
        if paths:
            with tempfile.TemporaryDirectory() as tmp:
                rows.append(measure(fmt, paths, Path(tmp)))
    print(
        "| format | files read | candidates | atoms written (for review) | refused, by reason "
        "| duplicates | files not imported | dry run | import | again (written) | export |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['format']} | {r['files']} | {r['candidates']} | {r['written']} "
            f"({r['for_review']}) | {counted(r['refused'])} | {r['duplicates']} "
            f"| {counted(r['unimported'])} | {r['dry_run_s']:.1f} s | {r['import_s']:.1f} s "
            f"| {r['second_s']:.1f} s ({r['second_written']}) | {r['export_s']:.1f} s |"
        )
    for r in rows:
        print(
            f"- {r['format']}: validate errors after import: {r['validate_errors']}; {r['export']}"
        )
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
