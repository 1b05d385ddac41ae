"""Editing the role whitelist (`shared/_roles.md`) the way a person would: one row added or
one row's cells extended, every other byte of the file kept (text, other tables, comments).

Reading it is `memkit.roles.parse_roles`; both accept a Markdown table (user | email | roles)
or a fenced YAML block with `users:`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from io import StringIO
from typing import Any

from memkit.errors import MemkitError, UsageError
from memkit.roles import parse_roles, slug

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"ruamel.yaml", "ruamel.yaml.comments", "ruamel.yaml.error"}


_YAML_BLOCK = re.compile(r"(```ya?ml\n)(.*?)(```)", re.S)
_SEPARATOR = re.compile(r":?-{2,}:?")
NEW_TABLE = "| user | email | roles |\n|------|-------|-------|\n"


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _merge(old: str, new: Sequence[str]) -> str:
    """A comma-separated cell with `new` values added, old ones kept in their order."""
    values = [v for v in re.split(r"[,\s]+", old) if v]
    values += [v for v in new if v.lower() not in {x.lower() for x in values}]
    return ", ".join(values)


def add_member(text: str, user: str, emails: Sequence[str], roles: Sequence[str]) -> str:
    """`text` with `user` listed (added, or their emails and roles extended)."""
    user = slug(user)
    if not user:
        raise UsageError("USER must be a name of letters, digits and dashes")
    for email in emails:
        if "@" not in email:
            raise UsageError(f"{email!r} is not an email address")
        other = parse_roles(text).find(email)
        if other is not None and other.user != user:
            raise MemkitError(f"{email} already belongs to `{other.user}` in the whitelist")
    emails = [e.strip().lower() for e in emails]
    roles = [slug(r) for r in roles if slug(r)]
    edited = _edit_table(text, user, emails, roles)
    if edited is None:
        edited = _edit_yaml(text, user, emails, roles)
    if edited is None:
        edited = text + ("" if text.endswith("\n") or not text else "\n")
        edited += ("\n" if edited.strip() else "") + NEW_TABLE
        edited += _row([user, ", ".join(emails), ", ".join(roles)]) + "\n"
    return edited


def _edit_table(text: str, user: str, emails: list[str], roles: list[str]) -> str | None:
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        if not lines[i].lstrip().startswith("|"):
            i += 1
            continue
        end = i
        while end < len(lines) and lines[end].lstrip().startswith("|"):
            end += 1
        header = [c.lower() for c in _cells(lines[i])]
        if "user" in header and "roles" in header:
            values = {"user": user, "email": emails, "roles": roles}
            return "".join(_edit_rows(lines, range(i, end), header, values))
        i = end
    return None


def _edit_rows(
    lines: list[str], table: range, header: list[str], member: dict[str, Any]
) -> list[str]:
    """The table's row for the member extended, or a new row added at its end."""
    user, emails, roles = member["user"], member["email"], member["roles"]
    end = table.stop
    for i in table[1:]:
        cells = _cells(lines[i])
        if all(_SEPARATOR.fullmatch(c) for c in cells if c):
            continue
        if slug(dict(zip(header, cells, strict=False)).get("user", "")) != user:
            continue
        cells += [""] * (len(header) - len(cells))
        for column, new in (("email", emails), ("roles", roles)):
            if column in header:
                index = header.index(column)
                cells[index] = _merge(cells[index], new)
        lines[i] = _row(cells) + ("\n" if lines[i].endswith("\n") else "")
        return lines
    values = {"user": user, "email": ", ".join(emails), "roles": ", ".join(roles)}
    if not lines[end - 1].endswith("\n"):
        lines[end - 1] += "\n"
    lines.insert(end, _row([values.get(column, "") for column in header]) + "\n")
    return lines


def _edit_yaml(text: str, user: str, emails: list[str], roles: list[str]) -> str | None:
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.error import YAMLError

    match = _YAML_BLOCK.search(text)
    if match is None:
        return None
    yaml = YAML(typ="rt", pure=True)
    yaml.preserve_quotes = True
    try:
        data = yaml.load(match.group(2))
    except YAMLError as exc:
        raise MemkitError(f"the YAML block of the whitelist does not parse: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("users"), dict):
        return None
    users = data["users"]
    entry = next((v for k, v in users.items() if slug(str(k)) == user), None)
    if not isinstance(entry, dict):
        entry = CommentedMap()
        users[user] = entry
    for key, new in (("email", emails), ("roles", roles)):
        old = entry.get(key)
        if isinstance(old, list):
            old.extend(v for v in new if v not in old)  # keeps the list's own style
            continue
        values = ([old] if isinstance(old, str) and old else []) + new
        values = list(dict.fromkeys(values))
        if key == "email" and len(values) == 1:
            entry[key] = values[0]
        elif values:
            seq = CommentedSeq(values)
            seq.fa.set_flow_style()
            entry[key] = seq
    out = StringIO()
    yaml.dump(data, out)
    return text[: match.start(2)] + out.getvalue() + text[match.end(2) :]
