"""What an atom states that a code project could confirm: its concrete claims.

- `path`: a file or folder it names (`src/net/conn.py`, `docs/`, `Makefile`), and each glob of
  its `paths:` (`glob`);
- `value`: a config key with a value (`max_retries: 5`, `PORT=8080`, "`workers` is 4"), with
  the config file named beside it when there is one;
- `command`: a target or script a command runs (`make deploy-staging`, `npm run build`,
  `just lint`, `nox -s docs`);
- `version`: a tool or package at a version ("Python 3.9+", `requests>=2.31`, "React 18").

Only what is written as such: paths and commands in code spans and code blocks (a path in
prose only when it cannot be a word: a folder with a file's extension, `setup.py`), values
in code or after a key in a code span. Everything else in an atom is no claim at all.
Standard library only; ~20 us a line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from memkit.atom.plain import read_strings
from memkit.drift.commandline import PROMPT, commands_in
from memkit.drift.versionwords import versions_in

PATH, GLOB, VALUE, COMMAND, VERSION = "path", "glob", "value", "command", "version"
KINDS = (PATH, GLOB, VALUE, COMMAND, VERSION)


class Claim(NamedTuple):
    """One thing an atom states about code. A tuple: tens of thousands are made per run, from
    the cache, and compared and hashed as keys."""

    kind: str
    text: str  # as the atom says it, for messages
    line: int  # in the atom file, from 1
    col: int
    path: str = ""  # path, glob; for a value the config file named ("": found by search)
    key: str = ""  # value: the key; command: the target or script; version: the name
    value: str = ""  # value: the value; version: the version
    tool: str = ""  # command: make, npm, just, ...; version: ">=" for "at least", else ""

    def as_list(self) -> list[object]:
        return list(self)

    @property
    def bare(self) -> Claim:
        """The claim without where an atom wrote it: what is checked."""
        return Claim(self[0], self[1], 0, 0, self[4], self[5], self[6], self[7])


def claim_of(data: list[Any]) -> Claim:
    """A claim as `as_list` wrote it (JSON keeps its strings and numbers)."""
    if len(data) != 8 or not isinstance(data[2], int):
        raise ValueError(f"not a claim: {data!r}")
    return Claim._make(data)


# Extensions that make a word a file name, and names that are files whatever their case.
CODE_EXT_WORDS = (
    "py pyi pyx js mjs cjs ts tsx jsx go rs java kt kts rb php c h cc cpp hpp cs swift m "
    "mm sh bash zsh fish ps1 bat cmd lua pl pm r ex exs erl hrl hs ml scala clj dart vue "
    "svelte sql proto graphql gql tf hcl nix mk cmake gradle groovy j2 jinja tmpl tpl "
    "html htm css scss sass less xml xsd wsdl md rst txt adoc ipynb csv tsv lock in png "
    "svg jpg gif"
)
CODE_EXT = frozenset(CODE_EXT_WORDS.split())
CONFIG_EXT = frozenset(
    ["yaml", "yml", "toml", "json", "jsonc", "json5", "ini", "cfg", "conf", "env", "properties"]
)
FILE_NAMES_WORDS = (
    "makefile gnumakefile dockerfile containerfile jenkinsfile procfile gemfile rakefile "
    "vagrantfile justfile brewfile pipfile license licence copying readme changelog "
    "codeowners .env .gitignore .dockerignore .editorconfig .nvmrc .node-version "
    ".python-version .ruby-version .tool-versions .npmrc .gitattributes "
    ".pre-commit-config.yaml .env.example .env.sample .env.local"
)
FILE_NAMES = frozenset(FILE_NAMES_WORDS.split())
CONFIG_NAMES = frozenset([".env", ".npmrc", ".editorconfig"])
# Names of frameworks written like files ("Node.js", "Vue.js"): prose, not paths.
_PROSE_JS = re.compile(r"[A-Z][A-Za-z0-9]*\.js")

_SPAN = re.compile(r"(`+)(.+?)\1")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)(.*)$")
_WORD = re.compile(r"[^\s`'\"()\[\]{}<>,;|]+")
_SEGMENT = re.compile(r"\.?[\w@+-][\w.@+-]*")  # a dotfile too: `.travis.yml`
_NUMERIC = re.compile(r"[\d.]+")
_EXT = re.compile(r"\.([A-Za-z0-9]+)$")

SHELL_LANGS_WORDS = "sh bash shell console zsh shell-session terminal cmd powershell ps1"
SHELL_LANGS = frozenset(SHELL_LANGS_WORDS.split())
CONFIG_LANGS = frozenset(
    ["yaml", "yml", "toml", "ini", "env", "dotenv", "properties", "json", "jsonc", "cfg", "conf"]
)


def is_config_path(path: str) -> bool:
    name = path.rsplit("/", 1)[-1].lower()
    ext = _EXT.search(name)
    return (
        (ext is not None and ext.group(1) in CONFIG_EXT)
        or name in CONFIG_NAMES
        or name.startswith(".env")
        or name.endswith(".env")
    )


# Names of files that are also words ("license", "changelog"): in prose only as written here.
_PROSE_NAMES_WORDS = (
    "Makefile GNUmakefile Dockerfile Containerfile Jenkinsfile Procfile Gemfile Rakefile "
    "Vagrantfile Brewfile Pipfile justfile Justfile"
)
_PROSE_NAMES = frozenset(_PROSE_NAMES_WORDS.split())


def _is_file_name(name: str, *, code: bool = True) -> bool:
    low = name.lower()
    if low in FILE_NAMES:
        return code or "." in name or name in _PROSE_NAMES or name.isupper()
    if re.fullmatch(r"\.[A-Za-z][\w-]{2,}", name):
        return True  # a dotfile: `.coveragerc`, `.bandit`
    ext = _EXT.search(low)
    stem = low[: ext.start()] if ext else ""
    return (
        ext is not None
        and (ext.group(1) in CODE_EXT or ext.group(1) in CONFIG_EXT)
        and bool(stem.strip("."))
        and not _NUMERIC.fullmatch(stem)
    )


def path_of(word: str, *, code: bool) -> tuple[str, str] | None:
    """(kind, path) when `word` names a file, folder or glob; `code`: it stood in a code span
    or block, where a folder without an extension counts too."""
    word = word.rstrip(".,:;!?")
    if word.startswith("./"):
        word = word[2:]
    if not word or len(word) > 200 or word[0] in "/~$%<{-=#@&" or "://" in word:
        return None
    if any(c in word for c in "${}<>=\\:") or word.startswith("..") or "/../" in word:
        return None
    if "*" in word or "?" in word:
        if not code or ("/" not in word.strip("/") and "." not in word):
            return None
        return GLOB, word
    parts = word.rstrip("/").split("/")
    if not all(_SEGMENT.fullmatch(p) for p in parts):
        return None
    if all(_NUMERIC.fullmatch(p) for p in parts):
        return None  # a date, a fraction, a version
    if len(parts) == 1:
        if word.endswith("/"):
            return (PATH, word) if code and len(word) > 2 else None
        if not _is_file_name(word, code=code):
            return None
        if not code and _PROSE_JS.fullmatch(word):
            return None
        return PATH, word
    if _is_file_name(parts[-1]) or word.endswith("/") or code:
        return PATH, word
    return None


@dataclass
class _Place:
    """The config file an atom last named, and where: a value below it is about that file."""

    path: str = ""
    line: int = 0


_ASSIGN = re.compile(
    r"""^\s*(?:export\s+|ENV\s+|set\s+)?["']?(?P<key>[A-Za-z_][\w.-]*[\w])["']?\s*"""
    r"""(?P<op>:|=)\s*(?P<value>.*?)\s*,?\s*$"""
)
_SCHEMES_WORDS = "http https ftp ssh git file mailto tcp udp ws wss redis postgres mysql"
_SCHEMES = frozenset(_SCHEMES_WORDS.split())
_KEY_SHAPED = re.compile(
    r"[a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+"
)
_PROSE_VALUE = re.compile(
    r"^\s*(?:is|are|=|:|equals|is set to|set to|defaults to|default(?:s)? is|of)\s+"
    r"(?:`(?P<code>[^`]+)`|\"(?P<dq>[^\"]*)\"|'(?P<sq>[^']*)'|"
    r"(?P<word>-?\d+(?:\.\d+)?(?:\s?(?:ms|s|m|h|d|kb|mb|gb|%))?(?![\w.])|true|false|on|off|yes|no|null|none)(?![\w-]))",
    re.I,
)
_SET_TO = re.compile(r"\bset\s+$", re.I)


