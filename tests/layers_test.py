"""The rooms of docs/architecture.md keep their doors: no two rooms (a package of memkit, or a
top-level module) import each other, even through imports inside functions (issue 31); the
search index and the atom package depend on nothing above them (issue 20); recall, safety and
the rooms on them never import a client's adapter."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

MEMKIT = Path(__file__).resolve().parents[1] / "memkit"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(MEMKIT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_imports(tree: ast.AST) -> set[str]:
    """Every module a file may import when it runs: at module level or inside a function,
    not what it imports for type checking only."""
    found: set[str] = set()
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                todo.extend(child.orelse)
                continue
            if isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and not child.level:
                found.add(child.module)
                found.update(f"{child.module}.{alias.name}" for alias in child.names)
            todo.append(child)
    return found


def import_graph() -> dict[str, set[str]]:
    """memkit module -> the memkit modules it imports (a module imports its packages too)."""
    files = {_module_name(path): path for path in MEMKIT.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        imported = _runtime_imports(ast.parse(path.read_text(encoding="utf-8")))
        parents = {name.rsplit(".", n)[0] for n in range(1, name.count(".") + 1)}
        graph[name] = {m for m in imported | parents if m in files and m != name}
    return graph


def reached(graph: dict[str, set[str]], starts: set[str]) -> set[str]:
    seen: set[str] = set()
    todo = list(starts)
    while todo:
        for module in graph[todo.pop()]:
            if module not in seen:
                seen.add(module)
                todo.append(module)
    return seen


def _in(package: str, module: str) -> bool:
    return module == package or module.startswith(package + ".")


# What the rooms at the bottom may reach (docs/architecture.md, "Rooms").
ATOM_REACHES = (
    *("memkit.atom", "memkit.config", "memkit.errors", "memkit.files", "memkit.findings"),
    *("memkit.triggers", "memkit.safety", "memkit.userconfig"),
)
INDEX_REACHES = (
    *("memkit.index", "memkit.atom", "memkit.config", "memkit.userconfig", "memkit.errors"),
    "memkit.files",
    *("memkit.findings", "memkit.triggers", "memkit.embedding", "memkit.parallel"),
    "memkit.globs",
    *("memkit.repo", "memkit.ownership", "memkit.git", "memkit.admission", "memkit.safety"),
)
PACKAGES = {"memkit", "memkit.checks", "memkit.gate"}  # their __init__ files import nothing


def beyond(graph: dict[str, set[str]], room: str, allowed: tuple[str, ...]) -> list[str]:
    inside = {m for m in graph if _in(room, m)}
    outside = reached(graph, inside) - inside - PACKAGES
    return sorted(m for m in outside if not any(_in(p, m) for p in allowed))


def circles_through(graph: dict[str, set[str]], room: str) -> list[str]:
    """Modules outside `room` that it imports and that import it back."""
    inside = {m for m in graph if _in(room, m)}
    return sorted(m for m in reached(graph, inside) - inside if reached(graph, {m}) & inside)


def room_of(module: str) -> str:
    """`memkit.recall.pipeline` -> `memkit.recall`; a top-level module is a room of its own."""
    return ".".join(module.split(".")[:2])


def room_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """room -> the other rooms it imports (`memkit` itself, the package, is no room)."""
    rooms: dict[str, set[str]] = {}
    for module, imported in graph.items():
        rooms.setdefault(room_of(module), set()).update(
            room_of(m) for m in imported if room_of(m) not in ("memkit", room_of(module))
        )
    rooms.pop("memkit", None)
    return rooms


def knots(rooms: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one room (each a circle of imports)."""
    found = []
    for room in sorted(rooms):
        circle = {r for r in reached(rooms, {room}) if room in reached(rooms, {r})} | {room}
        if len(circle) > 1 and sorted(circle) not in found:
            found.append(sorted(circle))
    return found


def test_no_two_rooms_import_each_other() -> None:
    assert knots(room_graph(import_graph())) == []


def test_the_knot_finder_sees_a_circle_through_an_import_inside_a_function() -> None:
    """It can fail: before issue 31 the secrets check imported the atom record, and the atom
    package imported the text helpers beside it; the hook's readers imported the Claude Code
    client, which capture imports back."""
    graph = import_graph()
    graph["memkit.safety.secrets"].add("memkit.atom")
    graph["memkit.recall.readers"].add("memkit.claude.protocol")
    assert any({"memkit.atom", "memkit.safety"} <= set(k) for k in knots(room_graph(graph)))
    assert any({"memkit.claude", "memkit.recall"} <= set(k) for k in knots(room_graph(graph)))


def test_safety_imports_nothing_of_memkit() -> None:
    # The atom record, the findings, the gate, the checks and recall all stand on it.
    assert beyond(import_graph(), "memkit.safety", ("memkit.safety",)) == []


def test_no_client_is_reached_from_recall_or_what_stands_on_it() -> None:
    """Another client (an MCP host, another agent) stands on recall without Claude Code's
    adapter; capture and lifecycle stand on recall too."""
    graph = import_graph()
    rooms = ("memkit.recall", "memkit.capture", "memkit.lifecycle", "memkit.mcp", "memkit.org")
    for room in rooms:
        inside = {m for m in graph if _in(room, m)}
        assert {m for m in reached(graph, inside) if _in("memkit.claude", m)} == set(), room
    for room in ("memkit.recall", "memkit.org"):
        inside = {m for m in graph if _in(room, m)}
        assert {m for m in reached(graph, inside) if _in("memkit.mcp", m)} == set(), room


def test_the_other_agents_stand_on_recall_without_claude_code_or_mcp() -> None:
    """Issue 42: Codex CLI, Gemini CLI, Cursor, OpenCode and Copilot CLI are adapters of
    their own (`memkit.agents`); Claude Code's hook client runs their dialects, never the
    other way round."""
    graph = import_graph()
    inside = {m for m in graph if _in("memkit.agents", m)}
    reach = reached(graph, inside)
    assert {m for m in reach if _in("memkit.claude", m) or _in("memkit.mcp", m)} == set()


def test_the_atom_record_imports_nothing_of_memkit() -> None:
    # The hook path reads `Atom` and the path rules: standard library only.
    graph = import_graph()
    assert graph["memkit.atom"] <= {"memkit"}
    assert beyond(graph, "memkit.atom", ATOM_REACHES) == []


def test_the_index_depends_on_nothing_above_it() -> None:
    graph = import_graph()
    assert beyond(graph, "memkit.index", INDEX_REACHES) == []
    assert circles_through(graph, "memkit.index") == []


def test_the_import_graph_sees_a_circle() -> None:
    """The check above can fail: memkit.vectors imports the index, and before issue 20 the
    index imported memkit.vectors (for `atom_text`)."""
    graph = import_graph()
    assert "memkit.index" in reached(graph, {"memkit.vectors"})
    graph["memkit.index.embed"].add("memkit.vectors")
    assert "memkit.vectors" in circles_through(graph, "memkit.index")


def test_every_module_of_the_index_imports_on_its_own() -> None:
    """Each module of memkit/index first in a fresh interpreter: a circle through a module
    imported at module level would fail here with a partly initialised module."""
    modules = sorted(_module_name(p) for p in (MEMKIT / "index").glob("*.py"))
    running = {
        module: subprocess.Popen(
            [sys.executable, "-c", f"import {module}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for module in modules
    }
    outputs = {module: proc.communicate()[0] for module, proc in running.items()}
    failed = {m: outputs[m] for m, proc in running.items() if proc.returncode != 0}
    assert failed == {}
    assert len(modules) >= 10
