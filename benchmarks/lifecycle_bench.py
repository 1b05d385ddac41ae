"""The lifecycle over a synthetic 180-day usage trace: 10,000 atoms, 10 users, a fixed seed.

    python benchmarks/lifecycle_bench.py [--atoms 10000] [--users 10] [--days 180] [--seed 16]

Each atom gets a hidden class that decides how the trace treats it:
- useful: relevant to several people, given often, rarely contradicted;
- wrong: given as often, contradicted in about half of its sessions;
- dying: useful until a day in the first half of the trace, never used after it;
- rare: relevant, but given a few times a year;
- dead: never given (written long before the trace, never relevant again);
- hitchhiker (issue 29): given as often as a useful atom (its words match common prompts), but
  the answers almost never draw on it.
A session's answer draws on half of the useful, wrong, dying and rare atoms it was given (noted
`answered`, as the Stop hook does) and on 1 % of the hitchhikers. On the last day one person
runs a scripted burst: 10 sessions in an hour, each given and answering with the same 50 rare
atoms (the issue's "fixed in minutes"). Issue 29's rule (confirmed = used in the answer, read
or cited, on distinct days, fixed by 2+ people) runs on the real files; the rule before it
(confirmed = injected and not contradicted, counted in sessions, fixed by 1 person) is
computed side by side from the same trace.
Each user works ~3 sessions per working day; a session gives atoms for its prompts and files,
weighted by class and by the user's own share of the memory, reads a few with `memkit show`
and contradicts some. Every event goes through the real usage log (one per user, with the
event's time), each user's log is exported the way `memkit usage export` does, and on the
first day of each month `memkit promote --apply` and `memkit archive --suggest` run on the
real files (promotions applied; suggested atoms counted as archived from then on). The trace's
last day is today, so the three commands are then timed as a team lead runs them, fresh
processes, at the full size, twice (the second reads the frontmatter cache).

Ground truth: promotion is right for useful and dying atoms (the trace made them useful),
archiving for dead ones and for dying ones unused for the whole last 90 days.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import TypedDict

from _common import PYTHON, commit_all
from index_bench import synthetic

CLASSES = (
    *(("useful", 0.12), ("wrong", 0.04), ("dying", 0.10), ("rare", 0.34), ("dead", 0.36)),
    ("hitchhiker", 0.04),
)
RATE = {"useful": 30.0, "wrong": 30.0, "dying": 30.0, "rare": 0.4, "dead": 0.0}
RATE["hitchhiker"] = 30.0
CONTRADICTED = {"useful": 0.03, "wrong": 0.5, "dying": 0.05, "rare": 0.1, "dead": 0.0}
CONTRADICTED["hitchhiker"] = 0.0
ANSWERED = {"useful": 0.5, "wrong": 0.5, "dying": 0.5, "rare": 0.5, "dead": 0.0}
ANSWERED["hitchhiker"] = 0.01
BURST = 50  # rare atoms of the scripted burst


class SimAtom(TypedDict):
    id: str
    kind: str  # the hidden class: useful, wrong, dying, rare, dead
    born: int  # the day it was written, relative to the trace's first day
    tier: str  # its confidence when the trace starts
    death: int | None  # the day it stops being useful (dying atoms only)


class Simulation(TypedDict):
    atoms: list[SimAtom]
    promoted: dict[str, tuple[int, str]]  # id -> (first day promoted, tier reached)
    before: dict[str, tuple[int, str]]  # the same under the rule before issue 29
    burst: list[str]
    archived: dict[str, int]  # id -> day first suggested
    events: Counter[str]
    timeline: list[tuple[int, int, int]]  # (day, promotions applied, new suggestions)
    wanted: dict[str, int]
    missed: set[str]


def make_atoms(n: int, days: int, rng: random.Random) -> list[SimAtom]:
    names = [name for name, _ in CLASSES]
    weights = [weight for _, weight in CLASSES]
    atoms: list[SimAtom] = []
    for i in range(n):
        kind = rng.choices(names, weights)[0]
        # Dead atoms were written long before; the others before or during the trace.
        last_birth = {"dead": -60, "dying": days // 2 - 20}.get(kind, days - 30)
        born = rng.randint(-720 if kind == "dead" else -540, last_birth)
        tier = rng.choices(("tentative", "observed", "fixed"), (0.6, 0.3, 0.1))[0]
        death = rng.randint(max(born, 0) + 10, days // 2) if kind == "dying" else None
        atoms.append(
            {"id": f"atom-{i:05d}", "kind": kind, "born": born, "tier": tier, "death": death}
        )
    return atoms


def write_atoms(root: Path, atoms: list[SimAtom], day0: dt.date) -> None:
    """The atoms as files: index_bench's synthetic text, this trace's tiers and dates."""
    (root / "shared").mkdir(parents=True)
    (root / "memkit.yaml").write_text("version: 1\n", encoding="utf-8")
    (root / ".gitignore").write_text(".memkit/\n", encoding="utf-8")
    for atom, (_, title, text) in zip(atoms, synthetic(len(atoms)), strict=True):
        created = day0 + dt.timedelta(days=atom["born"])
        (root / "shared" / f"{atom['id']}.md").write_text(
            f"---\nid: {atom['id']}\ntype: fact\n"
            f"confidence: {atom['tier']}   # kept by promote --apply\n"
            f"created: {created.isoformat()}\n---\n# {title}\n\n{text}\n",
            encoding="utf-8",
        )


def simulate(args: argparse.Namespace, root: Path, tmp: Path) -> Simulation:
    from memkit.config import load_config
    from memkit.lifecycle.archive import suggestions
    from memkit.lifecycle.catalog import read_catalog
    from memkit.lifecycle.promote import apply_promotion, promotions, target_tier
    from memkit.lifecycle.settings import PromoteSettings, lifecycle_settings
    from memkit.lifecycle.team import export_atoms, read_team_usage
    from memkit.recall.usage import UsageLog

    rng = random.Random(args.seed)
    today = dt.date.today()
    day0 = today - dt.timedelta(days=args.days)
    atoms = make_atoms(args.atoms, args.days, rng)
    write_atoms(root, atoms, day0)
    commit_all(root)
    by_id = {str(a["id"]): a for a in atoms}
    users = [f"user-{u}" for u in range(args.users)]
    # Each user's share of the memory: useful atoms concern more people than rare ones.
    share = {
        u: [a for a in atoms if rng.random() < (0.6 if a["kind"] != "rare" else 0.3)] for u in users
    }
    logs = {u: UsageLog(tmp / "logs" / u) for u in users}
    (root / "usage").mkdir()
    settings = lifecycle_settings(load_config(root))
    promoted: dict[str, tuple[int, str]] = {}  # id -> (first day promoted, tier reached)
    archived: dict[str, int] = {}
    events = Counter[str]()
    timeline: list[tuple[int, int, int]] = []
    # The rule before issue 29, side by side: sessions that were given an atom and did not
    # contradict it, whoever they were, counted in sessions.
    old_settings = PromoteSettings(fixed_users=1)
    old_tally: dict[str, list[int]] = {}  # id -> [confirmed sessions, contradicted sessions]
    old_tier = {str(a["id"]): str(a["tier"]) for a in atoms}
    before: dict[str, tuple[int, str]] = {}

    def checkpoint_before(day: int) -> None:
        for atom_id, (ok, against) in old_tally.items():
            if atom_id in archived:
                continue
            target = target_tier(ok, against, 1, old_settings)
            tiers = ("tentative", "observed", "fixed")
            if target is not None and tiers.index(target) > tiers.index(old_tier[atom_id]):
                old_tier[atom_id] = target
                before[atom_id] = (before.get(atom_id, (day, ""))[0], target)

    def checkpoint(day: int) -> None:
        checkpoint_before(day)
        for user, log in logs.items():
            doc = {
                "memkit_usage": 1,
                "user": user,
                "clones": {user: {"exported": "", "atoms": export_atoms(log.tallies())}},
            }
            (root / "usage" / f"{user}.json").write_text(json.dumps(doc), encoding="utf-8")
        entries, _ = read_catalog(root)
        live = [e for e in entries if e.id not in archived]
        team = read_team_usage(root, local=False)
        ups = promotions(live, team, settings.promote)
        for p in ups:
            apply_promotion(root, p)
            promoted.setdefault(p.entry.id, (day, p.target))
            promoted[p.entry.id] = (promoted[p.entry.id][0], p.target)
        found = suggestions(live, team, settings.archive, day0 + dt.timedelta(days=day))
        new = [s.entry.id for s in found if s.entry.id not in archived]
        for atom_id in new:
            archived[atom_id] = day
        timeline.append((day, len(ups), len(new)))

    wanted: dict[str, int] = {}  # atom -> last day a session needed it (served or not)
    missed: set[str] = set()  # archived atoms a session needed afterwards
    for day in range(args.days):
        if day and day % 30 == 0:
            checkpoint(day)
        date = day0 + dt.timedelta(days=day)
        if date.weekday() >= 5:
            continue
        for user in users:
            pool = share[user]
            weights = []
            for a in pool:
                born, death = a["born"], a["death"]
                alive = born <= day and (death is None or day < death)
                weights.append(RATE[str(a["kind"])] if alive else 0.0)
            if not any(weights):
                continue
            for n in range(max(1, int(rng.gauss(3, 1)))):
                sid = f"{user}-{day}-{n}"
                ts = time.mktime((date.year, date.month, date.day, 9 + 2 * n, 0, 0, 0, 0, -1))
                drawn = sorted({str(a["id"]) for a in rng.choices(pool, weights, k=8)})
                for atom_id in drawn:
                    wanted[atom_id] = day
                missed.update(a for a in drawn if a in archived)
                # Archived: never injected, so never counted. Sorted: a set's order would
                # change with the hash seed, and the trace with it.
                given = [a for a in drawn if a not in archived]
                log = logs[user]
                log.record(sid, given, now=ts)
                events["given"] += len(given)
                read = [a for a in given if rng.random() < 0.1]
                against = [a for a in given if rng.random() < CONTRADICTED[str(by_id[a]["kind"])]]
                answered = [a for a in given if rng.random() < ANSWERED[str(by_id[a]["kind"])]]
                log.note(sid, read, "read", now=ts + 60)
                log.note(sid, answered, "answered", now=ts + 90)
                log.note(sid, against, "contradicted", now=ts + 120)
                for atom_id in given:
                    old_tally.setdefault(atom_id, [0, 0])[atom_id in against] += 1
                events["read"] += len(read)
                events["answered"] += len(answered)
                events["contradicted"] += len(against)
                events["sessions"] += 1
    # The scripted burst: one person, ten sessions within the last hour, the same atoms.
    burst = [str(a["id"]) for a in atoms if a["kind"] == "rare" and a["tier"] == "tentative"]
    burst = [a for a in burst if a not in promoted and a not in before and a not in archived]
    burst = burst[:BURST]
    last = time.time() - 3600
    for n in range(10):
        sid = f"burst-{n}"
        logs[users[0]].record(sid, burst, now=last + n * 300)
        logs[users[0]].note(sid, burst, "answered", now=last + n * 300 + 30)
        for atom_id in burst:
            old_tally.setdefault(atom_id, [0, 0])[0] += 1
    checkpoint(args.days)
    for log in logs.values():
        log.close()
    return {
        "atoms": atoms,
        "promoted": promoted,
        "before": before,
        "burst": burst,
        "archived": archived,
        "events": events,
        "timeline": timeline,
        "wanted": wanted,
        "missed": missed,
    }


def truth(atoms: list[SimAtom], days: int) -> tuple[set[str], set[str]]:
    useful = {str(a["id"]) for a in atoms if a["kind"] in ("useful", "dying")}
    dead = {
        str(a["id"])
        for a in atoms
        if a["kind"] == "dead"
        or (a["kind"] == "dying" and a["death"] is not None and a["death"] <= days - 90)
    }
    return useful, dead


def pr(found: set[str], right: set[str]) -> str:
    hit = len(found & right)
    precision = hit / len(found) if found else 0.0
    recall = hit / len(right) if right else 0.0
    return f"{precision:.2f} / {recall:.2f} ({hit} of {len(found)} found, {len(right)} to find)"


def timed(root: Path, *argv: str) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [PYTHON, "-m", "memkit", *argv], cwd=root, capture_output=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{argv}: {done.stderr.decode()[-500:]}")
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--atoms", type=int, default=10_000)
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--days", type=int, default=180)
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memkit-lifecycle-bench-") as tmp:
        root = Path(tmp) / "repo"
        started = time.perf_counter()
        result = simulate(args, root, Path(tmp))
        simulated = time.perf_counter() - started
        subprocess.run([PYTHON, "-m", "memkit", "index", "--quiet"], cwd=root, check=True)
        times: dict[str, tuple[float, float]] = {}
        for name, argv in (
            ("promote", ("promote", "--json")),
            ("archive --suggest", ("archive", "--suggest", "--json")),
            ("health", ("health", "--json")),
        ):
            # Cold: no frontmatter cache (a fresh clone); warm: the second run reads it.
            (root / ".memkit/lifecycle-catalog.json").unlink(missing_ok=True)
            times[name] = (timed(root, *argv), timed(root, *argv))
    atoms = result["atoms"]
    promoted = result["promoted"]
    archived = result["archived"]
    missed = result["missed"]
    useful, dead = truth(atoms, args.days)
    kinds = Counter(str(a["kind"]) for a in atoms)
    movable = {str(a["id"]) for a in atoms if a["tier"] != "fixed"}  # fixed: archived by hand
    events = dict(result["events"])
    print(
        f"{args.atoms:,} atoms ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}), "
        f"{args.users} users, {args.days} days, seed {args.seed}; {events}; "
        f"simulated in {simulated:.0f} s"
    )
    print()
    print("| day | promotions applied | new archive suggestions |")
    print("|---|---|---|")
    for day, ups, suggested in result["timeline"]:
        print(f"| {day} | {ups} | {suggested} |")
    print()
    fixed = {i for i, (_, tier) in promoted.items() if tier == "fixed"}
    before = result["before"]
    fixed_before = {i for i, (_, tier) in before.items() if tier == "fixed"}
    burst = set(result["burst"])
    rows = (
        ("promote, any step (truth: useful + dying)", set(promoted), useful & movable),
        ("  the rule before issue 29", set(before), useful & movable),
        ("promote to fixed", fixed, useful & movable),
        ("  the rule before issue 29", fixed_before, useful & movable),
        ("archive (truth: dead + dying unused 90 days)", set(archived), dead & movable),
    )
    print("| suggestion | precision / recall | suggested, by hidden class |")
    print("|---|---|---|")
    for label, found, right in rows:
        by_class = Counter(str(by_kind(atoms, i)) for i in found)
        print(f"| {label} | {pr(found, right)} | {dict(sorted(by_class.items()))} |")
    hitch = {str(a["id"]) for a in atoms if a["kind"] == "hitchhiker"}
    print(
        f"\nHitchhikers (given as often as useful atoms, almost never used): promoted "
        f"{len(hitch & set(promoted))} of {len(hitch)} ({len(hitch & fixed)} to fixed); the rule "
        f"before: {len(hitch & set(before))} ({len(hitch & fixed_before)} to fixed)."
    )
    print(
        f"Scripted burst (one person, 10 sessions in an hour, {len(burst)} atoms): promoted "
        f"{len(burst & set(promoted))} ({len(burst & fixed)} to fixed); the rule before: "
        f"{len(burst & set(before))} ({len(burst & fixed_before)} to fixed)."
    )
    print(
        "\nArchived atoms a session needed again later (never injected once archived): "
        f"{len(missed)} of {len(archived)} "
        f"({dict(sorted(Counter(str(by_kind(atoms, i)) for i in missed).items()))})."
    )
    for label, when in (
        ("promotion", sorted(d for d, _ in promoted.values())),
        ("archive suggestion", sorted(archived.values())),
    ):
        if when:
            print(f"First {label} at day: median {when[len(when) // 2]}, last {when[-1]}.")
    print()
    print(f"| command at {args.atoms:,} atoms, {args.users} usage exports | no cache | cached |")
    print("|---|---|---|")
    for name, (cold, warm) in times.items():
        print(f"| `memkit {name}` | {cold:.2f} s | {warm:.2f} s |")
    return 0


def by_kind(atoms: list[SimAtom], atom_id: str) -> str:
    return atoms[int(atom_id.removeprefix("atom-"))]["kind"]


if __name__ == "__main__":
    sys.exit(main())
