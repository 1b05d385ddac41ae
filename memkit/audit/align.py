"""A near-identical pair read as a reviewer reads a diff: align, then see what was substituted.

Most pairs a team writes are the same line twice with one thing changed: `make lint` became
`make check`, flake8 became ruff, a default went from `on` to `off`, 60 s to 45 s, or the
same line was written for another service. A static embedding puts all of them at a cosine
of 0.92-0.99, where cosine alone calls them duplicates. Read as a diff they are plain:

- both texts are cut into tokens (a code span, a URL, a path, a quantity with its unit, a
  version, a CLI option and a `#channel` are one token each; words; CJK characters;
  sentence ends) and aligned; the shared frame is what the alignment keeps;
- a **substitution of content is never the same statement**. Where it stands says what it
  is: the head of a declarative sentence ("The auth service listens …") or the object of an
  instruction whose verb acts on it ("Deploy payments with …", "Backfill the orders table
  …") is the line's **subject**: another thing, another claim; one name substituted in
  several places is one too. Elsewhere a value token (a code span, a number, a path, a
  tool, a name), a switch (`on`/`off`) or a plain word is a **value** of its slot: an
  update. A verb substituted is another relation;
- a negation inserted or removed denies the statement;
- differences in function words, emphasis, the notation of a number ("60 s" / "60
  seconds", "ten" / "10"), inflection, an abbreviation ("repo" / "repository") or a manner
  adverb ("by hand" / "manually") are wording.

A pair is near-identical when its alignment keeps at least `NEAR` of the longer text's
content tokens and at most `MAX_EDITS` content edits remain; other pairs are left to the
other readers of `memkit.audit.classify`. docs/audit.md says what this reads and what not.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from memkit.audit import commands as cmd
from memkit.audit import lexicon as lx
from memkit.audit import roles as rl
from memkit.audit import tokens as tk
from memkit.audit import values as vl
from memkit.audit import wording
from memkit.audit.claims import is_identifier

NEAR = 0.5  # of the longer text's content tokens kept by the alignment
MAX_EDITS = 3
# Longer texts are records, not lines: aligning them costs more and says less.
MAX_TOKENS = 600
MAX_CHARS = 8_000
# Two values of one switch: substituted, they flip a setting.
_FLIP = {
    frozenset(p.split("/"))
    for p in (  # noqa: SIM905  (a word list reads better as text)
        "on/off true/false yes/no enabled/disabled enable/disable allow/deny allowed/denied "
        "public/private required/optional sync/async synchronous/asynchronous before/after "
        "opt-in/opt-out include/exclude included/excluded 開啟/關閉 开启/关闭 啟用/停用 "
        "启用/停用 允許/禁止 允许/禁止 allowed/required optional/mandatory required/recommended "
        "optional/recommended allowed/forbidden permitted/forbidden 必须/可选 必須/可選 推荐/必须"
    ).split()
}
# A rule's force, by class: one word for a word of another class is the rule switched
# ("gitmoji is required" / "gitmoji is prohibited"), as on / off is.
_FORCES = (
    "required mandatory compulsory 必须 必須 必需",
    "recommended encouraged preferred 推荐 推薦 建议 建議",
    "optional allowed permitted 可选 可選 允许 允許",
    "prohibited forbidden disallowed banned discouraged 禁止",
)
_FLIP |= {
    frozenset((x, y))
    for i, one in enumerate(_FORCES)
    for other in _FORCES[i + 1 :]
    for x in one.split()
    for y in other.split()
}
# Verbs that say "do it" in other words: "Run `ruff`" and "Use `ruff`" give one instruction.
_DOING = lx.word_set(
    "run use execute invoke call apply employ utilize utilise do perform using running "
    "executing invoking calling"
)
# Manner and time adverbs: "rerun it by hand" / "… manually", "announce it first" / "…
# beforehand" say one thing.
_ADVERBS = lx.word_set(
    "first beforehand afterwards afterward later then again manually hand always usually "
    "normally typically generally also too"
)


@dataclass(frozen=True)
class Edit:
    """One difference between the texts: what `a` says there, what `b` says, and how a
    reviewer reads it."""

    old: str
    new: str
    # value (a value of its slot), word (a plain word in a slot), verb (another relation),
    # subject (another thing), flip (a negation added or removed), denial (a negation inside
    # a changed span), added, dropped
    kind: str
    frame: str = ""  # the words around it in `a`, for the reason
    # For a subject: what says so (head, condition, object, command, label, slot, names,
    # chinese); the strong cues outweigh a contradiction rule's reading.
    why: str = ""


@dataclass(frozen=True)
class Reading:
    """A near-identical pair: each edit, and how much of the text the alignment keeps."""

    edits: tuple[Edit, ...]
    kept: float

    def _of(self, *kinds: str) -> tuple[Edit, ...]:
        return tuple(e for e in self.edits if e.kind in kinds)

    @property
    def substitutions(self) -> tuple[Edit, ...]:
        return self._of("value", "word", "verb", "subject")

    @property
    def values(self) -> tuple[Edit, ...]:
        return self._of("value")

    @property
    def wording(self) -> tuple[Edit, ...]:
        """Plain words and verbs substituted: another wording, or another statement."""
        return self._of("word", "verb")

    @property
    def subjects(self) -> tuple[Edit, ...]:
        return self._of("subject")

    @property
    def flips(self) -> tuple[Edit, ...]:
        return self._of("flip")

    @property
    def negations(self) -> tuple[Edit, ...]:
        """Negations added or removed, alone (a flip) or inside a changed span."""
        return self._of("flip", "denial")

    @property
    def details(self) -> tuple[Edit, ...]:
        return self._of("added", "dropped")

    @property
    def same(self) -> bool:
        """Nothing but wording differs: the same statement."""
        return not self.edits


# Phrases a contributor guide uses for one another ("Make sure the PR description is clear" /
# "Ensure …"), as their content words read.
_SAME_PHRASES = frozenset(
    frozenset(pair) for pair in (("make sure", "ensure"), ("sure", "ensure"), ("prior", "before"))
)


def _equivalent(xa: list[tk.Token], xb: list[tk.Token]) -> bool:
    """Two spans that say one thing: the same stems, one verb of doing for another, an
    abbreviation (repo / repository, Postgres / PostgreSQL), an inflection (commit /
    committing), a manner or time adverb."""
    ca, cb = tk.content_of(xa), tk.content_of(xb)
    if [t.norm for t in ca] == [t.norm for t in cb]:
        return True
    if " ".join(t.norm for t in ca) == " ".join(t.norm for t in cb):
        return True  # `make migrate` and make migrate
    if all(
        t.norm in _ADVERBS or t.norm.endswith("ly") for t in (*ca, *cb) if t.kind == "word"
    ) and all(t.kind == "word" for t in (*ca, *cb)):
        return True
    if frozenset((" ".join(t.norm for t in ca), " ".join(t.norm for t in cb))) in _SAME_PHRASES:
        return True
    if len(ca) != 1 or len(cb) != 1:
        return False
    x, y = ca[0].norm, cb[0].norm
    if x in _DOING and y in _DOING:
        return True
    if ca[0].kind != "word" or cb[0].kind != "word" or min(len(x), len(y)) < 4:
        return False
    if not (x.isalpha() and y.isalpha()):
        # identifiers: `ruff_cli` and `ruff` are two crates; "re-exports" is exporting
        return wording.same_lemma(x, y)
    if wording.typo(ca[0].text.lower(), cb[0].text.lower()):
        return True  # "garantee" / "guarantee", "Foloder" / "Folder": a spelling mended
    if x.startswith(y) or y.startswith(x) or wording.same_lemma(x, y):
        return True
    if ca[0].text[:1].isupper() and cb[0].text[:1].isupper():
        # Two names that share their start without one beginning the other are two names
        # ("Astra Agent" / "Astron Agent"), not one word inflected (Postgres / PostgreSQL is
        # one, above).
        return False
    p = 0
    while p < min(len(x), len(y)) and x[p] == y[p]:
        p += 1
    return p >= max(4, min(len(x), len(y)) - 1) and abs(len(x) - len(y)) <= 4


def _flip(xa: list[tk.Token], xb: list[tk.Token]) -> bool:
    def said(toks: list[tk.Token]) -> str:
        kept = [t for t in toks if t.kind != "stop" or t.norm in ("on", "off")]
        # Chinese is read a character at a time: 开启 is 开, 启.
        return "".join(
            ("" if n == 0 or {t.kind, kept[n - 1].kind} <= {"cjk", "glue"} else " ") + t.norm
            for n, t in enumerate(kept)
        )

    return frozenset((said(xa), said(xb))) in _FLIP


@functools.lru_cache(maxsize=16384)
def read(a: str, b: str) -> Reading | None:
    """The edits that make `b` from `a`, when the two are near-identical; None otherwise."""
    if max(len(a), len(b)) > MAX_CHARS:
        return None  # a record, not a line: never tokenised for this
    ta, tb = tk.tokens(a), tk.tokens(b)
    if len(ta) > MAX_TOKENS or len(tb) > MAX_TOKENS:
        return None
    ta, tb = tk.quoted_as(tb, ta), tk.quoted_as(ta, tb)
    ca, cb = tk.content_of(ta), tk.content_of(tb)
    if not ca or not cb:
        return None
    if cmd.reordered(ta, tb):
        return Reading((), 1.0)  # `… --project chromium file.ts` / `… file.ts --project chromium`
    # Most pairs share too little to be one line: no alignment.
    sa, sb = {t.norm for t in ca}, {t.norm for t in cb}
    if len(sa & sb) < NEAR * max(len(sa), len(sb)) - 1:
        return None
    ops = SequenceMatcher(None, [t.norm for t in ta], [t.norm for t in tb], autojunk=False)
    opcodes = ops.get_opcodes()
    kept = sum(len(tk.content_of(ta[i1:i2])) for tag, i1, i2, _, _ in opcodes if tag == "equal")
    if kept < 2 or kept < NEAR * max(len(ca), len(cb)):
        return None
    edits: list[Edit] = []
    changed: list[tuple[list[tk.Token], list[tk.Token], int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            edits.extend(_recased(ta, tb, i1, j1, i2 - i1))
            continue
        xa, xb = list(ta[i1:i2]), list(tb[j1:j2])
        content_a, content_b = tk.content_of(xa), tk.content_of(xb)
        if any(t.kind == "neg" for t in xa) != any(t.kind == "neg" for t in xb):
            pure = not content_a and not content_b
            # Alone, a negation denies the statement; inside a changed span it says no to
            # something else ("publish from the workflow" / "never with a token").
            edits.append(
                Edit(tk.joined(xa), tk.joined(xb), "flip" if pure else "denial", _frame(ta, i1, i2))
            )
            if pure:
                continue
        if _flip(xa, xb):
            changed.append((xa, xb, i1, i2, j1, j2))
        elif not content_a and not content_b:
            continue  # function words
        elif content_a and content_b:
            if not _equivalent(xa, xb):
                changed.append((xa, xb, i1, i2, j1, j2))
        elif _inside_cjk_word(ta, i1, i2) if content_a else _inside_cjk_word(tb, j1, j2):
            # Characters added inside a run of Chinese ("插件" / "插件集"): another word.
            edits.append(Edit(tk.joined(xa), tk.joined(xb), "word", _frame(ta, i1, i2)))
        elif wording.lead_in(*((ta, i1, i2, tb, j1) if content_a else (tb, j1, j2, ta, i1))):
            continue  # "Pre-commit formatting: make sure to run …" / "Run …"
        elif cmd.command_detail(ta, i1, i2) if content_a else cmd.command_detail(tb, j1, j2):
            whole_a, whole_b = (
                tk.joined(ta[max(0, i1 - 2) : i2]),
                tk.joined(tb[max(0, j1 - 2) : j2]),
            )
            if not whole_a or not whole_b:  # at the line's head: with the command it runs
                whole_a, whole_b = tk.joined(ta[i1 : i2 + 2]), tk.joined(tb[j1 : j2 + 2])
            edits.append(Edit(whole_a, whole_b, "value", _frame(ta, i1, i2), "command"))
        else:
            kind = "added" if not content_a else "dropped"
            why = _member(ta, i1, i2, mine=True) if content_a else _member(tb, j1, j2)
            edits.append(Edit(tk.joined(xa), tk.joined(xb), kind, _frame(ta, i1, i2), why))
    if (renamed := cmd.renamed_throughout(a, b, changed)) is not None:
        # One name changed wherever the line says it: one value, however many places.
        xa, xb, i1, _, _, _ = changed[0]
        edits.append(Edit(*renamed, "value", _frame(ta, i1, i1 + len(xa))))
        changed = []
    roles = (rl.read_roles(ta), rl.read_roles(tb))
    for xa, xb, i1, i2, j1, j2 in changed:
        edit = _substitution(ta, xa, xb, at=(i1, i2, j1, j2), roles=roles, changed=changed)
        if edit is not None:
            edits.append(edit)
    edits = _scoped(_moved(_restated(edits, ta, tb)), ta, tb)
    if len([e for e in edits if e.kind not in ("flip", "denial")]) > MAX_EDITS:
        return None
    return Reading(tuple(edits), kept / max(len(ca), len(cb)))


def _moved(edits: list[Edit]) -> list[Edit]:
    """Words one side drops and the other adds elsewhere moved, they did not change: "Do not
    use `print` for debugging — use `logging`" / "Use `logging` for debugging; no `print`"."""
    moving = [e for e in edits if e.kind in ("added", "dropped", "word", "verb", "denial")]
    if not any(e.kind == "added" for e in moving) and not any(e.kind == "dropped" for e in moving):
        return edits
    if not any(e.old.strip() for e in moving) or not any(e.new.strip() for e in moving):
        return edits  # words on one side only moved nowhere: "to format and test" / "to format"

    def said(texts: list[str]) -> tuple[list[str], int]:
        toks = [t for text in texts for t in tk.tokens(text)]
        kept = [
            t.norm
            for t in tk.content_of(toks)
            if t.norm not in _DOING and t.norm not in lx.IMPERATIVE
        ]
        return sorted(kept), sum(t.kind == "neg" for t in toks)

    if said([e.old for e in moving]) == said([e.new for e in moving]):
        return [e for e in edits if e not in moving]
    return edits


