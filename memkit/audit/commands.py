"""Command lines in a pair of lines: which program a line runs, its arguments, the branch a
git command names, and when two spans at a command's head run one job.

A substituted word on a command line is a value of that command (`python3 -m venv env` /
`… .venv`), where the same word in prose may be another wording.
"""

from __future__ import annotations

import re

from memkit.audit import lexicon as lx
from memkit.audit import tokens as tk

# Programs a command line starts with, beside the tools of `memkit.audit.lexicon`.
_COMMANDS = lx.word_set(
    "uvx npx pnpx bunx python python3 node deno pip3 cargo rustc go java mvn dotnet ruby gem "
    "bundle rake php composer swift xcodebuild flutter dart docker kubectl sudo cd ls cp mv rm "
    "mkdir chmod curl wget export source tox nox hatch pdm rye just task"
)
# A program a command line starts with: a tool, or a command of the shell or a language.
PROGRAMS = lx.TOOLS | _COMMANDS


def command_object(toks: tuple[tk.Token, ...], first: int, end: int) -> int:
    """Where a command line's object ends: its subcommand and the first argument after it
    ("npm run `build:all`", "pip install browser-use") name which command this is; a value
    after a flag (`-p ruff_cli`, `-g react-devtools@4`) is a value. `first` when none."""
    sub = first + 1
    if sub >= end or toks[sub].kind not in ("word", "stop"):
        return first
    arg = sub + 1
    while arg < end and toks[arg].kind in ("stop", "glue"):
        arg += 1
    value = toks[arg].kind in tk.VALUE if arg < end else True  # a file or a command is a value
    if arg < end and not value and toks[arg - 1].kind != "flag":
        return arg + 1
    return sub + 1


# Programs that run another's job: one for another at a command's head is the same command.
RUNNERS = lx.word_set(
    "npm pnpm yarn bun npx pnpx bunx yarnpkg uv uvx pip pipx poetry pdm hatch rye pipenv "
    "conda python python3 node deno tsx ts-node make just task"
)


def same_command(xa: list[tk.Token], xb: list[tk.Token], cue: str) -> bool:
    """Two spans at a command's head that run one job: one runner for another, or the same
    words joined otherwise (`test --watch` / `test-watch`)."""
    ca, cb = tk.content_of(xa), tk.content_of(xb)
    if not ca or not cb:
        return False
    if len(ca) == len(cb) == 1 and ca[0].norm in RUNNERS and cb[0].norm in RUNNERS:
        return True
    if cue != "command" and not any(t.kind == "flag" for t in (*ca, *cb)):
        return False
    parts = [re.findall(r"[a-z0-9]+", " ".join(t.norm for t in c)) for c in (ca, cb)]
    return parts[0] == parts[1]


def command_detail(toks: tuple[tk.Token, ...], s1: int, s2: int) -> bool:
    """A span one side adds inside a command line: flags (`--frozen-lockfile`), a subcommand
    right after the program (`yarn run init`), or a runner before it (`uv run pytest`). The
    command is another one: its value changed, not a detail added."""
    span = tk.content_of(toks[s1:s2])
    if not span:
        return False
    if all(t.kind == "flag" for t in span):  # (a flag's value is the flag's: `-p ruff`)
        return command_line(toks, s1)
    before = toks[s1 - 1] if s1 > 0 else None
    after = toks[s2] if s2 < len(toks) else None
    program = before is not None and (before.norm in lx.TOOLS or before.norm in RUNNERS)
    if program and len(span) == 1 and span[0].kind == "word" and command_line(toks, s1):
        return True  # (not "Run pre-commit hooks …": a sentence about the program)
    if _argument(toks, s1, s2, span):
        return True
    words = [t.norm for t in span]
    if words[0] == "cd" and len(span) == 2 and after is not None and after.norm in PROGRAMS:
        return True  # `cd site && yarn dev` / `yarn dev`: run in another directory
    runner = words[0] in RUNNERS and all(w in _RUN_WORDS for w in words[1:]) and len(words) <= 2
    return runner and after is not None and after.norm in PROGRAMS


_RUN_WORDS = lx.word_set("run exec x dlx -m")  # (`python -m pip install -e .`)


def shell_line(toks: tuple[tk.Token, ...], at: int) -> bool:
    """A command line with options (`python3 -m venv env`), where every word is an argument,
    not prose about a program ("Poetry provides more …"), nor its comment."""
    start, end = tk.sentence_at(toks, at)
    return (
        command_line(toks, at)
        and any(t.kind == "flag" for t in toks[start:end])
        and not any(t.norm == "#" for t in toks[start:at])
    )


