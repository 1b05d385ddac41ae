"""The converted model is kept once per user and shared by every clone (issue 33): a new
clone's first build does not convert it again, not even when each clone carries its own copy
of the model; a damaged entry is made again; an unwritable per-user folder falls back to the
repository's `.memkit/models`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memkit.embedding import DEFAULT_MODEL_DIR
from memkit.embedding.usercache import model_cache_dir, user_model_cache
from tests.helpers import git, heartbeat_repo, memkit


def _entries(cache: Path) -> dict[str, int]:
    """Each converted matrix in `cache` by name, with its inode (a new conversion renames a
    new file into place)."""
    return {p.name: p.stat().st_ino for p in cache.glob("*.f32.npy")}


@pytest.fixture
def user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "user-cache"
    monkeypatch.setenv("MEMKIT_MODEL_CACHE", str(cache))
    return cache


def _clone(origin: Path, to: Path) -> Path:
    git(origin.parent, "clone", "--quiet", str(origin), str(to))
    return to


def test_a_second_clone_does_not_convert_the_model(tmp_path: Path, user_cache: Path) -> None:
    origin = heartbeat_repo(tmp_path / "origin", hooks=False)
    first = _clone(origin, tmp_path / "alice" / "memory")
    built = memkit("index", cwd=first)
    assert built.returncode == 0, built.stderr
    made = _entries(user_cache)
    assert len(made) == 1
    assert not (first / ".memkit" / "models").exists()

    second = _clone(origin, tmp_path / "elsewhere" / "memory")
    built = memkit("index", cwd=second)
    assert built.returncode == 0, built.stderr
    assert _entries(user_cache) == made  # the same file: not converted again
    assert not (second / ".memkit" / "models").exists()
    found = memkit("search", "websocket heartbeat", "--repo", str(second), cwd=second)
    assert "heartbeat" in found.stdout.lower(), found.stdout + found.stderr


def test_clones_with_their_own_copy_of_a_model_share_one_entry(
    tmp_path: Path, user_cache: Path
) -> None:
    """Entries are named by the model's bytes: the same model at two paths (a model folder
    committed in the memory repository, cloned twice) is converted once."""
    origin = heartbeat_repo(tmp_path / "origin", hooks=False)
    shutil.copytree(DEFAULT_MODEL_DIR, origin / "models" / "team-model")
    config = (origin / "memkit.yaml").read_text(encoding="utf-8")
    assert "  model: default\n" in config
    (origin / "memkit.yaml").write_text(
        config.replace("  model: default\n", "  model: models/team-model\n"), encoding="utf-8"
    )
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "--no-verify", "-m", "the team's model")
    made = _entries(user_cache)  # the shipped model, converted when the origin was built
    assert len(made) == 1
    for name in ("a", "b"):
        clone = _clone(origin, tmp_path / name)
        built = memkit("index", cwd=clone)
        assert built.returncode == 0, built.stderr
        assert _entries(user_cache) == made  # the same bytes: the same entry, not converted
    # One record per place the model sits: memkit's own folder, each clone's copy.
    assert len(list(user_cache.glob("*.ref"))) == 3


@pytest.mark.parametrize("damage", ["matrix cut short", "metadata garbled", "hash record wrong"])
def test_a_damaged_entry_is_made_again(tmp_path: Path, user_cache: Path, damage: str) -> None:
    repo = heartbeat_repo(tmp_path / "memory", hooks=False)  # built once: the entry exists
    (matrix,) = user_cache.glob("*.f32.npy")
    if damage == "matrix cut short":
        matrix.write_bytes(matrix.read_bytes()[:4096])
    elif damage == "metadata garbled":
        (meta,) = user_cache.glob("*.json")
        meta.write_text('{"format": 2, "rows"', encoding="utf-8")
    else:
        (ref,) = user_cache.glob("*.ref")
        record = json.loads(ref.read_text(encoding="utf-8"))
        ref.write_text(json.dumps({**record, "hash": "0" * 64}), encoding="utf-8")
    shutil.rmtree(repo / ".memkit")
    built = memkit("index", cwd=repo)
    assert built.returncode == 0, built.stderr
    found = memkit("search", "websocket heartbeat", cwd=repo)
    assert "heartbeat" in found.stdout.lower(), found.stdout + found.stderr
    (matrix,) = user_cache.glob("*.f32.npy")
    assert matrix.stat().st_size > 10_000_000  # whole again
    meta = json.loads(next(user_cache.glob("*.json")).read_text(encoding="utf-8"))
    record = json.loads(next(user_cache.glob("*.ref")).read_text(encoding="utf-8"))
    assert meta["hash"] == record["hash"]


def test_an_unwritable_user_cache_falls_back_to_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("MEMKIT_MODEL_CACHE", str(blocked / "models"))
    repo = heartbeat_repo(tmp_path / "memory", hooks=False)
    assert list((repo / ".memkit" / "models").glob("*.f32.npy"))
    assert model_cache_dir(repo) == repo / ".memkit" / "models"
    assert model_cache_dir(None) is None


def test_the_user_cache_follows_xdg_then_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMKIT_MODEL_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert user_model_cache() == tmp_path / "xdg" / "memkit" / "models"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")  # the XDG spec: absolute only
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user_model_cache() == tmp_path / "home" / ".cache" / "memkit" / "models"
    repo = tmp_path / "memory"
    commit_repo = heartbeat_repo(repo, hooks=False)
    assert (tmp_path / "home" / ".cache" / "memkit" / "models").is_dir()
    assert not (commit_repo / ".memkit" / "models").exists()


def test_the_suite_shares_one_model_cache() -> None:
    """Each test's HOME is new, so without one cache for the run every test repository
    converted its own 70 MB copy (conftest points MEMKIT_MODEL_CACHE at a session folder)."""
    cache = user_model_cache()
    assert cache.name == "models" and cache.parent.name.startswith("session-caches")