def _restated(edits: list[Edit], ta: tuple[tk.Token, ...], tb: tuple[tk.Token, ...]) -> list[Edit]:
    """Without a detail that only says again, with a verb of doing, a value both lines state:
    "`uv build` - This invokes `uv build`, which will build …" / "`uv build` - This will
    build …"."""
    both = {t.norm for t in ta if t.kind in tk.VALUE} & {t.norm for t in tb if t.kind in tk.VALUE}

    def restates(edit: Edit) -> bool:
        content = tk.content_of(tk.tokens(edit.old or edit.new))
        return any(t.kind in tk.VALUE for t in content) and all(
            t.norm in both if t.kind in tk.VALUE else t.norm in _DOING for t in content
        )

    return [e for e in edits if e.kind not in ("added", "dropped") or not restates(e)]


def _scoped(edits: list[Edit], ta: tuple[tk.Token, ...], tb: tuple[tk.Token, ...]) -> list[Edit]:
    """A scope word ("before", "unless", …) added, dropped or moved that now governs other
    words: "Transfer the changes, or ask the user before using X" / "Ask the user before
    transferring the changes or using X" is one condition changed, a value of the rule
    (`wording.scope_changed`), however few words differ."""
    moving = [e for e in edits if e.kind in ("added", "dropped", "word", "verb")]
    words = [t.norm for e in moving for t in (*tk.tokens(e.old), *tk.tokens(e.new))]
    if not any(w in wording.SCOPE for w in words):
        return edits
    seq_a, seq_b = ([(t.norm, t.kind in tk.CONTENT) for t in toks] for toks in (ta, tb))
    scope = wording.scope_changed(seq_a, seq_b, words)
    if scope is None:
        return edits
    return [*(e for e in edits if e not in moving), Edit(*scope, "value", moving[0].frame)]


