from __future__ import annotations

from pathlib import Path

import pytest

from memkit.checks.validate import validate
from memkit.main import main
from tests.helpers import atom_text, memkit, write_atom


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "memkit.yaml").write_text("version: 1\n", encoding="utf-8")
    (tmp_path / "shared").mkdir()
    return tmp_path


def codes(repo: Path, files: list[str] | None = None) -> list[str]:
    return [f.code for f in validate(repo, files)]


GOOD = atom_text("good-atom")
FM_ONLY = "---\nid: a\ntype: fact\nconfidence: fixed\ncreated: 2026-01-01\n---\n"

# (name, relative path, file content as bytes, expected codes)
BAD_INPUTS: list[tuple[str, str, bytes, set[str]]] = [
    ("empty file", "shared/a.md", b"", {"MK002"}),
    ("no frontmatter", "shared/a.md", b"# Just a title\n\ntext\n", {"MK002"}),
    ("unclosed frontmatter", "shared/a.md", b"---\nid: a\n# title\n", {"MK002"}),
    ("frontmatter only", "shared/a.md", FM_ONLY.encode(), {"MK015"}),
    ("yaml syntax error", "shared/a.md", b"---\nid: [a\n---\nbody\n", {"MK003"}),
    ("tabs in yaml", "shared/a.md", b"---\nid: a\ntriggers:\n\t- x\n---\nbody\n", {"MK003"}),
    (
        "duplicate keys",
        "shared/a.md",
        GOOD.replace("id: good-atom\n", "id: a\nid: a\n").encode(),
        {"MK003"},
    ),
    ("yaml list, not mapping", "shared/a.md", b"---\n- a\n- b\n---\nbody\n", {"MK004"}),
    ("missing keys", "shared/a.md", b"---\nid: a\n---\n# A\n\ntext\n", {"MK005"}),
    (
        "bad type",
        "shared/good-atom.md",
        GOOD.replace("type: fact", "type: rumour").encode(),
        {"MK006"},
    ),
    (
        "bad confidence",
        "shared/good-atom.md",
        GOOD.replace("confidence: observed", "confidence: sure").encode(),
        {"MK006"},
    ),
    (
        "bad status",
        "shared/good-atom.md",
        GOOD.replace("created:", "status: dead\ncreated:").encode(),
        {"MK006"},
    ),
    (
        "id not kebab-case",
        "shared/Good_Atom.md",
        GOOD.replace("good-atom", "Good_Atom").encode(),
        {"MK007"},
    ),
    ("id is not the file name", "shared/other.md", GOOD.encode(), {"MK008"}),
    (
        "scope key disagrees",
        "shared/good-atom.md",
        GOOD.replace("created:", "scope: role:art\ncreated:").encode(),
        {"MK012"},
    ),
    ("empty body", "shared/good-atom.md", (GOOD.split("# ")[0] + "\n\n   \n").encode(), {"MK015"}),
    (
        "unknown key is a warning",
        "shared/good-atom.md",
        GOOD.replace("created:", "colour: blue\ncreated:").encode(),
        {"MK016"},
    ),
    (
        "triggers not a list",
        "shared/good-atom.md",
        GOOD.replace("created:", "triggers: {a: 1}\ncreated:").encode(),
        {"MK017"},
    ),
    (
        "not a date",
        "shared/good-atom.md",
        GOOD.replace("2026-02-08", "last week").encode(),
        {"MK017"},
    ),
    (
        "impossible date",
        "shared/good-atom.md",
        GOOD.replace("2026-02-08", "2026-13-45").encode(),
        {"MK017"},
    ),
    ("5 MB file", "shared/good-atom.md", GOOD.encode() + b"x" * (5 * 1024 * 1024), {"MK018"}),
    ("invalid UTF-8", "shared/good-atom.md", GOOD.encode() + b"\n\xff\xfe bad bytes\n", {"MK001"}),
    ("binary content", "shared/good-atom.md", b"\x89PNG\r\n\x1a\n\0\0\0", {"MK001"}),
    (
        "yaml bomb (aliases)",
        "shared/a.md",
        b"---\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        b"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n---\nbody\n",
        {"MK020"},
    ),
    (
        "deeply nested yaml",
        "shared/a.md",
        b"---\nid: " + b"[" * 5000 + b"]" * 5000 + b"\n---\nb\n",
        {"MK020"},
    ),
    ("too many lines", "shared/good-atom.md", (GOOD + "- more\n" * 300).encode(), {"MK013"}),
]


