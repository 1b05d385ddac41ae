#!/usr/bin/env bash
# The project's one test command: install into .venv, then lint, type-check and run pytest.
# CI runs exactly this (via .ci/run) on a clean clone.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'

# The real Claude Code CLI for tests/claude/real_cli_test.py, from the npm registry (pinned).
CLAUDE_VERSION=2.1.197
if [ ! -x .cache/claude-code/node_modules/.bin/claude ] \
   || ! .cache/claude-code/node_modules/.bin/claude --version 2>/dev/null | grep -q "$CLAUDE_VERSION"; then
  mkdir -p .cache/claude-code
  npm install --loglevel error --no-audit --no-fund --prefix .cache/claude-code \
    "@anthropic-ai/claude-code@$CLAUDE_VERSION"
fi

# The other agents' real CLIs for tests/agents/real_cli_test.py, from the npm registry (pinned),
# each in .cache/<agent>/ (docs/agents.md). Copilot CLI's tests need only its documented files.
install_cli() {  # folder, package, version, the binary's name
  if [ ! -x ".cache/$1/node_modules/.bin/$4" ] \
     || ! grep -q "\"version\": \"$3\"" ".cache/$1/node_modules/$2/package.json" 2>/dev/null; then
    mkdir -p ".cache/$1"
    npm install --loglevel error --no-audit --no-fund --prefix ".cache/$1" "$2@$3"
  fi
}
install_cli codex @openai/codex 0.171.0 codex
install_cli gemini-cli @google/gemini-cli 0.61.0 gemini
install_cli opencode opencode-ai 1.18.33 opencode

# Headless Chromium for tests/site/browser_test.py and layout_test.py: Debian's package (no
# browser download), and a small Chinese font (fonts-wqy-microhei, ~5 MB), without which
# Chinese text is drawn as boxes and layout_test.py cannot check that it is not.
# (fc-list's output is captured, not piped: under pipefail a reader that stops early would
# make a machine with the font look as if it had none.)
if { ! command -v chromium >/dev/null 2>&1 || [ -z "$(fc-list :lang=zh 2>/dev/null || true)" ]; } \
   && command -v apt-get >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  { $SUDO apt-get update -qq \
    && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-microhei \
       </dev/null >/dev/null; } \
    || echo "warning: could not install chromium or a CJK font: the site's browser tests fail \
under CI=true" >&2
fi

# The tests run git hooks through pre-commit, which look for `memkit` on PATH.
export PATH="$PWD/.venv/bin:$PATH"
# The suite starts memkit in thousands of processes (every hook of every commit). An editable
# install is not byte-compiled, and where PYTHONDONTWRITEBYTECODE is set (this machine's image
# sets it) each of them compiled memkit's modules from source again: ~0.1 s a process, ~25 %
# of a commit through the hooks.
unset PYTHONDONTWRITEBYTECODE
.venv/bin/python -m compileall -q memkit

ruff check .
ruff format --check memkit tests
mypy
# One worker per core, at most 4; a file's tests stay on one worker, so its module-scoped
# repositories are built once. `bash scripts/test.sh -n 0` runs them in this process.
pytest -n auto --maxprocesses 4 --dist loadfile --durations=25 "$@"