def _mixed_case(text: str) -> bool:
    return sum(c.isupper() for c in text) >= 2 and any(c.islower() for c in text)


def _recased(
    ta: tuple[tk.Token, ...], tb: tuple[tk.Token, ...], i: int, j: int, n: int
) -> list[Edit]:
    """Names the alignment took as equal that differ in case where case is part of the name:
    `EXASearchTool` / `ExaSearchTool` is a renamed class (not "GitHub" / "Github")."""
    return [
        Edit(x.text, y.text, "value", _frame(ta, i + k, i + k + 1))
        for k, (x, y) in enumerate(zip(ta[i : i + n], tb[j : j + n], strict=True))
        if x.text != y.text and _mixed_case(x.text) and _mixed_case(y.text)
    ]


_JOINING = lx.word_set("and or nor plus") | frozenset("和与與及或、")
_RESTRICTING = lx.word_set("when whenever if unless only except until once while where")
# A phrase of how it is done: "Run all tests … with coverage", "… using tox with the tox-uv
# plugin" say more than without it.
_MANNER = lx.word_set("with without using via")


def _member(toks: tuple[tk.Token, ...], s1: int, s2: int, *, mine: bool = False) -> str:
    """What a span one side adds says of its own, beyond a value: a member of a list ("tools,
    agents and crews" / "agents and crews", "模型和数据集") or a condition ("when explicitly
    required"). The statement with it is another one: never a duplicate."""
    span = toks[s1:s2]
    first, last = span[0], span[-1]
    after = toks[s2] if s2 < len(toks) else None
    if first.norm == "only" and len(tk.content_of(span)) == 1 and after and after.kind != "end":
        # "Add comments only to explain …": a restriction added ("`import` syntax only." is
        # emphasis).
        return "condition"
    if mine and first.norm in _MANNER and tk.content_of(span):
        # How it is done, said by the line that came in: it says more than the other
        # ("… with coverage"). Left out, it is the same rule said shorter.
        return "condition"
    if len(tk.content_of(span)) < 2:
        # "and technologies", "if applicable": a word more, said otherwise. Not an action
        # more: "review and complete our checklist" / "review our checklist".
        joined = toks[s1 - 1].norm if s1 > 0 else ""
        verb = (
            first.norm in _JOINING
            and last.kind == "word"
            and (last.norm in rl.VERB_LEMMAS or joined in rl.VERB_LEMMAS)
        )
        return "member" if verb else ""
    if first.norm in _RESTRICTING:
        return "condition"
    if any(t.norm in _JOINING or t.kind == "comma" for t in (first, last)):
        return "member"
    return ""


