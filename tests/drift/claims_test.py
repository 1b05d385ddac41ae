"""What drift reads from an atom as a claim about code, and what it leaves alone (issue 44)."""

from __future__ import annotations

import pytest

from memkit.drift.claims import COMMAND, GLOB, PATH, VALUE, VERSION, claims_of


def found(text: str) -> set[tuple[str, ...]]:
    out: set[tuple[str, ...]] = set()
    for c in claims_of(text):
        if c.kind in (PATH, GLOB):
            out.add((c.kind, c.path))
        elif c.kind == VALUE:
            out.add((c.kind, c.key, c.value, c.path))
        elif c.kind == COMMAND:
            out.add((c.kind, c.tool, c.key, c.path))
        else:
            out.add((c.kind, c.key, c.tool + c.value))
    return out


def test_paths_in_code_spans_prose_and_the_paths_key() -> None:
    text = (
        '---\nid: a\ntype: fact\npaths: ["src/net/**", docs/api.md]\n---\n# A\n\n'
        "- See `src/net/conn.py`, setup.py, the `docs/` folder, `.travis.yml` and `.coveragerc`.\n"
    )
    assert found(text) == {
        (GLOB, "src/net/**"),
        (PATH, "docs/api.md"),
        (PATH, "src/net/conn.py"),
        (PATH, "setup.py"),
        (PATH, "docs/"),
        (PATH, ".travis.yml"),
        (PATH, ".coveragerc"),
    }


def test_what_looks_like_a_path_but_is_not() -> None:
    text = (
        "- Mail bob@example.com, read https://example.com/a/b.py, on 2024/01/02, a client/server "
        "split, 1/2 of the time. Node.js and Vue.js apps; the changelog says so; see the license.\n"
    )
    assert found(text) == set()


def test_values_with_their_file() -> None:
    text = (
        "- The limit is `max_retries: 5` in `config/worker.yaml`.\n"
        "- `workers` is 4; set `timeout_s` to 30; `DEBUG=false`.\n"
        "- Pinned `requests==2.31.0` is a version, not a setting.\n"
        "\n"
        "```yaml\n# config/app.yaml\nserver:\n  port: 8080\n  hosts: [a, b]\n```\n"
    )
    values = {c for c in found(text) if c[0] == VALUE}
    assert values == {
        (VALUE, "max_retries", "5", "config/worker.yaml"),
        (VALUE, "workers", "4", ""),
        (VALUE, "timeout_s", "30", ""),
        (VALUE, "DEBUG", "false", ""),
        (VALUE, "server.port", "8080", "config/app.yaml"),
        (VALUE, "server.hosts", "[a, b]", "config/app.yaml"),
    }


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("`make deploy-staging`", ("make", "deploy-staging", "")),
        ("`make -C web test`", ("make", "test", "web")),
        ("`npm run build`", ("npm", "build", "")),
        ("`yarn lint`", ("npm", "lint", "")),
        ("`pnpm --dir web run dev`", ("npm", "dev", "web")),
        ("`npm test`", ("npm", "test", "")),
        ("`just fmt`", ("just", "fmt", "")),
        ("`nox -s docs`", ("nox", "docs", "")),
        ("`tox -e lint`", ("tox", "lint", "")),
        ("`uv run serve`", ("uv", "serve", "")),
        ("`PORT=3000 sudo make up`", ("make", "up", "")),
        ("`pip-compile requirements.in`", ("entry", "pip-compile", "")),
    ],
)
def test_commands(line: str, command: tuple[str, str, str]) -> None:
    assert (COMMAND, *command) in found(f"- Run {line}.")


def test_shell_blocks_are_commands_and_programs_of_the_system_are_no_claim() -> None:
    text = "```sh\n$ git pull && docker compose up\n$ make test\n```\n"
    assert {c for c in found(text) if c[0] == COMMAND} == {(COMMAND, "make", "test", "")}


@pytest.mark.parametrize(
    ("line", "version"),
    [
        ("We need Python 3.9+.", ("python", ">=3.9")),
        ("The frontend is on React 18.2.", ("react", "18.2")),
        ("Pin `requests==2.31.0`.", ("requests", "2.31.0")),
        ("Tests use `mocha@^5.2.0`.", ("mocha", ">=5.2.0")),
        ("Needs `click >= 7`.", ("click", ">=7")),
        ("Flags come from `github.com/spf13/pflag v1.0.3`.", ("github.com/spf13/pflag", "1.0.3")),
        ("Node.js 18 or later.", ("node", ">=18")),
    ],
)
def test_versions(line: str, version: tuple[str, str]) -> None:
    assert (VERSION, *version) in found(f"- {line}")


@pytest.mark.parametrize(
    "line",
    [
        "We dropped Python 2 support long ago.",
        "Upgrade from React 16 to the current release.",
        "Chapter 3 of the guide explains it; step 2 is the hard one.",
        "The balancer drops idle sockets after 60 s; retries 3 times.",
    ],
)
def test_no_version_claims(line: str) -> None:
    assert not [c for c in found(f"- {line}") if c[0] == VERSION]


def test_claims_keep_their_line_and_column() -> None:
    text = "---\nid: a\ntype: fact\n---\n# A\n\n- The code is `src/net/conn.py`.\n"
    (claim,) = claims_of(text)
    assert (claim.line, claim.col) == (7, 16)
    assert text.split("\n")[claim.line - 1][claim.col - 1 :].startswith("src/net/conn.py")
