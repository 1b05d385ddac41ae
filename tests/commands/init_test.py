from __future__ import annotations

from pathlib import Path

from tests.helpers import atom_text, git, make_memory_repo, memkit, write_atom

HOOK_TYPES = ("pre-commit", "post-checkout", "post-merge", "post-rewrite")


def test_init_makes_a_memory_repository(tmp_path: Path) -> None:
    repo = tmp_path / "team-memory"
    result = memkit("init", str(repo), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    for name in (
        "memkit.yaml",
        "MEMORY.md",
        ".gitignore",
        ".pre-commit-config.yaml",
        "shared/_roles.md",
        "shared/_pending",
        "roles",
        "personal",
        "episodic",
        "archive",
    ):
        assert (repo / name).exists(), name
    assert ".memkit/" in (repo / ".gitignore").read_text(encoding="utf-8")
    assert "alice@example.com" in (repo / "shared/_roles.md").read_text(encoding="utf-8")
    for hook in HOOK_TYPES:
        assert (repo / ".git" / "hooks" / hook).is_file(), hook
    log = git(repo, "log", "--format=%s").stdout.split("\n")
    assert log[0] == "memkit init: new memory repository"
    assert git(repo, "status", "--porcelain").stdout == ""
    # The template itself validates.
    assert memkit("validate", cwd=repo).returncode == 0


def test_init_refuses_an_existing_memory_repository(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "m")
    again = memkit("init", str(repo), cwd=tmp_path)
    assert again.returncode == 2
    assert "--join" in again.stderr


def test_init_refuses_to_overwrite_template_files(tmp_path: Path) -> None:
    repo = tmp_path / "m"
    repo.mkdir()
    (repo / "MEMORY.md").write_text("mine\n", encoding="utf-8")
    result = memkit("init", str(repo), cwd=tmp_path)
    assert result.returncode == 2
    assert (repo / "MEMORY.md").read_text(encoding="utf-8") == "mine\n"


def test_join_installs_hooks_in_a_clone_without_touching_content(tmp_path: Path) -> None:
    origin = make_memory_repo(tmp_path / "origin")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "--quiet", str(origin), str(clone))
    assert not (clone / ".git/hooks/pre-commit").exists()
    before = git(clone, "status", "--porcelain", "--ignored").stdout
    result = memkit("init", "--join", cwd=clone)
    assert result.returncode == 0, result.stderr
    for hook in HOOK_TYPES:
        assert (clone / ".git" / "hooks" / hook).is_file(), hook
    after = git(clone, "status", "--porcelain").stdout
    assert after == before == ""


def test_join_outside_a_memory_repository_is_a_usage_error(tmp_path: Path) -> None:
    result = memkit("init", "--join", str(tmp_path), cwd=tmp_path)
    assert result.returncode == 2
    assert "not a memory repository" in result.stderr


def commit(repo: Path, message: str = "memory") -> tuple[int, str]:
    git(repo, "add", "-A")
    result = git(repo, "commit", "-m", message, check=False)
    return result.returncode, result.stdout + result.stderr


def test_good_atom_commits_through_pre_commit(memory_repo: Path) -> None:
    write_atom(memory_repo, "shared/ws-heartbeat.md", atom_text("ws-heartbeat"))
    rc, out = commit(memory_repo)
    assert rc == 0, out
    assert "memkit validate" in out and "Passed" in out


def test_bad_atom_is_refused_with_codes(memory_repo: Path) -> None:
    write_atom(
        memory_repo,
        "shared/ws-heartbeat.md",
        atom_text("ws-heartbeat-interval", extra="related: [nope]\n"),
    )
    rc, out = commit(memory_repo)
    assert rc == 1
    assert "shared/ws-heartbeat.md:2:1: MK008 id `ws-heartbeat-interval` does not match" in out
    assert "shared/ws-heartbeat.md:6:1: MK010 `related` names `nope`" in out
    assert git(memory_repo, "log", "--format=%s").stdout.count("\n") == 1  # only the init commit


def test_warnings_do_not_fail_the_commit(memory_repo: Path) -> None:
    write_atom(memory_repo, "shared/a.md", atom_text("a", extra="colour: blue\n"))
    rc, out = commit(memory_repo)
    assert rc == 0, out
    assert "MK016" in out


def test_post_hooks_run_and_pass(memory_repo: Path) -> None:
    git(memory_repo, "checkout", "--quiet", "-b", "feature")
    write_atom(memory_repo, "shared/a.md", atom_text("a"))
    assert commit(memory_repo)[0] == 0
    result = git(memory_repo, "checkout", "main")
    assert "memkit index" in result.stdout + result.stderr
    merge = git(memory_repo, "merge", "--no-ff", "-m", "merge", "feature", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