def _inside_cjk_word(toks: tuple[tk.Token, ...], i1: int, i2: int) -> bool:
    """One Chinese character between two others that are no glue, or closing a word before
    glue ("插件" / "插件集的"): part of a word."""
    if i2 - i1 != 1 or i1 == 0 or i2 >= len(toks):
        return False
    span = toks[i1:i2]
    if not all(t.kind == "cjk" for t in (toks[i1 - 1], *span)):
        return False
    if toks[i2].kind != "cjk" and not (toks[i2].kind == "glue" and _cjk_word_before(toks, i1)):
        return False
    # 用 / 使用: a verb said in two ways, not another word.
    joined = (toks[i1 - 1].text + span[0].text, span[0].text + toks[i2].text)
    return not any(j in _VERBS_ZH for j in joined)


def _cjk_word_before(toks: tuple[tk.Token, ...], i: int) -> bool:
    """Two characters of a word (no glue) right before `i`: a suffix there makes another
    word (插件 → 插件集), not a particle."""
    return i >= 2 and toks[i - 1].kind == toks[i - 2].kind == "cjk"


def _frame(toks: tuple[tk.Token, ...], i1: int, i2: int, width: int = 6) -> str:
    before = tk.joined(toks[max(0, i1 - width) : i1])
    after = tk.joined(toks[i2 : i2 + width])
    return f"{before} … {after}".strip()


