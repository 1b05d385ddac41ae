"""The content checks of issue 39 on labelled sets and on public text.

    python benchmarks/safety_bench.py [--data DIR] [--detect-secrets] [--show-errors]

- Secrets (MK110): benchmarks/data/secret_formats_{dev,heldout}.jsonl (secret_sets.py makes
  them): recall per class and per placement, false alarms per kind of look-alike.
- Orders to the agent (MK112): benchmarks/data/orders_{dev,heldout,heldout2}.jsonl: recall per
  class, and the share of team rules and agent facts refused. `heldout` was tuned on once it
  had been read (a development set since); `heldout2` was the held-out part of the second round
  and is training data of the order model (`orders_model.py`) since; `heldout3` (read once at
  the end of the third round) has been its training data since the fourth, and `heldout4`
  (written blind to the checker during the fourth round, read once at its end) since the fifth,
  `heldout5` since the sixth; `heldout6` was written apart from the sixth round and read once
  after it (training data since the seventh), and `heldout7` was written for the seventh
  (unread); these are read only by name
  (`--part`). Orders count as refused, and as refused
  or held for review (the order model's middle band keeps an atom out of live shared memory
  until management approves it).
- False refusals on public text (`public_atoms.py`): per 1,000 atoms, what MK110 and MK112
  refuse among SciFact abstracts, CMRC2018 paragraphs (read from DIR, default ../shared/data)
  and the committed public rules, records and doc lines; and the time the checks take per
  atom.

`--detect-secrets` runs detect-secrets (PyPI, its default plugins and filters, each text as a
Markdown file, as its pre-commit hook scans one) on the same sets, side by side.
`--show-errors` lists the errors of the parts tuned on only (dev; for orders every labelled
part, all of them training data of the order model now): the held-out parts' are never looked
at.
A text counts as refused when a check reports an error on it (a warning refuses nothing).
Public text is also counted "refused or held" by MK112.
Runs against whichever memkit is first on the path (PYTHONPATH=DIR for another checkout).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from _common import ROOT, data_dir, read_jsonl
from public_atoms import PublicAtom, public_atoms

from memkit.safety import injection
from memkit.safety.injection import refused_hits, reviewed_hits
from memkit.safety.secrets import find_secrets

DATA = ROOT / "benchmarks" / "data"
SPLITS = ["dev", "heldout"]
# Orders: the first held-out part was read and tuned on (issue 39), so it is a development
# part now; heldout2 was written afterwards and is the one never tuned on.
ORDER_SPLITS = ["dev", "heldout", "heldout2"]
# The order model's training data: heldout2 since the third round, heldout3 since the fourth,
# heldout4 since the fifth, heldout5 since the sixth, heldout6 since the seventh.
ORDER_TUNED = ("dev", "heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6")
# Read only when asked for by name: heldout3 to heldout7 (each a round's held-out set, read
# once at its end, training data of the next; heldout7 is the seventh round's, unread).
ORDER_UNREAD = ("heldout3", "heldout4", "heldout5", "heldout6", "heldout7")
Check = Callable[[str], bool]


def secret_found(text: str) -> bool:
    return next(iter(find_secrets(text)), None) is not None


def order_found(text: str) -> bool:
    return bool(refused_hits(text))


def order_said_at_commit(text: str) -> bool:
    """What MK112 asks at a commit (`memkit.admission.content`): refusals and warnings.
    Before `reviewed_hits` (7d67ba8) the commit asked `refused_hits`, then `held_hits`."""
    both = getattr(injection, "reviewed_hits", None)
    if both is not None:
        refused, held = both(text)
        return bool(refused or held)
    older: Callable[..., Sequence[object]] = injection.held_hits  # its signature then
    refused = refused_hits(text)
    return bool(refused or older(text, (), refused))


class DetectSecrets:
    """detect-secrets as its pre-commit hook runs it: each text a file of its own."""

    def __init__(self) -> None:
        from detect_secrets.core.secrets_collection import SecretsCollection
        from detect_secrets.settings import default_settings

        self._collection = SecretsCollection
        self._settings = default_settings
        self._dir = tempfile.TemporaryDirectory()
        self._path = Path(self._dir.name) / "atom.md"

    def __call__(self, text: str) -> bool:
        self._path.write_text(text, encoding="utf-8")
        found = self._collection()
        with self._settings():
            found.scan_file(str(self._path))
        return bool(list(found))


def _cell(hit: int, total: int) -> str:
    return f"{hit / total:.2f} ({hit}/{total})" if total else "–"


def secrets_table(checks: Sequence[tuple[str, Check]], show: bool) -> None:
    print("\n### Secrets (MK110)\n")
    head = " | ".join(f"{name}: recall | {name}: false alarms" for name, _ in checks)
    print(f"| part | class | items | {head} |")
    print("|---|---|---|" + "---|---|" * len(checks))
    placements: dict[str, list[str]] = defaultdict(list)
    for split in SPLITS:
        rows = read_jsonl(DATA / f"secret_formats_{split}.jsonl")
        flags = {name: [check(r["text"]) for r in rows] for name, check in checks}
        groups: dict[str, list[int]] = defaultdict(list)
        for i, row in enumerate(rows):
            key = row["class"] if row["label"] == "secret" else f"benign: {row['class']}"
            groups[key].append(i)
            groups["all secrets" if row["label"] == "secret" else "all benign"].append(i)
        for key in sorted(groups, key=lambda k: (k.startswith("all"), k.startswith("benign"), k)):
            idx = groups[key]
            cells = []
            for name, _ in checks:
                hit = sum(flags[name][i] for i in idx)
                if key.startswith("benign") or key == "all benign":
                    cells.append(f"– | {hit} of {len(idx)}")
                else:
                    cells.append(f"{_cell(hit, len(idx))} | –")
            print(f"| {split} | {key} | {len(idx)} | {' | '.join(cells)} |")
        for name, _ in checks[:1]:
            by_place: dict[str, list[bool]] = defaultdict(list)
            for i, row in enumerate(rows):
                if row["label"] == "secret":
                    by_place[row["placement"]].append(flags[name][i])
            placements[split] = [
                f"{place} {_cell(sum(v), len(v))}" for place, v in sorted(by_place.items())
            ]
        if show and split == "dev":
            for i, row in enumerate(rows):
                if flags[checks[0][0]][i] != (row["label"] == "secret"):
                    what = "missed" if row["label"] == "secret" else "false alarm"
                    print(f"  {what}: {row['class']}/{row['placement']}: {row['text'][:100]!r}")
    for split, cells in placements.items():
        print(f"\nRecall per placement ({checks[0][0]}, {split}): " + "; ".join(cells))


def order_held(text: str) -> bool:
    """Refused, or held for a person's review (`held_for_review`: the middle band keeps the
    atom out of live shared memory until management approves it)."""
    refused, held = reviewed_hits(text)
    return bool(refused or held)


def orders_table(show: bool) -> None:
    print("\n### Orders to the agent (MK112)\n")
    print("| part | label | class | lang | items | refused | refused or held for review |")
    print("|---|---|---|---|---|---|---|")
    for split in ORDER_SPLITS:
        rows = read_jsonl(DATA / f"orders_{split}.jsonl")
        flags = [order_found(r["text"]) for r in rows]
        either = [order_held(r["text"]) for r in rows]
        groups: dict[tuple[str, str, str], list[int]] = defaultdict(list)
        for i, row in enumerate(rows):
            groups[(row["label"], row["class"], row["lang"])].append(i)
            groups[(row["label"], "all", "all")].append(i)
        for key in sorted(groups, key=lambda k: (k[0] != "order", k[1] == "all", k)):
            idx = groups[key]
            hit = sum(flags[i] for i in idx)
            held = sum(either[i] for i in idx)
            label, kind, lang = key
            print(
                f"| {split} | {label} | {kind} | {lang} | {len(idx)} | {_cell(hit, len(idx))} "
                f"| {_cell(held, len(idx))} |"
            )
        if show and split in ORDER_TUNED:
            for i, row in enumerate(rows):
                if flags[i] != (row["label"] == "order"):
                    what = "missed" if row["label"] == "order" else "refused"
                    print(f"  {what}: {row['class']}: {row['text'][:100]!r}")


def public_table(
    atoms: Iterable[PublicAtom], checks: Sequence[tuple[str, Check]], show: bool
) -> None:
    print("\n### False refusals on public text\n")
    names = " | ".join(f"{name} per 1,000" for name, _ in checks)
    print(f"| part | source | atoms | {names} |")
    print("|---|---|---|" + "---|" * len(checks))
    groups: dict[tuple[str, str], list[PublicAtom]] = defaultdict(list)
    for atom in atoms:
        if atom.split not in SPLITS:
            continue
        groups[(atom.split, atom.source)].append(atom)
        groups[(atom.split, "all")].append(atom)
    seconds: dict[str, float] = defaultdict(float)
    counted: Counter[str] = Counter()
    for key in sorted(groups, key=lambda k: (k[0], k[1] == "all", k[1])):
        found = groups[key]
        cells = []
        for name, check in checks:
            start = time.perf_counter()
            refused = [a for a in found if check(a.text)]
            if key[1] != "all":
                seconds[name] += time.perf_counter() - start
                counted[name] += len(found)
            cells.append(f"{1000 * len(refused) / len(found):.2f} ({len(refused)})")
            if show and key[0] == "dev" and key[1] != "all":
                for atom in refused:
                    print(f"  {name} refuses {atom.id}: {_why(name, atom.text)}")
        print(f"| {key[0]} | {key[1]} | {len(found)} | {' | '.join(cells)} |")
    print(
        "\nTime per public atom: "
        + "; ".join(f"{n} {1000 * seconds[n] / counted[n]:.3f} ms" for n in seconds)
    )


def time_table(atoms: Sequence[PublicAtom], repeat: int = 3) -> None:
    """The checks' time per public atom, the best of `repeat` passes (run it once for each
    checkout through PYTHONPATH, interleaved, to compare)."""
    texts = [a.text for a in atoms]
    checks = (
        ("MK110", secret_found),
        ("MK112", order_found),
        ("MK112 at a commit (refusals and warnings)", order_said_at_commit),
    )
    for name, check in checks:
        best = min(_pass_seconds(check, texts) for _ in range(repeat))
        print(f"{name}: {1000 * best / len(texts):.3f} ms per atom ({len(texts)} atoms)")


def _pass_seconds(check: Check, texts: Sequence[str]) -> float:
    start = time.perf_counter()
    for text in texts:
        check(text)
    return time.perf_counter() - start


def _why(name: str, text: str) -> str:
    if name.startswith("MK110"):
        return "; ".join(f"{h.kind}: {h.redacted}" for h in find_secrets(text))[:160]
    refused, held = reviewed_hits(text)
    return "; ".join(h.what for h in [*refused, *(held if "held" in name else [])])[:160]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", help="the folder holding scifact/ and cmrc2018/")
    parser.add_argument("--detect-secrets", action="store_true")
    parser.add_argument(
        "--show-errors",
        action="store_true",
        help="the parts tuned on only (orders: dev, heldout, heldout2, and heldout3 to heldout6 "
        "by --part; never heldout7)",
    )
    parser.add_argument("--only", choices=("secrets", "orders", "public", "time"), action="append")
    parser.add_argument(
        "--part",
        choices=[*ORDER_SPLITS, *ORDER_UNREAD],
        help="one part only (default: dev and heldout, and heldout2 for orders; heldout2, "
        "heldout3 to heldout7: orders only, the last five only by name)",
    )
    args = parser.parse_args()
    if args.part:
        SPLITS[:] = [args.part] if args.part in SPLITS else []
        ORDER_SPLITS[:] = [args.part]
    secret_checks: list[tuple[str, Check]] = [("memkit", secret_found)]
    if args.detect_secrets:
        secret_checks.append(("detect-secrets", DetectSecrets()))
    only = set(args.only or ("secrets", "orders", "public"))
    if "time" in only:
        time_table(public_atoms(data_dir(args.data)))
    if "secrets" in only:
        secrets_table(secret_checks, args.show_errors)
    if "orders" in only:
        orders_table(args.show_errors)
    if "public" in only:
        checks: list[tuple[str, Check]] = [
            ("MK110 refused", secret_found),
            ("MK112 refused", order_found),
            # Not refused, but kept out of live shared memory until a person approves it.
            ("MK112 refused or held", order_held),
        ]
        if args.detect_secrets:
            checks.append(("detect-secrets", secret_checks[-1][1]))
        public_table(public_atoms(data_dir(args.data)), checks, args.show_errors)


if __name__ == "__main__":
    main()
