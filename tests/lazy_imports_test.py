"""Imports made inside functions only where a hot path needs them (issue 31).

A module imports what it uses at its top. It may defer an import into the function that uses
it only for one of the reasons below, and it declares what it defers once, at its top, in
`__lazy_modules__` (the name PEP 810 gives this declaration, as pypa/build uses it; on Python
3.11 the declaration changes nothing at run time, the imports stay in their functions):

- *heavy*: the module, or what it imports at its top, is one of HEAVY;
- *hot*: the importing module runs on one of the hot paths and the deferred one does not (each
  hot path is run for real on a small memory and the modules it loads recorded);
- *facade*: a package's `__init__` giving its submodules' names on first use (importing any
  submodule runs the package's `__init__` first);
- *optional*: inside `try: ... except ImportError`.

Nothing Claude Code waits for (the hook, the MCP server's start) may load gitpython, ruamel,
mistune, python-frontmatter, numpy, model2vec, safetensors or the mcp SDK.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.helpers import heartbeat_repo

MEMKIT = Path(__file__).resolve().parents[1] / "memkit"

# Third-party modules that cost ~10 ms or more to import (`python -X importtime`, this machine):
# gitpython 139, numpy 125, safetensors 126, model2vec 208, mcp 639, ruamel.yaml 27, mistune
# 30, python-frontmatter 27, PyYAML 19, tokenizers 18, orjson 19, huggingface_hub 12,
# pymilvus ~1,000 (pandas, grpc).
HEAVY = frozenset(
    {
        *("git", "numpy", "safetensors", "model2vec", "mcp", "ruamel", "mistune"),
        *("frontmatter", "yaml", "tokenizers", "orjson", "huggingface_hub"),
        # The org's memory (issue 46): pymilvus imports pandas and grpc, ~1 s.
        *("pymilvus", "milvus_lite"),
    }
)
NEVER_WHILE_CLAUDE_WAITS = HEAVY - {"orjson", "yaml", "tokenizers", "huggingface_hub"}
# What runs often enough that its import time is the user's wait. Each is run for real on a
# small memory (`hot_paths`), and the modules it loads are its set; the hook answered by the
# engine is given by the modules it starts from (what each imports at its top follows).
_ATOM = "shared/ws-heartbeat-interval.md"
_PAYLOADS: dict[str, dict[str, object]] = {
    "session-start": {"session_id": "s", "source": "startup"},
    "user-prompt-submit": {"session_id": "s", "prompt": "websocket ping interval"},
    "pre-tool-use": {"session_id": "s", "tool_name": "Read", "tool_input": {"file_path": "a.py"}},
    "stop": {"session_id": "s"},
    "session-end": {"session_id": "s", "reason": "exit"},
}
HOT_RUNS: dict[str, tuple[str, list[str], dict[str, object] | str]] = {
    # Claude Code runs memkit-hook on every prompt and tool use; without an engine each event
    # imports its own handler.
    **{
        f"the hook without an engine: {event}": ("memkit.claude.main:main", [event], payload)
        for event, payload in _PAYLOADS.items()
    },
    # The hooks of every commit (.pre-commit-hooks.yaml).
    **{
        f"memkit {' '.join(argv)} at every commit": ("memkit.main:main", argv, "")
        for argv in (
            ["validate", _ATOM],
            ["gate", _ATOM],
            ["roles", "check"],
            ["summary", "--stage"],
            ["index", "--quiet"],
            ["audit", "--hook"],
        )
    },
}
HOT_STARTS: dict[str, tuple[str, ...]] = {
    "the hook, answered by the engine": (
        *("memkit.claude.main", "memkit.recall.client", "memkit.recall.fence"),
        "memkit.recall.trust",
    ),
    "the CLI's front": ("memkit.main",),
    # Claude Code waits for the MCP server's answer to `initialize` before the first turn (a
    # run would also load what the server prepares after answering).
    "memkit mcp until it answers initialize": (
        *("memkit.main", "memkit.commands.mcp", "memkit.mcp.server"),
    ),
}
# Run in a fresh process: the entry point, then every module loaded, to the file named by
# MEMKIT_LOADED (written at exit: the entry points end with SystemExit).
RECORDER = """
import atexit, importlib, os, sys
def _dump():
    with open(os.environ["MEMKIT_LOADED"], "w", encoding="utf-8") as out:
        out.write("\\n".join(sorted(sys.modules)))