def _parts(toks: list[tk.Token]) -> set[str]:
    """The words of a span and of its compound tokens (`packages/core` holds core)."""
    out = {t.norm for t in tk.content_of(toks)}
    for t in toks:
        if t.kind in ("code", "path", "url", "word"):
            out |= {p for p in re.split(r"[/._\s:-]+", t.norm) if len(p) > 1}
    return out


def _is_verb(t: tk.Token) -> bool:
    low = t.text.lower()
    return (
        t.norm in rl.MEANS_VERBS
        or t.norm in rl.PREDICATE
        or t.norm in rl.VERB_LEMMAS
        or low in rl.VERB_LEMMAS
        or low.endswith(("ed", "ing"))
    )


_ADJECTIVES = lx.word_set(
    "clear clean new old good simple short long small large big better best more most other "
    "additional specific special proper correct real full main primary general common "
    "different same certain various several extra detailed helpful useful concrete quick "
    "easy hard important relevant necessary required possible"
)


def _is_adjective(t: tk.Token) -> bool:
    low = t.text.lower()
    return low in _ADJECTIVES or (
        len(low) > 5 and low.endswith(("ful", "ous", "ive", "able", "ible", "al", "ic", "less"))
    )


def _wording(toks: list[tk.Token]) -> bool:
    """A span of verbs and adjectives: how a statement is put, not what it is about."""
    words = [t for t in tk.content_of(toks) if t.kind == "word"]
    return (
        bool(words)
        and len(words) == len(tk.content_of(toks))
        and all(_is_verb(t) or _is_adjective(t) or t.norm in _ADVERBS for t in words)
    )


