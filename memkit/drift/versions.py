"""The versions a project pins: runtimes in their version files, packages in manifests and
lock files, the project's own version; and how an atom's version compares with one.

A version an atom states ("React 18", "Python 3.9+") is compared with each place the project
says it (a manifest's range, a lock's exact version): confirmed when one agrees, changed when
they all disagree, and not checkable when none says (a range that allows it without saying).
"""

from __future__ import annotations

import configparser
import json
import re
import tomllib
from dataclasses import dataclass
from typing import Any

from memkit.drift.tree import Tree

CONFIRMED, CHANGED = "confirmed", "changed"


@dataclass(frozen=True)
class Pinned:
    file: str
    spec: str  # as the file says it: ">=3.9", "^18.2.0", "18.2.0"
    exact: bool = False  # a lock file's, or a version file's: the version in use


_RUNTIME_FILES = {
    "python": (".python-version", "runtime.txt"),
    "node": (".nvmrc", ".node-version"),
    "ruby": (".ruby-version",),
    "go": (),
    "rust": ("rust-toolchain",),
}
_TOOL_VERSIONS = {
    "python": "python",
    "nodejs": "node",
    "node": "node",
    "golang": "go",
    "ruby": "ruby",
    "rust": "rust",
}
_DOCKER_IMAGES = {
    "python": "python",
    "node": "node",
    "golang": "go",
    "rust": "rust",
    "ruby": "ruby",
}
_REQ = re.compile(
    r"^\s*([A-Za-z0-9][\w.-]*)\s*(?:\[[^\]]*\])?\s*((?:[=<>!~^]=?|===)\s*[^;#\s,]+(?:\s*,\s*[=<>!~]=?\s*[^;#\s,]+)*)?"
)


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name.lower())


def _section(data: Any, *keys: str) -> Any:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def _pep508(items: Any, name: str, file: str, out: list[Pinned]) -> None:
    for item in items if isinstance(items, list) else ():
        found = _REQ.match(str(item))
        if found and _norm(found.group(1)) == name and found.group(2):
            out.append(Pinned(file, found.group(2).replace(" ", "")))


def _table_deps(table: Any, name: str, file: str, out: list[Pinned]) -> None:
    for key, written in table.items() if isinstance(table, dict) else ():
        if _norm(str(key)) != name:
            continue
        spec = written.get("version") if isinstance(written, dict) else written
        if isinstance(spec, str):
            out.append(Pinned(file, spec.strip()))


def _pyproject(text: str, name: str, file: str, out: list[Pinned]) -> None:
    data = tomllib.loads(text)
    if name == "python":
        for spec in (
            _section(data, "project", "requires-python"),
            _section(data, "tool", "poetry", "dependencies", "python"),
        ):
            if isinstance(spec, str):
                out.append(Pinned(file, spec.replace(" ", "")))
        return
    raw = data.get("project")
    project: dict[str, Any] = raw if isinstance(raw, dict) else {}
    if _norm(str(project.get("name", ""))) == name and isinstance(project.get("version"), str):
        out.append(Pinned(file, project["version"], exact=True))
    _pep508(project.get("dependencies"), name, file, out)
    for extra in (project.get("optional-dependencies") or {}).values():
        _pep508(extra, name, file, out)
    for group in (data.get("dependency-groups") or {}).values():
        _pep508(group, name, file, out)
    _pep508(_section(data, "build-system", "requires"), name, file, out)
    poetry = _section(data, "tool", "poetry") or {}
    if _norm(str(poetry.get("name", ""))) == name and isinstance(poetry.get("version"), str):
        out.append(Pinned(file, poetry["version"], exact=True))
    for key in ("dependencies", "dev-dependencies"):
        _table_deps(poetry.get(key), name, file, out)
    for group in (poetry.get("group") or {}).values():
        _table_deps(group.get("dependencies") if isinstance(group, dict) else None, name, file, out)


def _package_json(text: str, name: str, file: str, out: list[Pinned]) -> None:
    data = json.loads(text)
    if not isinstance(data, dict):
        return
    if name == "node":
        spec = _section(data, "engines", "node")
        if isinstance(spec, str):
            out.append(Pinned(file, spec.replace(" ", "")))
        return
    if _norm(str(data.get("name", ""))) == name and isinstance(data.get("version"), str):
        out.append(Pinned(file, data["version"], exact=True))
    for key in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
        _table_deps(data.get(key), name, file, out)


def _package_lock(text: str, name: str, file: str, out: list[Pinned]) -> None:
    data = json.loads(text)
    packages = data.get("packages") if isinstance(data, dict) else None
    entry = packages.get(f"node_modules/{name}") if isinstance(packages, dict) else None
    if entry is None:
        deps = data.get("dependencies") if isinstance(data, dict) else None
        entry = deps.get(name) if isinstance(deps, dict) else None
    if isinstance(entry, dict) and isinstance(entry.get("version"), str):
        out.append(Pinned(file, entry["version"], exact=True))