@pytest.mark.parametrize(
    ("relpath", "content", "expected"),
    [case[1:] for case in BAD_INPUTS],
    ids=[case[0] for case in BAD_INPUTS],
)
def test_bad_input_gets_its_code_and_no_traceback(
    repo: Path, relpath: str, content: bytes, expected: set[str], capsys: pytest.CaptureFixture[str]
) -> None:
    path = repo / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    found = set(codes(repo))
    assert expected <= found, found
    rc = main(["validate", "--repo", str(repo), str(path)])
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    assert rc == (0 if expected == {"MK016"} else 1)
    for line in out.out.splitlines():
        where, _, message = line.partition(": ")
        file, line_no, col = where.rsplit(":", 2)
        assert file == relpath
        assert int(line_no) >= 1
        assert int(col) >= 1
        assert message[:5] in found


def test_symlink_pointing_outside_the_repo(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside") / "secret.md"
    outside.write_text(GOOD, encoding="utf-8")
    (repo / "shared" / "good-atom.md").symlink_to(outside)
    assert codes(repo) == ["MK019"]


def test_error_lines_point_at_the_key(repo: Path) -> None:
    write_atom(repo, "shared/a.md", atom_text("a", extra="related: [nowhere]\n"))
    (finding,) = validate(repo)
    assert finding.format().startswith("shared/a.md:6:1: MK010 ")
    assert "nowhere" in finding.message


def test_cli_reports_and_exit_codes(repo: Path) -> None:
    write_atom(repo, "shared/good-atom.md", GOOD)
    ok = memkit("validate", cwd=repo)
    assert (ok.returncode, ok.stdout) == (0, "")
    write_atom(repo, "shared/bad.md", "---\nid: bad\n---\n")
    bad = memkit("validate", cwd=repo)
    assert bad.returncode == 1
    assert "shared/bad.md:2:1: MK005 missing required key `type`" in bad.stdout
    assert "Traceback" not in bad.stderr
    usage = memkit("validate", "--no-such-flag", cwd=repo)
    assert usage.returncode == 2
    outside = memkit("validate", "/etc/hostname", cwd=repo)
    assert outside.returncode == 2
    assert "not inside the memory repository" in outside.stderr


def test_references_resolve_against_the_whole_repo(repo: Path) -> None:
    write_atom(repo, "roles/art/palette.md", atom_text("palette"))
    write_atom(repo, "shared/a.md", atom_text("a", extra="related: [palette]\n"))
    write_atom(repo, "shared/b.md", atom_text("b", extra="supersedes: [gone]\n"))
    assert codes(repo, ["shared/a.md"]) == []
    assert codes(repo, ["shared/b.md"]) == ["MK010"]


def test_duplicate_ids_across_scopes(repo: Path) -> None:
    write_atom(repo, "shared/same.md", atom_text("same"))
    write_atom(repo, "personal/bob/same.md", atom_text("same"))
    found = validate(repo)
    assert [f.code for f in found] == ["MK009", "MK009"]
    assert "personal/bob/same.md" in found[1].message or "personal/bob/same.md" in found[0].message


@pytest.mark.parametrize(
    ("a_extra", "b_extra"),
    [
        ("supersedes: [b]\n", "supersedes: [a]\n"),
        # a -> b written on a's side, b -> a written as a's `superseded_by`.
        ("supersedes: [b]\nsuperseded_by: [b]\n", ""),
    ],
)
def test_supersede_cycles(repo: Path, a_extra: str, b_extra: str) -> None:
    write_atom(repo, "shared/a.md", atom_text("a", extra=a_extra))
    write_atom(repo, "shared/b.md", atom_text("b", extra=b_extra))
    assert "MK011" in codes(repo, ["shared/a.md"])


def test_three_step_cycle_written_partly_as_superseded_by(repo: Path) -> None:
    # a -> b (a supersedes b), b -> c written on c's side, c -> a: only a changes.
    write_atom(repo, "shared/a.md", atom_text("a", extra="supersedes: [b]\n"))
    write_atom(repo, "shared/c.md", atom_text("c", extra="superseded_by: [b]\nsupersedes: [a]\n"))
    write_atom(repo, "shared/b.md", atom_text("b"))
    found = [f for f in validate(repo, ["shared/a.md"]) if f.code == "MK011"]
    assert found
    assert "a -> b -> c -> a" in found[0].message


def test_a_plain_supersede_chain_is_fine(repo: Path) -> None:
    write_atom(repo, "shared/v3.md", atom_text("v3", extra="supersedes: [v2]\n"))
    write_atom(
        repo, "shared/v2.md", atom_text("v2", extra="supersedes: [v1]\nstatus: superseded\n")
    )
    write_atom(repo, "shared/v1.md", atom_text("v1", extra="status: superseded\n"))
    assert codes(repo) == []


def test_memory_md_limit_from_config(repo: Path) -> None:
    (repo / "memkit.yaml").write_text("limits:\n  memory_md_lines: 3\n", encoding="utf-8")
    (repo / "MEMORY.md").write_text("a\nb\nc\nd\n", encoding="utf-8")
    found = validate(repo)
    assert [(f.path, f.line, f.code) for f in found] == [("MEMORY.md", 4, "MK014")]
    assert validate(repo, ["MEMORY.md"]) == found


def test_atom_line_limit_from_config(repo: Path) -> None:
    (repo / "memkit.yaml").write_text("limits:\n  atom_lines: 8\n", encoding="utf-8")
    write_atom(repo, "shared/a.md", atom_text("a", body="- one\n- two\n- three\n"))
    assert codes(repo) == ["MK013"]


def test_bad_config_is_a_clear_error(repo: Path) -> None:
    (repo / "memkit.yaml").write_text("limits:\n  atom_lines: lots\n", encoding="utf-8")
    result = memkit("validate", cwd=repo)
    assert result.returncode == 1
    assert "atom_lines" in result.stderr
    assert "Traceback" not in result.stderr


def test_non_atom_files_are_ignored(repo: Path) -> None:
    write_atom(repo, "shared/README.md", "no frontmatter here\n")
    write_atom(repo, "shared/_roles.md", "| user | roles |\n")
    write_atom(repo, "personal/bob/role.md", "management\n")
    write_atom(repo, "docs/notes.md", "anything\n")
    assert codes(repo) == []
    assert codes(repo, ["shared/README.md", "docs/notes.md"]) == []


def test_an_impossible_date_does_not_hide_the_other_problems(repo: Path) -> None:
    (repo / "shared" / "ws-heart.md").write_text(
        "---\nid: ws-heartbeat\ntype: pitfal\nconfidence: observed\n"
        "created: 2026-02-30   # a typo\nrelated: [nope]\n---\n# Heartbeat\n\ntext\n",
        encoding="utf-8",
    )
    findings = {(f.line, f.code) for f in validate(repo)}
    assert findings == {(2, "MK008"), (3, "MK006"), (5, "MK017"), (6, "MK010")}
    (msg,) = [f.message for f in validate(repo) if f.code == "MK017"]
    assert "2026-02-30" in msg
