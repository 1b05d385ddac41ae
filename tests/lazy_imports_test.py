"""Imports made inside functions only where a hot path needs them (issue 31).

A module imports what it uses at its top. It may defer an import into the function that uses
it only for one of the reasons below, and it declares what it defers once, at its top, in
`__lazy_modules__` (the name PEP 810 gives this declaration, as pypa/build uses it; on Python
3.11 the declaration changes nothing at run time, the imports stay in their functions):

- *heavy*: the module, or what it imports at its top, is one of HEAVY;
- *hot*: the importing module is on one of HOT_PATHS and the deferred one is not;
- *facade*: a package's `__init__` giving its submodules' names on first use (importing any
  submodule runs the package's `__init__` first);
- *optional*: inside `try: ... except ImportError`.

The hot paths are checked in real processes too: each loads no heavy module, and no memkit
module the static model here does not expect.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

MEMKIT = Path(__file__).resolve().parents[1] / "memkit"

# Third-party modules that cost ~10 ms or more to import (`python -X importtime`, this machine):
# gitpython 139, numpy 125, safetensors 126, model2vec 208, mcp 639, ruamel.yaml 27, mistune
# 30, python-frontmatter 27, PyYAML 19, tokenizers 18, orjson 19, huggingface_hub 12.
HEAVY = frozenset(
    {
        *("git", "numpy", "safetensors", "model2vec", "mcp", "ruamel", "mistune"),
        *("frontmatter", "yaml", "tokenizers", "orjson", "huggingface_hub"),
    }
)
# What runs often enough that its import time is the user's wait, and the modules it starts
# from (what each imports at its top follows).
_NO_ENGINE = (
    *("memkit.claude.main", "memkit.claude.protocol", "memkit.recall.readers"),
    *("memkit.recall.trust", "memkit.recall.hooklog", "memkit.safety.private"),
)
HOT_PATHS: dict[str, tuple[str, ...]] = {
    # Claude Code runs memkit-hook on every prompt and tool use; the engine answers it.
    "the hook, answered by the engine": (
        *("memkit.claude.main", "memkit.recall.client", "memkit.recall.fence"),
        "memkit.recall.trust",
    ),
    # Without an engine, each event imports its own handler only.
    **{
        f"the hook without an engine: {handler}": (*_NO_ENGINE, f"memkit.claude.{handler}")
        for handler in ("session_start", "prompt", "tool_use", "session")
    },
    # Claude Code waits for the MCP server's answer to `initialize` before the first turn.
    "memkit mcp until it answers initialize": (
        *("memkit.main", "memkit.commands.mcp", "memkit.mcp.server"),
    ),
    # The CLI's front: a verb imports its own module only.
    "the CLI's front": ("memkit.main",),
    # The hooks of every commit (.pre-commit-hooks.yaml).
    **{
        f"memkit {verb} at every commit": ("memkit.main", f"memkit.commands.{verb}")
        for verb in ("validate", "gate", "roles", "summary", "index", "audit")
    },
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(MEMKIT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


FILES = {_module_name(path): path for path in MEMKIT.rglob("*.py")}


def _facades() -> dict[str, dict[str, str]]:
    """package -> {name: module} for a package giving names on first use (a module
    `__getattr__`): what it imports for type checking says where each name comes from."""
    found: dict[str, dict[str, str]] = {}
    for name, path in FILES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if path.stem != "__init__" or not any(
            isinstance(node, ast.FunctionDef) and node.name == "__getattr__" for node in tree.body
        ):
            continue
        found[name] = {
            alias.asname or alias.name: node.module
            for block in tree.body
            if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
            for node in block.body
            if isinstance(node, ast.ImportFrom) and node.module
            for alias in node.names
        }
    return found


FACADES = _facades()


@dataclass(frozen=True)
class Deferred:
    module: str  # what is imported, absolute
    line: int
    optional: bool  # inside `try: ... except ImportError`


@dataclass
class Source:
    top: set[str]  # modules imported at the top (type-checking imports aside)
    deferred: list[Deferred]
    declared: set[str] | None  # `__lazy_modules__`, if the module has one
    is_package: bool


def _absolute(name: str, node: ast.ImportFrom, is_package: bool) -> str:
    base = node.module or ""
    if node.level:
        package = name if is_package else name.rsplit(".", 1)[0]
        for _ in range(node.level - 1):
            package = package.rsplit(".", 1)[0]
        base = f"{package}.{base}" if base else package
    return base


def _imported(name: str, node: ast.Import | ast.ImportFrom, is_package: bool) -> list[str]:
    """The modules an import statement loads: `from a import b` names `a.b` when that is a
    module of memkit, the module `b` comes from when `a` gives it on first use, else `a`."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = _absolute(name, node, is_package)
    given = FACADES.get(base, {})
    return [
        f"{base}.{alias.name}" if f"{base}.{alias.name}" in FILES else given.get(alias.name, base)
        for alias in node.names
    ]


def _catches_import_error(node: ast.Try) -> bool:
    return any(
        handler.type is not None
        and any(word in ast.unparse(handler.type) for word in ("ImportError", "ModuleNotFound"))
        for handler in node.handlers
    )


