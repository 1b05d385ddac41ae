"""The seam for checks that read what an atom says rather than how it is written.

Secrets, `<private>` blocks and prompt injection (the write gate) register here; `validate`
runs every registered check on each atom it parses, so the pre-commit hook, CI and the Claude
Code PostToolUse handler all apply them without knowing they exist.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from memkit.atom import Atom
from memkit.config import Config
from memkit.findings import Finding

ContentCheck = Callable[[Atom, str, Config], Iterable[Finding]]
"""(parsed atom, the file's full text, config) -> findings."""

CONTENT_CHECKS: list[ContentCheck] = []
_loaded = False


def _load_builtin() -> None:
    """The write gate's checks, imported on first use to keep `memkit.checks` light."""
    global _loaded  # noqa: PLW0603  (one-time registration)
    if _loaded:
        return
    _loaded = True
    from memkit.gate.injection import injection_findings  # noqa: PLC0415
    from memkit.gate.secrets import secret_findings  # noqa: PLC0415

    register(secret_findings)
    register(injection_findings)


def register(check: ContentCheck) -> ContentCheck:
    CONTENT_CHECKS.append(check)
    return check


def run_content_checks(atom: Atom, text: str, config: Config) -> list[Finding]:
    _load_builtin()
    findings: list[Finding] = []
    for check in CONTENT_CHECKS:
        findings.extend(check(atom, text, config))
    return findings
