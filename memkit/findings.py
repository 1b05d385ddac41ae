"""What a check reports: one finding per problem, printed as `path:line:col: CODE message`."""

from __future__ import annotations

import enum
from dataclasses import dataclass


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

    def format(self) -> str:
        prefix = "warning: " if self.severity is Severity.WARNING else ""
        return f"{self.path}:{self.line}:{self.col}: {self.code} {prefix}{self.message}"

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR
