"""The versions an atom states: a pinned requirement (`requests==2.31`, `react@^18.2.0`,
`click >= 7`, a Go module's `v1.0.3`) or a runtime or package named before a number
("Python 3.9+", "Node.js 18 or later", "React 18.2"). A prose sentence about the past or a
change ("dropped Python 2", "upgrade from React 16") states nothing about now.
"""

from __future__ import annotations

import re

# Versions: a name, then a version (with "+", ">=", "or later" for "at least").
_RUNTIMES = {
    "python": "python",
    "python3": "python",
    "cpython": "python",
    "node": "node",
    "node.js": "node",
    "nodejs": "node",
    "go": "go",
    "golang": "go",
    "rust": "rust",
    "ruby": "ruby",
    "deno": "deno",
    "bun": "bun",
}
_VERSION = r"v?(?P<version>\d+(?:\.\d+){0,3}(?:(?:a|b|rc|alpha|beta|dev|post)\.?\d*)?)(?:\.\*)?"
_PINNED = re.compile(
    r"(?<![\w./@-])(?P<name>@?[A-Za-z][\w.-]*(?:/[\w.-]+)?)(?:\[[\w,.-]+\])?\s*"
    r"(?P<op>==|>=|~=|\^|~|@[\^~]?|@>=)\s*" + _VERSION + r"(?![\w.])"
)
# A Go module as go.mod requires it: `github.com/spf13/pflag v1.0.3`.
_GO_MODULE = re.compile(
    r"(?<![\w./-])(?P<name>[\w-]+(?:\.[\w-]+)+/[\w./-]+)\s+v(?P<version>\d+(?:\.\d+){0,2}[\w.+-]*)"
)
_NAMED = re.compile(
    r"(?<![\w./@-])(?P<name>[A-Za-z][\w.+-]*)\s+(?:version\s+|v)?(?P<op>>=\s*)?"
    r"(?P<version>\d+(?:\.\d+){0,3})(?P<plus>\+|\s+or\s+(?:later|newer|higher|above|greater))?"
    r"(?![\w%/:-]|\.\w|\s*(?:%|percent|times|seconds|minutes|hours|days|ms|s\b|MB|GB|KB|px))",
)
_NOT_NAMES_WORDS = (
    "a an the version versions step steps chapter section part phase level line lines "
    "page pages table figure issue issues pr item items and or of in on at to for by from "
    "with is are was be up to than over under about around after before every each per "
    "top last first since until use uses using requires require required needs need "
    "supports support run runs port ports retries timeout timeouts days hours minutes "
    "seconds weeks months years times users people workers threads bytes kb mb gb tb ms "
    "rfc iso pep utf http https tls ssl ipv h"
)
_NOT_NAMES = frozenset(_NOT_NAMES_WORDS.split())


# A sentence that says what no longer is, or was: its versions are no claim about now.
_NOT_NOW = re.compile(
    r"\b(?:no longer|dropped|drop|removed|deprecated|used to|formerly|previously|instead of|"
    r"legacy|compat(?:ibility)?|migrat\w*|upgrad\w*|from \S+ to|before|until|not|n't|never)\b",
    re.I,
)


def versions_in(text: str, *, code: bool) -> list[tuple[str, str, str, int]]:
    """(name, version, op, offset) for each pinned or named version in `text`."""
    out: list[tuple[str, str, str, int]] = []
    taken: set[int] = set()
    if not code and _NOT_NOW.search(text):
        return out
    for found in _PINNED.finditer(text):
        op = found.group("op")
        name = found.group("name")
        if op.startswith("@") and not (name.startswith("@") or code):
            continue  # an e-mail address, a mention
        at_least = op.lstrip("@") in (">=", "^", "~=", "~")
        out.append((name.lower(), found.group("version"), ">=" if at_least else "", found.start()))
        taken.update(range(found.start(), found.end()))
    for found in _GO_MODULE.finditer(text) if code else ():
        out.append((found.group("name").lower(), found.group("version"), "", found.start()))
        taken.update(range(found.start(), found.end()))
    for found in _NAMED.finditer(text):
        if found.start() in taken:
            continue
        name = found.group("name").lower()
        if name in _NOT_NAMES or (len(name) < 2 and name not in _RUNTIMES):
            continue
        runtime = _RUNTIMES.get(name)
        if (
            runtime is None
            and not code
            and not found.group("name")[0].isupper()
            and name not in _RUNTIMES
        ):
            # Prose says "React 18", "Django 4.2": a lower-case word before a number rarely
            # names a package.
            continue
        if (
            runtime is None
            and not code
            and "." not in found.group("version")
            and len(found.group("version")) > 2
        ):
            continue  # "Incident 2041", "Atom 3081": a number, not a package's major version
        op = ">=" if found.group("op") or found.group("plus") else ""
        out.append((runtime or name, found.group("version"), op, found.start()))
    return out
