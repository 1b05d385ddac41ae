"""The template of a memory repository: `memory_template/` at the top of memkit's repository,
shipped inside the package as `memkit/memory_template/` (pyproject's force-include).
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from memkit.errors import MemkitError
from memkit.files import write_atomic

# Dotfiles are stored without their dot so that tools working on memkit's own repository
# (git, pre-commit, linters) do not mistake them for memkit's own config.
RENAMED: Mapping[str, str] = {
    "gitignore": ".gitignore",
    "gitattributes": ".gitattributes",
    "pre-commit-config.yaml": ".pre-commit-config.yaml",
}
# Files whose {user} and {email} placeholders are filled in for the repository's creator.
_FILLED = ("_roles.md",)


def template_root() -> Traversable:
    """The template inside an installed wheel, else beside the package in a source checkout
    (an editable install maps only the package itself)."""
    packaged = resources.files("memkit") / "memory_template"
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parents[1] / "memory_template"
    if checkout.is_dir():
        return checkout
    raise MemkitError("memkit's memory_template is missing from this installation; reinstall")


def top_level_names() -> frozenset[str]:
    """What the template puts at a repository's top level, under their final names."""
    return frozenset(RENAMED.get(item.name, item.name) for item in template_root().iterdir())


def copy_template(dest: Path, values: Mapping[str, str]) -> None:
    def copy(node: Traversable, target: Path) -> None:
        for item in node.iterdir():
            if item.name == "__pycache__":
                continue
            out = target / RENAMED.get(item.name, item.name)
            if item.is_dir():
                out.mkdir(exist_ok=True)
                copy(item, out)
                continue
            text = item.read_text(encoding="utf-8")
            if item.name in _FILLED:
                for key, value in values.items():
                    text = text.replace(key, value)
            write_atomic(out, text)

    copy(template_root(), dest)
