"""Prompt injection: text in an atom that tries to instruct the agent reading it.

Memory is injected into every teammate's agent, so an atom saying "ignore previous
instructions" is an attack on all of them. Refused by default (an error, MK112): what the
check flags is neither committed nor added, saved, captured or imported, and what reached the
tree anyway (a `--no-verify` commit) is never indexed, so never served or exported
(`memkit.admission.decide`). A team keeps a benign text the check misfires on by naming the
phrase in `gate: {injection_allow: [...]}` of memkit.yaml, reviewed like the rest of it;
`gate: {injection: warn}` (or `off`) turns the refusal off for the whole repository.

The patterns run on the text as written and on the text as a reader takes it
(`memkit.safety.lookalike`: entities decoded, NFKC, zero-width characters removed), so
`ign\u200bore previous instructions` or `&lt;/memkit-memory&gt;` are found too.
`is_injection` is the plain question for text that is no atom (a capture candidate, a
session summary).
"""

from __future__ import annotations

import base64
import bisect
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memkit.safety.invisible import refusals
from memkit.safety.lookalike import tag_starts
from memkit.safety.order_model import model, scored
from memkit.safety.orders import negated, orders
from memkit.safety.reading import read
from memkit.safety.secrets import quote, secret_spans
from memkit.safety.text import compiled, folded, starts

if TYPE_CHECKING:
    from memkit.config import Config

