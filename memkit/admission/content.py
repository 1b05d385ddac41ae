"""The seam for checks that read what an atom says rather than how it is written.

Secrets, `<private>` blocks and prompt injection (the write gate) register here; `validate`
runs every registered check on each atom it parses, so the pre-commit hook, CI and the Claude
Code PostToolUse handler all apply them without knowing they exist.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from memkit.atom import Atom
from memkit.config import Config
from memkit.errors import MemkitError
from memkit.findings import Finding, Severity
from memkit.safety.catalogue import Catalogue, CatalogueError, for_section
from memkit.safety.invisible import harmless
from memkit.safety.secrets import PRIVATE_TAG, find_secrets

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.safety.injection"}


ContentCheck = Callable[[Atom, str, Config], Iterable[Finding]]
"""(parsed atom, the file's full text, config) -> findings."""

CONTENT_CHECKS: list[ContentCheck] = []
# For each check that only ever warns under some settings: whether it may refuse (report an
# error) under these. Admission, which needs errors only, skips it otherwise.
MAY_REFUSE: dict[ContentCheck, Callable[[Config], bool]] = {}
_loaded = False


def _load_builtin() -> None:
    """The write gate's checks, registered on first use (the injection module imported then,
    to keep `memkit.admission` light)."""
    global _loaded  # noqa: PLW0603  (one-time registration)
    if _loaded:
        return
    _loaded = True
    from memkit.safety.injection import injection_mode

    register(secret_findings)
    register(injection_findings, may_refuse=lambda config: injection_mode(config) == "fail")
    register(invisible_findings, may_refuse=lambda config: False)


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


def catalogue(config: Config) -> Catalogue:
    """The secret catalogue with the team's `secrets:` of memkit.yaml added."""
    try:
        return for_section(config.section("secrets"))
    except CatalogueError as exc:
        raise MemkitError(f"memkit.yaml: secrets: {exc}") from exc


def secret_findings(atom: Atom, text: str, config: Config) -> Iterator[Finding]:
    known = catalogue(config)
    for hit in find_secrets(atom.path, known):
        yield Finding(
            atom.path,  # shown redacted, as every path (see Finding)
            1,
            1,
            "MK110",
            f"possible secret in the file name ({hit.kind}: {hit.redacted}); rename the file "
            "(and its id) and rotate the secret if it was real",
        )
    for hit in find_secrets(text, known):
        yield Finding(
            atom.path,
            hit.line,
            hit.col,
            "MK110",
            f"possible secret ({hit.kind}: {hit.redacted}); remove it and rotate it "
            "if it was real: memory is copied to every clone",
        )
    if PRIVATE_TAG.search(text) is None:
        return
    for number, line in enumerate(text.split("\n"), start=1):
        m = PRIVATE_TAG.search(line)
        if m:
            yield Finding(
                atom.path,
                number,
                m.start() + 1,
                "MK111",
                "<private> block in a committed atom; private notes belong in "
                "personal/<you>/ (gitignored) or nowhere",
            )


def injection_findings(atom: Atom, text: str, config: Config) -> Iterator[Finding]:
    from memkit.safety.injection import (
        injection_allowed,
        injection_mode,
        reviewed_hits,
        where,
    )

    mode = injection_mode(config)
    if mode == "off":
        return
    severity = Severity.ERROR if mode == "fail" else Severity.WARNING
    refused, held = reviewed_hits(text, injection_allowed(config))
    refusal = (
        "memory is read by every teammate's agent: write facts, not orders to the agent (if "
        "this is a fact the check misreads, the team can allow the phrase: `gate: "
        "{injection_allow: [...]}` in memkit.yaml)"
    )
    warning = (
        "a person reads it before teammates' agents do: in shared/ it waits for review in "
        "shared/_pending/ (MK204) unless management writes it, and a fact or a rule for "
        "people is approved as it is"
        if mode == "fail"
        else "a person should read it before teammates' agents do (a fact or a rule for "
        "people is fine as it is)"
    )
    said = [(h, f"possible prompt injection: {h.what}; {refusal}", severity) for h in refused]
    said += [
        (h, f"possibly an order to the agent: {h.what}; {warning}", Severity.WARNING) for h in held
    ]
    for hit, message, level in said:
        line, col = where(text, hit.start)
        yield Finding(atom.path, line, col, "MK112", message, level)


def invisible_findings(atom: Atom, text: str, config: Config) -> Iterator[Finding]:
    """MK113: invisible characters that hide nothing (pasted with web text), said once an atom;
    the ones that hide something are MK112."""
    del config
    found = harmless(text)
    if not found:
        return
    first = found[0]
    line = text.count("\n", 0, first.start) + 1
    col = first.start - (text.rfind("\n", 0, first.start) + 1) + 1
    codes = sorted({f"U+{ord(c):04X}" for inv in found for c in text[inv.start : inv.end]})
    yield Finding(
        atom.path,
        line,
        col,
        "MK113",
        f"{len(found)} invisible character(s) ({', '.join(codes)}) between or inside words, "
        "as pasted web text brings them: harmless, and left out of what memkit writes; "
        "`memkit validate --fix` removes them from this file",
        Severity.WARNING,
    )