def read_source(name: str, text: str, *, is_package: bool = False) -> Source:
    source = Source(set(), [], None, is_package)

    def walk(node: ast.AST, in_function: bool, optional: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for other in child.orelse:
                    walk_one(other, in_function, optional)
                continue
            walk_one(child, in_function, optional)

    def walk_one(child: ast.AST, in_function: bool, optional: bool) -> None:
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            for module in _imported(name, child, is_package):
                if in_function:
                    source.deferred.append(Deferred(module, child.lineno, optional))
                else:
                    source.top.add(module)
            return
        if (
            not in_function
            and isinstance(child, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__lazy_modules__" for t in child.targets)
        ):
            value = ast.literal_eval(child.value)
            source.declared = set(value)
        function = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        caught = isinstance(child, ast.Try) and _catches_import_error(child)
        walk(child, in_function or function, optional or (in_function and caught))

    walk(ast.parse(text), False, False)
    parents = {name.rsplit(".", n)[0] for n in range(1, name.count(".") + 1)}
    source.top |= {parent for parent in parents if parent in FILES}
    return source


SOURCES = {
    name: read_source(name, path.read_text(encoding="utf-8"), is_package=path.stem == "__init__")
    for name, path in FILES.items()
}


def closure(starts: tuple[str, ...] | list[str], sources: dict[str, Source]) -> set[str]:
    """Every module importing `starts` loads: what each imports at its top, and the packages
    of each (importing `a.b.c` runs `a` and `a.b` first); outside memkit, the names only."""
    seen: set[str] = set()
    todo = list(starts)
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        if module in sources:
            todo.extend(sources[module].top)
        todo.extend(module.rsplit(".", n)[0] for n in range(1, module.count(".") + 1))
    return seen


def why_deferred(module: str, deferred: Deferred, sources: dict[str, Source]) -> str | None:
    """The reason `module` may import `deferred.module` inside a function, or None."""
    if deferred.optional:
        return "optional"
    target = deferred.module
    reached = closure([target], sources)
    if any(name.split(".")[0] in HEAVY for name in reached):
        return "heavy"
    if sources[module].is_package and target.startswith(module + "."):
        return "facade"
    for path, starts in HOT_PATHS.items():
        hot = closure(starts, sources)
        if module in hot and target not in hot:
            return f"hot: {path}"
    return None


def problems(sources: dict[str, Source]) -> list[str]:
    found = []
    for module, source in sorted(sources.items()):
        inside = {deferred.module for deferred in source.deferred}
        declared = source.declared or set()
        for deferred in source.deferred:
            if deferred.module not in declared:
                found.append(
                    f"{module}:{deferred.line}: {deferred.module} imported inside a function"
                    " but not in __lazy_modules__"
                )
            elif why_deferred(module, deferred, sources) is None:
                found.append(
                    f"{module}:{deferred.line}: {deferred.module} needs no deferring: import it"
                    " at the top (no hot path, heavy module or facade needs it in a function)"
                )
        found.extend(
            f"{module}: __lazy_modules__ names {name}, never imported inside a function"
            for name in sorted(declared - inside)
        )
    return found


def test_every_import_inside_a_function_is_declared_and_needed() -> None:
    assert problems(SOURCES) == []


def _judged(module: str, text: str) -> list[str]:
    """What the rule says of `module` written as `text`, the rest of memkit as it is."""
    sources = {**SOURCES, module: read_source(module, text)}
    return [line for line in problems(sources) if line.startswith(module)]


def test_the_rule_sees_an_import_nobody_needs_deferred() -> None:
    """A module on no hot path deferring a light module fails, declared or not; a heavy one or
    an optional one passes once declared; a declaration of nothing deferred fails."""
    cold = "memkit.site.fake"
    assert cold not in set().union(*(closure(s, SOURCES) for s in HOT_PATHS.values()))
    light = "def f():\n    import memkit.errors\n"
    assert _judged(cold, '__lazy_modules__ = {"memkit.errors"}\n' + light) == [
        f"{cold}:3: memkit.errors needs no deferring: import it at the top (no hot path, heavy"
        " module or facade needs it in a function)"
    ]
    assert _judged(cold, "def f():\n    import numpy\n") == [
        f"{cold}:2: numpy imported inside a function but not in __lazy_modules__"
    ]
    assert _judged(cold, '__lazy_modules__ = {"numpy"}\ndef f():\n    import numpy\n') == []
    optional = "def f():\n    try:\n        import json\n    except ImportError:\n        pass\n"
    assert _judged(cold, '__lazy_modules__ = {"json"}\n' + optional) == []
    assert _judged(cold, '__lazy_modules__ = {"json"}\n') == [
        f"{cold}: __lazy_modules__ names json, never imported inside a function"
    ]


def test_the_rule_lets_a_hot_path_defer_what_it_does_not_load() -> None:
    """The hook's own front may defer a light module it does not load at its top, and may not
    defer one it loads anyway."""
    hot = "memkit.claude.main"
    assert "memkit.site.graph" not in closure(HOT_PATHS["the CLI's front"], SOURCES)
    text = '__lazy_modules__ = {"memkit.site.graph"}\ndef f():\n    import memkit.site.graph\n'
    assert _judged(hot, text) == []
    text = '__lazy_modules__ = {"memkit.claude.events"}\nimport memkit.claude.events\n'
    text += "def f():\n    import memkit.claude.events\n"
    assert _judged(hot, text) == [
        f"{hot}:4: memkit.claude.events needs no deferring: import it at the top (no hot path,"
        " heavy module or facade needs it in a function)"
    ]


@pytest.mark.parametrize("path", sorted(HOT_PATHS))
def test_a_hot_path_loads_what_the_rule_expects_and_nothing_heavy(path: str) -> None:
    """In a real process: importing a hot path's modules loads no heavy module, and only memkit
    modules its static closure names (so the rule above reasons about what really runs)."""
    starts = HOT_PATHS[path]
    code = (
        f"import importlib, sys\nfor m in {list(starts)!r}:\n    importlib.import_module(m)\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(done.stdout.split())
    assert sorted(m for m in loaded if m.split(".")[0] in HEAVY) == []
    expected = closure(starts, SOURCES)
    assert sorted(m for m in loaded if m.startswith("memkit") and m not in expected) == []