def _clean_value(raw: str) -> str | None:
    value = raw.strip()
    if value.startswith("#") or not value:
        return None
    if value[0] in "\"'" and len(value) >= 2 and value[-1] == value[0]:
        return value[1:-1]
    if value[0] in "\"'":
        return None
    value = re.split(r"\s+#", value, maxsplit=1)[0].strip().rstrip(",")
    if value.startswith("[") and value.endswith("]"):
        return _flow_list(value)
    if (
        not value
        or " " in value
        or value in ("|", ">", "{", "[", "|-", ">-")
        or value.startswith("//")
    ):
        return None
    if value.startswith("{") or value.startswith("&") or value.startswith("*"):
        return None
    if value.startswith("["):
        return _flow_list(value)
    return value


def _flow_list(value: str) -> str | None:
    """`[3.9, "3.10"]` as `[3.9, 3.10]`: a list of plain values, compared as a set."""
    if not value.endswith("]"):
        return None
    items = [i.strip().strip("\"'") for i in value[1:-1].split(",")]
    if not items or any(not i or any(c in i for c in "[]{}") for i in items):
        return None
    return "[" + ", ".join(items) + "]"


def _assignment(text: str) -> tuple[str, str] | None:
    """(key, value) of `key: value`, `key = value`, `KEY=value`, `"key": value`."""
    found = _ASSIGN.match(text)
    if found is None:
        return None
    key, op, value = found.group("key"), found.group("op"), found.group("value")
    if key.lower() in _SCHEMES or key.isdigit() or not re.search(r"[A-Za-z]", key):
        return None
    if (
        op == "="
        and " " in text.split("=", 1)[0].strip()
        and not text.lstrip().startswith(("export", "ENV", "set"))
    ):
        return None
    cleaned = _clean_value(value)
    if cleaned is not None and cleaned[0] in "=<>~!^":
        return None  # `requests==2.31`: a pinned version, not a setting
    return (key, cleaned) if cleaned is not None else None