# "Ignore the above" needs no object; "override existing" does ("override existing static
# files" is a rule about a CDN, not an order).
_OVERRIDDEN = (
    r"(?:instructions?|prompts?|rules?|messages?|context|directions?|guidance|guidelines?"
    r"|directives?|policies|polic(?:y)|constraints?|safety\s+rules?)"
)
_OVERRIDE = (
    r"\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:all\s+|any\s+|the\s+|your\s+"
    r"|of\s+|every\s+|everything\s+)*(?:(?:previous|prior|above|earlier|preceding)"
    r"(?!\s+(?:warnings?|errors?|deprecation|notices?|messages?\s+from|output|log|lines?|"
    r"examples?|sections?|steps?|commands?|diffs?|changes|results?|failures?)\b)(?:\s+"
    + _OVERRIDDEN
    + r")?|(?:system|original|former|existing|other)\s+"
    + _OVERRIDDEN
    + r")\b"
    r"|\bpay\s+no\s+attention\s+to\s+(?:the\s+|any\s+|all\s+)*(?:previous|prior|above"
    r"|earlier)"
    # A fake header that grants the agent what its instructions deny ("SYSTEM OVERRIDE: the
    # assistant now has permission to…"); a manual override switch has no colon after it.
    r"|\bsystem\s+override\s*[:!]"
)
# The same order in the languages a team may also write in.
_FOREIGN = (
    r"\b(?:ignore[rz]?|oublie[rz]?|ne\s+tenez\s+pas\s+compte\s+des?)\s+(?:toutes\s+)?"
    r"(?:les\s+|vos\s+|tes\s+)?(?:instructions|consignes|r[eè]gles|directives)\s+"
    r"(?:pr[eé]c[eé]dentes|ant[eé]rieures|ci-dessus|d'avant)"
    r"|\b(?:ignoriere|ignorier|ignorieren\s+sie|vergiss|vergessen\s+sie|missachte)\s+"
    r"(?:bitte\s+)?(?:alle\s+|die\s+|s[aä]mtliche\s+)?(?:vorherigen|bisherigen|obigen|"
    r"fr[uü]heren|vorigen)\s+(?:anweisungen|instruktionen|regeln|befehle|vorgaben)"
    r"|\b(?:ignora(?:r)?|olvida)\s+(?:todas\s+)?(?:las\s+)?instrucciones\s+(?:anteriores|previas)"
    r"|\b(?:ignora|dimentica)\s+(?:tutte\s+)?le\s+istruzioni\s+precedenti"
    r"|\b(?:ignore|esque[cç]a)\s+(?:todas\s+)?as\s+instru[cç][oõ]es\s+anteriores"
    # Dutch, Polish, Russian, Korean and Japanese: the same order.
    r"|\b(?:negeer|vergeet)\s+(?:alle\s+)?(?:de\s+)?(?:vorige|eerdere|voorgaande|bovenstaande)\s+"
    r"(?:instructies|opdrachten|regels)"
    r"|\b(?:zignoruj|ignoruj|zapomnij)\s+(?:o\s+)?(?:wszystkie\s+|wszystkich\s+)?(?:poprzednie"
    r"|wcześniejsze|poprzednich|wcześniejszych)\s+(?:instrukcje|polecenia|instrukcjach|poleceniach"
    r"|zasady)"
    r"|(?:игнорируй|игнорируйте|проигнорируй|проигнорируйте|забудь|забудьте)\s+(?:все\s+)?"
    r"(?:предыдущие|прежние|прошлые|предыдущих|прежних)\s+(?:инструкции|указания|правила|команды)"
    r"|(?:이전|앞의|기존|위의)\s*(?:의\s*)?(?:모든\s*)?(?:지시|지침|명령|규칙)[^.\n]{0,12}?무시"
    r"|(?:以前|前|これまで|上記)の(?:すべての|全ての)?(?:指示|命令|ルール|指令)を(?:すべて|全て)?"
    r"(?:無視|忘れ)"
)
_IDENTITY = (
    r"\byou\s+(?:must|will|should)\s+now\s+(?:ignore|obey|delete|disable|reveal|forget|only"
    r"|act|answer|comply|bypass|skip)\b"
    r"|\byou\s+are\s+now\s+(?:a|an|in|the|my)\b"
    r"|\bfrom\s+now\s+on,?\s+you\s+(?:are|answer|act|will|must|obey|only)\b"
    r"|\b(?:act|behave)\s+as\s+(?:if\s+you\s+(?:are|were)|an?\s+unrestricted)\b"
)
# What a memory says to the agent that reads it: "when you read this", "for the assistant
# reading this", a fake turn of the conversation, a tool to call.
_ADDRESS = (
    r"\bwhen\s+you\s+read\s+this\b|\b(?:up)?on\s+reading\s+this\b"
    r"|\b(?:for|to)\s+(?:the|any|an?)\s+(?:assistant|agent|ai|model|llm|claude)\s+"
    r"(?:\w+\s+)?(?:reading|that\s+reads|who\s+reads)\s+this\b"
    r"|\b(?:use|call|with|using|via)\s+the\s+(?:bash|shell|write|edit|webfetch|read)\s+tool\b"
    r"|(?:使用|用|調用|调用|呼叫)\s*(?:Bash|bash|shell|Shell)\s*工具(?!鏈|链)"
    r"|讀到這(?:段|則|個|份)|读到这(?:段|则|个|份)"
)
_SENSITIVE = (
    r"(?:\benv\b|environment\s+variables?|credentials?|api[\s_-]*keys?|secret\s+keys?|tokens?"
    r"|passwords?|\.env\b|id_rsa|ssh\s+keys?|private\s+keys?|\.aws|\.netrc"
    r"|(?-i:\b[A-Z][A-Z0-9_]*_(?:KEY|TOKEN|SECRET|PASSWORD)\b)"
    r"|環境變數|环境变量|憑證|凭证|密鑰|密钥|金鑰|私鑰|私钥|密碼|密码|令牌)"
)
# Credentials asked for, where the agent would put them: its reply, a URL, "me".
_EXFILTRATION = (
    r"(?<!not\s)(?<!n't\s)(?<!never\s)\bexfiltrat\w*"  # "do not exfiltrate …" is a rule
    r"|\bshow\s+me\b[^.\n]{0,40}?"
    + _SENSITIVE
    + r"|\b(?:email|send|upload|mail|forward)\b[^.\n]{0,40}?\bto\s+me\b"
    r"|\b(?:print|output|show|paste|reveal|dump|send|upload|post|email|include|put|leak|list)"
    r"\b[^.\n]{0,60}?" + _SENSITIVE + r"[^.\n]{0,60}?(?:\b(?:in|into|to)\s+(?:your|the|this)\s+"
    r"(?:next\s+)?(?:reply|answer|response|message|chat|conversation|output)\b|https?://)"
    r"|(?:印|輸出|输出|貼|贴|顯示|显示|放進|放进|傳到|传到|上傳|上传|寄)[^。\n]{0,30}?"
    + _SENSITIVE
    + r"[^。\n]{0,30}?(?:回覆|回复|回答|對話|对话|聊天|https?://)|"
    + _SENSITIVE
    + r"[^。\n]{0,30}?(?:印在|貼在|贴在|放進|放进|傳到|传到"
    r"|貼到|贴到|輸出到|输出到)[^。\n]{0,20}?(?:回覆|回复|回答|對話|对话|聊天|https?://)"
)
_EXFIL_WORDS = (
    "exfiltrat",
    "show me",
    " to me",
    "reply",
    "answer",
    "response",
    "message",
    "chat",
    "conversation",
    "output",
    "http",
    "回覆",
    "回复",
    "回答",
    "對話",
    "对话",
    "聊天",
)
# A turn of a conversation written into an atom, to be read as one: the assistant saying
# what it did or will do, the system granting something, a user's line answered by one.
_TURN = re.compile(
    r"^[ \t]*(assistant|ai|claude|助手|助理|system|系統|系统|user|human|使用者|用戶|用户)"
    r"[ \t]*[:：](.*)$",
    re.I | re.M,
)
_ASSISTANT_SAYS = re.compile(
    r"\s*(?:i\b|i'|sure|ok|okay|done|here|yes|好的|好|我|已|沒問題|没问题)", re.I
)
_SYSTEM_GRANTS = re.compile(
    r"\bthe\s+user\s+is\b|\bgrant|\bapprove|\byou\s+(?:must|are|may|can|should)\b|\bignore"
    r"|\boverride|權限|权限|批准|必須|必须|你",
    re.I,
)
_ROLES = {
    "assistant": "assistant",
    "ai": "assistant",
    "claude": "assistant",
    "助手": "assistant",
    "助理": "assistant",
    "system": "system",
    "系統": "system",
    "系统": "system",
}


