"""Who is who: the role whitelist in `shared/_roles.md` and each person's `role.md`.

Management needs two things (the seeds' "two-way authentication"): the whitelist entry,
maintained by existing management, and the person's own declaration in
`personal/<user>/role.md`. Neither alone is enough, so nobody can crown themselves.
The whitelist is always read from a committed revision (HEAD locally, the base in CI), never
from the working tree: a commit cannot grant its own author a role.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memkit.git import output, show

if TYPE_CHECKING:
    from memkit.config import Config

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"ruamel.yaml", "ruamel.yaml.error"}


ROLES_FILE = "shared/_roles.md"
MANAGEMENT = "management"
_SLUG = re.compile(r"[^a-z0-9]+")


def slug(name: str) -> str:
    return _SLUG.sub("-", name.lower()).strip("-")


@dataclass(frozen=True)
class Member:
    user: str
    emails: tuple[str, ...]
    roles: frozenset[str]


@dataclass(frozen=True)
class RoleTable:
    members: tuple[Member, ...] = ()

    def find(self, who: str) -> Member | None:
        key = who.strip().lower()
        for member in self.members:
            if key == member.user or key in member.emails:
                return member
        return None


def parse_roles(text: str) -> RoleTable:
    """Members from a Markdown table (user | email | roles) or a fenced YAML block."""
    members: list[Member] = []
    yaml_block = re.search(r"```ya?ml\n(.*?)```", text, re.S)
    if yaml_block:
        members.extend(_from_yaml(yaml_block.group(1)))
    header: list[str] | None = None
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.lstrip().startswith("|") or len(cells) < 2:
            header = None if not line.strip() else header
            continue
        if all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
            continue
        lowered = [c.lower() for c in cells]
        if header is None and "user" in lowered and "roles" in lowered:
            header = lowered
            continue
        if header is None:
            continue
        row = dict(zip(header, cells, strict=False))
        user = slug(row.get("user", ""))
        if not user:
            continue
        emails = tuple(
            e.strip().lower() for e in re.split(r"[,\s]+", row.get("email", "")) if "@" in e
        )
        roles = frozenset(slug(r) for r in re.split(r"[,\s]+", row.get("roles", "")) if slug(r))
        members.append(Member(user, emails, roles))
    return RoleTable(tuple(members))


def _from_yaml(block: str) -> list[Member]:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        data = YAML(typ="safe", pure=True).load(block)
    except YAMLError:
        return []
    users = data.get("users") if isinstance(data, Mapping) else None
    if not isinstance(users, Mapping):
        return []
    members = []
    for name, raw in users.items():
        info = raw if isinstance(raw, Mapping) else {}
        emails = info.get("email", [])
        emails = [emails] if isinstance(emails, str) else emails
        roles = info.get("roles", [])
        roles = [roles] if isinstance(roles, str) else roles
        members.append(
            Member(
                slug(str(name)),
                tuple(str(e).lower() for e in emails),
                frozenset(slug(str(r)) for r in roles),
            )
        )
    return members


def declared_roles(root: Path, user: str) -> frozenset[str]:
    """Roles a person declares for themselves in `personal/<user>/role.md`."""
    path = root / "personal" / user / "role.md"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return frozenset()
    match = re.search(r"^roles\s*:\s*\[?([^\]\n]*)\]?", text, re.M | re.I)
    # A `roles: [a, b]` line when there is one; otherwise every word of the file counts.
    words = re.split(r"[,\s]+", match.group(1)) if match else re.findall(r"[A-Za-z][\w-]*", text)
    return frozenset(slug(w) for w in words if slug(w))


@dataclass(frozen=True)
class Identity:
    user: str
    email: str
    roles: frozenset[str]  # from the whitelist
    declared: frozenset[str]  # from the person's own role.md
    known: bool  # listed in the whitelist

    @property
    def is_management(self) -> bool:
        return MANAGEMENT in self.roles and MANAGEMENT in self.declared

    def has_role(self, role: str) -> bool:
        return role in self.roles

    def readable_scopes(self) -> frozenset[str]:
        """Scopes this person is served by recall: shared, their roles' and their own."""
        scopes = {"shared", f"personal:{self.user}"}
        scopes |= {f"role:{r}" for r in self.roles}
        return frozenset(scopes)


@dataclass(frozen=True)
class Author:
    name: str
    email: str


def git_author(root: Path, *, explicit: bool = False) -> Author | None:
    """Who git will record as the author of the next commit in `root`, or None.

    The one place memkit learns who is at the keyboard (init, add, the roles check, whoami,
    doctor): `git var GIT_AUTHOR_IDENT` applies GIT_AUTHOR_NAME/EMAIL, then user.name/email,
    exactly as `git commit` does, so memkit and git never disagree. `explicit` refuses an
    identity git would only guess from the host name (`user.useConfigOnly`).
    """
    strict = ("-c", "user.useConfigOnly=true") if explicit else ()
    ident = output(root, *strict, "var", "GIT_AUTHOR_IDENT")
    match = re.match(r"(.*?)\s*<([^>]*)>", ident or "")
    if match is None or not match.group(2).strip():
        return None
    return Author(match.group(1).strip(), match.group(2).strip().lower())


def git_email(root: Path) -> str:
    """The author email of the commit being made ("" when git has none)."""
    author = git_author(root)
    return author.email if author else ""


def identify(root: Path, who: str | None = None, *, rev: str | None = "HEAD") -> Identity:
    """The identity of `who` (user name or email; default: the git author) at revision `rev`.

    `rev=None` reads the whitelist from the working tree: only for a repository's first
    commit, which has no committed whitelist to trust yet.
    """
    who = (who or git_email(root)).strip().lower()
    if rev is None:
        path = root / ROLES_FILE
        text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    else:
        text = show(root, rev, ROLES_FILE) or ""
    table = parse_roles(text)
    member = table.find(who)
    if member is not None:
        user, roles, email = member.user, member.roles, who if "@" in who else ""
    else:
        # Not on the whitelist: still somebody, with no roles; their folder is named after them.
        user = slug(who.split("@", 1)[0]) if who else "unknown"
        roles, email = frozenset(), who if "@" in who else ""
    return Identity(user, email, roles, declared_roles(root, user), member is not None)


DEFAULT_SENSITIVE = ("architecture", "decision")


def sensitive_kinds(config: Config) -> frozenset[str]:
    """The atom types only management may write (`roles: {sensitive: [...]}`)."""
    value = config.section("roles").get("sensitive", DEFAULT_SENSITIVE)
    if isinstance(value, str):
        value = [value]
    return frozenset(str(v) for v in value) if isinstance(value, (list, tuple)) else frozenset()