def _toml_lock(text: str, name: str, file: str, out: list[Pinned]) -> None:
    """poetry.lock, uv.lock, Cargo.lock: `[[package]]` entries with a name and a version."""
    data = tomllib.loads(text)
    for package in data.get("package") or ():
        if isinstance(package, dict) and _norm(str(package.get("name", ""))) == name:
            version = package.get("version")
            if isinstance(version, str):
                out.append(Pinned(file, version, exact=True))


def _requirements(text: str, name: str, file: str, out: list[Pinned]) -> None:
    for raw in text.splitlines():
        found = _REQ.match(raw)
        if found and _norm(found.group(1)) == name and found.group(2):
            out.append(Pinned(file, found.group(2).replace(" ", "")))


def _go_mod(text: str, name: str, file: str, out: list[Pinned]) -> None:
    if name == "go":
        found = re.search(r"^go\s+(\d[\w.]*)", text, flags=re.M)
        if found:
            out.append(Pinned(file, ">=" + found.group(1)))
        return
    for found in re.finditer(r"^\s*(?:require\s+)?(\S+)\s+v(\d[\w.+-]*)", text, flags=re.M):
        if _norm(found.group(1)) == name or _norm(found.group(1).rsplit("/", 1)[-1]) == name:
            out.append(Pinned(file, found.group(2), exact=True))


def _cargo(text: str, name: str, file: str, out: list[Pinned]) -> None:
    data = tomllib.loads(text)
    if name == "rust":
        spec = _section(data, "package", "rust-version")
        if isinstance(spec, str):
            out.append(Pinned(file, ">=" + spec))
        return
    if _norm(str(_section(data, "package", "name") or "")) == name:
        version = _section(data, "package", "version")
        if isinstance(version, str):
            out.append(Pinned(file, version, exact=True))
    for key in ("dependencies", "dev-dependencies", "build-dependencies"):
        _table_deps(data.get(key), name, file, out)
    _table_deps(_section(data, "workspace", "dependencies"), name, file, out)


def _setup_cfg(text: str, name: str, file: str, out: list[Pinned]) -> None:
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    parser.read_string(text)
    if not parser.has_section("options"):
        return
    if name == "python":
        spec = parser.get("options", "python_requires", fallback="")
        if spec.strip():
            out.append(Pinned(file, spec.replace(" ", "")))
        return
    if _norm(parser.get("metadata", "name", fallback="")) == name:
        version = parser.get("metadata", "version", fallback="").strip()
        if version and not version.startswith(("attr:", "file:")):
            out.append(Pinned(file, version, exact=True))
    _pep508(parser.get("options", "install_requires", fallback="").splitlines(), name, file, out)


def _setup_py(text: str, name: str, file: str, out: list[Pinned]) -> None:
    if name == "python":
        found = re.search(r"python_requires\s*=\s*[\"']([^\"']+)[\"']", text)
        if found:
            out.append(Pinned(file, found.group(1).replace(" ", "")))
        return
    _pep508(
        re.findall(r"[\"']([A-Za-z0-9][\w.-]*\s*(?:\[[^\]]*\])?\s*[=<>!~][^\"']*)[\"']", text),
        name,
        file,
        out,
    )


def _pipfile(text: str, name: str, file: str, out: list[Pinned]) -> None:
    data = tomllib.loads(text)
    if name == "python":
        spec = _section(data, "requires", "python_version")
        if isinstance(spec, str):
            out.append(Pinned(file, spec))
        return
    for key in ("packages", "dev-packages"):
        _table_deps(data.get(key), name, file, out)


def _version_file(text: str, name: str, file: str, out: list[Pinned]) -> None:
    word = text.strip().split()[0] if text.strip() else ""
    word = word.removeprefix("python-").removeprefix("v")
    if name == "rust" and word in ("stable", "nightly", "beta"):
        return
    if re.match(r"\d", word):
        out.append(Pinned(file, word, exact=True))


def _tool_versions(text: str, name: str, file: str, out: list[Pinned]) -> None:
    for raw in text.splitlines():
        words = raw.split()
        if len(words) >= 2 and _TOOL_VERSIONS.get(words[0]) == name:
            out.append(Pinned(file, words[1], exact=True))


def _dockerfile(text: str, name: str, file: str, out: list[Pinned]) -> None:
    for found in re.finditer(
        r"^\s*FROM\s+(?:--\S+\s+)*(?:[\w.-]+/)?(\w+):v?(\d[\w.]*)", text, flags=re.M | re.I
    ):
        if _DOCKER_IMAGES.get(found.group(1).lower()) == name:
            out.append(Pinned(file, found.group(2), exact=True))


_READERS = (
    ("pyproject.toml", _pyproject),
    ("package.json", _package_json),
    ("package-lock.json", _package_lock),
    ("poetry.lock", _toml_lock),
    ("uv.lock", _toml_lock),
    ("Cargo.lock", _toml_lock),
    ("go.mod", _go_mod),
    ("Cargo.toml", _cargo),
    (".tool-versions", _tool_versions),
    ("setup.cfg", _setup_cfg),
    ("setup.py", _setup_py),
    ("Pipfile", _pipfile),
    ("Dockerfile", _dockerfile),
)