def _fake_turns(text: str) -> Iterator[re.Match[str]]:
    user: re.Match[str] | None = None
    for m in _TURN.finditer(text):
        role = _ROLES.get(m.group(1).lower(), "user")
        rest = m.group(2)
        if role == "assistant" and user is not None:
            yield user  # a dialogue: a user's line, then the assistant's
            user = None
        elif (role == "assistant" and _ASSISTANT_SAYS.match(rest)) or (
            role == "system" and _SYSTEM_GRANTS.search(rest[:120])
        ):
            yield m
        elif role == "user" and user is None:
            user = m


_OTHER = (
    r"\bnew\s+(?:system\s+)?instructions?\s*:"
    r"|\b(?:reveal|print|show|leak)\s+(?:your|the)\s+(?:system\s+)?prompt\b"
    r"|\b(?:do\s+not|don't|never)\s+(?:tell|inform|mention|reveal|show|let)\b[^.\n]{0,30}?"
    r"\bthe\s+user\b"
    r"|\bwithout\s+(?:telling|asking|informing)\s+the\s+user\b"
    r"|</?\s*(?:system|assistant)\s*>"
    r"|(?:忽略|無視|无视|忘記|忘记|不要理會|不要理会)(?:掉)?(?:之前|先前|以上|前面|上面|所有|原本|系統|系统)"
    r"(?:的)?(?:所有)?(?:指令|指示|規則|规则|提示|設定|设定|要求)"
    r"|你現在是|你现在是|從現在開始你|从现在开始你|你必須立即|你必须立即"
    r"|不要告訴使用者|不要告诉用户|不要讓使用者知道|不要让用户知道"
    r"|(?:洩漏|泄露|顯示|显示|輸出|输出|告訴我|告诉我|印出)(?:你的)?(?:系統|系统)提示"
    r"|(?:以前|前)の指示を無視|指示を無視して"
)
_CJK_SENSITIVE = ("憑證", "凭证", "密", "金鑰", "私", "令牌")
_SENSITIVE_WORDS = (
    "exfiltrat",
    "env",
    "credential",
    "key",
    "token",
    "passw",
    "id_rsa",
    ".aws",
    "netrc",
    "_secret",
    "環境",
    "环境",
    *_CJK_SENSITIVE,
)
_CJK_TAILS = ("回覆", "回复", "回答", "對話", "对话", "聊天", "http")


