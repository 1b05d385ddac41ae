"""Checks run by git hooks (through pre-commit) and by CI: one module per hook, each driven by
its one front end, the `memkit` verb the manifest (`.pre-commit-hooks.yaml`) runs."""