_READER_NAMES = frozenset(n for n, _ in _READERS)
_REQUIREMENTS = re.compile(
    r"(^|/)[\w.-]*requirements[\w.-]*\.(txt|in)$|(^|/)constraints[\w.-]*\.txt$"
)


def manifests(tree: Tree, name: str) -> list[str]:
    """The files of the tree that may say which version of `name` the project uses."""
    every: list[str] | None = tree.memo.get("manifests")
    if every is None:
        every = tree.memo["manifests"] = sorted(p for p in tree.files if is_manifest(p, ""))
    runtime = _norm(name) in _RUNTIME_FILES
    return [p for p in every if not runtime or is_manifest(p, name)]


def is_manifest(path: str, name: str) -> bool:
    """Whether `path` is a file that may say which version of `name` a project uses."""
    base = path.rsplit("/", 1)[-1]
    if "node_modules/" in path:
        return False
    runtime = (
        _RUNTIME_FILES.get(_norm(name))
        if name
        else tuple(f for fs in _RUNTIME_FILES.values() for f in fs)
    )
    return base in _READER_NAMES or base in (runtime or ()) or bool(_REQUIREMENTS.search(path))


def pinned_in(path: str, text: str, name: str) -> list[Pinned]:
    """The versions of `name` the file `path` (a manifest) holding `text` says."""
    name = _norm(name)
    base = path.rsplit("/", 1)[-1]
    reader = dict(_READERS).get(base)
    if reader is None:
        reader = _version_file if base in _RUNTIME_FILES.get(name, ()) else _requirements
    if reader is _requirements and name in _RUNTIME_FILES:
        return []
    out: list[Pinned] = []
    try:
        reader(text, name, path, out)
    except (ValueError, tomllib.TOMLDecodeError, AttributeError, TypeError, KeyError):
        return []
    return out


def pinned(tree: Tree, name: str) -> list[Pinned]:
    """Every place the tree says a version of `name` (a runtime or a package)."""
    # The project's own manifests first (the top folder, then the shallowest), each before
    # its lock file: what a person reads, and what a message names.
    files = sorted(manifests(tree, name), key=lambda p: (p.count("/"), "lock" in p.lower(), p))
    tree.read_many(files)
    out: list[Pinned] = []
    for path in files:
        text = tree.read(path)
        # A file that does not mention the name pins nothing of it: not parsed for it.
        if text is not None and (_norm(name) in _RUNTIME_FILES or _mentions(tree, path, name)):
            out += pinned_in(path, text, name)
    return out


def _mentions(tree: Tree, path: str, name: str) -> bool:
    lowered: str | None = tree.memo.get(f"lower:{path}")
    if lowered is None:
        lowered = tree.memo[f"lower:{path}"] = (tree.read(path) or "").lower()
    low = name.lower()
    words = {low, low.replace("-", "_"), low.replace("_", "-"), low.replace("-", ".")}
    return any(w in lowered for w in words)


def _numbers(version: str) -> tuple[int, ...] | None:
    found = re.match(r"v?(\d+(?:\.\d+)*)", version.strip())
    return tuple(int(x) for x in found.group(1).split(".")) if found else None


def _prefix(short: tuple[int, ...], long: tuple[int, ...]) -> bool:
    """ "3.9" agrees with "3.9.2" and "3.9.0" with "3.9": the shorter is the other's start,
    trailing zeros aside."""
    a, b = list(short), list(long)
    while len(a) > 1 and a[-1] == 0:
        a.pop()
    while len(b) > 1 and b[-1] == 0:
        b.pop()
    n = min(len(a), len(b))
    return a[:n] == b[:n] and (len(a) <= len(b) or all(x == 0 for x in a[n:]))


def compare(version: str, at_least: bool, pin: Pinned) -> str | None:
    """CONFIRMED, CHANGED, or None when `pin` does not say (a range that allows it)."""
    said = _numbers(version)
    if said is None:
        return None
    spec = pin.spec.strip().strip("\"'")
    parts = [p for p in re.split(r"\s*,\s*|\s+", spec) if p]
    if not parts or any(p in ("*", "latest", "x") or "/" in p or ":" in p for p in parts):
        return None
    lower: tuple[str, tuple[int, ...]] | None = None
    for part in parts:
        found = re.match(r"(===|==|>=|<=|!=|~=|\^|~|>|<|=|v)?\s*(\d[\w.*+-]*)", part)
        if found is None:
            return None
        op, numbers = found.group(1) or "", _numbers(found.group(2))
        if numbers is None:
            return None
        if op in ("", "=", "==", "===", "v", ">=", "~=", "^", "~", ">"):
            lower = (op, numbers)
    if lower is None:
        return None
    op, base = lower
    exact = pin.exact or op in ("", "=", "==", "===", "v")
    if _prefix(said, base):
        return CONFIRMED
    if at_least:
        return CHANGED  # "3.8+" where the project's lowest is now 3.9
    if exact:
        return CHANGED
    if op in ("^", "~", "~="):
        return CHANGED if said[0] != base[0] else None
    return CHANGED if said < base else None  # below the lowest the project allows