# Where a match of `_OTHER` can start (case-folded): the first word of each of its forms.
_OTHER_STARTS = (
    "new",
    "reveal",
    "print",
    "show",
    "leak",
    "do",
    "never",
    "without",
    "<",
    "忽略",
    "無視",
    "无视",
    "忘記",
    "忘记",
    "不要",
    "你",
    "從現在",
    "从现在",
    "洩漏",
    "泄露",
    "顯示",
    "显示",
    "輸出",
    "输出",
    "告訴我",
    "告诉我",
    "印出",
    "前",
    "指示",
)
# The verbs `_EXFILTRATION`'s forms open with, English and Chinese.
_EXFIL_VERBS = (
    "print",
    "output",
    "show",
    "paste",
    "reveal",
    "dump",
    "send",
    "upload",
    "post",
    "mail",
    "include",
    "put",
    "leak",
    "list",
)
_EXFIL_CJK_VERBS = (
    "印",
    "輸出",
    "输出",
    "貼",
    "贴",
    "顯示",
    "显示",
    "放進",
    "放进",
    "傳到",
    "传到",
    "上傳",
    "上传",
    "寄",
)
_EXFILTRATION_STARTS = (
    "exfiltrat",
    "email",
    "forward",
    *_EXFIL_VERBS,
    *_EXFIL_CJK_VERBS,
    "env",
    "credential",
    "api",
    "secret",
    "token",
    "password",
    ".env",
    "id_rsa",
    "ssh",
    "private",
    ".aws",
    ".netrc",
    "環境變數",
    "环境变量",
    *_CJK_SENSITIVE,
)
_NAMED_SECRET = re.compile(r"_(?:KEY|TOKEN|SECRET|PASSWORD)")


def _offsets(text: str, lowered: str, words: tuple[str, ...]) -> set[int]:
    """Where `words` start in `text` (case-folded), and where an upper-case name ending in
    _KEY, _TOKEN, _SECRET or _PASSWORD does (`AWS_SECRET`, `STRIPE_SECRET_KEY`: `_SENSITIVE`
    matches it from its first part)."""
    found = starts(lowered, words)
    for m in _NAMED_SECRET.finditer(text):
        at = m.start()
        while at > 0 and (
            text[at - 1].isdigit() or "A" <= text[at - 1] <= "Z" or text[at - 1] == "_"
        ):
            at -= 1
        found.add(at)
    return found


def _any(*words: str) -> Callable[[str], bool]:
    return lambda text: any(word in text for word in words)


def _may_exfiltrate(lowered: str) -> bool:
    """Whether `_EXFILTRATION` is run: on text with a sensitive word, when one of its forms
    can match there (each with the words it needs, looked for case-folded: see `folded`)."""
    if not any(w in lowered for w in _SENSITIVE_WORDS):
        return False
    text = folded(lowered)
    if "exfiltrat" in text:
        return True
    if any(w in text for w in ("mail", "send", "upload", "forward")) and "me" in text:
        return True
    tails = ("reply", "answer", "response", "message", "chat", "conversation", "output", "http")
    return (
        "show" in text
        or (any(w in text for w in _EXFIL_VERBS) and any(w in text for w in tails))
        or (any(w in text for w in _EXFIL_CJK_VERBS) and any(w in text for w in _CJK_TAILS))
    )


