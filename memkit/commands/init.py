"""memkit init PATH | memkit init --join [PATH]: make or join a memory repository."""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from memkit.config import CONFIG_NAME
from memkit.errors import MemkitError, UsageError
from memkit.files import write_atomic
from memkit.repo import git_toplevel
from memkit.roles import slug

log = logging.getLogger(__name__)

# Dotfiles are stored without their dot in the package so that tools working on memkit's
# own repository (git, pre-commit, linters) do not mistake them for memkit's own config.
_RENAMED = {"gitignore": ".gitignore", "pre-commit-config.yaml": ".pre-commit-config.yaml"}


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "init",
        help="make a new memory repository, or join one (--join)",
        description="Make a new memory repository at PATH from memkit's template: a git repo "
        "with memkit.yaml, the scope folders, MEMORY.md and pre-commit hooks installed. With "
        "--join, in an existing clone, install the hooks without touching any content.",
    )
    parser.add_argument("path", nargs="?", type=Path, default=Path(), help="default: here")
    parser.add_argument("--join", action="store_true", help="only install the hooks")
    parser.add_argument("--no-hooks", action="store_true", help="do not install git hooks")
    parser.add_argument("--no-commit", action="store_true", help="do not make the first commit")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path: Path = args.path.absolute()
    if args.join:
        join(path, install_hooks=not args.no_hooks)
        print(f"memkit: joined the memory repository at {path}")
        return 0
    committed = create(path, install_hooks=not args.no_hooks, commit=not args.no_commit)
    print(f"memkit: made a memory repository at {path}")
    if not committed:
        print("  next: git add -A && git commit -m 'memkit init'")
    print("  write atoms in shared/, roles/<role>/ or personal/<you>/ and commit them;")
    print("  see `memkit validate --help` and docs/memory-format.md")
    if shutil.which("memkit") is None:
        print(
            "memkit: warning: `memkit` is not on PATH, so the git hooks will not find it; "
            "activate memkit's virtual environment or install it with pipx",
            file=sys.stderr,
        )
    return 0


def create(path: Path, *, install_hooks: bool = True, commit: bool = True) -> bool:
    """Make the repository; returns whether the first commit was made."""
    if (path / CONFIG_NAME).exists():
        raise UsageError(f"{path} is already a memory repository; use `memkit init --join`")
    if path.exists() and not path.is_dir():
        raise UsageError(f"{path} exists and is not a folder")
    if path.is_dir():
        clashes = [p.name for p in path.iterdir() if p.name != ".git" and _template_has(p.name)]
        if clashes:
            raise UsageError(
                f"{path} already has {', '.join(sorted(clashes))}; choose an empty folder"
            )
    path.mkdir(parents=True, exist_ok=True)
    top = git_toplevel(path)
    if top is None:
        _git(path, "init", "--quiet")
        top = path
    name, email = _git_identity(path)
    user = slug(name) or slug(email.split("@", 1)[0]) or "your-name"
    _copy_template(path, {"{user}": user, "{email}": email or "you@example.com"})
    # The first member of the whitelist declares the role too: management needs both.
    declaration = path / "personal" / user / "role.md"
    write_atomic(declaration, f"# Role declaration of {user}\n\nroles: [management]\n")
    if top.resolve() != path.resolve():
        log.warning(
            "%s is inside the git repository %s: add memkit's hooks to that "
            "repository's .pre-commit-config.yaml yourself",
            path,
            top,
        )
        return False
    if install_hooks:
        _install_hooks(path)
    if commit and email:
        _git(path, "add", "-A")
        _git(path, "commit", "--quiet", "-m", "memkit init: new memory repository", env=_hook_env())
        return True
    return False


def join(path: Path, *, install_hooks: bool = True) -> None:
    if not (path / CONFIG_NAME).is_file():
        raise UsageError(
            f"{path} has no {CONFIG_NAME}: not a memory repository "
            "(use `memkit init PATH` to make one)"
        )
    if git_toplevel(path) is None:
        raise MemkitError(f"{path} is not a git repository")
    if install_hooks:
        _install_hooks(path)
    (path / ".memkit").mkdir(exist_ok=True)


def _template_has(name: str) -> bool:
    template = resources.files("memkit") / "memory_template"
    names = {_RENAMED.get(item.name, item.name) for item in template.iterdir()}
    return name in names


def _copy_template(dest: Path, values: dict[str, str]) -> None:
    template = resources.files("memkit") / "memory_template"

    def copy(node: Any, target: Path) -> None:
        for item in node.iterdir():
            name = _RENAMED.get(item.name, item.name)
            if item.name == "__pycache__":
                continue
            out = target / name
            if item.is_dir():
                out.mkdir(exist_ok=True)
                copy(item, out)
                continue
            text = item.read_text(encoding="utf-8")
            if item.name == "_roles.md":
                for key, value in values.items():
                    text = text.replace(key, value)
            write_atomic(out, text)

    copy(template, dest)


def _install_hooks(path: Path) -> None:
    # Run pre-commit from memkit's own environment: it is a dependency, maybe not on PATH.
    result = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"],
        cwd=path,
        capture_output=True,
        text=True,
        check=False,
        env=_hook_env(),
    )
    if result.returncode != 0:
        raise MemkitError(f"pre-commit install failed: {(result.stdout + result.stderr).strip()}")


def _hook_env() -> dict[str, str]:
    """The environment for git commands we run: memkit's own bin folder first on PATH."""
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    return env


def _git_identity(path: Path) -> tuple[str, str]:
    def get(key: str) -> str:
        out = subprocess.run(
            ["git", "config", key], cwd=path, capture_output=True, text=True, check=False
        )
        return out.stdout.strip()

    return get("user.name"), get("user.email")


def _git(path: Path, *args: str, env: dict[str, str] | None = None) -> None:
    result = subprocess.run(
        ["git", *args], cwd=path, capture_output=True, text=True, check=False, env=env
    )
    if result.returncode != 0:
        raise MemkitError(f"git {args[0]} failed: {(result.stdout + result.stderr).strip()}")