def other_program(a: str, b: str) -> tuple[str, str] | None:
    """One package manager for another on two short command lines that install or run the
    same thing (`npm install -g zent-kit` / `yarn global add zent-kit`): the two commands. The
    tool changed, so the command did; too little is shared for `read` to align them."""
    ta, tb = tk.tokens(a), tk.tokens(b)
    ca, cb = tk.content_of(ta), tk.content_of(tb)
    if not (2 <= len(ca) <= 6 and 2 <= len(cb) <= 6) or any(t.kind == "end" for t in ta[:-1]):
        return None
    first_a, first_b, last = ca[0], cb[0], ca[-1]
    if first_a.norm == first_b.norm or not {first_a.norm, first_b.norm} <= RUNNERS:
        return None
    if not (first_a.text.islower() and first_b.text.islower()) or last.norm != cb[-1].norm:
        return None
    if last.kind == "flag" or last.norm in RUNNERS or last.norm in _RUN_WORDS:
        return None
    if any(t.kind == "cjk" for t in (*ca, *cb)):
        return None
    return tk.joined(ta), tk.joined(tb)


_SEPARATORS = re.compile(r"[-_\s]+")


def renamed(old: str, new: str) -> bool:
    """A name joined or split otherwise (`image-preview` / `ImagePreview`, `reset_memories`
    / `reset-memories`), or given a suffix or a prefix (`opentiny` / `opentiny-official`,
    `collector` / `hertzbeat-collector`): to code, another name. Case alone is spelling
    (GitHub / Github)."""
    if old.lower() == new.lower() or not old.strip() or not new.strip():
        return False
    if _SEPARATORS.sub("", old).lower() == _SEPARATORS.sub("", new).lower():
        return True
    short, long = sorted((old.lower(), new.lower()), key=len)
    given = rf"{re.escape(short)}[-_][a-z0-9]+|[a-z0-9]+[-_]{re.escape(short)}"
    return " " not in long and bool(re.fullmatch(given, long))


def renamed_command(
    toks: tuple[tk.Token, ...], at: int, xa: list[tk.Token], xb: list[tk.Token]
) -> bool:
    """A script or file a command line runs, renamed, its options the same: no flag in the
    changed spans, no comment on the line."""
    start, end = tk.sentence_at(toks, at)
    return (
        shell_line(toks, at)
        and not any(t.norm == "#" for t in toks[start:end])
        and not any(t.kind == "flag" for t in (*xa, *xb))
    )


def program_of(toks: tuple[tk.Token, ...], at: int, xa: list[tk.Token], xb: list[tk.Token]) -> bool:
    """One program for another at the start of a command line: one with options, or where
    one of the two is a program we know (`yarn build runtime-core` / `nr build …`)."""
    start, end = tk.sentence_at(toks, at)
    first = next((i for i in range(start, end) if toks[i].kind in tk.CONTENT), -1)
    spans = (tk.content_of(xa), tk.content_of(xb))
    return (
        first == at
        and all(len(c) == 1 and c[0].kind == "word" and c[0].text.islower() for c in spans)
        and not any(c[0].norm in lx.IMPERATIVE for c in spans)
        and (
            any(t.kind == "flag" for t in toks[at:end])
            or (any(c[0].norm in PROGRAMS for c in spans) and end - at > 1)
        )
    )


def _argument(toks: tuple[tk.Token, ...], s1: int, s2: int, span: list[tk.Token]) -> bool:
    """Arguments a command line adds or drops ("pip install -U pip setuptools wheel" / "pip
    install -U pip"): other packages, files, targets. Not what its comment says ("make docs #
    run translations and build when explicitly required")."""
    if len(span) > 3 or len(span) != s2 - s1 or s1 == 0 or toks[s1 - 1].kind not in tk.CONTENT:
        return False
    if any(t.kind not in ("word", "path", "ver", "num", "flag") for t in span):
        return False
    return shell_line(toks, s1) or _bare_command(toks, s1)


def _bare_command(toks: tuple[tk.Token, ...], at: int) -> bool:
    """A short line that is a shell command and nothing else (`cd web api`, `ls src docs`):
    every word after the program is an argument."""
    start, end = tk.sentence_at(toks, at)
    content = [t for t in toks[start:end] if t.kind in tk.CONTENT]
    return (
        0 < len(content) <= 6
        and content[0].norm in _COMMANDS
        and content[0].text.islower()
        and all(t.kind != "cjk" for t in content)
    )


def command_line(toks: tuple[tk.Token, ...], at: int) -> bool:
    """Whether the sentence `toks[at]` stands in is a command line: it starts with a program."""
    start, end = tk.sentence_at(toks, at)
    first = next((t for t in toks[start:at] if t.kind in tk.CONTENT), None)
    if first is None:
        return False
    if first.norm in PROGRAMS:  # (every runner is one)
        return True
    # A program of its own ("crewai create flow <name> --skip_provider"): a lowercase word
    # that is no verb of an instruction, and flags after it.
    return (
        first.kind == "word"
        and first.text.islower()
        and first.norm not in lx.IMPERATIVE
        and any(t.kind == "flag" for t in toks[start:end])
    )