# Each kind of instruction with the words it cannot do without: a pattern runs only on text
# that holds one of them (lower-cased), which keeps a typical atom at well under a
# millisecond. Each is compiled when first tried (`text.compiled`): compiling them all cost
# every process that imports this module ~40 ms, for text that mostly needs none.
_RULES: tuple[tuple[Callable[[str], bool], str], ...] = tuple(
    (may, pattern)
    for may, pattern in (
        (
            _any("ignore", "disregard", "forget", "override", "bypass", "skip", "attention"),
            _OVERRIDE,
        ),
        (_any("now", "act as", "behave as"), _IDENTITY),
        (
            _any(
                *("ignor", "oubli", "vergiss", "vergessen", "missacht", "olvida", "dimentica"),
                *("esque", "negeer", "vergeet", "zapomnij", "игнорир", "забудь", "무시", "無視"),
                "忘れ",
            ),
            _FOREIGN,
        ),
        (_any("read", "tool", "工具", "讀到", "读到"), _ADDRESS),
        (_may_exfiltrate, _EXFILTRATION),
        (lambda _lowered: True, _OTHER),
    )
)
# A comment is hidden when rendered; it is an order when it speaks to the agent, or carries
# a command. "<!-- Describe the tests that you ran -->" in a template is neither.
_HIDDEN_ORDER = re.compile(
    r"\b(?:ignore|instructions?|assistants?|claude|agents?|ai|llm|copilot|execute|reveal"
    r"|exfiltrat\w*)\b|\byou\s+(?:must|should|will|need\s+to|have\s+to|are\s+now)\b"
    r"|\b(?:curl|wget)\b[^\n|]{0,200}\|\s*\w*sh\b|\brm\s+-rf\b|指令|指示|你必須|你必须|助手|助理",
    re.I,
)
MODES = ("fail", "warn", "off")
_FENCE_TAG = "memkit's own fence tag (it would close the fence memory is served in)"
_HIDDEN_COMMENT = "hidden HTML comment with instructions (invisible when rendered)"
# The patterns run on windows of the text read, each overlapping the next by more than any
# match is long, so that every match lies whole in one window: linear in the text's length.
WINDOW = 1200
OVERLAP = 300
MAX_HITS = 20  # of one kind: a text with this many is refused whatever else it holds
# A base64 run long enough to hold an order, read once decoded.
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{24,4096}+={0,2}(?![A-Za-z0-9+/=])")
_CJK_WORDS = re.compile("[\u3400-\u9fff]{4}")


@dataclass(frozen=True)
class Hit:
    """One suspicious place: offsets in the text checked, and what it is."""

    start: int
    end: int
    what: str


def windows(size: int) -> Iterator[tuple[int, int]]:
    start = 0
    while True:
        end = min(size, start + WINDOW)
        yield start, end
        if end >= size:
            return
        start += WINDOW - OVERLAP


def _pattern_matches(text: str) -> list[re.Match[str]]:
    """Every instruction pattern's matches in `text`, none inside an earlier one."""
    found: list[re.Match[str]] = []
    cased = folded(text)
    offsets: dict[int, list[int]] = {}
    for start, end in windows(len(text)):
        lowered = cased[start:end]
        for n, (may, source) in enumerate(_RULES):
            if not may(lowered):
                continue
            pattern = compiled(source)
            if source not in (_EXFILTRATION, _OTHER):
                matches: Iterable[re.Match[str]] = pattern.finditer(text, start, end)
            else:
                if n not in offsets:
                    words = _EXFILTRATION_STARTS if source == _EXFILTRATION else _OTHER_STARTS
                    offsets[n] = sorted(_offsets(text, cased, words))
                places = offsets[n]
                first = bisect.bisect_left(places, start)
                last = bisect.bisect_left(places, end)
                matches = _matches_at(pattern, text, places[first:last], end)
            # A match cut by the window's end is found whole in the next window.
            found += [m for m in matches if m.end() < end or end == len(text)]
    if ":" in text or "：" in text:
        found += _fake_turns(text)
    out: list[re.Match[str]] = []
    last_end = -1
    for m in sorted(found, key=lambda m: (m.start(), -m.end())):
        if m.start() >= last_end:
            out.append(m)
            last_end = m.end()
            if len(out) >= MAX_HITS:
                break
    return out


def _covered(hits: Sequence[Hit], at: int) -> bool:
    """Whether `at` lies in one of `hits` (sorted by start, none overlapping)."""
    i = bisect.bisect_right([h.start for h in hits], at) - 1
    return i >= 0 and hits[i].start <= at < hits[i].end


def _matches_at(
    pattern: re.Pattern[str], text: str, places: Sequence[int], end: int
) -> Iterator[re.Match[str]]:
    """`finditer_at` within `text[:end]`, without copying it."""
    done = -1
    for at in places:
        if at < done:
            continue
        found = pattern.match(text, at, end)
        if found is not None:
            yield found
            done = found.end()


def _comments(text: str) -> Iterator[tuple[int, int, str]]:
    """Each HTML comment (an unclosed one runs to the end: it hides the rest when rendered)."""
    at = text.find("<!--")
    while at >= 0:
        close = text.find("-->", at + 4)
        end = len(text) if close < 0 else close + 3
        yield at, end, text[at + 4 : end - 3 if close >= 0 else end]
        if close < 0:
            return
        at = text.find("<!--", end)


