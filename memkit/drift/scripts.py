"""Where a project defines the targets and scripts its commands run, and which it defines.

- make: `Makefile`, `makefile`, `GNUmakefile` (and the files they include): targets and
  `.PHONY` names; a pattern rule (`deploy-%`) covers what it matches;
- npm (npm, yarn, pnpm, bun): `package.json`'s `scripts`;
- just: `justfile`, `Justfile`, `.justfile`: recipes and aliases;
- nox: `noxfile.py`: the functions under `@nox.session` (or its `name=`);
- tox: `tox.ini`: `[testenv:NAME]` and `envlist`;
- poetry, uv, pdm, hatch, pipenv, rye: `pyproject.toml` (`Pipfile`): `[project.scripts]` and
  each tool's own scripts table;
- entry: a CLI program the project declares (`[project.scripts]`, `console_scripts`,
  package.json's `bin`).

A command's folder (`make -C web`, `npm --prefix web`) picks the file there; with none, the
project's top folder, or else any such file of the project.
"""

from __future__ import annotations

import fnmatch
import json
import re
import tomllib
from collections.abc import Callable

from memkit.drift.tree import Tree

FILES = {
    "make": ("Makefile", "makefile", "GNUmakefile"),
    "npm": ("package.json",),
    "just": ("justfile", "Justfile", ".justfile"),
    "nox": ("noxfile.py",),
    "tox": ("tox.ini",),
    "poetry": ("pyproject.toml",),
    "uv": ("pyproject.toml",),
    "pdm": ("pyproject.toml",),
    "hatch": ("pyproject.toml", "hatch.toml"),
    "pipenv": ("Pipfile", "pyproject.toml"),
    "rye": ("pyproject.toml",),
    "entry": ("pyproject.toml", "setup.cfg", "setup.py", "package.json"),
}
RUNNER_TOOLS = frozenset(("poetry", "uv", "pdm", "hatch", "pipenv", "rye"))
_MAKE_RULE = re.compile(r"^([^\s:=#][^:=#]*?)\s*::?(?![=])(.*)$")
_MAKE_INCLUDE = re.compile(r"^-?include\s+(.+)$")
_JUST_RECIPE = re.compile(r"^@?([A-Za-z_][\w-]*)(?:\s[^:=]*)?:(?!=)")
_JUST_ALIAS = re.compile(r"^alias\s+([A-Za-z_][\w-]*)\s*:=")
_NOX = re.compile(r"@nox\.session(?:\(([^)]*)\))?\s*\n(?:\s*@.*\n)*\s*def\s+(\w+)")


def _make(text: str) -> set[str]:
    names: set[str] = set()
    for raw in text.splitlines():
        if raw.startswith(("\t", " ")) or not raw.strip():
            continue
        found = _MAKE_RULE.match(raw)
        if found is None:
            continue
        targets = found.group(1).split()
        if targets and targets[0] in (".PHONY", ".PHONY "):
            names.update(found.group(2).split())
            continue
        names.update(t for t in targets if not t.startswith("$"))
    return names


def _package(text: str) -> set[str]:
    data = json.loads(text)
    scripts = data.get("scripts") if isinstance(data, dict) else None
    return set(scripts) if isinstance(scripts, dict) else set()


def _just(text: str) -> set[str]:
    names: set[str] = set()
    for raw in text.splitlines():
        if raw.startswith((" ", "\t", "#")):
            continue
        found = _JUST_RECIPE.match(raw) or _JUST_ALIAS.match(raw)
        if found and not raw.startswith(("set ", "export ", "import ", "mod ")):
            names.add(found.group(1))
    return names


def _nox(text: str) -> set[str]:
    names: set[str] = set()
    for args, func in _NOX.findall(text):
        named = re.search(r"""name\s*=\s*["']([^"']+)["']""", args or "")
        names.add(named.group(1) if named else func)
    return names


def _braces(word: str) -> list[str]:
    found = re.search(r"\{([^{}]*)\}", word)
    if found is None:
        return [word]
    out: list[str] = []
    for part in found.group(1).split(","):
        out += _braces(word[: found.start()] + part.strip() + word[found.end() :])
    return out


def _tox(text: str) -> set[str]:
    names = set(re.findall(r"^\[testenv:([^\]]+)\]", text, flags=re.M))
    listed = re.search(r"^envlist\s*=\s*((?:.*\n?)(?:[ \t]+.*\n?)*)", text, flags=re.M)
    if listed:
        for word in re.split(r"[\s,]+", listed.group(1)):
            names.update(_braces(word.strip()))
    return {n for n in names if n}


def _tables(data: dict[str, object], *keys: str) -> set[str]:
    here: object = data
    for key in keys:
        here = here.get(key) if isinstance(here, dict) else None
    return set(here) if isinstance(here, dict) else set()


