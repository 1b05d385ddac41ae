"""The quality score of an atom (DESIGN.md §5): a pure function of its text and type.

Seven rules add weights; the total decides pass / warn / fail. Each rule works for English and
for Chinese/Japanese text. Weights and thresholds come from `memkit.yaml` (`gate:`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from memkit.atom.text import plain_text
from memkit.safety.secrets import quote, secret_spans

DEFAULT_WEIGHTS: Mapping[str, float] = MappingProxyType(
    {
        "length_20": 0.15,
        "length_50": 0.10,
        "tech_terms": 0.15,
        "explicit_intent": 0.35,
        "concrete_value": 0.15,
        "non_transient": 0.10,
        "actionable": 0.15,
    }
)

# How to earn each rule: shown to the writer when it did not fire.
HINTS: Mapping[str, str] = MappingProxyType(
    {
        "length_20": "write at least 20 characters",
        "length_50": "write at least 50 characters",
        "tech_terms": "name the technical things involved (API, schema, 設定, …)",
        "explicit_intent": "say it is a rule: always / never / remember / 記住 / 以後一律 / 必須",
        "concrete_value": "give a concrete value: a version, path, number with unit or config key",
        "non_transient": "avoid transient wording (for now, this time, retry, 暫時)",
        "actionable": "say what to do: need X, if Y then Z, use A instead of B, X → Y",
    }
)

_TECH_WORDS = (
    "api",
    "sdk",
    "cli",
    "git",
    "branch",
    "commit",
    "merge",
    "rebase",
    "schema",
    "database",
    "sql",
    "query",
    "index",
    "vector",
    "embedding",
    "cache",
    "config",
    "yaml",
    "json",
    "toml",
    "http",
    "https",
    "rest",
    "grpc",
    "websocket",
    "socket",
    "tcp",
    "udp",
    "dns",
    "tls",
    "ssl",
    "endpoint",
    "server",
    "client",
    "proxy",
    "docker",
    "kubernetes",
    "k8s",
    "container",
    "ci",
    "pipeline",
    "deploy",
    "build",
    "test",
    "pytest",
    "lint",
    "compiler",
    "runtime",
    "thread",
    "async",
    "mutex",
    "lock",
    "queue",
    "kafka",
    "redis",
    "postgres",
    "postgresql",
    "host",
    "cluster",
    "replica",
    "mysql",
    "sqlite",
    "orm",
    "migration",
    "regex",
    "token",
    "oauth",
    "jwt",
    "auth",
    "python",
    "node",
    "npm",
    "pip",
    "typescript",
    "javascript",
    "rust",
    "java",
    "golang",
    "shader",
    "texture",
    "render",
    "frontend",
    "backend",
    "framework",
    "library",
    "package",
    "dependency",
    "module",
    "function",
    "method",
    "class",
    "interface",
    "heartbeat",
    "latency",
    "timeout",
    "memory",
    "cpu",
    "gpu",
    "load balancer",
    "balancer",
    "hook",
    "webhook",
    "env",
    "variable",
    "port",
    "log",
    "bucket",
)
_TECH_CJK = (
    "架構",
    "架构",
    "設定",
    "设定",
    "配置",
    "資料庫",
    "数据库",
    "資料表",
    "数据表",
    "介面",
    "接口",
    "部署",
    "快取",
    "缓存",
    "索引",
    "執行緒",
    "线程",
    "測試",
    "测试",
    "分支",
    "提交",
    "版本",
    "函式",
    "函数",
    "參數",
    "参数",
    "伺服器",
    "服务器",
    "框架",
    "模組",
    "模块",
    "環境變數",
    "环境变量",
    "端口",
    "連線",
    "连接",
    "心跳",
    "負載平衡",
    "负载均衡",
    "編譯",
    "编译",
    "記憶體",
    "内存",
    "日誌",
    "日志",
    "憑證",
    "证书",
    "設定檔",
    "配置文件",
    "依賴",
    "依赖",
    "向量",
    "查詢",
    "查询",
    "構建",
    "构建",
    "渲染",
    "着色器",
    "貼圖",
    "贴图",
    "サーバー",
    "データベース",
    "設定ファイル",
    "テスト",
    "ブランチ",
    "デプロイ",
    "キャッシュ",
    "インデックス",
    "ライブラリ",
    "関数",
)
# A word is looked up in a set, not tried against every alternative at every word boundary
# (on "a.a.a.…" that was 0.45 s for 256 KB). Phrases ("load balancer") are read first, and
# their words are not read again alone.
_TECH_SET = frozenset(w.lower() for w in _TECH_WORDS if " " not in w)
_TECH_PHRASE_RE = re.compile(
    r"\b(?:" + "|".join(re.escape(w) for w in _TECH_WORDS if " " in w) + r")s?\b", re.I
)
_RUN_RE = re.compile(r"\w+")


def _tech_words(text: str) -> set[str]:
    """The technical words of `text` as they are written there, lower-cased (a plural too)."""
    terms = {m.group(0).lower() for m in _TECH_PHRASE_RE.finditer(text)}
    if terms:
        text = _TECH_PHRASE_RE.sub(" ", text)
    for word in set(_RUN_RE.findall(text.lower())):
        if word in _TECH_SET or (word.endswith("s") and word[:-1] in _TECH_SET):
            terms.add(word)
    return terms


# Identifiers read as technical terms too: snake_case, dotted.names, CamelCase, `code`.
# Every pattern is linear in the text (issue 40): a repeated part that can give back what it
# took (`(?:-[a-z0-9]+)*` before `-...\d`, `[\w.-]+` before `[:=]`, `\d+` before a unit) starts
# only where its run starts (a lookbehind, not `\b`, which also holds inside a run: "a-a-a-…",
# "a.a.a.…" or "1111…" were each tried from every character, 10 s for 16 KB).
_HOST = r"(?<![\w-])[a-z][a-z0-9]*(?:-[a-z0-9]+)*-[a-z]*\d[a-z0-9]*\b"  # db-prod-1
_IDENT_RE = re.compile(
    r"`[^`\n]+`|\b[a-z]+_[a-z0-9_]+\b|\b[a-zA-Z]+\.[a-zA-Z][\w.]*\b|\b[A-Z][a-z]+[A-Z]\w+\b"
    r"|\b[A-Z][A-Z0-9]{2,}\b"  # acronyms: API, CDN, ASTC
    rf"|{_HOST}"  # names of hosts: db-prod-1
)

_INTENT_RE = re.compile(
    r"\b(?:remember|always|never|must|from now on|going forward|as a rule|important|do not ever)\b"
    r"|記住|记住|記得|记得|這是固定規則|这是固定规则|固定規則|固定规则|以後一律|以后一律|一律|永遠|永远"
    r"|務必|务必|必須|必须|不要|禁止|不准|不得|絕對|绝对|切記|切记|覚えて|必ず|常に|絶対|禁止"
    r"|してはいけない|しないこと",
    re.I,
)
_CONCRETE_RE = re.compile(
    r"\bv?\d+\.\d+(?:\.\d+)*\b"  # versions
    # A product and its major version (PostgreSQL 16, Node 20), not a count (Kafka 3 brokers)
    r"|\b[A-Z][A-Za-z]+\s+v?\d{1,3}\b(?![.,]?\d)"
    r"(?=\s*(?:$|[.,;:)]|(?:on|in|for|and|or|is|are|with|as|at|by|from|to|only)\b))"
    rf"|{_HOST}"  # a host or service: db-prod-1
    r"|(?:~|\.{1,2})?/[\w.-]+(?:/[\w.*-]+)+|(?<![\w-])[\w-]+/[\w.-]+\.\w{1,5}\b|\b\w+\.(?:py|ts|js|go|rs|"
    r"java|yaml|yml|json|toml|md|sh|sql|cfg|ini|conf)\b"  # paths and files
    r"|(?<![\d.])\d+(?:\.\d+)?\s*(?:ms|s|sec|secs|seconds?|min|minutes?|h|hours?|days?|kb|mb|gb|tb|%|px|"
    r"rpm|qps|rps|毫秒|秒|分鐘|分钟|小時|小时|天|次|個|个|倍|件|行|像素|位元|ピクセル|秒間)"
    r"(?![a-z])"  # numbers with a unit
    r"|(?<![\w.-])[\w-]+\.[\w.-]+\s*[:=]"  # config: a dotted key set
    r"|\b[A-Z][A-Z0-9_]{2,}=\S+|--[a-z][\w-]+|:\d{2,5}\b"  # an env variable, a flag, a port
    r"|`[^`\n]+`",
    re.I,
)
_TRANSIENT_RE = re.compile(
    r"\b(?:temporar(?:y|ily)|for now|right now|this time|today|tonight|wip|retry|retries|"
    r"timeout|flaky|for the moment|just once|hotfix for today)\b"
    r"|暫時|暂时|臨時|临时|這次|这次|今天|先這樣|先这样|目前先|一時的|今回|とりあえず|今日",
    re.I,
)
_ACTION_RE = re.compile(
    r"\b(?:need(?:s)? to|needs?|should|must|use|don't|do not|avoid|prefer|instead of|make sure|"
    r"ensure|set|run|call|add|remove|switch to|if\b.{1,80}\bthen|when\b.{1,80},|otherwise|"
    r"before|after)\b"
    r"|→|->|=>|⇒|⟶"
    r"|需要|應該|应该|請|请|如果.{0,40}(?:就|則|则|要|請|请)|若.{0,40}(?:則|则|就)|改用|改成|避免|"
    r"先.{0,20}再|確保|确保|要用|不要|必須|必须|務必|务必|してください|すること|使う|場合は|べき",
    re.I,
)
_BLANKS = re.compile(r"[^\S\n]{2,}")  # a run of white space within a line
_PITFALL_RE = re.compile(
    r"\b(?:pitfall|gotcha|footgun|trap)s?\b|陷阱|踩坑|坑|落とし穴|ハマり", re.I
)


def is_pitfall(text: str, atom_type: str) -> bool:
    """A failure mode: typed `pitfall`, or saying so (pitfall, gotcha, 陷阱, 踩坑, …)."""
    return atom_type == "pitfall" or _PITFALL_RE.search(text) is not None


@dataclass(frozen=True)
class RuleHit:
    rule: str
    weight: float
    evidence: str


@dataclass(frozen=True)
class GateScore:
    score: float
    verdict: str  # "pass" | "warn" | "fail"
    hits: tuple[RuleHit, ...]
    missed: tuple[str, ...]
    fast_path: bool = False

    def explain(self) -> str:
        fired = ", ".join(
            f"{h.rule} +{h.weight:.2f}" + (f" ({h.evidence})" if h.evidence else "")
            for h in self.hits
        )
        text = f"quality {self.score:.2f} {self.verdict}"
        if self.fast_path:
            text += " (pitfall fast path)"
        text += f"; fired: {fired or 'nothing'}"
        if self.missed and self.verdict != "pass":
            text += "; to improve: " + "; ".join(HINTS[m] for m in self.missed if m in HINTS)
        return text


@dataclass(frozen=True)
class GateSettings:
    weights: Mapping[str, float] = field(default_factory=lambda: DEFAULT_WEIGHTS)
    pass_at: float = 0.5
    warn_at: float = 0.3

    @classmethod
    def from_config(cls, section: Mapping[str, Any]) -> GateSettings:
        weights = dict(DEFAULT_WEIGHTS)
        raw = section.get("weights") or {}
        if isinstance(raw, Mapping):
            for key, value in raw.items():
                if key in weights and isinstance(value, (int, float)):
                    weights[key] = float(value)
        pass_at = section.get("pass", 0.5)
        warn_at = section.get("warn", 0.3)
        return cls(
            weights=MappingProxyType(weights),
            pass_at=float(pass_at) if isinstance(pass_at, (int, float)) else 0.5,
            warn_at=float(warn_at) if isinstance(warn_at, (int, float)) else 0.3,
        )


def _first(pattern: re.Pattern[str], text: str, spans: list[tuple[int, int]]) -> str:
    """What fired, as the explanation quotes it: a secret in it masked (`quote`, asked only
    when `text` holds one: `spans`, the secret check's, run once for the whole score)."""
    m = pattern.search(text)
    if not m:
        return ""
    return quote(text, m.start(), m.end()) if spans else text[m.start() : m.end()].strip()[:40]


def _shown_terms(terms: list[str], text: str, spans: list[tuple[int, int]]) -> str:
    """The first three terms, leaving out any that is part of a secret value in `text`."""
    secrets = [text[a:b].lower() for a, b in spans]
    return ", ".join([t for t in terms if not any(t in s for s in secrets)][:3])


def _tech_terms(text: str) -> set[str]:
    terms = _tech_words(text)
    terms |= {m.group(0).strip("`").lower() for m in _IDENT_RE.finditer(text)}
    terms |= {w for w in _TECH_CJK if w in text}
    return terms


def score_text(
    text: str, *, atom_type: str = "", settings: GateSettings | None = None
) -> GateScore:
    settings = settings or GateSettings()
    w = settings.weights
    hits: list[RuleHit] = []
    missed: list[str] = []

    def rule(name: str, fired: bool, evidence: str = "") -> None:
        (hits.append(RuleHit(name, w[name], evidence)) if fired else missed.append(name))

    length = len(text)
    # The rules read a run of blanks as one (none of them counts blanks), and so does the
    # secret check they quote through: "password" and 40,000 blanks cost it minutes.
    seen = _BLANKS.sub(" ", text)
    spans = secret_spans(seen)
    rule("length_20", length >= 20, f"{length} chars")
    rule("length_50", length >= 50)
    terms = sorted(_tech_terms(seen))
    rule("tech_terms", len(terms) >= 2, _shown_terms(terms, seen, spans))
    intent = _first(_INTENT_RE, seen, spans)
    rule("explicit_intent", bool(intent), intent)
    concrete = _first(_CONCRETE_RE, seen, spans)
    rule("concrete_value", bool(concrete), concrete)
    transient = _first(_TRANSIENT_RE, seen, spans)
    rule("non_transient", not transient)
    action = _first(_ACTION_RE, seen, spans)
    rule("actionable", bool(action), action)
    # The weights add up to more than 1 (a note can earn more than it needs); the score is a
    # share, so it stops at 1.
    total = min(1.0, round(sum(h.weight for h in hits), 4))
    if total >= settings.pass_at:
        verdict = "pass"
    elif total >= settings.warn_at:
        verdict = "warn"
    else:
        verdict = "fail"
    # Failure modes are the most valuable memory and often terse: pitfalls are kept.
    fast = verdict != "pass" and length > 0 and is_pitfall(text, atom_type)
    if fast:
        verdict = "pass"
    return GateScore(total, verdict, tuple(hits), tuple(missed), fast)


def score_atom(
    title: str, body: str, atom_type: str, settings: GateSettings | None = None
) -> GateScore:
    rest = _without_repeated_heading(body)
    if rest is not body and title.rstrip("…").strip() in rest:
        title = ""  # already in the text once
    return score_text(plain_text(title, rest), atom_type=atom_type, settings=settings)


def _without_repeated_heading(body: str) -> str:
    """`body` without its `# heading` line when the text below starts by saying the same
    (a one-line note, or a heading cut short from the first sentence): read once, not twice,
    or a short note would earn the length rules with half its characters."""
    first, _, rest = body.lstrip("\n").partition("\n")
    if not first.startswith("# "):
        return body
    heading = first[2:].strip().rstrip("…").strip()
    rest = rest.lstrip()
    return rest if heading and rest.startswith(heading) else body