atexit.register(_dump)
module, name = sys.argv[1].split(":")
sys.exit(getattr(importlib.import_module(module), name)(sys.argv[2:]))
"""


def loaded_by(entry: str, argv: list[str], stdin: dict[str, object] | str, cwd: Path) -> set[str]:
    """Every module a real run of `entry` (module:function) with `argv` loads in `cwd`; a
    hook's payload (a dict) is given `cwd`."""
    if isinstance(stdin, dict):
        stdin = json.dumps({**stdin, "cwd": str(cwd)})
    out = cwd.parent / "loaded.txt"
    env = {**os.environ, "MEMKIT_LOADED": str(out), "MEMKIT_NO_ENGINE": "1"}
    subprocess.run(
        [sys.executable, "-c", RECORDER, entry, *argv],
        input=stdin,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,  # a hook exits 0 and a check may find something: what it loaded counts
    )
    return set(out.read_text(encoding="utf-8").split())


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


def hot_paths(repo: Path) -> dict[str, set[str]]:
    """Each hot path's modules: those a real run loads, or the closure of its starts."""
    found = {path: closure(starts, SOURCES) for path, starts in HOT_STARTS.items()}
    for path, (entry, argv, stdin) in HOT_RUNS.items():
        found[path] = loaded_by(entry, argv, stdin, repo)
    return found


def why_deferred(
    module: str, deferred: Deferred, sources: dict[str, Source], hot: dict[str, set[str]]
) -> str | None:
    """The reason `module` may import `deferred.module` inside a function, or None."""
    if deferred.optional:
        return "optional"
    target = deferred.module
    if any(name.split(".")[0] in HEAVY for name in closure([target], sources)):
        return "heavy"
    if sources[module].is_package and target.startswith(module + "."):
        return "facade"
    for path, loaded in hot.items():
        if module in loaded and target not in loaded:
            return f"hot: {path}"
    return None


def problems(sources: dict[str, Source], hot: dict[str, set[str]]) -> list[str]:
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
            elif why_deferred(module, deferred, sources, hot) is None:
                found.append(
                    f"{module}:{deferred.line}: {deferred.module} needs no deferring: import it"
                    " at the top (no hot path, heavy module or facade needs it in a function)"
                )
        found.extend(
            f"{module}: __lazy_modules__ names {name}, never imported inside a function"
            for name in sorted(declared - inside)
        )
    return found


def test_every_import_inside_a_function_is_declared_and_needed(tmp_path: Path) -> None:
    hot = hot_paths(heartbeat_repo(tmp_path / "team", hooks=False))
    assert all(len(loaded) > 5 for loaded in hot.values()), hot  # each path really ran
    # What Claude Code waits for loads none of the heaviest (a commit's hooks read memkit.yaml
    # with ruamel; a hook may read the index's meta with orjson and capture's settings with
    # PyYAML's C loader).
    heavy = {
        path: sorted(m for m in hot[path] if m.split(".")[0] in NEVER_WHILE_CLAUDE_WAITS)
        for path in hot
        if path.startswith(("the hook", "memkit mcp"))
    }
    assert {path: found for path, found in heavy.items() if found} == {}
    assert problems(SOURCES, hot) == []


# A stand-in for the measured paths in the rule's own tests: the hook's front, as it loads.
FRONT = {"the hook's front": closure(("memkit.claude.main",), SOURCES)}


def _judged(module: str, text: str) -> list[str]:
    """What the rule says of `module` written as `text`, the rest of memkit as it is."""
    sources = {**SOURCES, module: read_source(module, text)}
    return [line for line in problems(sources, FRONT) if line.startswith(module)]


def test_the_rule_sees_an_import_nobody_needs_deferred() -> None:
    """A module on no hot path deferring a light module fails, declared or not; a heavy one or
    an optional one passes once declared; a declaration of nothing deferred fails."""
    cold = "memkit.site.fake"
    assert cold not in FRONT["the hook's front"]
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
    assert "memkit.site.graph" not in FRONT["the hook's front"]
    text = '__lazy_modules__ = {"memkit.site.graph"}\ndef f():\n    import memkit.site.graph\n'
    assert _judged(hot, text) == []
    text = '__lazy_modules__ = {"memkit.claude.events"}\nimport memkit.claude.events\n'
    text += "def f():\n    import memkit.claude.events\n"
    assert _judged(hot, text) == [
        f"{hot}:4: memkit.claude.events needs no deferring: import it at the top (no hot path,"
        " heavy module or facade needs it in a function)"
    ]
