"""Real Claude Code transcripts for the labelled sessions of benchmarks/data/sessions_*.jsonl
(issue 43): each session is played through the real CLI (`claude -p`, then `--resume` for each
later turn) against the tests' fake Messages API, which answers with the session's scripted
Bash calls (run for real, on small stub programs in the session's project) and then its scripted
answer. The transcript Claude Code wrote is kept in benchmarks/data/transcripts/<id>.jsonl, with
the throwaway folders' paths replaced by `/home/dev/app` and `/home/dev`.

    python benchmarks/make_transcripts.py benchmarks/data/sessions_dev.jsonl [--claude PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import ROOT, read_jsonl

sys.path.insert(0, str(ROOT))
from tests.claude.fake_api import fake_api, text_reply, tool_reply, tool_results

OUT = ROOT / "benchmarks" / "data" / "transcripts"
CLAUDE = ROOT / ".cache" / "claude-code" / "node_modules" / ".bin" / "claude"


class Script:
    """The fake model's side of one session: turn by turn, its Bash calls, then its answer."""

    def __init__(self, turns: list[dict[str, Any]]) -> None:
        self.turns = turns
        self.turn = 0

    def reply(self, body: dict[str, Any]) -> bytes:
        done = len(tool_results(body.get("messages", [])))
        before = sum(len(t.get("bash", ())) for t in self.turns[: self.turn])
        calls = self.turns[self.turn].get("bash", [])
        if done - before < len(calls):
            command = calls[done - before]
            return tool_reply("Bash", {"command": command, "description": "run it"}, done + 1)
        return text_reply(self.turns[self.turn]["assistant"])


def play(session: dict[str, Any], claude: Path, work: Path) -> str:
    project = work / "app"
    home = work / "home"
    for rel, body in session.get("stubs", {}).items():
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
        path.chmod(0o755)
    project.mkdir(parents=True, exist_ok=True)
    home.mkdir()
    script = Script(session["turns"])
    with fake_api() as (api, url):
        api.reply = script.reply  # type: ignore[method-assign]  # a scripted model
        env = {
            **os.environ,
            "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": "dummy",
            "HOME": str(home),
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        sid = ""
        for n, turn in enumerate(session["turns"]):
            script.turn = n
            argv = [str(claude), "-p", turn["user"], "--output-format", "json"]
            argv += ["--allowedTools", "Bash", *(["--resume", sid] if sid else [])]
            done = subprocess.run(
                argv, cwd=project, env=env, capture_output=True, text=True, timeout=180, check=True
            )
            sid = json.loads(done.stdout)["session_id"]
    (transcript,) = (home / ".claude" / "projects").glob(f"*/{sid}.jsonl")
    text = transcript.read_text(encoding="utf-8")
    return text.replace(str(project), "/home/dev/app").replace(str(home), "/home/dev")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("sessions", type=Path)
    parser.add_argument("--claude", type=Path, default=CLAUDE)
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    for session in read_jsonl(args.sessions):
        with tempfile.TemporaryDirectory(prefix="memkit-transcript-") as tmp:
            text = play(session, args.claude, Path(tmp))
        (OUT / f"{session['id']}.jsonl").write_text(text, encoding="utf-8")
        print(session["id"], len(text.splitlines()), "lines")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