def _meta_paths(lines: list[str], end: int) -> list[Claim]:
    meta = read_strings("\n".join(lines[1:end])) or {}
    globs = meta.get("paths")
    if isinstance(globs, str):
        globs = [globs]
    if not isinstance(globs, list):
        return []
    line = next((i + 1 for i in range(1, end) if lines[i].startswith("paths:")), 1)
    out = []
    for written in globs:
        glob = written.strip().removeprefix("./")
        if glob and not glob.startswith(("/", "~", "!")):
            out.append(
                Claim(GLOB if "*" in glob or "?" in glob else PATH, glob, line, 1, path=glob)
            )
    return out


class _Reader:
    def __init__(self) -> None:
        self.out: list[Claim] = []
        self.seen: set[tuple[str, str, str, str, str]] = set()
        self.place = _Place()

    def add(self, claim: Claim) -> None:
        key = (claim.kind, claim.path, claim.key, claim.value, claim.tool)
        if key not in self.seen:
            self.seen.add(key)
            self.out.append(claim)

    def config_near(self, line: int, within: int = 0) -> str:
        """The config file named on this line, or `within` lines above it."""
        return self.place.path if self.place.path and line - self.place.line <= within else ""

    def paths(self, text: str, line: int, col: int, *, code: bool) -> None:
        for found in _WORD.finditer(text):
            got = path_of(found.group(0), code=code)
            if got is None:
                continue
            kind, path = got
            self.add(Claim(kind, path, line, col + found.start(), path=path))
            if kind == PATH and is_config_path(path):
                self.place = _Place(path, line)

    def commands(self, text: str, line: int, col: int) -> None:
        for tool, name, folder in commands_in(text):
            shown = {
                "make": "make ",
                "npm": "npm run ",
                "just": "just ",
                "nox": "nox -s ",
                "tox": "tox -e ",
                "entry": "",
            }.get(tool, f"{tool} run ")
            self.add(Claim(COMMAND, f"{shown}{name}", line, col, path=folder, key=name, tool=tool))

    def versions(self, text: str, line: int, col: int, *, code: bool) -> None:
        for name, version, op, at in versions_in(text, code=code):
            self.add(
                Claim(
                    VERSION,
                    f"{name} {op}{version}",
                    line,
                    col + at,
                    key=name,
                    value=version,
                    tool=op,
                )
            )

    def value(self, key: str, value: str, line: int, col: int, *, file: str = "") -> None:
        where = file or self.config_near(line)
        self.add(Claim(VALUE, f"{key}: {value}", line, col, path=where, key=key, value=value))