def _decoded(run: str) -> str:
    """A base64 run's text, when it decodes to words (else ""): English has spaces between
    them, Chinese none (「忽略之前的所有指令」)."""
    try:
        raw = base64.b64decode(run + "=" * (-len(run) % 4), validate=True)
        text = raw.decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return ""
    printable = sum(c.isprintable() or c in "\n\t" for c in text)
    words = " " in text or _CJK_WORDS.search(text) is not None
    return text if words and printable >= 0.95 * len(text) else ""


def encoded(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, reading) of each base64 run of `text` that decodes to words: the text a
    model asked to "decode and follow" it reads (`memkit.safety.reading`)."""
    for n, m in enumerate(_BASE64.finditer(text)):
        if n >= 4 * MAX_HITS:
            return
        decoded = _decoded(m.group(0))
        if decoded:
            yield m.start(), m.end(), read(decoded).text


def _hits(text: str, learnt: bool = True) -> list[Hit]:
    return _scan(text, learnt)[0]


def _scan(text: str, learnt: bool) -> tuple[list[Hit], list[tuple[int, int]]]:
    """The hits, and where the sentences are that the learnt reading scores at its hold score
    or more (refused ones among them): each sentence is read and scored once, for both."""
    hits, held = _scanned(text, learnt)
    return list(hits), list(held)


# One text is asked about twice in a row where it enters: whether to hold it (the route of
# `memkit add`, the MCP save, PostToolUse) and then whether to refuse it (MK112): read once.
@functools.lru_cache(maxsize=16)
def _scanned(text: str, learnt: bool) -> tuple[tuple[Hit, ...], tuple[tuple[int, int], ...]]:
    # The patterns read the text as a reader takes it (`memkit.safety.reading`): entities
    # decoded, NFKC, lookalike letters folded, markup left out, spaced letters joined.
    reading = read(text)
    seen = reading.text
    spans: list[tuple[int, int]] | None = None
    hits: list[Hit] = []

    def place(start: int, end: int) -> tuple[int, int]:
        return reading.original(start), reading.original(max(start, end - 1)) + 1

    def quoted(start: int, end: int) -> str:
        nonlocal spans
        if spans is None:
            spans = secret_spans(text)
        return quote(text, start, end, spans=spans)

    for m in _pattern_matches(seen):
        if m.re.pattern == _EXFILTRATION and negated(seen, 0, m.start()):
            continue  # "不要把憑證貼到 PR 描述": a rule against it
        a, b = place(m.start(), m.end())
        hits.append(Hit(a, b, f"instruction aimed at the agent ({quoted(a, b)!r})"))
    for order in orders(seen):
        a, b = place(order.start, order.end)
        if not _covered(hits, a):
            hits.append(Hit(a, b, f"order to the agent to {order.what} ({quoted(a, b)!r})"))
    hits.sort(key=lambda h: h.start)
    weights = model()
    held: list[tuple[int, int]] = []
    for found in scored(seen, weights.hold) if learnt else ():
        a, b = place(found.start, found.end)
        held.append((a, b))
        if found.score >= weights.refuse and not found.guarded and not _covered(hits, a):
            hits.append(Hit(a, b, f"order to the agent, read by its words ({quoted(a, b)!r})"))
    hits.sort(key=lambda h: h.start)
    hidden = 0
    for a, b, decoded in encoded(text):
        # The order model reads the decoded text as it reads the rest, with the same two
        # thresholds: what it would refuse is refused, what it would hold is held.
        best = refusable = 0.0
        if learnt:
            rated = list(scored(decoded, weights.hold, True))
            best = max((s.score for s in rated), default=0.0)
            refusable = max((s.score for s in rated if not s.guarded), default=0.0)
        ordered = next(orders(decoded, addressed=True), None) is not None
        if _pattern_matches(decoded) or ordered or refusable >= weights.refuse:
            hits.append(Hit(a, b, "instruction to the agent hidden in base64"))
            hidden += 1
            if hidden >= MAX_HITS:
                break
        elif best >= weights.hold:
            held.append((a, b))
    hits.sort(key=lambda h: h.start)
    tags = [at for at in tag_starts(text) if not _covered(hits, at)][:MAX_HITS]
    hits += [Hit(at, at + 1, _FENCE_TAG) for at in tags]
    comments = 0
    for start, end, body in _comments(text):
        if _HIDDEN_ORDER.search(body):
            hits.append(Hit(start, end, _HIDDEN_COMMENT))
            comments += 1
            if comments >= MAX_HITS:
                break
    for invisible in refusals(text)[:1]:
        hits.append(Hit(invisible.start, invisible.end, invisible.what))
    return tuple(sorted(hits, key=lambda h: h.start)), tuple(held)


def _allowed_spans(text: str, allowed: Iterable[str]) -> list[tuple[int, int]]:
    spans = []
    for phrase in allowed:
        words = str(phrase).split()
        if words:
            pattern = re.compile(r"\s+".join(re.escape(w) for w in words), re.I)
            spans += [(m.start(), m.end()) for m in pattern.finditer(text)]
    return spans


def refused_hits(text: str, allowed: Sequence[str] = (), learnt: bool = True) -> list[Hit]:
    """The hits in `text` that no phrase of `allowed` (a team's `gate: {injection_allow}`:
    matched case-insensitively, any white space between words) covers; with `learnt` false,
    the patterns' only (benchmarks compare the two)."""
    return _refused(text, allowed, learnt)[0]


