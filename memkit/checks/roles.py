"""`memkit roles check` / hook `memkit-roles`: may this person write these files?

- `roles/<r>/` needs role r; `personal/<u>/` needs to be u;
- `shared/_roles.md` and the review log need management (except in a repo's first commit);
- sensitive atoms (type or `audience` in `roles.sensitive`, default architecture and decision)
  enter `shared/` directly only from management; others go through `shared/_pending/`.
Locally the identity is the git author; in CI it is the pull-request author (`--actor`).
"""

from __future__ import annotations

import argparse
import subprocess
from collections.abc import Sequence
from pathlib import Path

from memkit.atom import scope_from_path
from memkit.atomfile import read_atom
from memkit.checks import run_hook
from memkit.checks.validate import resolve_targets
from memkit.config import Config, load_config
from memkit.findings import Finding
from memkit.repo import find_root
from memkit.roles import ROLES_FILE, Identity, has_commits, identify

REVIEW_LOG = "shared/_review-log.jsonl"
DEFAULT_SENSITIVE = ("architecture", "decision")


def sensitive_kinds(config: Config) -> frozenset[str]:
    value = config.section("roles").get("sensitive", DEFAULT_SENSITIVE)
    if isinstance(value, str):
        value = [value]
    return frozenset(str(v) for v in value) if isinstance(value, (list, tuple)) else frozenset()


def _who(identity: Identity) -> str:
    roles = ", ".join(sorted(identity.roles)) or "none"
    mgmt = ""
    if "management" in identity.roles and not identity.is_management:
        mgmt = f"; management is not declared in personal/{identity.user}/role.md"
    elif "management" in identity.declared and not identity.is_management:
        mgmt = f"; {ROLES_FILE} does not list you as management"
    return f"you are `{identity.user}`, roles: {roles}{mgmt}"


def check_paths(
    root: Path, paths: Sequence[str], identity: Identity, config: Config, *, first_commit: bool
) -> list[Finding]:
    findings: list[Finding] = []
    sensitive = sensitive_kinds(config)
    for relpath in dict.fromkeys(paths):
        parts = relpath.split("/")
        if relpath in (ROLES_FILE, REVIEW_LOG):
            if not first_commit and not identity.is_management:
                what = "the role whitelist" if relpath == ROLES_FILE else "the review log"
                findings.append(
                    Finding(
                        relpath,
                        1,
                        1,
                        "MK203",
                        f"only management may change {what} ({_who(identity)})",
                    )
                )
            continue
        if parts[0] == "roles" and len(parts) >= 3 and not identity.has_role(parts[1]):
            findings.append(
                Finding(
                    relpath,
                    1,
                    1,
                    "MK201",
                    f"writing in roles/{parts[1]}/ needs the role "
                    f"`{parts[1]}` in {ROLES_FILE} ({_who(identity)})",
                )
            )
            continue
        if parts[0] == "personal" and len(parts) >= 3 and parts[1] != identity.user:
            findings.append(
                Finding(
                    relpath,
                    1,
                    1,
                    "MK202",
                    f"personal/{parts[1]}/ belongs to `{parts[1]}`; write your "
                    f"own atoms in personal/{identity.user}/ ({_who(identity)})",
                )
            )
            continue
        place = scope_from_path(relpath)
        if place != ("shared", False) or identity.is_management or not (root / relpath).is_file():
            continue
        atom = read_atom(root, relpath, config).atom
        if atom is None:
            continue
        kind = atom.audience if atom.audience in sensitive else atom.type
        if kind in sensitive:
            pending = "shared/_pending/" + relpath.removeprefix("shared/")
            findings.append(
                Finding(
                    relpath,
                    atom.line_of("type"),
                    1,
                    "MK204",
                    f"`{kind}` atoms enter shared/ only through review; move it "
                    f"with `git mv {relpath} {pending}` and a management member "
                    f"will `memkit review approve {atom.id}` ({_who(identity)})",
                )
            )
    return findings


def staged_paths(root: Path) -> list[str]:
    result = subprocess.run(
        ["git", "diff", "--cached", "--name-only", "--diff-filter=d", "--relative", "-z"],
        cwd=root,
        capture_output=True,
        check=False,
    )
    return [p for p in result.stdout.decode("utf-8", "surrogateescape").split("\0") if p]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="memkit-roles", description=__doc__)
    parser.add_argument("filenames", nargs="*", help="changed files (default: staged files)")
    parser.add_argument("--actor", help="user name or email to check as (CI: the PR author)")
    parser.add_argument("--base", default="HEAD", help="revision whose whitelist applies")
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    args = parser.parse_args(argv)

    def check() -> int:
        return run_check(args.repo, args.filenames, actor=args.actor, base=args.base)

    return run_hook("memkit-roles", check)


def run_check(repo: Path | None, filenames: Sequence[str], *, actor: str | None, base: str) -> int:
    root = find_root(repo)
    config = load_config(root)
    paths = resolve_targets(root, filenames) if filenames else staged_paths(root)
    first = not has_commits(root)
    identity = identify(root, actor, rev=None if first else base)
    findings = check_paths(root, paths, identity, config, first_commit=first)
    for finding in findings:
        print(finding.format())
    return 1 if findings else 0


if __name__ == "__main__":
    raise SystemExit(main())
