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
# For each check that only ever warns under some settings: whether it may refuse (report an
# error) under these. Admission, which needs errors only, skips it otherwise.
MAY_REFUSE: dict[ContentCheck, Callable[[Config], bool]] = {}
_loaded = False


def _load_builtin() -> None:
    """The write gate's checks, imported on first use to keep `memkit.checks` light."""
    global _loaded  # noqa: PLW0603  (one-time registration)
    if _loaded:
        return
    _loaded = True
    from memkit.gate.injection import injection_findings, injection_mode  # noqa: PLC0415
    from memkit.gate.secrets import secret_findings  # noqa: PLC0415

    register(secret_findings)
    register(injection_findings, may_refuse=lambda config: injection_mode(config) == "fail")


def register(
    check: ContentCheck, *, may_refuse: Callable[[Config], bool] | None = None
) -> ContentCheck:
    CONTENT_CHECKS.append(check)
    if may_refuse is not None:
        MAY_REFUSE[check] = may_refuse
    return check


def registered() -> list[str]:
    """The registered checks by name: what a kept verdict (`memkit.index.verdicts`) was
    reached with."""
    _load_builtin()
    return [f"{check.__module__}.{check.__qualname__}" for check in CONTENT_CHECKS]


def run_content_checks(
    atom: Atom, text: str, config: Config, *, errors_only: bool = False
) -> list[Finding]:
    """Every registered check's findings; `errors_only` skips the checks that can only warn
    under `config` (the index build asks only what refuses an atom)."""
    _load_builtin()
    findings: list[Finding] = []
    for check in CONTENT_CHECKS:
        if errors_only and check in MAY_REFUSE and not MAY_REFUSE[check](config):
            continue
        findings.extend(check(atom, text, config))
    return findings