def _latin_in_chinese(
    ta: tuple[tk.Token, ...], i1: int, i2: int, ca: list[tk.Token], cb: list[tk.Token]
) -> bool:
    """One Latin word for another inside Chinese: a name (a project, a tool), not an English
    verb or adjective said otherwise."""
    if len(ca) != 1 or len(cb) != 1 or not all(c[0].kind == "word" for c in (ca, cb)):
        return False
    around = [t for t in (*ta[max(0, i1 - 2) : i1], *ta[i2 : i2 + 2]) if t.kind != "end"]
    return bool(around) and all(t.kind in ("cjk", "glue", "comma") for t in around)


# Suffixes that make a word before them a person or a thing: 维护者, 开发人员, 贡献方.
_PERSON_ZH = frozenset("者人员員方们們")
# Chinese verbs of doing and changing: a run of characters holding one is a relation.
_VERBS_ZH = (
    "使用", "用", "升級", "升级", "改", "採用", "采用", "部署", "執行", "执行", "跑", "管理",
    "負責", "负责", "主持", "遷移", "迁移", "換成", "换成", "取代", "停用", "啟用", "启用",
    "設定", "设置", "寫", "写", "建立", "維護", "维护", "發佈", "发布", "上線", "上线", "合併",
    "合并",
)  # fmt: skip


def _identifier(ta: tuple[tk.Token, ...], i1: int, xa: list[tk.Token]) -> bool:
    """A number substituted right after a word that numbers things (`memkit.audit.claims`)."""
    nums = [t for t in tk.content_of(xa) if t.kind in ("num", "ver")]
    if len(nums) != len(tk.content_of(xa)) or not nums:
        return False
    before = next((t for t in reversed(ta[:i1]) if t.kind not in ("sep", "comma")), None)
    return before is not None and is_identifier(before.text, nums[0].text)