def _python(text: str, name: str) -> set[str]:
    data = tomllib.loads(text)
    if name == "Pipfile":
        return _tables(data, "scripts")
    names = _tables(data, "project", "scripts") | _tables(data, "project", "gui-scripts")
    names |= _tables(data, "tool", "poetry", "scripts") | _tables(data, "tool", "pdm", "scripts")
    names |= _tables(data, "tool", "rye", "scripts")
    tool = data.get("tool")
    hatch = tool.get("hatch") if isinstance(tool, dict) else None
    envs = hatch.get("envs") if isinstance(hatch, dict) else None
    if name == "hatch.toml":
        envs = data.get("envs")
    for env, table in (envs or {}).items() if isinstance(envs, dict) else ():
        scripts = table.get("scripts") if isinstance(table, dict) else None
        for script in scripts if isinstance(scripts, dict) else ():
            names.add(script)
            names.add(f"{env}:{script}")
    return names


def _entry_points(text: str, name: str) -> set[str]:
    """The console scripts a manifest declares (a project's own CLI programs)."""
    if name == "package.json":
        data = json.loads(text)
        binary = data.get("bin") if isinstance(data, dict) else None
        if isinstance(binary, dict):
            return set(binary)
        if isinstance(binary, str) and isinstance(data.get("name"), str):
            return {data["name"].rsplit("/", 1)[-1]}
        return set()
    if name == "pyproject.toml":
        data = tomllib.loads(text)
        return (
            _tables(data, "project", "scripts")
            | _tables(data, "project", "gui-scripts")
            | _tables(data, "tool", "poetry", "scripts")
        )
    if name == "setup.cfg":
        found = re.search(r"^console_scripts\s*=\s*\n((?:[ \t]+.*\n?)*)", text, flags=re.M)
        lines = found.group(1).splitlines() if found else []
        return {ln.split("=", 1)[0].strip() for ln in lines if "=" in ln}
    # setup.py: 'name = module:func' strings
    return set(re.findall(r"""["']\s*([A-Za-z][\w.-]*)\s*=\s*[\w.]+:[\w.]+\s*["']""", text))


def defined(tool: str, path: str, text: str) -> set[str]:
    """The names the file `path` (one of `FILES[tool]`) holding `text` defines; empty when
    it does not parse."""
    name = path.rsplit("/", 1)[-1]
    readers: dict[str, Callable[[str], set[str]]] = {
        "make": _make,
        "npm": _package,
        "just": _just,
        "nox": _nox,
        "tox": _tox,
    }
    try:
        if tool in readers:
            return readers[tool](text)
        if tool == "entry":
            return _entry_points(text, name)
        return _python(text, name)
    except (ValueError, tomllib.TOMLDecodeError, AttributeError, TypeError):
        return set()


def covers(tool: str, names: set[str], wanted: str, *, patterns: bool = True) -> bool:
    """Whether a file defining `names` runs `wanted` (a make pattern rule covers a match;
    a nox session `tests` covers `tests-3.12`). `patterns`: count pattern rules (not for a
    file of another folder: `docs/Makefile`'s `%:` says nothing of `make test` at the top)."""
    if wanted in names:
        return True
    if not patterns:
        return False
    if tool == "make":
        return any("%" in n and fnmatch.fnmatchcase(wanted, n.replace("%", "*")) for n in names)
    if tool == "nox":
        return any(wanted.startswith((f"{n}-", f"{n}(")) for n in names)
    return False


def includes(tree: Tree, makefile: str, text: str) -> list[str]:
    """The files a Makefile includes that the tree holds (no variables expanded)."""
    folder = makefile.rsplit("/", 1)[0] + "/" if "/" in makefile else ""
    out: list[str] = []
    for raw in text.splitlines():
        found = _MAKE_INCLUDE.match(raw)
        if found is None:
            continue
        for word in found.group(1).split():
            if "$" in word:
                continue
            for path in sorted(tree.files):
                if fnmatch.fnmatchcase(path, folder + word):
                    out.append(path)
    return out


def defining_files(tree: Tree, tool: str, folder: str) -> tuple[list[str], list[str], bool]:
    """(the files that define `tool`'s names for a command run in `folder`, the paths where
    such a file would be, whether the files are the folder's own): the folder's own file,
    or else every such file of the tree (a command written for a sub-project)."""
    names = FILES.get(tool, ())
    base = f"{folder}/" if folder else ""
    expected = [base + n for n in names]
    here = [p for p in expected if p in tree.files]
    if here or folder:
        return here, expected, True
    anywhere = sorted(p for n in names for p in tree.named(n) if "node_modules/" not in p)
    return anywhere, expected, False
