"""What a command line in an atom runs: the target or script of each tool that has them.

`make deploy-staging` (a Makefile's target; `-C web` the folder), `npm run build`, `yarn
lint`, `pnpm dev`, `bun run x` (package.json's scripts), `just fmt`, `nox -s docs`, `tox -e
lint`, `uv run serve` and the other runners (pyproject's scripts), and any other program a
project could define as its own CLI entry point (not the shell's or the system's tools).
Environment assignments, `sudo`, prompts (`$ `) and chains (`&&`, `;`, `|`) are read through.
"""

from __future__ import annotations

import re
import shlex

# Commands: the tool, and how its target or script is found among the words after it.
PROMPT = re.compile(r"^\s*(?:\$|>|❯|%|PS>)\s+")
_YARN_OWN_WORDS = (
    "add audit autoclean bin cache check config create dedupe dlx exec explain "
    "generate-lock-entry global help import info init install licenses link list login "
    "logout node npm outdated owner pack patch plugin policies publish rebuild remove run "
    "search set tag team unlink unplug up upgrade upgrade-interactive version versions "
    "why workspace workspaces"
)
_YARN_OWN = frozenset(_YARN_OWN_WORDS.split())
_PNPM_OWN_WORDS = (
    "add install i update up remove rm link unlink import rebuild prune fetch patch audit "
    "list ls outdated why exec dlx create publish pack store env setup server root bin "
    "config init recursive -r run test start"
)
_PNPM_OWN = frozenset(_PNPM_OWN_WORDS.split())
_NPM_SHORT = frozenset(("test", "start", "stop", "restart"))
_RUNNERS = frozenset(("poetry", "uv", "pdm", "hatch", "pipenv", "rye"))
_PROGRAM = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")  # no dot: `mkdocs.yml` is a file
# Programs no project defines (shells' own, system tools, toolchains): never an entry point.
_SYSTEM_WORDS = (
    "cd ls cp mv rm mkdir rmdir cat echo printf export source set unset alias which type "
    "test true false exit read eval exec sh bash zsh fish sudo env time grep sed awk find "
    "xargs tar gzip unzip zip curl wget ssh scp rsync chmod chown ln touch head tail less "
    "more sort uniq wc diff patch kill ps top open start git gh hub docker podman kubectl "
    "helm terraform ansible python python3 pip pip3 pipx virtualenv venv conda node npx "
    "nvm deno go cargo rustc rustup java javac mvn gradle ruby gem bundle rake php "
    "composer dotnet swift clang gcc cc ld cmake ninja brew apt apt-get yum dnf apk "
    "pacman systemctl service journalctl code vim nano emacs pytest tox nox mypy ruff "
    "black flake8 isort pylint coverage twine pre-commit sphinx-build mkdocs jest mocha "
    "tsc eslint prettier webpack vite rollup babel yarn pnpm npm bun make just"
)
_SYSTEM = frozenset(_SYSTEM_WORDS.split())
_ENV_WORD = re.compile(r"[A-Za-z_]\w*=\S*")
_TARGET = re.compile(r"[\w][\w.:/+-]*")


def _words(segment: str) -> list[str]:
    try:
        return shlex.split(segment, comments=True)
    except ValueError:
        return segment.split()


def commands_in(text: str) -> list[tuple[str, str, str]]:
    """(tool, name, folder) for each target or script `text` (a command line) runs."""
    out: list[tuple[str, str, str]] = []
    for segment in re.split(r"&&|\|\||;|\|", PROMPT.sub("", text, count=1)):
        words = _words(segment.strip())
        while words and (
            _ENV_WORD.fullmatch(words[0]) or words[0] in ("sudo", "time", "env", "exec")
        ):
            words = words[1:]
        if not words:
            continue
        tool, rest = words[0], words[1:]
        out.extend(_command(tool, rest))
    return out


def _flags(rest: list[str], with_value: frozenset[str]) -> tuple[list[str], dict[str, str]]:
    """Positional words, and the flags among `with_value` with their value."""
    plain: list[str] = []
    values: dict[str, str] = {}
    i = 0
    while i < len(rest):
        word = rest[i]
        if word == "--":
            break
        if word.startswith("-"):
            name, _, attached = word.partition("=")
            if name in with_value:
                if attached:
                    values[name] = attached
                elif i + 1 < len(rest):
                    values[name] = rest[i + 1]
                    i += 1
        else:
            plain.append(word)
        i += 1
    return plain, values


def _command(tool: str, rest: list[str]) -> list[tuple[str, str, str]]:
    if tool in ("make", "gmake"):
        plain, values = _flags(
            rest, frozenset(("-C", "--directory", "-f", "--file", "-j", "--jobs", "-l"))
        )
        if "-f" in values or "--file" in values:
            return []  # another makefile than the folder's own: not located here
        folder = values.get("-C") or values.get("--directory") or ""
        targets = [w for w in plain if "=" not in w and _TARGET.fullmatch(w)]
        return [("make", t, folder.strip("/")) for t in targets]
    if tool == "just":
        plain, values = _flags(
            rest, frozenset(("-f", "--justfile", "-d", "--working-directory", "--set"))
        )
        if values:
            return []
        return (
            [("just", plain[0], "")]
            if plain and _TARGET.fullmatch(plain[0]) and "=" not in plain[0]
            else []
        )
    if tool in ("npm", "yarn", "pnpm", "bun"):
        plain, values = _flags(
            rest,
            frozenset(("--prefix", "-w", "--workspace", "-F", "--filter", "-C", "--cwd", "--dir")),
        )
        if any(k in values for k in ("-w", "--workspace", "-F", "--filter")):
            return []  # a workspace's script: which package.json is not said here
        folder = (
            values.get("--prefix")
            or values.get("-C")
            or values.get("--cwd")
            or values.get("--dir")
            or ""
        ).strip("/")
        if not plain:
            return []
        if plain[0] in ("run", "run-script"):
            return (
                [("npm", plain[1], folder)]
                if len(plain) > 1 and _TARGET.fullmatch(plain[1])
                else []
            )
        if tool == "npm":
            return [("npm", plain[0], folder)] if plain[0] in _NPM_SHORT else []
        if tool == "yarn" and plain[0] not in _YARN_OWN and _TARGET.fullmatch(plain[0]):
            return [("npm", plain[0], folder)]
        if tool == "pnpm" and plain[0] not in _PNPM_OWN and _TARGET.fullmatch(plain[0]):
            return [("npm", plain[0], folder)]
        return []
    if tool in ("nox", "nox.exe"):
        _plain, values = _flags(rest, frozenset(("-s", "--session", "--sessions", "-e")))
        name = (
            values.get("-s")
            or values.get("--session")
            or values.get("--sessions")
            or values.get("-e")
        )
        return [("nox", name, "")] if name and _TARGET.fullmatch(name) else []
    if tool == "tox":
        _plain, values = _flags(rest, frozenset(("-e",)))
        envs = values.get("-e", "")
        return [
            ("tox", e, "") for e in envs.split(",") if e and _TARGET.fullmatch(e) and "{" not in e
        ]
    if tool in _RUNNERS:
        plain, _values = _flags(
            rest, frozenset(("--env", "-e", "--python", "-p", "--with", "--group", "--extra"))
        )
        if len(plain) >= 2 and plain[0] == "run" and _TARGET.fullmatch(plain[1]):
            return [(tool, plain[1], "")]
        return []
    # Any other program: a CLI entry point of the project, when the project defines it.
    if _PROGRAM.fullmatch(tool) and tool not in _SYSTEM:
        return [("entry", tool, "")]
    return []
