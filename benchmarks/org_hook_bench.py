"""What org recall costs a prompt (issue 46): `memkit-hook user-prompt-submit` through the warm
engine, fresh process, side by side in one run with `python -c pass`:

    python benchmarks/org_hook_bench.py [--runs 30] [--org-file PATH.db]

Three copies of one team repository, each with its own engine: org recall off (no `org:`),
on (a Milvus Lite file holding another team's atoms: `--org-file`, e.g. the 100,000-atom file
`benchmarks/org_bench.py --work DIR` leaves at DIR/org.db, else a small one made here), and on
against a Milvus that takes connections and never answers. Prompts alternate between one the
team's own memory answers and one only the org does; the table gives the hook's wall time and
how many prompts got an org atom.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import PYTHON, ROOT, p50_p95

HOOK = str(Path(PYTHON).parent / "memkit-hook")
MEMKIT = [PYTHON, "-m", "memkit"]
PROMPTS = (
    "refund calls to the gateway need an idempotency key, how do retries reuse it",
    "how often must a websocket send a heartbeat ping to the load balancer",
)


def atom(atom_id: str, title: str, body: str) -> str:
    return (
        f"---\nid: {atom_id}\ntype: fact\nconfidence: observed\ncreated: 2026-01-01\n---\n"
        f"# {title}\n\n{body}\n"
    )


def repo(path: Path, atoms: dict[str, str]) -> Path:
    subprocess.run([*MEMKIT, "init", str(path)], check=True, capture_output=True)
    for name, text in atoms.items():
        (path / "shared" / f"{name}.md").write_text(text, encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=path, check=True)
    subprocess.run(["git", "commit", "-qm", "atoms", "--no-verify"], cwd=path, check=True)
    subprocess.run([*MEMKIT, "index", "--quiet"], cwd=path, check=True)
    return path


def hook(root: Path, prompt: str, session: str) -> tuple[float, str]:
    payload = json.dumps({"cwd": str(root), "session_id": session, "prompt": prompt})
    started = time.perf_counter()
    out = subprocess.run(
        [HOOK, "user-prompt-submit", f"--repo={root}"],
        input=payload,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return (time.perf_counter() - started) * 1000, out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--org-file", type=Path)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="memkit-org-hook-"))
    os.environ["HOME"] = str(work / "home")
    (work / "home").mkdir()
    subprocess.run(["git", "config", "--global", "user.email", "a@example.com"], check=True)
    subprocess.run(["git", "config", "--global", "user.name", "A"], check=True)
    lite = args.org_file
    if lite is None:
        platform = repo(
            work / "platform",
            {
                "ws-heartbeat": atom(
                    "ws-heartbeat",
                    "WebSocket connections need a 30 s heartbeat",
                    "- The load balancer drops idle websocket connections after 60 s; send a "
                    "heartbeat ping every 30 s.",
                )
            },
        )
        lite = work / "org.db"
        subprocess.run([*MEMKIT, "org", "publish", "--uri", str(lite), str(platform)], check=True)
    base = repo(
        work / "team",
        {
            "refund-idempotency": atom(
                "refund-idempotency",
                "Refunds need an idempotency key",
                "- Every refund call to the gateway carries an idempotency key; retries reuse it.",
            )
        },
    )
    # A 'Milvus' on loopback that takes connections and never answers.
    sys.path.insert(0, str(ROOT))
    from tests.helpers import never_answering

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    with never_answering(server):
        measure(work, base, lite, f"http://127.0.0.1:{server.getsockname()[1]}", args.runs)
    load = os.getloadavg()
    print(f"\nload average {load[0]:.1f}; {os.cpu_count()} cores; org file {lite}")
    shutil.rmtree(work, ignore_errors=True)
    return 0


def measure(work: Path, base: Path, lite: Path, uri: str, runs: int) -> None:
    """Each variant's engine started, warmed, and its hook timed side by side."""
    variants = {"org off": None, "org on (Lite)": str(lite), "org on (Milvus hangs)": uri}
    roots = {}
    for name, org_uri in variants.items():
        root = work / name.replace(" ", "-").replace("(", "").replace(")", "")
        shutil.copytree(base, root, symlinks=True, ignore=shutil.ignore_patterns("*.sock"))
        if org_uri:
            with (root / "memkit.yaml").open("a", encoding="utf-8") as fh:
                fh.write(f"\norg:\n  uri: {org_uri}\n  recall: true\n  timeout_ms: 300\n")
        subprocess.Popen([*MEMKIT, "serve"], cwd=root, stdout=subprocess.DEVNULL)
        roots[name] = root
    time.sleep(5)
    for name, root in roots.items():  # warm: the engine, the client, the org's file
        for i in range(20):
            _, out = hook(root, PROMPTS[1], f"warm{i}")
            if variants[name] != str(lite) or "ws-heartbeat" in out:
                break
            time.sleep(1)
    times: dict[str, list[float]] = {name: [] for name in [*roots, "python -c pass"]}
    got: dict[str, int] = dict.fromkeys(roots, 0)
    for run in range(runs):
        started = time.perf_counter()
        subprocess.run([PYTHON, "-c", "pass"], check=True)
        times["python -c pass"].append((time.perf_counter() - started) * 1000)
        for name, root in roots.items():
            took, out = hook(root, PROMPTS[run % 2], f"run{run}")
            times[name].append(took)
            got[name] += "ws-heartbeat" in out
    for root in roots.values():
        subprocess.run([*MEMKIT, "serve", "--stop"], cwd=root, capture_output=True, check=False)
    print(f"| variant | p50 ms | p95 ms | prompts with an org atom (of {runs // 2} asking) |")
    print("|---|---|---|---|")
    for name, values in times.items():
        p50, p95 = p50_p95(values)
        print(f"| {name} | {p50:.0f} | {p95:.0f} | {got.get(name, '-')} |")


if __name__ == "__main__":
    sys.exit(main())
