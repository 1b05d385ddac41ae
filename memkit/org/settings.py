"""Whether the organisation's memory is used, and where it lives (`org:` in memkit.yaml).

    org:
      uri: http://milvus.example.internal:19530   # a Milvus cluster; default: the user's
                                                   # Milvus Lite file (DEFAULT_FILE)
      recall: true      # add the org's results to prompts (the warm engine only)
      search: true      # let the MCP `search` tool take `org: true`
      timeout_ms: 300   # how long a prompt waits for the org's answer (at most 1000)
      results: 2        # org atoms a prompt may get at most
      name: payments    # this repository's name in the org (default: its remote's path)

Off unless configured: without an `org:` section (or with `recall`/`search` false) no prompt
and no search ever asks Milvus. `MEMKIT_ORG_URI` overrides the uri for one person (and for
CI); the cluster's token is read from `MEMKIT_ORG_TOKEN` only, never from a committed file.
Standard library only: the warm engine reads this before deciding to import pymilvus.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memkit.errors import MemkitError

URI_ENV = "MEMKIT_ORG_URI"
TOKEN_ENV = "MEMKIT_ORG_TOKEN"  # noqa: S105  (the variable's name, not a token)
DEFAULT_FILE = "org.db"  # Milvus Lite's data folder (pymilvus knows a Lite URI by ".db")
TIMEOUT_MS = 300
# A hook waits 1.5 s for the engine before answering by itself (memkit.claude.main): the org's
# wait must end well before, or the prompt loses the team's own atoms too.
MAX_TIMEOUT_MS = 1000
RESULTS = 2
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,199}")


@dataclass(frozen=True)
class OrgSettings:
    uri: str
    token: str = ""
    recall: bool = False
    search: bool = False
    timeout: float = TIMEOUT_MS / 1000
    results: int = RESULTS
    name: str = ""  # this repository's name in the org ("" : from its remote or folder)

    @property
    def is_lite(self) -> bool:
        return is_lite(self.uri)


def data_home() -> Path:
    """The user's data folder: `$XDG_DATA_HOME/memkit`, else `~/.local/share/memkit`."""
    xdg = os.environ.get("XDG_DATA_HOME", "").strip()
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    return base / "memkit"


def default_uri() -> str:
    return str(data_home() / DEFAULT_FILE)


def is_lite(uri: str) -> bool:
    """A Milvus Lite file (a path ending in .db), as pymilvus tells them from servers."""
    return not re.match(r"^(https?|tcp|unix):", uri) and uri.endswith(".db")


def resolve_uri(given: str | None, configured: str | None = None) -> str:
    """The org's URI as pymilvus takes it (a Lite path made absolute, a server URI as it is):
    `given` (a command's --uri), else MEMKIT_ORG_URI, else `configured` (memkit.yaml), else
    the user's Lite file; anything else is refused with the forms accepted."""
    env = os.environ.get(URI_ENV, "")
    chosen = (given or env or configured or "").strip() or default_uri()
    if re.match(r"^(https?|tcp)://[^/\s]+", chosen) or chosen.startswith("unix:"):
        return chosen
    if chosen.endswith(".db"):
        return str(Path(chosen).expanduser().absolute())
    raise MemkitError(
        f"org uri {chosen!r}: give a Milvus Lite file ending in .db, or a server as "
        "http://HOST:PORT (https:// with TLS)"
    )


def _flag(data: Mapping[str, Any], key: str, where: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise MemkitError(f"{where}: `org.{key}` must be true or false, got {value!r}")
    return value


def org_settings(section: Mapping[str, Any], where: str = "memkit.yaml") -> OrgSettings | None:
    """The `org:` section of memkit.yaml as settings; None when there is none (org off)."""
    if not section:
        return None
    uri = section.get("uri")
    if uri is not None and not isinstance(uri, str):
        raise MemkitError(f"{where}: `org.uri` must be a string")
    timeout = section.get("timeout_ms", TIMEOUT_MS)
    results = section.get("results", RESULTS)
    for key, value in (("timeout_ms", timeout), ("results", results)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise MemkitError(f"{where}: `org.{key}` must be a whole number >= 0")
    if timeout > MAX_TIMEOUT_MS:
        raise MemkitError(
            f"{where}: `org.timeout_ms` is at most {MAX_TIMEOUT_MS}: a prompt's hook waits "
            "1.5 s for the engine, the org's wait must end well before"
        )
    name = section.get("name", "")
    if not isinstance(name, str) or (name and not _NAME.fullmatch(name)):
        raise MemkitError(f"{where}: `org.name` must be letters, digits and . _ / -")
    return OrgSettings(
        uri=resolve_uri(None, uri),
        token=os.environ.get(TOKEN_ENV, ""),
        recall=_flag(section, "recall", where),
        search=_flag(section, "search", where),
        timeout=timeout / 1000,
        results=results,
        name=name,
    )


def settings_for(uri: str | None, configured: OrgSettings | None = None) -> OrgSettings:
    """Settings for a command given `--uri` (or none), over the repository's own."""
    base = configured or OrgSettings(uri=resolve_uri(None))
    if not uri:
        return base
    return OrgSettings(**{**base.__dict__, "uri": resolve_uri(uri)})


def check_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise MemkitError(
            f"repository name {name!r}: use letters, digits and . _ / - (at most 200)"
        )
    return name