_BRANCH = lx.word_set("branch")
# Names only a branch goes by: one for the other is the branch changed wherever it stands.
_MAIN = lx.word_set("master main")
_BRANCH_NAMES = _MAIN | lx.word_set("trunk develop dev next canary gh-pages")
# git's verbs whose last word names a branch: `git pull upstream main`, `git checkout dev`.
GIT_REF = lx.word_set("pull push fetch checkout switch merge rebase reset")


def branch_pair(old: str, new: str) -> bool:
    """master / main, or either for another name only a branch goes by (`develop`, `trunk`)."""
    pair = {old.lower(), new.lower()}
    return bool(pair & _MAIN) and pair <= _BRANCH_NAMES


def names_branch(
    ta: tuple[tk.Token, ...], i1: int, i2: int, xa: list[tk.Token], xb: list[tk.Token]
) -> bool:
    """One word for another where a branch is named: beside "branch" (分支), or the last
    word of a git command that takes one. A branch is a value: "create a branch based on the
    master branch" / "… main branch" is the line updated, not another branch's rule."""
    ca, cb = tk.content_of(xa), tk.content_of(xb)
    if len(ca) != 1 or len(cb) != 1 or ca[0].kind != "word" or cb[0].kind != "word":
        return False
    if branch_pair(ca[0].text, cb[0].text):
        return True  # "clone your repository to master locally" / "… to main locally"
    near = [t.norm for t in (*ta[max(0, i1 - 2) : i1], *ta[i2 : i2 + 2]) if t.kind != "stop"]
    if any(w in _BRANCH for w in near) or "".join(t.text for t in ta[i2 : i2 + 2]) == "分支":
        return True
    start, end = tk.sentence_at(ta, i1)
    before = [t.norm for t in ta[start:i1] if t.kind in tk.CONTENT][-3:]
    git = len(before) - 1 - before[::-1].index("git") if "git" in before else -1
    return (
        0 <= git < len(before) - 1
        and before[git + 1] in GIT_REF
        and not any(t.kind in tk.CONTENT for t in ta[i2:end])
    )


def reordered(ta: tuple[tk.Token, ...], tb: tuple[tk.Token, ...]) -> bool:
    """One command line with its options and arguments in another order, each option's value
    still after it: the same command."""
    if any(t.kind == "end" for t in (*ta[:-1], *tb[:-1])):
        return False
    first = next((i for i, t in enumerate(ta) if t.kind in tk.CONTENT), -1)
    if first < 0 or not command_line(ta, first + 1) or not any(t.kind == "flag" for t in ta):
        return False

    def units(toks: tuple[tk.Token, ...]) -> list[tuple[str, ...]]:
        out: list[tuple[str, ...]] = []
        for t in toks:
            if t.kind not in tk.CONTENT and t.norm != "#":
                continue
            if out and out[-1][0].startswith("-") and len(out[-1]) == 1 and t.kind == "word":
                out[-1] = (*out[-1], t.norm)  # a flag's value stays with it
            else:
                out.append((t.norm,))
        return out

    ua, ub = units(ta), units(tb)

    def positional(parts: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
        return [u for u in parts if not u[0].startswith("-")]

    # Only options move: arguments keep their order (`cp -r a b` / `cp -r b a` is another
    # copy).
    return ua != ub and sorted(ua) == sorted(ub) and positional(ua) == positional(ub)


def renamed_throughout(
    a: str, b: str, changed: list[tuple[list[tk.Token], list[tk.Token], int, int, int, int]]
) -> tuple[str, str] | None:
    """The one name that, replaced wherever `a` says it, makes `b` ("the master branch should
    keep track of origin/master" / "… main … origin/main", "切换到 `collector` 目录: `cd
    collector`" / "… `hertzbeat-collector` …"), when more than one span changed."""
    if len(changed) < 2:
        return None
    ca, cb = tk.content_of(changed[0][0]), tk.content_of(changed[0][1])
    if len(ca) != 1 or len(cb) != 1:
        return None
    old, new = ca[0].text.strip("`"), cb[0].text.strip("`")
    if not old or not new or old.lower() == new.lower():
        return None
    # Only a name that is a value wherever it stands: a branch, or a name given a prefix or
    # a suffix. Another name said twice is what the line is about (`USE_MODELSCOPE_HUB` …
    # `set USE_MODELSCOPE_HUB=1` / `USE_OPENMIND_HUB` …).
    if not (branch_pair(old, new) or renamed(old, new)):
        return None
    said = re.compile(rf"(?<![\w-]){re.escape(old)}(?![\w-])")
    if len(said.findall(a)) < 2 or said.sub(lambda _: new, a) != b:
        return None
    return old, new