# Words after which a plain word is the value of a slot: "against the `main` branch", "to
# `debug`", "in the releases channel".
_VALUE_SLOT = lx.word_set("to against with using via in into on at from as")
# Chinese nouns that say what kind of thing the word before them names: 支付服務, 订单表.
_THING_ZH = (
    "服務", "服务", "表", "團隊", "团队", "隊列", "队列", "倉庫", "仓库", "模組", "模块", "集群",
    "環境", "环境", "資料庫", "数据库", "分支", "頻道", "频道", "項目", "项目", "套件", "包",
)  # fmt: skip


def _substitution(
    ta: tuple[tk.Token, ...],
    xa: list[tk.Token],
    xb: list[tk.Token],
    *,
    at: tuple[int, int, int, int],
    roles: tuple[rl.Roles, rl.Roles],
    changed: list[tuple[list[tk.Token], list[tk.Token], int, int, int, int]],
) -> Edit | None:
    """How a substituted span reads (`Edit.kind`)."""
    i1, i2, j1, _ = at
    ra, rb = roles
    old, new, frame = tk.joined(xa), tk.joined(xb), _frame(ta, i1, i2)
    if cmd.same_command(xa, xb, ra.cue[i1] if i1 < ra.head[i1] else ""):
        # "yarn dev" / "pnpm dev", "pnpm test --watch" / "pnpm test-watch": the same job run
        # another way, not another command.
        return Edit(old, new, "value", frame)
    if vl.plural_of(old, new):
        return Edit(old, new, "value", frame)  # `…_DATABASE` / `…_DATABASES`: renamed
    if len(changed) == 1 and vl.one_place(xa) and vl.one_place(xb):
        # Nothing but a link's target or a path changed, even where the line starts with it:
        # the page or file moved ("[Operators](Operators_ZH.md)" / "… (Operators.md)").
        return Edit(old, new, "value", frame)
    if cmd.names_branch(ta, i1, i2, xa, xb) or vl.versions(xa, xb) or vl.count(ta, i1, i2, xa, xb):
        # A branch or a version names no thing of its own, even at a sentence's head: "如果
        # 本地仓库的 master 分支落后于 …" / "… main 分支 …", `10.9.0` / `9.15.4`.
        return Edit(old, new, "value", frame)
    if len(changed) == 1 and cmd.renamed_command(ta, i1, xa, xb):
        # A command line and nothing else, its script renamed, its arguments kept (`npm run
        # new [name] [-c]` / `npm run setup [name] [-c]`). Not one of a file's commands
        # beside another, each with its comment (`pnpm run test:unit # …`).
        return Edit(old, new, "value", frame)
    if i1 < ra.head[i1] and j1 < rb.head[j1]:
        return Edit(old, new, "subject", frame, ra.cue[i1])  # what the sentence is about
    if i1 < ra.label[i1] and j1 < rb.label[j1] and len(changed) > 1:
        # A label and its description both changed: another entry of the list ("`packages/
        # core`: Backend logic" / "`packages/cli`: terminal UI"). A label changed alone is a
        # renamed entry: its value.
        return Edit(old, new, "subject", frame, "label")
    if (
        i1 < ra.label[i1]
        and j1 < rb.label[j1]
        and len(tk.content_of(xa)) == len(tk.content_of(xb)) == 1
    ):
        # A list entry's name renamed: "**Bash**: Execute shell commands" / "**Shell**: …"
        # (not a heading reworded: "Follow proper naming conventions: …" / "For Python: …").
        return Edit(old, new, "value", frame)
    if ra.obj_from[i1] <= i1 < ra.obj[i1] and rb.obj_from[j1] <= j1 < rb.obj[j1]:
        return Edit(old, new, "subject", frame, ra.cue[i1])  # what the instruction acts on
    # One name substituted in several places, once as a plain word ("`packages/core`" …
    # "the core package"): the thing the line is about.
    mine_a, mine_b = _parts(xa), _parts(xb)
    for ya, yb, k1, _, _, _ in changed:
        shared = k1 != i1 and mine_a & _parts(ya) and mine_b & _parts(yb)
        plain = [t for t in (*xa, *ya, *xb, *yb) if t.kind == "word"]
        if shared and plain and not all(vl.IDENTIFIER.search(t.text) for t in plain):
            # (Not "index.test.ts … xxx.test.ts" / "… .spec.ts": one value changed twice.)
            return Edit(old, new, "subject", frame, "names")
    slots = {t.norm for t in xa[:1] + xb[:1] if t.norm in rl.SLOT}
    values = vl.value_token(xa) or vl.value_token(xb)
    bare = len(xa) == 1 or len(xb) == 1
    if values and (len(slots) == 2 or (slots and xa[0].norm != xb[0].norm and not bare)):
        # Two slots, not one slot's two values: "Run tests using `pytest`" / "Run tests for
        # a specific crate" say two things. A slot against one bare word is that slot's
        # value said otherwise ("drops idle sockets at 60 s" / "keeps idle sockets open").
        return Edit(old, new, "subject", frame, "slot")
    if _identifier(ta, i1, xa):
        # "Step 2" / "Step 4", "ADR 14" / "ADR 45", "33." / "34.": a number that names a
        # record or a place in a list names a thing, never a value of one.
        return Edit(old, new, "subject", frame, "names")
    if _flip(xa, xb) or vl.value_token(xa) or vl.value_token(xb) or wording.kin(old, new):
        return Edit(old, new, "value", frame)
    if i1 > 0 and ta[i1 - 1].kind == "flag" and cmd.command_line(ta, i1):
        return Edit(old, new, "value", frame)  # a flag's value: `--with test` / `--with dev`
    if cmd.shell_line(ta, i1):
        return Edit(old, new, "value", frame)  # an argument: `python3 -m venv env` / `… .venv`
    if cmd.program_of(ta, i1, xa, xb):
        return Edit(old, new, "value", frame)  # `mkdocs serve --dev-addr 8008` / `zensical …`
    if cmd.renamed(old, new):
        return Edit(old, new, "value", frame)  # `image-preview` / `ImagePreview`
    if vl.quantifiers(old, new):
        return Edit(old, new, "value", frame)  # "at least one" / "exactly one"
    if vl.is_named(xa, i1 == ra.start[i1]) and vl.is_named(xb, j1 == rb.start[j1]):
        return Edit(old, new, "value", frame)
    text_a = "".join(t.text for t in xa if not t.text.isascii())
    text_b = "".join(t.text for t in xb if not t.text.isascii())
    if text_a or text_b:
        if not (text_a and text_b):
            return Edit(old, new, "word", frame)  # 仓库管理员 / 仓库 Committer: someone else
        after = "".join(t.text for t in ta[i2 : i2 + 3])
        if after.startswith(_THING_ZH):
            return Edit(old, new, "subject", frame, "chinese")  # 部署支付服務 / 部署搜索服務
        person = after[:1] in _PERSON_ZH  # 项目维护者: a maintainer, not "maintain"
        if not person and any(
            v in text if len(v) > 1 else text == v for text in (text_a, text_b) for v in _VERBS_ZH
        ):
            return Edit(old, new, "verb", frame)
        return Edit(old, new, "word", frame)
    ca, cb = tk.content_of(xa), tk.content_of(xb)
    if _latin_in_chinese(ta, i1, i2, ca, cb):
        return Edit(old, new, "value", frame)  # "mmediting 引入了 mypy" / "mmagic 引入了 mypy"
    if _wording(xa) and _wording(xb) and not wording.noun_head(ta, i1, i2, len(cb)):
        return Edit(old, new, "verb", frame)  # "Return" / "Prefer returning", clear / helpful
    before = next((t for t in reversed(ta[:i1]) if t.kind != "stop" or t.norm in _VALUE_SLOT), None)
    following = next((t for t in ta[i2:] if t.kind != "stop"), None)
    last = following is None or following.kind not in tk.CONTENT  # its phrase's head, no modifier
    if len(ca) == 1 and len(cb) == 1 and before is not None and before.norm in _VALUE_SLOT and last:
        return Edit(old, new, "value", frame)  # "open pull requests against develop"
    return Edit(old, new, "word", frame)