def claims_of(text: str) -> list[Claim]:
    """The claims of an atom file (frontmatter and body), in the order they are written."""
    lines = text.replace("\r\n", "\n").split("\n")
    reader = _Reader()
    start = 0
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), 0)
        if end:
            for claim in _meta_paths(lines, end):
                reader.add(claim)
            start = end + 1
    block: _Block | None = None
    for number in range(start, len(lines)):
        raw = lines[number]
        line = number + 1
        opened = _FENCE.match(raw)
        if block is not None:
            if opened and raw.strip().startswith(block.fence) and not opened.group(2):
                block = None
                continue
            _code_line(reader, raw, line, block)
            continue
        if opened:
            title = re.search(r"""(?:title|file(?:name)?)=["']?([^"'\s]+)""", opened.group(3))
            # The file a block shows: its title, or the one the two lines above it name.
            file = title.group(1) if title else reader.config_near(line, within=2)
            block = _Block(opened.group(1), opened.group(2).lower(), file)
            continue
        _prose_line(reader, raw, line)
    return reader.out


@dataclass
class _Block:
    fence: str
    lang: str
    file: str
    stack: list[tuple[int, str]] = field(default_factory=list)  # open YAML keys: (indent, key)


def _code_line(reader: _Reader, raw: str, line: int, block: _Block) -> None:
    stripped = raw.strip()
    lang, stack = block.lang, block.stack
    if not stripped:
        return
    if stripped.startswith(("#", "//", ";")):
        named = path_of(stripped.lstrip("#/; ").split(" ")[0], code=True)
        if named and named[0] == PATH and is_config_path(named[1]):
            block.file = named[1]  # `# config/worker.yaml` heading a block
        return
    reader.paths(raw, line, 1, code=True)
    if lang in SHELL_LANGS or (not lang and PROMPT.match(raw)):
        reader.commands(raw, line, 1)
        return
    if lang in CONFIG_LANGS or not lang:
        indent = len(raw) - len(raw.lstrip(" "))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        opens = re.fullmatch(r"\s*([A-Za-z_][\w.-]*):\s*(#.*)?", raw)
        if opens and lang in ("yaml", "yml", ""):
            stack.append((indent, opens.group(1)))
            return
        found = _assignment(raw.strip().lstrip("- "))
        if found is not None:
            key = (
                ".".join([k for _, k in stack] + [found[0]])
                if lang in ("yaml", "yml", "")
                else found[0]
            )
            reader.value(key, found[1], line, indent + 1, file=block.file)
        return
    if not lang or lang in ("makefile", "make"):
        return
    reader.commands(raw, line, 1) if PROMPT.match(raw) else None


def _prose_line(reader: _Reader, raw: str, line: int) -> None:
    spans = [(m.start(2), m.group(2)) for m in _SPAN.finditer(raw)]
    prose = _SPAN.sub(lambda m: " " * len(m.group(0)), raw)
    # Paths first: a config file named on the line is where its values are.
    for col, span in spans:
        reader.paths(span, line, col + 1, code=True)
    reader.paths(prose, line, 1, code=False)
    for col, span in spans:
        reader.commands(span, line, col + 1)
        reader.versions(span, line, col + 1, code=True)
        found = _assignment(span)
        if found is not None:
            reader.value(found[0], found[1], line, col + 1)
    for run in re.finditer(r"\b(?:npm|yarn|pnpm|bun)\s+run\s+([\w:.-]+)", prose):
        reader.commands(run.group(0), line, run.start() + 1)
    reader.versions(prose, line, 1, code=False)
    # "`max_retries` is 5", "set `workers` to 4": a key in a code span, its value after it.
    for m in _SPAN.finditer(raw):
        key = m.group(2).strip()
        if not re.fullmatch(r"[A-Za-z_][\w.-]*", key):
            continue
        after = raw[m.end() :]
        before = raw[: m.start()]
        if _SET_TO.search(before):
            to = re.match(r"^\s*to\s+(.*)$", after)
            after = f"is {to.group(1)}" if to else ""
        said = _PROSE_VALUE.match(after)
        if said is None:
            continue
        value = said.group("code") or said.group("dq") or said.group("sq") or said.group("word")
        if value is not None and value.strip() and len(value) <= 80:
            reader.value(key, value.strip(), line, m.start(2) + 1)
    # A key shaped as one (`snake_case`, `SCREAMING_CASE`) written bare before its value.
    for m in re.finditer(
        r"(?<![\w`.-])([A-Za-z_][\w.-]*)(?=\s+(?:is|=|:|defaults to|set to)\s)", prose
    ):
        if not _KEY_SHAPED.fullmatch(m.group(1)):
            continue
        said = _PROSE_VALUE.match(raw[m.end() :])
        if said is None:
            continue
        value = said.group("code") or said.group("dq") or said.group("sq") or said.group("word")
        if value:
            reader.value(m.group(1), value.strip(), line, m.start() + 1)
