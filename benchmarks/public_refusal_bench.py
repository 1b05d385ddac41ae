"""False refusals on public rule and ADR collections: what the prompt-injection check (MK112)
and the secret check (MK110) would refuse among real teams' rules and decision records.

    python benchmarks/public_refusal_bench.py [--cursor-rules DIR ...] [--adr DIR ...] [--show]

Each collection is read by memkit's own importers (`memkit import` reads the same way), and
every candidate (one rule, convention or record: what an import would write as one atom) is
checked as an atom's text: its title and body. Every candidate is benign (the collections are
rules and records written by teams, none an attack), so whatever is flagged is a false
refusal, which `--show` lists (the finding only, secrets redacted). Without arguments the CC0
samples in benchmarks/data/import_samples/ are read. Runs against whichever memkit is first
on the path (PYTHONPATH=DIR for an older one, side by side).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

from _common import ROOT

from memkit.importers import Candidate, Collected
from memkit.safety.injection import injection_hits
from memkit.safety.secrets import find_secrets

SAMPLES = ROOT / "benchmarks" / "data" / "import_samples"


def _collect(fmt: str, paths: Sequence[Path]) -> Collected:
    from memkit.importers import adr, cursor

    collect = cursor.collect if fmt == "cursor-rules" else adr.collect
    return collect(list(paths), max_lines=200)


def _text(cand: Candidate) -> str:
    return f"# {cand.title or ''}\n\n{cand.text}\n"


def _injection(text: str) -> list[str]:
    return [what for _line, _col, what in injection_hits(text)]


def _secrets(text: str) -> list[str]:
    return [f"{hit.kind}: {hit.redacted}" for hit in find_secrets(text)]


CHECKS: tuple[tuple[str, Callable[[str], list[str]]], ...] = (
    ("MK112 injection", _injection),
    ("MK110 secret", _secrets),
)


def measure(fmt: str, paths: Sequence[Path], show: bool) -> list[str]:
    collected = _collect(fmt, paths)
    cands = [c for c in collected.candidates if not c.refusal]
    rows = []
    for name, check in CHECKS:
        flagged = {}
        for cand in cands:
            found = check(_text(cand))
            if found:
                flagged[cand.where] = found
        files = {where.rsplit(":", 1)[0] for where in flagged}
        rate = len(flagged) / len(cands) if cands else 0.0
        file_rate = len(files) / collected.files if collected.files else 0.0
        rows.append(
            f"| {fmt} | {name} | {collected.files} | {len(cands)} | {len(flagged)} "
            f"({rate:.2%}) | {len(files)} ({file_rate:.2%}) |"
        )
        if show:
            for where, found in sorted(flagged.items()):
                print(f"  {name} {where}: {'; '.join(found)[:160]}")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cursor-rules", action="append", type=Path, default=[])
    parser.add_argument("--adr", action="append", type=Path, default=[])
    parser.add_argument("--show", action="store_true", help="list every flagged candidate")
    args = parser.parse_args()
    sets = [(fmt, paths) for fmt, paths in (("cursor-rules", args.cursor_rules), ("adr", args.adr))]
    if not any(paths for _fmt, paths in sets):
        sets = [("cursor-rules", [SAMPLES / "cursor"]), ("adr", [SAMPLES / "adr"])]
    rows = []
    for fmt, paths in sets:
        if paths:
            rows += measure(fmt, paths, args.show)
    print("| collection | check | files | candidates | candidates flagged | files flagged |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
