"""The hint harness covers every finding code that suggests a command, for every role that
can meet it: a new code whose message gives a `memkit …` or `git …` command fails here until
it has its case in `tests/hints/cases.py`.

Which codes suggest a command is read from memkit's source: the call that makes a finding
(its code a string literal `MKnnn`), the text it is given, the variables that text is built
from in the same function, and the module's own functions it calls for it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from tests.hints.cases import CASES, ROLES

ROOT = Path(__file__).resolve().parents[2]
CODE = re.compile(r"^MK\d{3}$")
# What a hint's command looks like in memkit's strings: in backticks, `memkit …` or `git …`,
# or the start of a string a helper builds to be put between them.
SUGGESTS = re.compile(r"`(?:memkit|git) |^(?:memkit|git) ", re.M)

# Who can meet each code, and why not the others. A code missing here fails the test below.
MEETS: dict[str, frozenset[str]] = {
    # A hand-edited MEMORY.md: anyone's commit; a pull request past the hooks.
    "MK014": frozenset(ROLES),
    # An atom superseding a live one: anyone; CI validates the pull request's atoms too.
    "MK023": frozenset(ROLES),
    # Deleting an atom another names: anyone may delete a fact; CI checks the head's links.
    "MK024": frozenset(ROLES),
    # The write check at commit time; CI reports a contradiction as MK301 (no command).
    "MK106": frozenset({"management", "member", "newcomer"}),
    # A role folder without the role: anyone, management included; CI judges the author.
    "MK201": frozenset(ROLES),
    # Sensitive atoms: management writes them straight into shared/, so never meets these.
    "MK204": frozenset({"member", "newcomer", "CI"}),
    "MK205": frozenset({"member", "newcomer", "CI"}),
    # Another person's usage export: management may remove one, not write it.
    "MK207": frozenset(ROLES),
    # Local state: nobody commits it, management included.
    "MK208": frozenset(ROLES),
}


def _strings(node: ast.AST) -> Iterator[str]:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            yield sub.value


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
    }


def _text_of(call: ast.Call, scope: ast.AST, functions: dict[str, ast.AST]) -> str:
    """The strings a finding's text is made of: in the call, in what the call's names are
    assigned in `scope`, and in the module's functions it calls."""
    parts = [s for arg in [*call.args, *(k.value for k in call.keywords)] for s in _strings(arg)]
    used = _names(call)
    for sub in ast.walk(scope):
        if isinstance(sub, (ast.Assign, ast.AnnAssign)):
            targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
            if any(isinstance(t, ast.Name) and t.id in used for t in targets) and sub.value:
                parts += _strings(sub.value)
                used |= _names(sub.value)
    for name in used & functions.keys():
        parts += _strings(functions[name])
    return "\n".join(parts)


def codes_suggesting_a_command() -> dict[str, list[str]]:
    """code -> the modules whose finding of that code suggests a command."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "memkit").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        functions: dict[str, ast.AST] = {
            n.name: n
            for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
        for scope in functions.values():
            for call in ast.walk(scope):
                if not isinstance(call, ast.Call):
                    continue
                codes = [
                    a.value
                    for a in call.args
                    if isinstance(a, ast.Constant)
                    and isinstance(a.value, str)
                    and CODE.match(a.value)
                ]
                if codes and SUGGESTS.search(_text_of(call, scope, functions)):
                    rel = path.relative_to(ROOT).as_posix()
                    for code in codes:
                        found.setdefault(code, []).append(rel)
    return found


def test_the_scan_sees_the_codes_it_must() -> None:
    """It can fail: these codes' commands are built four different ways (in the call, in a
    variable of the function, in a helper of the module, by a helper between backticks)."""
    found = codes_suggesting_a_command()
    assert {"MK207", "MK204", "MK023", "MK024", "MK201"} <= found.keys(), found
    assert "MK202" not in found and "MK110" not in found  # advice, but no command


def test_every_code_that_suggests_a_command_has_its_cases() -> None:
    found = codes_suggesting_a_command()
    assert found.keys() == MEETS.keys(), (
        "a finding code suggests a command but the hint harness does not know who meets "
        f"it: add it to MEETS and its cases to tests/hints/cases.py: {found}"
    )
    covered: dict[str, set[str]] = {}
    for case in CASES:
        covered.setdefault(case.code, set()).add(case.role)
    for code, roles in MEETS.items():
        assert covered.get(code, set()) == roles, (code, covered.get(code), roles)


def test_case_names_are_unique() -> None:
    names = [c.name for c in CASES]
    assert len(names) == len(set(names))
