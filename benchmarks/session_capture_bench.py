"""Capture on real sessions (issue 43): precision and recall of the candidates the transcript
pass leaves in the queue, on transcripts the real Claude Code CLI wrote
(benchmarks/data/transcripts/, made by make_transcripts.py from sessions_*.jsonl).

    python benchmarks/session_capture_bench.py [--show-errors] [--dev-only]

Each transcript is read by the hook's own code (`memkit.capture.hooks.on_transcript`, as at
SessionEnd: the user's prompts through L0, the agent's answers the user did not dispute, a
failed command and the run that worked), into a fresh queue. A candidate is right when its
statement holds one of the session's `expect` keys and it proposes that type and scope; a key
is found when some candidate is right for it. `--show-errors` prints the development set's
errors only: the held-out set's are never looked at.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path
from typing import Any

from _common import ROOT, read_jsonl

from memkit.capture import queue
from memkit.capture.hooks import on_transcript

DATA = ROOT / "benchmarks" / "data"
SETS = (("tuned on", "sessions_dev.jsonl"), ("held out", "sessions_heldout.jsonl"))
CONFIG = "capture:\n  episodic:\n    enabled: false\n"


def candidates(session: dict[str, Any], tmp: Path) -> list[tuple[str, str, str]]:
    """(statement, type, scope) of what the transcript pass queues for `session`."""
    root = tmp / session["id"]
    root.mkdir()
    (root / "memkit.yaml").write_text(CONFIG, encoding="utf-8")
    transcript = root / "transcript.jsonl"
    shutil.copyfile(DATA / "transcripts" / f"{session['id']}.jsonl", transcript)
    payload = {"session_id": session["id"], "transcript_path": str(transcript)}
    on_transcript({**payload, "cwd": "/home/dev/app"}, [root], "session-end", warm=False)
    return [(c.statement, c.type, c.scope) for c in queue.pending(root)]


def right(found: tuple[str, str, str], want: dict[str, str]) -> bool:
    statement, kind, scope = found
    return want["key"].lower() in statement.lower() and (kind, scope) == (
        want["type"],
        want.get("scope", "shared"),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--show-errors", action="store_true")
    parser.add_argument(
        "--dev-only", action="store_true", help="the development set only (while tuning)"
    )
    args = parser.parse_args()
    print("| set | lang | sessions (candidates to keep) | precision | recall |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="memkit-sessions-bench-") as tmp:
        for name, file in SETS[:1] if args.dev_only else SETS:
            rows = read_jsonl(DATA / file)
            for lang in ("en", "zh"):
                tp = fp = found = 0
                mine = [r for r in rows if r["lang"] == lang]
                for session in mine:
                    got = candidates(session, Path(tmp))
                    good = [c for c in got if any(right(c, w) for w in session["expect"])]
                    hit = [w for w in session["expect"] if any(right(c, w) for c in got)]
                    tp += len(good)
                    fp += len(got) - len(good)
                    found += len(hit)
                    wrong = len(good) < len(got) or len(hit) < len(session["expect"])
                    if args.show_errors and name == "tuned on" and wrong:
                        print(f"  {session['id']}: got {got!r}; wanted {session['expect']!r}")
                keep = sum(len(r["expect"]) for r in mine)
                p = tp / (tp + fp) if tp + fp else 1.0
                r = found / keep if keep else 1.0
                print(
                    f"| {name} | {lang} | {len(mine)} ({keep}) | {p:.2f} ({tp}/{tp + fp}) "
                    f"| {r:.2f} ({found}/{keep}) |"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
