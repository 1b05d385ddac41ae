"""Claude Code hook latency: `memkit-hook user-prompt-submit` end to end, fresh process.

    python benchmarks/hook_bench.py [--atoms 10000] [--runs 30] [--before DIR]
                                    [--audit-report-mb 4.7]

Side by side with `python -c pass` in the same run: with the warm engine (`memkit serve`,
which has the index and the model loaded), and without it (BM25 and triggers, in-process).
memkit is byte-compiled first, as `pip install` does: an editable checkout run with
PYTHONDONTWRITEBYTECODE=1 would otherwise compile the hook's modules on every call (~4 ms).

Capture (issue 15) side by side too, each on its own copy of the repository with its own
engine: capture off (memkit.yaml), capture on (the default; the rows above), a prompt that
states a rule (each writes a new candidate), and with `--before DIR` (a copy of memkit's
package from before capture, e.g. `git archive 59efc6a memkit | tar -x -C DIR`, run through
PYTHONPATH) the code before it. Every prompt opens a new session: each is a session's first
prompt, the costliest for capture (its marker is made, the author's last summary looked for).

`--audit-report-mb N` (issue 29) writes into every repository an audit report of about N MB:
unresolved contradictions between the repository's own atoms (all still standing), as a pull
over a large memory leaves; SessionStart lists open pairs and recall looks for pairs among
what it injects, so both read it. With `--before`, SessionStart runs on the old code too.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from _common import PYTHON, p50_p95, write_repo
from index_bench import synthetic

# MEMKIT_NO_ENGINE=1 keeps a hook from asking (or starting) an engine: the rows without one;
# the warm rows must not carry it (it would make them rows without an engine too).
COLD = {"MEMKIT_NO_ENGINE": "1"}
WARM = {"MEMKIT_NO_ENGINE": "0"}


def _warm_up(hook: str, folder: Path, env: dict[str, str]) -> None:
    """Until an engine has loaded its index and model, a hook that waits too long for it marks
    it hung and answers by itself for 30 s: ask until it answers quickly, then clear marks."""
    payload = json.dumps({"cwd": str(folder), "prompt": "cache", "session_id": "warm-up"})
    for _ in range(60):
        start = time.perf_counter()
        subprocess.run(
            [hook, "user-prompt-submit"],
            input=payload,
            text=True,
            cwd=folder,
            env=env,
            capture_output=True,
            check=True,
        )
        if time.perf_counter() - start < 0.5:
            break
    (folder / ".memkit" / "engine.hung").unlink(missing_ok=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--atoms", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--before", type=Path, help="memkit's package before capture")
    parser.add_argument("--audit-report-mb", type=float, default=0.0)
    args = parser.parse_args()
    import memkit

    packages = [str(Path(memkit.__file__).parent)]
    if args.before:
        packages.append(str(args.before))
    for package in packages:
        subprocess.run([PYTHON, "-m", "compileall", "-q", package], check=True, capture_output=True)
    hook = str(Path(PYTHON).parent / "memkit-hook")
    with tempfile.TemporaryDirectory(prefix="memkit-hook-bench-") as tmp:
        # setup name -> (repository, environment of its hooks and engine)
        setups = {"on": (Path(tmp) / "repo", dict(os.environ))}
        setups["off"] = (Path(tmp) / "repo-off", dict(os.environ))
        if args.before:
            before_env = {**os.environ, "PYTHONPATH": str(args.before.resolve().parent)}
            setups["before"] = (Path(tmp) / "repo-before", before_env)
        for folder, env in setups.values():
            write_repo(folder, synthetic(args.atoms))
            subprocess.run(
                [PYTHON, "-m", "memkit", "index", "--quiet"], cwd=folder, env=env, check=True
            )
        with (setups["off"][0] / "memkit.yaml").open("a", encoding="utf-8") as fh:
            fh.write("capture:\n  enabled: false\n")
        if args.audit_report_mb:
            for folder, _ in setups.values():
                size = audit_report(folder, args.audit_report_mb)
            print(f"audit report: {size / 1e6:.1f} MB in each repository\n")
        engines = [
            subprocess.Popen([PYTHON, "-m", "memkit", "serve", "--idle", "60"], cwd=folder, env=env)
            for folder, env in setups.values()
        ]
        for folder, env in setups.values():
            while not (folder / ".memkit" / "engine.sock").exists():
                time.sleep(0.05)
            _warm_up(hook, folder, {**env, **WARM})
        times: dict[str, list[float]] = {}
        # Hooks that printed nothing (a prompt: no memory) where memory was due.
        empty: dict[str, list[bool]] = {}
        for i in range(args.runs):
            root = setups["on"][0]
            prompt = {"prompt": f"how often should we rotate the cache {i}?"}
            rule = {"prompt": f"From now on we rotate the cache every {i} hours."}
            # Stop after the prompt's atoms were given: the lifecycle compares the answer with
            # them (issue 16).
            stop = {"last_assistant_message": "We rotate the cache every 10 min now."}
            # (name, setup, event, the payload's fields, through the warm engine)
            runs: list[tuple[str, str, str, Mapping[str, object], bool]] = [
                ("pass", "", "", {}, False),
                ("prompt", "on", "user-prompt-submit", prompt, False),
                ("start", "on", "session-start", {"source": "startup"}, False),
                ("warm", "on", "user-prompt-submit", prompt, True),
                ("wstart", "on", "session-start", {"source": "startup"}, True),
                (
                    "wtool",
                    "on",
                    "pre-tool-use",
                    {
                        "tool_name": "Read",
                        "tool_input": {"file_path": str(root / "src/net/conn.py")},
                    },
                    True,
                ),
                ("wstop", "on", "stop", stop, True),
                ("stop", "on", "stop", stop, False),
                ("offprompt", "off", "user-prompt-submit", prompt, False),
                ("offwarm", "off", "user-prompt-submit", prompt, True),
                ("ruleprompt", "on", "user-prompt-submit", rule, False),
                ("rulewarm", "on", "user-prompt-submit", rule, True),
            ]
            if args.before:
                runs += [
                    ("beforeprompt", "before", "user-prompt-submit", prompt, False),
                    ("beforewarm", "before", "user-prompt-submit", prompt, True),
                    ("beforestart", "before", "session-start", {"source": "startup"}, False),
                    ("beforewstart", "before", "session-start", {"source": "startup"}, True),
                ]
            for name, setup, event, fields, warm in runs:
                if name == "pass":
                    argv, payload, cwd, env = [PYTHON, "-c", "pass"], "", None, dict(os.environ)
                else:
                    folder, env = setups[setup]
                    # A session of its own for every hook: each is its session's first prompt
                    # (and two rule prompts never state the same thing).
                    # ... but Stop closes the session of the prompt before it.
                    session = f"{ {'wstop': 'warm', 'stop': 'prompt'}.get(name, name) }-{i}"
                    payload = json.dumps({**fields, "cwd": str(folder), "session_id": session})
                    if name == "rulewarm":
                        payload = payload.replace(" hours.", " minutes.")
                    argv, cwd = [hook, event], folder
                    env = {**env, **(WARM if warm else COLD)}
                start = time.perf_counter()
                out = subprocess.run(
                    argv,
                    input=payload,
                    capture_output=True,
                    text=True,
                    check=True,
                    cwd=cwd,
                    env=env,
                )
                times.setdefault(name, []).append((time.perf_counter() - start) * 1000)
                if name in ("start", "wstart", "beforestart", "beforewstart"):
                    empty.setdefault(name, []).append(not out.stdout.strip())
                if name in ("prompt", "warm", "offprompt", "offwarm", "beforewarm"):
                    empty.setdefault(name, []).append("memkit-memory" not in out.stdout)
        for engine in engines:
            engine.terminate()
            engine.wait()
        on, off = setups["on"][0], setups["off"][0]
        written = len(list((on / ".memkit" / "capture" / "candidates").glob("*.json")))
        assert written == 2 * args.runs, written  # every rule prompt left a candidate
        assert not (off / ".memkit" / "capture" / "candidates").exists()
    base = p50_p95(times["pass"])
    print(
        f"| {args.atoms:,}-atom repo, fresh process | p50 | p95 | ratio to `python -c pass` "
        "p50 / p95 |"
    )
    print("|---|---|---|---|")
    print(f"| `python -c pass` | {base[0]:.0f} ms | {base[1]:.0f} ms | 1× |")
    rows = [
        ("warm", "`memkit-hook user-prompt-submit`, warm engine"),
        ("wstart", "`memkit-hook session-start`, warm engine"),
        ("wtool", "`memkit-hook pre-tool-use` (Read), warm engine"),
        ("wstop", "`memkit-hook stop` (after a prompt's atoms), warm engine"),
        ("prompt", "`memkit-hook user-prompt-submit`, no engine"),
        ("start", "`memkit-hook session-start`, no engine"),
        ("stop", "`memkit-hook stop` (after a prompt's atoms), no engine"),
    ]
    if args.before:
        rows.append(("beforewarm", "`user-prompt-submit`, warm engine, before capture"))
        rows.append(("beforewstart", "`session-start`, warm engine, the code given by --before"))
        rows.append(("beforestart", "`session-start`, no engine, the code given by --before"))
    rows += [
        ("offwarm", "`user-prompt-submit`, warm engine, capture off"),
        ("warm", "`user-prompt-submit`, warm engine, capture on (as above)"),
        ("rulewarm", "`user-prompt-submit`, warm engine, a prompt stating a rule (new candidate)"),
    ]
    if args.before:
        rows.append(("beforeprompt", "`user-prompt-submit`, no engine, before capture"))
    rows += [
        ("offprompt", "`user-prompt-submit`, no engine, capture off"),
        ("prompt", "`user-prompt-submit`, no engine, capture on (as above)"),
        ("ruleprompt", "`user-prompt-submit`, no engine, a prompt stating a rule (new candidate)"),
    ]
    for name, label in rows:
        p50, p95 = p50_p95(times[name])
        print(
            f"| {label} | {p50:.0f} ms | {p95:.0f} ms | {p50 / base[0]:.1f}× / "
            f"{p95 / base[1]:.1f}× |"
        )
    print("\n| printed no memory | runs |\n|---|---|")
    for name, flags in sorted(empty.items()):
        print(f"| {name} | {sum(flags)} of {len(flags)} |")
    print(f"\nload average: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


def audit_report(folder: Path, megabytes: float) -> int:
    """An audit report of about `megabytes` MB in `folder`: contradictions between its own
    atoms, each still standing (neither supersedes the other)."""
    atoms = sorted(p.stem for p in (folder / "shared").glob("*.md"))
    pairs = []
    size = 0
    n = 0
    while size < megabytes * 1e6:
        a, b = atoms[n % len(atoms)], atoms[(n * 7 + 1) % len(atoms)]
        item = {
            "incoming": a,
            "incoming_path": f"shared/{a}.md",
            "other": b,
            "other_path": f"shared/{b}.md",
            "kind": "contradicts",
            "reason": f"the same setting with different values ({n} vs {n + 1})",
            "similarity": 0.91,
            "resolved": False,
            "found_by": "vector",
        }
        pairs.append(item)
        size += len(json.dumps(item, indent=1)) + 2
        n += 1
    report: dict[str, object] = {"refs": None, "incoming": len(pairs), "rules": 1}
    report |= {"unresolved": pairs, "resolved": [], "counts": {"contradicts": len(pairs)}}
    path = folder / ".memkit" / "audit" / "last.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path.stat().st_size


if __name__ == "__main__":
    raise SystemExit(main())