def _refused(
    text: str, allowed: Sequence[str], learnt: bool
) -> tuple[list[Hit], list[tuple[int, int]]]:
    hits, held = _scan(text, learnt)
    if not hits or not allowed:
        return hits, held
    spans = _allowed_spans(text, allowed)
    return [h for h in hits if not any(a <= h.start < b for a, b in spans)], held


def reviewed_hits(text: str, allowed: Sequence[str] = ()) -> tuple[list[Hit], list[Hit]]:
    """`refused_hits(text, allowed)`, and the sentences of `text` that read somewhat like an
    order to the agent by their words (`memkit.safety.order_model`, between its hold and
    refuse scores) and that nothing refuses: held for a person to read (`held_for_review`),
    never refused."""
    refused, candidates = _refused(text, allowed, True)
    spans = _allowed_spans(text, allowed) if allowed else []
    held = []
    for a, b in candidates:
        covered = any(h.start < b and a < h.end for h in refused)
        if not covered and not any(x <= a < y for x, y in spans):
            what = f"reads like an order to the agent ({quote(text, a, b)!r})"
            held.append(Hit(a, b, what))
    return refused, held


def held_hits(text: str, allowed: Sequence[str] = ()) -> list[Hit]:
    """The warnings of `reviewed_hits`."""
    return reviewed_hits(text, allowed)[1]


def held_for_review(text: str, config: Config) -> list[Hit]:
    """What keeps `text` out of live shared memory until a person has read it: the sentences
    `reviewed_hits` holds, unless the team turned the refusals off (`gate: {injection: warn}`
    or `off`: then nothing is held back either). Nothing here is refused: an atom of them goes
    through `shared/_pending/` (MK204 at the commit; `memkit add`, MCP save, capture and
    import write it there), as the sensitive types do, and management's approval lets it in."""
    if injection_mode(config) != "fail":
        return []
    return held_hits(text, injection_allowed(config))


def is_injection(text: str, allowed: Sequence[str] = ()) -> bool:
    """Whether the check refuses `text`: the question for text that is no atom yet (a capture
    candidate, what a session summary copies), asked before it is stored anywhere."""
    return bool(refused_hits(text, allowed))


def injection_hits(text: str) -> Iterator[tuple[int, int, str]]:
    """(line, col, what) for each suspicious place in `text`."""
    for hit in _hits(text):
        line, col = where(text, hit.start)
        yield line, col, hit.what


def where(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def injection_mode(config: Config) -> str:
    """fail (the default: MK112 refuses), warn or off, from `gate: {injection: …}`."""
    mode = config.section("gate").get("injection", "fail")
    return mode if mode in MODES else "fail"


def injection_allowed(config: Config) -> tuple[str, ...]:
    """The phrases a team allowed (`gate: {injection_allow: [...]}`)."""
    raw = config.section("gate").get("injection_allow") or ()
    if isinstance(raw, str):
        raw = (raw,)
    return tuple(str(p) for p in raw if str(p).strip()) if isinstance(raw, (list, tuple)) else ()
