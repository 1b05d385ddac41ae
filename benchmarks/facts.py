"""Generated short facts about people and projects, English and Chinese: the repository that
incoming atoms are pulled into by `audit_bench.py`.

Every fact is true on its own and no two contradict each other: each (template, subject) is
used once, and subjects are made-up service, project and event names that no labelled pair
mentions. The same frames recur with other subjects and the same people recur in other
relations: exactly what a same-frame rule must not mistake for an update.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator


def _words(text: str) -> list[str]:
    return text.split()


PEOPLE = _words(
    "Priya Tom Li Wei Marta Daniel Sofia Hiro Anna Jonas Kenji Amara Elena Rahul Chloe Mateo "
    "Lukas Fatima Grace Omar Julia Nadia Viktor Ben Aisha Ingrid Pedro Yusuf Camille Noah "
    "Zara Ivan Mei Oscar Leo Nora Sam Tanya Felix Lena"
)
TEAMS = _words("Kite Lumen Quartz Nimbus Sable Tundra Willow Juniper Cobalt Ember Fjord Larch")
TOOLS = _words(
    "Jenkins CircleCI Spinnaker Helm Nomad Consul Bazel Gradle Grafana Kibana Honeycomb "
    "Opsgenie Metabase Airbyte dbt Retool Figma Miro"
)
CITIES = _words("Lyon Krakow Bilbao Tartu Gdansk Leeds Utrecht Ghent Turin Malmo Graz Brno")
DAYS = _words("Monday Tuesday Wednesday Thursday Friday")
MONTHS = _words("January February March April May June July August September October")
LANGS = (("Go", "1.21"), ("Go", "1.22"), ("Rust", "1.75"), ("Python", "3.11"), ("Java", "21"))
_SUBJECT_A = _words(
    "inventory shipping coupon wishlist loyalty fraud pricing catalog media upload thumbnail "
    "geo routing chat presence feed quota scheduler mailer webhook refund subscription tax "
    "warranty returns rating gift voucher kiosk badge locker"
)
_SUBJECT_B = _words(
    "sync relay gateway indexer worker broker cache exporter planner tracker ingest router "
    "notifier resolver archiver builder checker loader mirror proxy"
)

EN = (
    "The {s} service is owned by team {team}.",
    "On-call for the {s} service is handled by {p}.",
    "The {s} service is deployed with {tool}.",
    "The {s} service runs in the {city} region.",
    "The {s} service keeps {n} replicas in production.",
    "The {s} service is written in {lang} {ver}.",
    "{p} is the tech lead of the {s} squad.",
    "{p} and {p2} ran the {s} workshop in {month}.",
    "The {s} workshop takes place in {city}.",
    "Questions about the {s} dashboards go to {p}.",
    "The {s} API allows {n} requests per second per client.",
    "Alerts for the {s} service are routed to {tool}.",
    "The {s} backlog is groomed every {day}.",
    "{p} reviews every schema change to the {s} database.",
    "The {s} migration is planned for {month}.",
    "Logs of the {s} service are kept for {n} days.",
)
ZH = (
    "{s}服務由 {team} 團隊負責。",
    "{s}服務的值班由{pz}處理。",
    "{s}服務用 {tool} 部署。",
    "{s}服務部署在{cityz}區域。",
    "{s}服務在正式環境保留 {n} 個副本。",
    "{pz}是{s}小組的技術負責人。",
    "{s}工作坊由{pz}和{pz2}主持。",
    "{s}儀表板的問題請找{pz}。",
    "{s}的 API 每個客戶端每秒允許 {n} 個請求。",
    "{s}服務的告警送到 {tool}。",
    "{s}的待辦清單每週{dayz}整理。",
    "{s}服務的日誌保留 {n} 天。",
)
_SUBJECT_ZH_A = _words(
    "庫存 物流 優惠券 願望清單 會員 風控 定價 目錄 媒體 上傳 縮圖 地理 路由 聊天 推播 "
    "稅務 保固 退貨 評分 禮品 票券 櫃台 徽章 置物櫃"
)
_SUBJECT_ZH_B = _words("同步 轉發 閘道 索引 排程 快取 匯出 追蹤 匯入 通知 解析 封存 建置 鏡像")
PEOPLE_ZH = _words(
    "林佳 吳明 周婷 鄭凱 許安 何寧 郭晨 羅傑 梁婉 宋哲 唐瑜 韓磊 馮潔 程遠 葉青 呂方"
)
CITIES_ZH = _words("里昂 克拉科夫 畢爾包 塔爾圖 格但斯克 利茲 烏特勒支 根特 都靈 馬爾默")
DAYS_ZH = _words("一 二 三 四 五")


def _subjects(first: list[str], second: list[str], sep: str) -> list[str]:
    return [f"{a}{sep}{b}" for a, b in itertools.product(first, second)]


def facts(n: int, *, seed: int = 14, avoid: str = "") -> Iterator[tuple[str, str, list[str]]]:
    """`n` facts as (language, sentence, triggers), about half Chinese; none names a subject
    that occurs in `avoid` (the labelled pairs' text)."""
    rng = random.Random(seed)
    en = [(t, s) for t in EN for s in _subjects(_SUBJECT_A, _SUBJECT_B, "-")]
    zh = [(t, s) for t in ZH for s in _subjects(_SUBJECT_ZH_A, _SUBJECT_ZH_B, "")]
    rng.shuffle(en)
    rng.shuffle(zh)
    pools = [("en", en), ("zh", zh)]
    made = 0
    while made < n and (en or zh):
        lang, pool = pools[made % 2] if pools[made % 2][1] else pools[1 - made % 2]
        template, subject = pool.pop()
        if subject in avoid:
            continue
        lang_name, ver = rng.choice(LANGS)
        p, p2 = rng.sample(PEOPLE, 2)
        pz, pz2 = rng.sample(PEOPLE_ZH, 2)
        text = template.format(
            s=subject,
            team=rng.choice(TEAMS),
            p=p,
            p2=p2,
            pz=pz,
            pz2=pz2,
            tool=rng.choice(TOOLS),
            city=rng.choice(CITIES),
            cityz=rng.choice(CITIES_ZH),
            n=rng.choice((2, 3, 4, 6, 8, 12, 30, 90, 100, 250)),
            lang=lang_name,
            ver=ver,
            month=rng.choice(MONTHS),
            day=rng.choice(DAYS),
            dayz=rng.choice(DAYS_ZH),
        )
        yield lang, text, [subject.split("-")[0] if lang == "en" else subject[:2]]
        made += 1
