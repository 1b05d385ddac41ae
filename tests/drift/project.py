"""A code project and the atoms that describe it, for the drift tests (issue 44).

`code_project` is a real git repository with a config file, a Makefile, a package.json and
a pyproject.toml; `change_everything` is one commit that renames a file, changes a config
value, removes a script and a make target and bumps a dependency. ATOMS name one of each
(each made stale by that commit), one that still holds, and one with nothing checkable.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import atom_text, git

PACKAGE = {
    "name": "app",
    "scripts": {"build": "tsc -p .", "lint": "eslint ."},
    "dependencies": {"react": "^17.0.2"},
}


def code_project(path: Path) -> Path:
    (path / "config").mkdir(parents=True)
    (path / "src/net").mkdir(parents=True)
    (path / "config/worker.yaml").write_text(
        "worker:\n  max_retries: 5\n  queue: jobs\n", encoding="utf-8"
    )
    (path / "src/net/conn.py").write_text("TIMEOUT = 5\n", encoding="utf-8")
    (path / "src/main.py").write_text("print('hello')\n", encoding="utf-8")
    (path / "Makefile").write_text(
        "deploy-staging:\n\t./deploy.sh staging\ntest:\n\tpytest\n", encoding="utf-8"
    )
    (path / "package.json").write_text(json.dumps(PACKAGE, indent=2) + "\n", encoding="utf-8")
    (path / "pyproject.toml").write_text(
        '[project]\nname = "app"\nrequires-python = ">=3.10"\n', encoding="utf-8"
    )
    git(path, "init", "-q")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "the app")
    return path


def change_everything(path: Path, *, commit: bool = True) -> None:
    """Rename src/net/conn.py, set max_retries to 8, remove the build script and the
    deploy-staging target, bump react to ^18.2.0."""
    git(path, "mv", "src/net/conn.py", "src/net/connection.py")
    worker = path / "config/worker.yaml"
    worker.write_text(
        worker.read_text(encoding="utf-8").replace("max_retries: 5", "max_retries: 8"),
        encoding="utf-8",
    )
    package = {**PACKAGE, "scripts": {"lint": "eslint ."}, "dependencies": {"react": "^18.2.0"}}
    (path / "package.json").write_text(json.dumps(package, indent=2) + "\n", encoding="utf-8")
    (path / "Makefile").write_text("test:\n\tpytest\n", encoding="utf-8")
    git(path, "add", "-A")
    if commit:
        git(
            path,
            "commit",
            "-q",
            "-m",
            "rename conn, more retries, drop build and deploy-staging, react 18",
        )


ATOMS = {
    "net-conn": ("- The socket code lives in `src/net/conn.py`.", "socket"),
    "worker-retries": (
        "- The worker gives up after `max_retries: 5` in `config/worker.yaml`.",
        "retries",
    ),
    "build-script": ("- Build the frontend with `npm run build`.", "frontend"),
    "deploy-staging": ("- Deploy to staging with `make deploy-staging`.", "staging"),
    "react-version": ("- The frontend is on React 17.", "react"),
    "still-true": (
        "- Run `make test` and `npm run lint`; the queue is `queue: jobs` in `config/worker.yaml`.",
        "lint",
    ),
    "nothing-checkable": (
        "- Keep pull requests small and ask a teammate to review them.",
        "reviews",
    ),
}
STALE = ("net-conn", "worker-retries", "build-script", "deploy-staging", "react-version")
# What each stale atom is told, in words (`memkit.drift.say`).
SAID = {
    "net-conn": "`src/net/conn.py` is gone: renamed to `src/net/connection.py`",
    "worker-retries": "`max_retries` is 8 in `config/worker.yaml` now (the atom says 5)",
    "build-script": "`npm run build`: `package.json` no longer defines `build`",
    "deploy-staging": "`make deploy-staging`: `Makefile` no longer defines `deploy-staging`",
    "react-version": "`react` is ^18.2.0 in `package.json` now (the atom says 17)",
}


def write_atoms(memory: Path) -> None:
    for atom_id, (body, triggers) in ATOMS.items():
        path = memory / "shared" / f"{atom_id}.md"
        path.write_text(
            atom_text(atom_id, body=body, extra=f"triggers: [{triggers}]\n"), encoding="utf-8"
        )
