"""The built wheel, not the checkout: the memory template lives at the top of this repository
and must still ship inside the package, where `memkit init` finds it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.helpers import git

ROOT = Path(__file__).resolve().parents[1]


def template_files() -> list[str]:
    out = git(ROOT, "ls-files", "memory_template").stdout.split()
    assert "memory_template/shared/_roles.md" in out
    return out


def build(*args: str, cwd: Path = ROOT) -> None:
    # No build isolation: the test environment has hatchling, and tests reach no network.
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_the_wheel_ships_the_template_and_init_uses_it(tmp_path: Path) -> None:
    assert not (ROOT / "memkit" / "memory_template").exists()
    build("-w", str(tmp_path / "dist"), str(ROOT))
    (wheel,) = (tmp_path / "dist").glob("memkit-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        archive.extractall(tmp_path / "site")  # noqa: S202 - the wheel we just built
    for path in template_files():
        assert f"memkit/{path}" in names, path
    # `memkit site` reads its stylesheet and script from the package.
    assert {"memkit/site/assets/site.css", "memkit/site/assets/search.js"} <= names

    # `memkit init` from the unpacked wheel (first on sys.path) makes a repository from the
    # template inside it, not from this checkout.
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    code = "import memkit.template as t; print(t.template_root())"
    where = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert where.stdout.strip() == str(tmp_path / "site" / "memkit" / "memory_template")
    made = subprocess.run(
        [sys.executable, "-m", "memkit", "init", "team"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert made.returncode == 0, made.stdout + made.stderr
    assert (tmp_path / "team" / ".pre-commit-config.yaml").is_file()
    assert git(tmp_path / "team", "status", "--porcelain").stdout == ""


@pytest.mark.slow
def test_the_sdist_keeps_the_template_for_the_wheel_built_from_it(tmp_path: Path) -> None:
    code = "import sys; from hatchling.build import build_sdist; print(build_sdist(sys.argv[1]))"
    made = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    sdist = tmp_path / made.stdout.strip().splitlines()[-1]
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path / "src", filter="data")
    (source,) = (tmp_path / "src").iterdir()
    build("-w", str(tmp_path / "dist"), str(source), cwd=tmp_path)
    (wheel,) = (tmp_path / "dist").glob("memkit-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert {f"memkit/{path}" for path in template_files()} <= names


def test_the_plugin_does_not_send_users_to_an_unrelated_pypi_package() -> None:
    description = json.loads((ROOT / "hooks/hooks.json").read_text(encoding="utf-8"))["description"]
    assert "Needs `pip install memkit`" not in description
    assert "git+" in description and "unrelated" in description
