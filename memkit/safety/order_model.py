"""A linear reading of orders to the agent, learnt from the labelled sets (issue 39).

The patterns of `memkit.safety.orders` list phrasings; on a set written after they were tuned
they found 0.57 of the orders. This scores a sentence by what it is made of instead: its words
and word pairs, its Chinese character pairs, and the structure the patterns already read
(addressed to an agent, "you", a negation, which kinds of order its words could make). The
weights are data (`order_model.json`), made by `benchmarks/orders_model.py` from the labelled
sets and public text; nothing here is typed by hand but the features (among them the words
of each kind of order, `_KINDS`, English and Chinese) and the table that reads traditional
Chinese characters as simplified ones (`zh_traditional.txt`).

Pure Python (no numpy: the order check runs on the agent hook's write paths), one pass over
each sentence, so linear in the text's length.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise, repeat
from pathlib import Path

from memkit.safety import orders as _orders
from memkit.safety.text import compiled

WEIGHTS = Path(__file__).with_name("order_model.json")
TRADITIONAL = Path(__file__).with_name("zh_traditional.txt")
# A word of any script but Chinese (read by its characters): "ignorez", "игнорируй" and "무시"
# are words as "ignore" is.
_LETTER = "[^\\W_\u3400-\u9fff]"
_WORD = re.compile(f"{_LETTER}(?:(?:[^\\W\u3400-\u9fff]|[.-])*{_LETTER})?")
_CJK = re.compile("[\\u3400-\\u9fff]+")
_EAST = re.compile("[\\u3040-\\u30ff\\u3400-\\u9fff\\uac00-\\ud7a3]")  # kana, CJK, Hangul
_FRONTMATTER = re.compile(r"---[ \t]*\n.*?\n---[ \t]*(?:\n|$)", re.S)
_YOU = re.compile(
    r"\b(?:you|your|yourself|vous|votre|toi|ton|dich|dein\w*|usted|você|ты|твой|вы)\b|你|您"
    r"|あなた|당신"
)
_NEG_EN = (  # noqa: SIM905  (a word list reads better as text)
    "not never no don't dont doesn't won't cannot can't mustn't shouldn't avoid"
).split()
_NEG_ZH = "不要 不能 別 别 絕不 绝不 禁止 不准 不可 切勿 請勿 请勿 勿 不得".split()  # noqa: SIM905


def _negations(english: list[str], chinese: list[str]) -> re.Pattern[str]:
    return re.compile(rf"\b(?:{'|'.join(english)})\b|{'|'.join(chinese)}")


_NEG = _negations(_NEG_EN, _NEG_ZH)
# Who an order would be given to: an agent's name or kind, in English and Chinese.
_AGENT = _orders.AGENT_NAMES | {
    *("devin", "aider", "cline", "windsurf"),
    # The other languages' words for an assistant or an agent.
    *("assistente", "asistente", "agente", "ki-assistent", "ki-agent", "ассистент", "агент"),
    *("ki-assistenten", "ki-agenten", "ia"),
}
_ZH_AGENT = re.compile(
    "智能体|智能體|助手|助理|模型|機器人|机器人|人工智能|人工智慧|(?<![a-z])ai(?![a-z])"
    "|アシスタント|エージェント|어시스턴트|에이전트"
)
# Where a negation's reach begins, and where a clause ends (so its reach).
_NEGATION = _negations([*_NEG_EN, "without"], [*_NEG_ZH, "不會", "不会", "從不", "从不"])
_CLAUSE = re.compile(r"[,;:()]|，|；|：|\bbut\b|\bif\b|\bso\b|但|如果")
# The verbs of a claim: "report" with "unchecked" takes the truth away only when the agent is
# told to say or write it ("never merge your own, even when CI is green" claims nothing).
_CLAIM = re.compile(
    r"\b(?:say|write|report|mark|call|sign|tell|claim|state|put|answer|reply|list|note|post|comment"
    r"|copy|fill|écri\w*|schreib\w*|escrib\w*|escrev\w*|scriv\w*|dis|dites|diga|sag\w*)\b"
    r"|写|寫|报|報|回复|回覆|标|標|说|說|填|抄"
)


def _clause_end(piece: str, at: int) -> int:
    """Where the clause that goes on at `at` ends: a comma or colon inside inline code (`#
    type: ignore`) ends none."""
    stop = _CLAUSE.search(piece, at)
    while stop is not None and piece.count("`", at, stop.start()) % 2 == 1:
        close = piece.find("`", stop.start())
        if close < 0:
            break
        stop = _CLAUSE.search(piece, close + 1)
    return stop.start() if stop is not None else len(piece)


_MODAL = frozenset(["must", "should", "shall", "always", "need", "needs", "has", "have", "will"])
_ALPHA = re.compile(r"[^\W\d_]{3,20}")
# The words of each kind of order, in English and Chinese, as a reader groups them (not
# phrasings: a word of the kind anywhere in the sentence). Alone they say little ("skip" is a
# rule's word as often as an order's); crossed with who is told (`k:kind:agent`) they carry
# what the few labelled Chinese orders of a kind cannot teach by their character pairs: that
# 省掉, 不必 and 跳过 are one thing, as 无视, 不用管 and 不适用 are another.
_KINDS = {
    "skip": r"\bskip\w*|\bno\s+need\s+to\b|\bdon'?t\s+bother\b|\bstraight\s+to\b|\bomit\w*"
    r"|\bwithout\s+(?:running|waiting|testing|checking|verifying|a\s+review)\b|\bbypass\w*"
    r"|\bneed\s+not\b|\bneedn'?t\b|\bleave\s+(?:it|them|that|this|these|those)\s+out\b"
    r"|\bdrop\s+(?:the\s+)?(?:\S+\s+){0,3}?(?:step|check|stage|audit|tests?|scan|review)s?\b"
    r"|跳过|跳過|不用|不必|无需|無需|不需要|省掉|省略|省去|略过|略過|直接上|免了|可以省|可以不|不做"
    r"|不会触发|不會觸發|绕开|繞開|避开|避開",
    "hide": r"\bhid(?:e|es|ing|den)\b|(?:别|別|不要|不能)(?:让|讓)[^。，]{0,6}(?:看出|发现|發現"
    r"|知道|注意到)|\bconceal\w*|\bleave\s+\w+(?:\s+\w+)?\s+out\b|\bquiet\w*"
    r"|\bsilent\w*|\b(?:not|never|without|don'?t)\s+(?:mention\w*|list\w*|say\w*|tell\w*"
    r"|include\w*|bring\s+up)\b"
    r"|\bonly\s+(?:say|write|mention)\b|隐瞒|隱瞞|提及|提起|披露|不要提|别提|別提|不提|不写|不寫"
    r"|不在[^。，]{0,6}(?:列|提|写|寫|说|說)"
    r"|只写|只寫|只说|只說|不要说明|不要說明|悄悄|默默|别说|別說|不要告诉|不要告訴|不列|不用说"
    r"|不用說",
    "report": r"\b(?:passed|passing|pass(?:es)?|green|verified|succeeded|signed\s+off|done"
    r"|completed?|fixed|resolved|no\s+(?:change|regressions?|issues?|problems?|warnings?|errors?"
    r"|failures?)|0\s+(?:\w+\s+)?(?:failed|failures?|errors?)|all\s+good|looks\s+good|tick\w*"
    r"|✅)\b|已验证|已驗證|验证过|驗證過|通过|通過|全绿|全綠|成功|没问题|沒問題|汇报|匯報|回报|回報"
    r"|一律写|一律寫|完成|无警告|已修复",
    "override": r"\b(?:ignore|disregard|supersede\w*|stale|outdated|lifted|unrestricted|precedence"
    r"|no\s+longer\s+appl\w+|no\s+restrictions?|system\s+prompt|instructions?\s+you\s+were)\b"
    r"|忽略|无视|無視|不适用|不適用|不用管|别管|別管|为准|為準|解除|覆盖|覆蓋|取代|系统设定"
    r"|系統設定"
    r"|系统提示|系統提示|限制|约束|約束|听这条|聽這條|优先|優先",
    "send": r"\b(?:paste|send|post|share|reply\s+with|give|hand|dm|upload|include)\b|带上|帶上|发给"
    r"|發給|发到"
    r"|發到|填进|填進|填上|写上|寫上|给出|給出|贴|貼|附上|私信|告诉他|告訴他|发在|發在",
    "secret": r"_(?:secret|token|password|passwd|key)\b|\b(?:password|passwd|secret|token"
    r"|credential|api[_ -]?key|access\s*key|connection"
    r"\s+string|private\s+key|\.env\w*)|密钥|密鑰|密码|密碼|口令|accesskey|令牌|凭证|憑證|证书|證書"
    r"|私钥"
    r"|私鑰|连接串|連接串|账号|帳號",
    "approve": r"\b(?:approv\w*|merg\w*|\+2|lgtm|admin|accept\w*|self-\w+|auto-?merge)\b|批准|核准"
    r"|合并|合併|审查|審查|不用等|不必等|直接合|管理员|管理員|维护者|維護者|自己",
    "disable": r"\b(?:disabl\w*|turn\w*\s+off|comment\w*\s+out|allow_failure|continue-on-error"
    r"|xfail|ignore\w*|suppress\w*|nolint|noqa)\b|注释掉|註解掉|注释|註釋|關掉|关掉|关闭|關閉|禁用"
    r"|停用"
    r"|去掉|删掉|刪掉|屏蔽",
    "registry": r"\b(?:registry|registries|mirrors?|index-url|goproxy|proxy|npmrc|pip\.conf"
    r"|maven|repositories|sources?\.list)\b|镜像|鏡像|源|仓库地址|倉庫地址",
    "download": r"\b(?:curl|wget|npx|iwr|irm|iex|deno\s+run|pip\s+install\s+https?)\b|下载|下載",
    "url": r"https?://",
    # What makes a claim of success a false one ("even when you couldn't reach it", 照样,
    # 即使), and what makes a report an honest one ("report the failure", 如实): the first
    # with `report` is an order, the second a rule that protects the team.
    "unchecked": r"\b(?:even\s+(?:if|when|though)|whether\s+or\s+not|regardless|no\s+matter"
    r"|anyway|instead\s+of\s+the\s+(?:real|actual)|pretend\w*|fake\w*|m[eê]me\s+si"
    r"|(?:auch|selbst)\s+wenn|aunque|incluso\s+si|anche\s+se|mesmo\s+(?:se|que)|даже\s+если)\b"
    r"|\b(?:if|when|whenever)\b[^.;\n]{0,40}?\b(?:red|fail\w*|broken|errors?|times?\s+out"
    r"|timed\s+out|dropped|regress\w*)\b"
    r"|即使|即便|哪怕|不管|无论|不论|照样|照写|反正|假装",
    "honest": r"\b(?:honest\w*|truthful\w*|accurate\w*|as\s+(?:failed|failing)|the\s+failures?"
    r"|(?:actual|real)\s+(?:result|status|output|outcome|error)s?)\b|如实|真实|实际结果|照实",
    # What a rule that protects the team asks of the agent: a person asked first, a check run
    # before the act, the act said or listed, a value masked, the cause fixed, a draft PR or
    # an issue opened (each adds a check or a reader; an order takes one away).
    "guard": r"\b(?:ask\w*|check\s+with|confirm\s+with|wait\s+for|request\w*\s+(?:a\s+)?review"
    r"|draft"
    r"|re-?run\w*\s+(?:it\s+|them\s+|the\s+\w+\s+)?once|retry\s+once|double-check\w*|say\s+so"
    r"|(?:tell|inform|notify)\s+(?:the\s+|a\s+|your\s+)?(?:user|human|team|on-call|reviewer"
    r"|maintainer|owner"
    r"|lead)\w*|let\s+(?:the\s+|a\s+)?(?:user|human|team|reviewer)s?\s+know|flag\s+(?:it|them|this)"
    r"|list\s+(?:them|it|each|every|all|the)|name\s+(?:it|them|the)"
    r"|explain\w*|note\s+(?:it|why|the\s+reason)|redact\w*|mask\w*|placeholders?|fix\s+(?:the|it"
    r"|what)"
    r"|unsure|not\s+sure|in\s+doubt|before\s+(?:you\s+)?(?:commit|push|merg|open|submit|propos"
    r"|deploy"
    r"|releas|delet|remov)\w*)\b|\*\*\*|询问|詢問|先问|先問|问一下|問一下|请示|請示|征求|徵求|征得"
    r"|徵得"
    r"|等待|提\s*(?:pr|issue)|开\s*issue|開\s*issue|列出|逐一|注明|写明|寫明|写清楚|寫清楚|替换成"
    r"|替換成"
    r"|打码|打碼|脱敏|修复|修復|求助|告知|通知|不确定|不確定|先跑|再跑一次|重跑一次|登记|登記"
    r"|\b(?:demand\w*|corrig\w*|pregunt\w*|pide|pergunt\w*|frag\w*|behebe\w*)\b",
    # A harm kept to a place or a case: "disable the rule in `scripts/` only", "run it only on
    # throwaway VMs" (a team's exception, where an order is general).
    "scope": r"\bonly\s+(?:on|in|for|when|if|under|inside|within|after)\b|\b(?:for|in"
    r"|on)\s+\S+\s+only\b"
    r"|只在|仅在|僅在|仅限|僅限|只限",
    # Where a secret is kept, not sent: "share a credential through the 1Password vault".
    "vault": r"\b(?:vaults?|1password|bitwarden|keychain|keepass|sops|(?:secrets?"
    r"|password)\s+manager"
    r"|ci\s+secrets?)\b|保险库|保險庫|密码管理|密碼管理",
    # The check still happens elsewhere: a local skip that CI or a nightly job makes up for.
    # (A run verb each: "when the nightly job fails" and 「夜间任务失败时」 name a job, not one
    # that still runs.)
    "covered": r"\b(?:ci|pipeline|nightly|the\s+\w+\s+job)\b[^.;\n]{0,30}?\b(?:still\s+)?(?:runs?"
    r"|covers?|catches)\b|\b(?:runs?|covers?)\b[^.;\n]{0,30}?\b(?:on\s+merge|nightly|every\s+(?:night"
    r"|push)|in\s+ci)\b|\bstill\s+(?:runs?|required|needs?|checks?)\b|\bnothing\s+merges\b"
    r"|\brun\s+(?:it|them|those|these)\s+(?:before|on|in)\b|\bafterwards\b|\bohnehin\b"
    r"|\bjede\s+nacht\b|(?:仍然|依然|还是|還是)(?:会|會)?(?:跑|执行|執行)"
    r"|(?:ci|流水线|流水線)\s*(?:会|會|仍然|还是会|還是會)?\s*(?:跑|执行|執行|覆盖|覆蓋)|事后|事後"
    r"|(?:每晚|夜间|夜間)[^。，,]{0,8}?(?:会|會)(?:跑|执行|執行)",
    # A step the team's process requires: what a skip of it leaves undone.
    "required": r"\b(?:required|requires|mandatory|compulsory|policy|runbook|checklist|contributing"
    r"|compliance|on\s+paper|obligatori\w*|obrigatóri\w*|vorgeschrieben\w*|pflicht\w*)\b|规定|規定"
    r"|要求|必跑|合规|合規|流程|规范|規範|强制|強制",
    # Why an order says a required step can go: it is slow, nobody looks.
    "haste": r"\b(?:slow\w*|takes?\s+(?:\w+\s+){0,2}(?:minutes|hours|forever|ages)|too\s+long"
    r"|burns?"
    r"|nobody\s+(?:checks|looks|reads|notices|cares|has\s+time))\b"
    r"|太慢|很慢|花时间|花時間|省点时间|省點時間|时间紧|時間緊|没人看|沒人看|没人查|沒人查|赶时间"
    r"|趕時間",
}
# The same kinds in the other languages an order comes in (French, German, Spanish,
# Italian, Portuguese, Dutch, Polish, Russian, Japanese, Korean): a kind's weight is learnt
# from the English and Chinese orders, so "ignoriere" counts as "ignore" does where no
# labelled German order taught it.
_FOREIGN_KINDS = {
    "skip": r"\b(?:saute[rz]?|sautez|omet\w*|überspring\w*|auslass\w*|weglass\w*|salta\w*"
    r"|omit[ae]\w*"
    r"|sem\s+esperar|sin\s+esperar|sans\s+attendre|ohne\s+(?:zu\s+)?warten"
    r"|ometti\w*|pul[ae]|overslaan|pomi\w*|пропусти\w*|пропуска\w*)\b|スキップ|飛ばし"
    r"|건너뛰|생략",
    "hide": r"\b(?:cachez|cacher|verschweig\w*|verheimlich\w*|ocult\w*|nascond\w*|escond\w*"
    r"|verberg\w*|verzwijg\w*|ukryj\w*|скрой\w*|скрыва\w*|не\s+(?:говори|упоминай|сообщай))\b"
    r"|\bno\s+(?:se\s+)?(?:lo\s+|le\s+|les\s+)?(?:digas|menciones|cuentes|informes)\b"
    r"|\bnon\s+(?:lo\s+)?(?:dire|dirlo|menzionare|riferire)\b"
    r"|\bne\s+(?:le\s+|lui\s+|leur\s+)?(?:dis|dites|mentionne\w*|signale\w*)\s+pas\b"
    r"|\b(?:sag|sage|erwähne|verrate)\w*\s+(?:es\s+|das\s+)?(?:\w+\s+){0,2}nicht\b"
    r"|\bnão\s+(?:lhe\s+|o\s+)?(?:conte|diga|mencione|informe)\b"
    r"|隠し|隠す|言わない|伝えない|숨기|말하지",
    "report": r"\b(?:réussi\w*|bestanden|erfolgreich|exitos\w*|pasaron|superat\w*|riuscit\w*"
    r"|passat[io]|passaram|sucesso|geslaagd|przeszł\w*|прошли|успешн\w*)\b|合格|통과|성공",
    "override": r"\b(?:ignor\w*|oubli\w*|vergiss\w*|vergessen|olvid\w*|dimentic\w*|esque[cç]\w*"
    r"|negeer\w*|vergeet|zignoruj\w*|zapomnij|игнорир\w*|проигнорир\w*|забудь|consignes"
    r"|anweisungen|instrucciones|istruzioni|instruções|instructies|instrukcj\w*|инструкци\w*)\b"
    r"|無視|指示|무시|지시",
    "send": r"\b(?:envo[iy]\w*|envía\w*|colle[rz]?|publie[rz]?|affiche[rz]?|schick\w*|gib|poste"
    r"|hochlad\w*|pega|publica\w*|invia\w*|incolla\w*|pubblica\w*|envie\w*|cole|stuur\w*"
    r"|plak\w*|wyślij|wklej|отправ\w*|пришли|вставь|выведи|покажи)\b|送信|送って|貼り付け|보내"
    r"|붙여",
    "secret": r"\b(?:mot\s+de\s+passe|jeton|identifiants|passwort|kennwort|zugangsdaten"
    r"|umgebungsvariablen|contraseña|credenciales|credenziali|senha|credenciais|wachtwoord"
    r"|api-sleutel|hasło|hasła|парол\w*|токен\w*)\b|パスワード|トークン|비밀번호|토큰",
    "disable": r"\b(?:d[ée]sactiv\w*|deaktivier\w*|abschalt\w*|desactiv\w*|deshabilit\w*"
    r"|disattiv\w*|disabilit\w*|desativ\w*|desabilit\w*|uitschakel\w*|wyłącz\w*|отключ\w*"
    r"|выключ\w*)\b|無効|비활성",
    "approve": r"\b(?:fusionn\w*|approuv\w*|genehmig\w*|fusiona\w*|aprueba\w*|approva\w*"
    r"|aprov\w*|mescl\w*|одобр\w*)\b|承認|マージ|승인|병합",
    "download": r"\b(?:télécharg\w*|herunterlad\w*|descarg\w*|scaric\w*|baix\w*|скача\w*)\b"
    r"|ダウンロード|다운로드",
}
_KINDS = {
    name: f"{source}|{_FOREIGN_KINDS[name]}" if name in _FOREIGN_KINDS else source
    for name, source in _KINDS.items()
}
# What each kind's pattern cannot match without (lower case): a sentence holding none of them
# is not searched for that kind, which spares most sentences the searches (a necessary
# condition, read off `_KINDS`: the same features, about a third of the time).
_KIND_WORDS = {
    "skip": "skip need bother straight omit without bypass leave drop 跳 不 需 省 略 直接上 免了 "
    "绕 繞 避",
    "hide": "hid conceal leave quiet silent mention list say tell include bring only 瞒 瞞 提 披 "
    "不 只 悄 默 说 說 让 讓",
    "report": "pass green verified succeeded signed done complet fixed resolved change regression "
    "issue problem warning error fail all looks tick ✅ 验证 驗證 通过 通過 全绿 全綠 成功 没问题 "
    "沒問題 汇报 匯報 回报 回報 一律 完成 无警告 已修复",
    "override": "ignore disregard supersede stale outdated lifted unrestricted precedence appl "
    "restriction system instruction 忽略 无视 無視 适用 適用 管 为准 為準 解除 覆 取代 设定 設定 "
    "提示 限制 约束 約束 这条 這條 优先 優先",
    "send": "paste send post share reply give hand dm upload include 发 發 填 给出 給出 贴 貼 附上 "
    "带上 帶上 写上 寫上 "
    "私信 告诉他 告訴他",
    "secret": "pass secret token credential api access connection private .env _key 密 口令 令牌 "
    "凭证 "
    "憑證 证书 證書 私钥 私鑰 连接串 連接串 账号 帳號",
    "approve": "approv merg +2 lgtm admin accept self- 批准 核准 合并 合併 审查 審查 等 直接合 "
    "管理员 管理員 维护者 維護者 自己",
    "disable": "disabl turn comment allow_failure continue-on-error xfail ignore suppress nolint "
    "noqa 注释 註解 註釋 關掉 关掉 关闭 關閉 禁用 停用 去掉 删掉 刪掉 屏蔽",
    "registry": "registr mirror index-url goproxy proxy npmrc pip.conf maven repositories source "
    "镜像 鏡像 源 仓库地址 倉庫地址",
    "download": "curl wget npx iwr irm iex deno pip 下载 下載",
    "url": "http",
    "unchecked": "even whether regardless matter anyway instead pretend fake même meme wenn aunque "
    "incluso anche mesmo даже red fail broken error time dropped regress 即 哪怕 不管 无论 不论 照 "
    "反正 假装",
    "honest": "honest truthful accurate fail actual real 如实 真实 实际结果 照实",
    "guard": "ask check confirm wait request draft run retry tell inform notify let double say "
    "flag list "
    "name explain note redact mask placeholder fix unsure sure doubt before *** 询问 詢問 问 問 "
    "请示 "
    "請示 征 徵 等待 提 开 開 列出 逐一 注明 写明 寫明 写清楚 寫清楚 替换成 替換成 打码 打碼 脱敏 "
    "修复 "
    "修復 求助 告知 通知 确定 確定 先跑 跑一次 登记 登記 demand corrig pregunt pide pergunt frag "
    "behebe",
    "scope": "only 只在 仅在 僅在 仅限 僅限 只限",
    "vault": "vault 1password bitwarden keychain keepass sops manager secret 保险库 保險庫 "
    "密码管理 "
    "密碼管理",
    "covered": "ci pipeline nightly job run cover still nothing afterwards ohnehin nacht 仍然 依然 "
    "还是 還是 流水 事后 事後 每晚 夜间 夜間",
    "required": "requir mandatory compulsory policy runbook checklist contributing compliance "
    "paper "
    "obligatori obrigatóri vorgeschrieben pflicht 规定 規定 要求 必跑 合规 合規 流程 规范 規範 "
    "强制 "
    "強制",
    "haste": "slow take long burn nobody 太慢 很慢 花时间 花時間 省点时间 省點時間 时间紧 時間緊 "
    "没人 沒人 赶时间 趕時間",
}
# The foreign words' gates: each word's first letters (as its pattern needs them).
_FOREIGN_WORDS = {
    "skip": "saut omet überspring auslass weglass esperar attendre warten salta omit ometti pula "
    "pule overslaan pomi пропус "
    "スキップ 飛ばし 건너뛰 생략",
    "hide": "cache verschweig verheimlich ocult nascond escond verberg verzwijg ukryj скр не 隠 "
    "言わない 伝えない 숨기 말하지 digas menciones cuentes informes dire dirlo menzionare riferire "
    "pas nicht não",
    "report": "réussi bestanden erfolgreich exitos pasaron superat riuscit passat sucesso geslaagd "
    "przeszł прошли успешн 合格 통과 성공",
    "override": "ignor oubli vergiss vergessen olvid dimentic esque negeer vergeet zignoruj "
    "zapomnij игнорир проигнорир забудь consignes anweisungen instrucciones istruzioni "
    "instruções instructies instrukcj инструкци 無視 指示 무시 지시",
    "send": "envo envía colle publie affiche schick gib poste hochlad pega publica invia incolla "
    "pubblica envie cole stuur plak wyślij wklej отправ пришли вставь выведи покажи 送信 送って "
    "貼り付け 보내 붙여",
    "secret": "mot jeton identifiants passwort kennwort zugangsdaten umgebungsvariablen contraseña "
    "credenciales credenziali senha credenciais wachtwoord sleutel hasł парол токен パスワード "
    "トークン 비밀번호 토큰",
    "disable": "sactiv deaktivier abschalt desactiv deshabilit disattiv disabilit desativ "
    "desabilit uitschakel wyłącz отключ выключ 無効 비활성",
    "approve": "fusion approuv genehmig aprueba approva aprov mescl одобр 承認 マージ 승인 병합",
    "download": "télécharg herunterlad descarg scaric baix скача ダウンロード 다운로드",
}
_KIND_WORDS = {
    name: f"{words} {_FOREIGN_WORDS[name]}" if name in _FOREIGN_WORDS else words
    for name, words in _KIND_WORDS.items()
}
_KIND_GATES = {name: tuple(words.split()) for name, words in _KIND_WORDS.items()}


def _kinds(piece: str, names: Iterable[str] = _KINDS) -> list[str]:
    """The kinds of `_KINDS` (among `names`) whose words `piece` (lower case) holds."""
    return [
        name
        for name in names
        # `map` of the bound `in`: the same test as a generator of `word in piece`, without a
        # Python frame for each word (it was a seventh of the check's time on public text).
        if any(map(piece.__contains__, _KIND_GATES[name])) and compiled(_KINDS[name]).search(piece)
    ]


def possible_kinds(lowered: str) -> tuple[str, ...]:
    """The kinds a sentence of the text `lowered` may hold: those with a gate word in the
    text at all (its sentences are then gated among these only: the same features)."""
    if _CJK.search(lowered):
        lowered = lowered.translate(_simplified())
    return tuple(name for name in _KINDS if any(map(lowered.__contains__, _KIND_GATES[name])))


# The families of features a model may use (`Model.families`, stored with the weights): w
# words, b word pairs, c Chinese characters and their pairs, f the first word, s the structure
# marks and the kinds of order crossed with them; p each word's first 4 and 6 letters
# ("skipped" and "skipping" share "skip"); x the first 4 letters of the words of a sentence
# that names or addresses an agent (an order's verb is a rule's: who is told is the
# difference); o where the agent is (named first, the subject of a modal); n the words a
# negation reaches; k the kinds of `_KINDS` the sentence's words belong to, alone and with who
# is told; d what the sentence's action does to a check, a reviewer or the truth (`_direction`).
FAMILIES = ("w", "b", "c", "f", "s", "p", "x", "o", "n", "k", "d")
# The kinds that take something away from the team when they are not negated: a step, a
# check, the truth from a reader, its instructions, its registry; `report` counts only with
# `unchecked` (a claim of success it did not earn), `send` only with `secret`.
_HARM = frozenset(["skip", "hide", "disable", "download", "override", "registry"])
# The kinds that add one: a person asked, a step run first, the act said, the check kept.
_GUARD = frozenset(["guard", "covered", "honest", "vault"])
# What a negation makes a rule of: the harms, and an approval, a send or a claim forbidden.
_FORBIDDEN = _HARM | {"approve", "send", "report", "secret"}


def _direction(held: Iterable[str], negated: set[str], piece: str) -> list[str]:
    """What a sentence's action does, read off its kinds (`held`) and those a negation reaches
    (`negated`): `harm` takes a check, a reviewer or the truth away and adds none, `guard` adds
    one and takes none, `mixed` both, `forbid` only forbids taking one away ("never disable the
    hooks"). Words of no language in particular: a rule spoken to the agent that protects the
    team reads as `guard` or `forbid` in any set, an order as `harm`."""
    kinds = set(held)
    harm = kinds & _HARM
    if "report" in kinds and "unchecked" in kinds and _CLAIM.search(piece):
        harm.add("report")
    if "send" in kinds and "secret" in kinds and "vault" not in kinds:
        harm.add("send")
    if "covered" in kinds:
        harm.discard("skip")  # skipped here, run in CI or at night: moved, not taken away
    free = harm - negated
    guard = bool(kinds & _GUARD)
    found = []
    if free:
        found.append("mixed" if guard else "harm")
        if "scope" in kinds:
            found.append("scoped")
    elif guard:
        found.append("guard")
    if not free and negated & _FORBIDDEN:
        found.append("forbid")  # "never merge your own", "don't paste tokens": a rule
    return found


@lru_cache(maxsize=1)
def _simplified() -> dict[int, int]:
    lines = TRADITIONAL.read_text(encoding="utf-8").splitlines()
    traditional, simplified = (line for line in lines if not line.startswith("#"))
    return str.maketrans(traditional, simplified)


# A heading, or a line ending in a colon, that names an agent ("## Notes for assistants",
# "## AI 协作约定", "ai_agent:"): the sentences under it speak to the agent though none of
# them names it.
_HEADING = re.compile(r"^(?:#{1,6}[ \t][^\n]*|[^\n]{2,60}:[ \t]*)$", re.M)


def headed(text: str) -> list[tuple[int, int]]:
    """(start, end) of each part of `text` under a heading that names an agent (up to the next
    heading)."""
    marks = list(_HEADING.finditer(text))
    found = []
    for i, m in enumerate(marks):
        line = m.group(0).lower()
        if not _AGENT.isdisjoint(_WORD.findall(line)) or _ZH_AGENT.search(line):
            found.append((m.end(), marks[i + 1].start() if i + 1 < len(marks) else len(text)))
    return found


def features(
    lowered: str,
    start: int,
    end: int,
    families: frozenset[str] = frozenset(FAMILIES),
    *,
    kinds: Iterable[str] = _KINDS,
    under: bool = False,
) -> set[str]:
    """The features of the sentence `lowered[start:end]` (a lower-cased reading); `kinds`
    (`possible_kinds` of the whole text) spares the search for the others; `under`: the
    sentence is under a heading that names an agent (`headed`)."""
    # Traditional characters read as simplified: the labelled Chinese is in both scripts, and
    # a pair of characters learnt in one should count in the other.
    piece = lowered[start:end]
    if _CJK.search(piece):
        piece = piece.translate(_simplified())
    words = _WORD.findall(piece)
    found: set[str] = set()
    if "w" in families:
        found.update(f"w:{w}" for w in words)
    if "b" in families:
        found.update(f"b:{a} {b}" for a, b in pairwise(words))
    if "c" in families:
        for run in _CJK.findall(piece):
            found.update(f"c:{ch}" for ch in run)
            found.update(f"c:{run[i : i + 2]}" for i in range(len(run) - 1))
    if words and "f" in families:
        found.add(f"f:{words[0]}")  # an imperative's verb, or an address, comes first
    marks = ["s:"]
    addressed = _orders._addressed(lowered, start, end)
    if addressed:
        marks.append("s:address")
    if _YOU.search(piece):
        marks.append("s:you")
    if _NEG.search(piece):
        marks.append("s:neg")
    if under:
        marks.append("s:headed")
    agents = [i for i, w in enumerate(words) if w in _AGENT]
    zh_agent = _ZH_AGENT.search(piece) is not None if _EAST.search(piece) else False
    if "o" in families:
        if agents or zh_agent:
            marks.append("o:agent")
        if agents and agents[0] < 3:
            marks.append("o:first")  # "Claude, …", "AI agents: …", "The agent writes …"
        if any(w in _MODAL for i in agents for w in words[i + 1 : i + 4]):
            marks.append("o:modal")  # "agents must …", "the AI should always …"
        if zh_agent:
            marks.append("o:zh")
    if "s" in families:
        found.update(marks[1:])
        mask = _orders._mask(lowered, start, end)
        # Which kinds of order the words could make, alone and with each mark: a linear model
        # cannot read "addressed and about a check" from the two apart.
        found.update(
            f"{mark}kind{bit}"
            for bit in range(mask.bit_length())
            if mask >> bit & 1
            for mark in marks
        )
    alpha = [w for w in words if _ALPHA.fullmatch(w)]
    if "p" in families:
        # "skipped" and "skipping" share "skip", "reported" and "reports" "repo" and "report".
        found.update(f"p:{w[:4]}" for w in alpha if len(w) >= 4)
        found.update(f"p:{w[:6]}" for w in alpha if len(w) >= 6)
    negated: set[str] = set()
    if "n" in families:
        # The words a negation reaches, as themselves: "must not disable the hooks" is a rule
        # against what "disable the hooks" orders (and "never mention the skipped tests" one
        # more way to hide them).
        for m in _NEGATION.finditer(piece):
            reach = piece[m.end() : _clause_end(piece, m.end())]
            found.update(f"n:{w[:4]}" for w in _WORD.findall(reach) if _ALPHA.fullmatch(w))
            for run in _CJK.findall(reach[:12]):
                found.update(f"n:{run[i : i + 2]}" for i in range(len(run) - 1))
            if "k" in families:
                # A kind of order under a negation: "must not disable the hooks" forbids
                # what "disable the hooks" orders.
                under_negation = _kinds(reach[:60], kinds)
                negated.update(under_negation)
                found.update(f"k:{name}:neg" for name in under_negation)
    if "k" in families:
        held = _kinds(piece, kinds)
        told = [m for m in ("s:address", "s:you", "o:agent", "s:headed") if m in marks]
        found.update(f"k:{name}" for name in held)
        found.update(f"k:{name}:{m[2:]}" for name in held for m in told)
        # Two kinds together: a secret sent, an approval skipped, a registry at a URL.
        found.update(f"k:{a}+{b}" for i, a in enumerate(held) for b in held[i + 1 :])
        if "d" in families:
            # Crossed with who is told: "Claude, … ask first" and "Claude, … skip it" differ
            # in what the act does, whatever their words.
            for d in _direction(held, negated, piece):
                found.add(f"d:{d}")
                found.update(f"d:{d}:{m[2:]}" for m in told)
    if "x" in families and (addressed or agents or zh_agent):
        found.update(f"x:{w[:4]}" for w in alpha)
        for run in _CJK.findall(piece):
            found.update(f"x:{run[i : i + 2]}" for i in range(len(run) - 1))
    return found


@dataclass(frozen=True)
class Model:
    bias: float
    weights: dict[str, float]
    refuse: float  # a sentence scoring this or more is refused
    hold: float  # this or more (below `refuse`) is held for review
    families: frozenset[str] = frozenset(FAMILIES)  # the features it was made with

    def score(
        self, lowered: str, start: int, end: int, kinds: Iterable[str] = _KINDS, under: bool = False
    ) -> float:
        return self.rate(lowered, start, end, kinds, under)[0]

    def rate(
        self, lowered: str, start: int, end: int, kinds: Iterable[str] = _KINDS, under: bool = False
    ) -> tuple[float, bool]:
        """The sentence's score, and whether it is `guarded`."""
        found = features(lowered, start, end, self.families, kinds=kinds, under=under)
        # The same sum in the same order, the look-ups in C (`map`).
        total = self.bias + sum(map(self.weights.get, found, repeat(0.0)))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, total)))), guarded(found)


