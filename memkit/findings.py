"""What a check reports: one finding per problem, printed as `path:line:col: CODE message`."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from memkit.safety.secrets import redact_secrets

# Control characters as escapes: a line break in a folder's name must not split a finding
# into a second, forged `path:line:col: CODE message` line (nor a carriage return hide one).
_ESCAPES = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F)} | {
    0x0A: "\\n",
    0x0D: "\\r",
    0x09: "\\t",
    0x2028: "\\u2028",
    0x2029: "\\u2029",
    0x85: "\\x85",
}


def printable(text: str) -> str:
    """`text` on one line, its control characters written as escapes (`\\n`, `\\x1b`)."""
    return text.translate(_ESCAPES) if not text.isprintable() else text


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Finding:
    path: str
    line: int
    col: int
    code: str
    message: str
    severity: Severity = Severity.ERROR

    def __post_init__(self) -> None:
        # A file named after a token (`shared/xoxb-….md`) must not print it, in any output
        # built from findings (pre-commit, every `memkit ci` format, the audit).

        object.__setattr__(self, "path", printable(redact_secrets(self.path)))
        object.__setattr__(self, "message", printable(redact_secrets(self.message)))

    def format(self) -> str:
        prefix = "warning: " if self.severity is Severity.WARNING else ""
        return f"{self.path}:{self.line}:{self.col}: {self.code} {prefix}{self.message}"

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR


def describe_refused(refused: Mapping[str, Sequence[str]], limit: int = 3) -> str:
    """`shared/a.md (MK110), shared/b.md (MK003), …`: files validation refuses, named by path
    and codes only, never by what they say (a secret in a file name is masked)."""
    shown = [
        f"{redact_secrets(path)} ({', '.join(codes) or 'invalid'})"
        for path, codes in sorted(refused.items())
    ]
    return ", ".join(shown[:limit]) + (", …" if len(shown) > limit else "")
