"""The docs are tested against the code: every check code and every command is documented."""

from __future__ import annotations

import re
from pathlib import Path

from memkit.main import main_parser

ROOT = Path(__file__).resolve().parents[1]


def codes_in_source() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "memkit").rglob("*.py"):
        found.update(re.findall(r'"(MK\d{3})"', path.read_text(encoding="utf-8")))
    return found


def test_every_check_code_is_documented_with_an_example() -> None:
    doc = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md")))
    sections = dict(
        re.findall(r"^### (MK\d{3}) — .*?\n(.*?)(?=^### |^## |\Z)", doc, flags=re.M | re.S)
    )
    codes = codes_in_source()
    assert codes, "no codes found in the source"
    missing = sorted(codes - sections.keys())
    assert not missing, f"undocumented codes: {missing}"
    for code in sorted(codes):
        assert len(sections[code].strip()) > 40, code
    stale = sorted(sections.keys() - codes)
    assert not stale, f"documented codes no check reports: {stale}"


def test_every_command_has_help_and_is_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    parser = main_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    choices = getattr(subparsers, "choices", {})
    assert "validate" in choices and "init" in choices
    for name, sub in choices.items():
        assert sub.format_help().strip(), name
        assert f"`memkit {name}" in readme, f"memkit {name} is not in the README"


def test_the_readme_s_example_finding_is_what_memkit_prints(tmp_path: Path) -> None:
    from memkit.checks.validate import validate

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    atom = re.search(r"<<'ATOM'\n(.*?)\nATOM\n", readme, flags=re.S)
    example = re.search(r"^(shared/ws-heartbeat\.md:\d+:\d+: MK\d{3} .*)$", readme, flags=re.M)
    assert atom and example
    # The README's atom saved under a name that is not its id.
    (tmp_path / "memkit.yaml").write_text("version: 1\n", encoding="utf-8")
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "ws-heartbeat.md").write_text(atom.group(1) + "\n", encoding="utf-8")
    assert [f.format() for f in validate(tmp_path)] == [example.group(1)]


def test_the_architecture_page_names_what_exists_and_every_room() -> None:
    """docs/architecture.md: every path it names exists, every package has a row in Rooms."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:memkit|tests)/[\w/.]*)`", page))
    named |= set(re.findall(r"\b(tests/\w+\.py)\b", page))
    assert len(named) > 40
    missing = sorted(p for p in named if not (ROOT / p.rstrip("/")).exists())
    assert not missing, f"docs/architecture.md names what is not there: {missing}"
    rooms = page.split("## Rooms", 1)[1].split("\n## ", 1)[0]
    packages = sorted(
        p.parent.relative_to(ROOT).as_posix() + "/"
        for p in (ROOT / "memkit").glob("*/__init__.py")
        if p.parent.name != "models"
    )
    unlisted = [p for p in packages if f"`{p}`" not in rooms]
    assert not unlisted, f"packages without a room in docs/architecture.md: {unlisted}"