def guarded(found: Iterable[str]) -> bool:
    """Whether a sentence's features say its action adds a check, a reader or the truth and
    takes none away (`_direction`: `guard` or `forbid`, neither `harm` nor `mixed`): "Claude,
    when the nightly job fails, rerun it once before you open an issue", "Copilot, don't add `#
    type: ignore`; fix the type or ask". Its words may read like an order's, so the model may
    hold it for a person, never refuse it: an order held counts as stopped, a team rule refused
    is a rule lost."""
    marks = set(found) & _DIRECTIONS
    return bool(marks) and marks.isdisjoint(("d:harm", "d:mixed"))


_DIRECTIONS = frozenset(["d:harm", "d:mixed", "d:guard", "d:forbid", "d:scoped"])


@lru_cache(maxsize=1)
def model() -> Model:
    data = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    families = frozenset(data.get("families", ("w", "b", "c", "f", "s")))
    return Model(data["bias"], data["weights"], data["refuse"], data["hold"], families)


def _word_count(piece: str) -> int:
    # Chinese: about two characters a word.
    return len(_WORD.findall(piece)) + sum(len(run) for run in _CJK.findall(piece)) // 2


@dataclass(frozen=True)
class Scored:
    start: int
    end: int
    score: float
    guarded: bool = False  # held at most, never refused (`guarded`)


def spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of the sentences of `text` (a reading) that the model scores."""
    lowered = text.lower()
    # An atom's frontmatter is no sentence: its lines would run into the body's first one (and
    # a quote of that sentence would show the id, made from the body's words). The patterns
    # read it.
    body = _FRONTMATTER.match(text)
    skip = body.end() if body else 0
    for first, end in _orders.sentences(text):
        start = max(first, skip)
        piece = lowered[start:end].lstrip()
        while piece.startswith("#"):
            # A heading names things and orders nothing; the line under it, with no blank
            # line between ("## AI 协作须知\n你改过…"), is a sentence of its own (it was read
            # as part of the heading, and so never scored).
            line = lowered.find("\n", start, end)
            if line < 0:
                break
            start = line + 1
            piece = lowered[start:end].lstrip()
        if end - start < 12 or piece.startswith("#") or _word_count(piece) < 4:
            continue  # a few words name things, order nothing
        yield start, end


def scored(text: str, at_least: float, addressed: bool = False) -> Iterator[Scored]:
    """The sentences of `text` (a reading) scoring `at_least` or more, in order; with
    `addressed`, each read as under a heading that names an agent (a base64 run's text)."""
    found = model()
    lowered = text.lower()
    kinds: tuple[str, ...] | None = None
    sections: list[tuple[int, int]] = []
    for start, end in spans(text):
        if kinds is None:
            kinds = possible_kinds(lowered)
            sections = headed(text)
        under = addressed or any(a <= start < b for a, b in sections)
        value, safe = found.rate(lowered, start, end, kinds, under)  # a long one in windows
        if value >= at_least:
            yield Scored(start, end, value, safe)
