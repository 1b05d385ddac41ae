"""memkit doctor on real clones: what is set up, what is not, and the command that fixes it."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import atom_text, commit_and_index, git, make_memory_repo, memkit, write_atom


def lines(out: str) -> dict[str, str]:
    """check name -> its status, from doctor's output."""
    found = {}
    for line in out.splitlines():
        status, _, rest = line.partition(" ")
        if status in ("ok", "warn", "FAIL") and ":" in rest:
            found[rest.strip().split(":", 1)[0]] = status
    return found


def test_a_set_up_repository_is_all_set(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(repo, "shared/ws-heartbeat.md", atom_text("ws-heartbeat"))
    commit_and_index(repo)
    assert memkit("install", "claude", cwd=repo).returncode == 0
    out = memkit("doctor", cwd=repo)
    assert out.returncode == 0, out.stdout + out.stderr
    checks = lines(out.stdout)
    assert checks["git hooks"] == checks["index"] == checks["embedding model"] == "ok"
    assert checks["Claude Code"] == "ok"
    assert "1 atoms, current" in out.stdout


def test_a_clone_without_hooks_is_told_how_to_join(tmp_path: Path) -> None:
    team = make_memory_repo(tmp_path / "team")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "--quiet", str(team), str(clone))
    out = memkit("doctor", cwd=clone)
    assert out.returncode == 1
    checks = lines(out.stdout)
    assert checks["git hooks"] == "FAIL"
    assert checks["index"] == "FAIL"  # never built in this clone
    assert "fix: memkit init --join" in out.stdout
    assert "fix: memkit index" in out.stdout
    assert checks["Claude Code"] == "warn"
    assert memkit("init", "--join", cwd=clone).returncode == 0
    assert memkit("index", cwd=clone).returncode == 0
    assert lines(memkit("doctor", cwd=clone).stdout)["git hooks"] == "ok"


def test_stale_index_invalid_atoms_and_a_missing_model_are_named(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(repo, "shared/draft.md", atom_text("draft", type_="pitfal"))
    commit_and_index(repo)
    write_atom(repo, "shared/new-one.md", atom_text("new-one"))  # not indexed yet
    (repo / "memkit.yaml").write_text("embedding:\n  model: ./no-such-model\n", encoding="utf-8")
    out = memkit("doctor", cwd=repo)
    assert out.returncode == 1
    checks = lines(out.stdout)
    assert checks["index"] == "warn"
    assert checks["invalid atoms"] == "warn"
    assert "shared/draft.md" in out.stdout
    assert checks["embedding model"] == "FAIL"
    assert "no-such-model" in out.stdout
