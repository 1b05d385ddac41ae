"""One line of `memkit doctor`: ok, warn or fail, what was found, and the command that fixes it.
Its own module so that the checks of every room (`memkit.doctor`, `memkit.localstate`,
`memkit.wiring_checks`, `memkit.claude.skipped`) stand on it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass

OK, WARN, FAIL = "ok", "warn", "FAIL"


@dataclass(frozen=True)
class Check:
    status: str
    name: str
    detail: str
    fix: str = ""

    def format(self) -> str:
        line = f"{self.status:<4} {self.name}: {self.detail}"
        return f"{line}\n     fix: {self.fix}" if self.fix else line
