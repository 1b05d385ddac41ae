"""Drift at size: 10,000 atoms against a 10,000-file code project, cold and warm.

The project: N files in folders (code, 100 YAML configs, a Makefile with 200 targets, a
package.json with 200 scripts, a pyproject.toml with dependencies), then 40 commits that
delete, rename and edit some of them (history for "gone" to find). The memory: M atoms
written by `memkit init`'s layout, each naming 1-4 things of the project: files (present,
deleted, renamed, never there), a `paths:` glob, a config value (held, changed), a make
target or npm script (defined, removed), a dependency's version.

Cold is the first `memkit drift` (no claims cache, no history cache), warm the second (the
atoms unchanged: their claims come from the cache; the history from its cache); both run
the real CLI in a fresh process, as a commit hook would, and in-process.

    python benchmarks/drift_speed_bench.py [--atoms 10000] [--files 10000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memkit.drift.run import drift
from memkit.onboard import create


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def make_project(root: Path, files: int, rng: random.Random) -> dict[str, list[str]]:
    root.mkdir(parents=True)
    git(root, "init", "-q")
    git(root, "config", "user.email", "bench@example.com")
    git(root, "config", "user.name", "Bench")
    paths: list[str] = [f"src/pkg{i % 50}/mod{i // 50}/file{i}.py" for i in range(files - 103)]
    for path in paths:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"VALUE = {len(path)}\n", encoding="utf-8")
    configs: list[str] = []
    for i in range(100):
        config = f"config/service{i}.yaml"
        (root / config).parent.mkdir(parents=True, exist_ok=True)
        (root / config).write_text(
            f"worker:\n  max_retries: {i % 7}\n  timeout_s: {30 + i}\nport_{i}: {8000 + i}\n",
            encoding="utf-8",
        )
        configs.append(config)
    targets = [f"task-{i}" for i in range(200)]
    (root / "Makefile").write_text(
        "".join(f"{t}:\n\techo {t}\n" for t in targets), encoding="utf-8"
    )
    scripts = {f"script-{i}": f"node run{i}.js" for i in range(200)}
    deps = {f"dep-{i}": f"^{1 + i % 9}.{i % 5}.0" for i in range(100)}
    (root / "package.json").write_text(
        json.dumps({"name": "app", "scripts": scripts, "dependencies": deps}), encoding="utf-8"
    )
    (root / "pyproject.toml").write_text(
        '[project]\nname = "app"\nrequires-python = ">=3.10"\n', encoding="utf-8"
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the project")
    deleted: list[str] = []
    renamed: list[str] = []
    removed_targets: list[str] = []
    removed_scripts: list[str] = []
    changed: list[str] = []
    for round_ in range(40):
        picked = [p for p in rng.sample(paths, 10) if p not in deleted and p not in renamed]
        gone = picked[: len(picked) // 2]
        if gone:
            git(root, "rm", "-q", *gone)
            deleted += gone
        for moved in picked[len(picked) // 2 :]:
            (root / moved).rename(root / moved.replace(".py", "_v2.py"))
            renamed.append(moved)
        removed_targets.append(targets[round_])
        script = f"script-{round_}"
        removed_scripts.append(script)
        scripts.pop(script)
        (root / "Makefile").write_text(
            "".join(f"{t}:\n\techo {t}\n" for t in targets if t not in removed_targets),
            encoding="utf-8",
        )
        (root / "package.json").write_text(
            json.dumps({"name": "app", "scripts": scripts, "dependencies": deps}), encoding="utf-8"
        )
        config = configs[round_]
        (root / config).write_text(
            (root / config).read_text(encoding="utf-8").replace("max_retries:", "max_retries: 1"),
            encoding="utf-8",
        )
        changed.append(config)
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"round {round_}")
    return {
        "present": [p for p in paths if p not in deleted and p not in renamed],
        "gone": deleted + renamed,
        "configs": configs,
        "changed": changed,
        "targets": targets,
        "removed_targets": removed_targets,
        "removed_scripts": removed_scripts,
    }


def make_memory(root: Path, atoms: int, project: dict[str, list[str]], rng: random.Random) -> None:
    create(root, install_hooks=False, commit=False)
    (root / ".memkit").mkdir(exist_ok=True)  # local state, as the first hook or index makes it
    for i in range(atoms):
        lines = []
        kind = i % 6
        if kind == 0:
            lines.append(f"- The handler is `{rng.choice(project['present'])}`.")
        elif kind == 1:
            lines.append(
                f"- The old handler was `{rng.choice(project['gone'])}`; "
                f"see also `docs/never-{i}.md`."
            )
        elif kind == 2:
            config = rng.choice(project["configs"])
            n = project["configs"].index(config)
            lines.append(f"- The retry limit is `max_retries: {n % 7}` in `{config}`.")
        elif kind == 3:
            lines.append(
                f"- Deploy with `make {rng.choice(project['targets'])}`, "
                f"build with `npm run script-{rng.randrange(200)}`."
            )
        elif kind == 4:
            lines.append(
                f"- We pin `dep-{i % 100}@^{1 + (i % 100) % 9}.0.0` and need Python 3.10+."
            )
        else:
            lines.append("- Keep answers short and say which atom they come from.")
        extra = f'paths: ["src/pkg{i % 50}/**"]\n' if i % 3 == 0 else ""
        text = (
            f"---\nid: atom-{i}\ntype: fact\nconfidence: observed\n"
            f"created: 2026-01-01\n{extra}---\n"
            f"# Atom {i}\n\n" + "\n".join(lines) + "\n"
        )
        (root / "shared" / f"atom-{i}.md").write_text(text, encoding="utf-8")


def cli(memory: Path, project: Path) -> float:
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "memkit", "drift", "--project", str(project), "--format", "json"],
        cwd=memory,
        capture_output=True,
        check=False,
    )
    if result.returncode not in (0, 1):
        sys.exit(result.stderr.decode())
    return time.perf_counter() - started


def seconds(times: list[float]) -> str:
    return ", ".join(f"{t:.2f}" for t in times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--atoms", type=int, default=10_000)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(44)
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        os.environ.setdefault("MEMKIT_NO_ENGINE", "1")
        for role in ("AUTHOR", "COMMITTER"):
            os.environ.setdefault(f"GIT_{role}_NAME", "Bench")
            os.environ.setdefault(f"GIT_{role}_EMAIL", "bench@example.com")
        started = time.perf_counter()
        project = make_project(base / "app", args.files, rng)
        make_memory(base / "memory", args.atoms, project, rng)
        print(
            f"made the project ({args.files} files, 41 commits) and the memory "
            f"({args.atoms} atoms) in {time.perf_counter() - started:.1f} s"
        )
        memory, app = base / "memory", base / "app"
        cold, warm = [], []
        for _ in range(args.runs):
            for cache in (memory / ".memkit" / "drift").glob("*.json"):
                cache.unlink()
            cold.append(cli(memory, app))
            warm.append(cli(memory, app))
        # A commit of the project (what its commit hook meets): five files edited, one
        # deleted, a target taken out of the Makefile; then the check, warm otherwise.
        after = []
        for round_ in range(args.runs):
            for path in project["present"][round_ * 6 : round_ * 6 + 5]:
                (app / path).write_text("VALUE = 0\n", encoding="utf-8")
            git(app, "rm", "-q", project["present"][round_ * 6 + 5])
            makefile = (app / "Makefile").read_text(encoding="utf-8")
            kept = project["targets"][-1 - round_]
            (app / "Makefile").write_text(
                makefile.replace(f"{kept}:\n\techo {kept}\n", ""), encoding="utf-8"
            )
            git(app, "commit", "-qam", f"a change {round_}")
            after.append(cli(memory, app))
        report = drift(memory, app)
        stale = len(report.stale)
        counts = report.counts()
        started = time.perf_counter()
        for _ in range(args.runs):
            drift(memory, app)
        inproc = (time.perf_counter() - started) / args.runs
        print(f"claims: {counts}; stale atoms {stale} of {report.checked}")
        print(f"memkit drift (CLI, fresh process) cold: {seconds(cold)} s; warm: {seconds(warm)} s")
        print(f"memkit drift (CLI) after one commit of the project: {seconds(after)} s")
        print(f"drift() in-process, warm: {inproc:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
