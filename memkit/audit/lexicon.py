"""Small word lists the same-frame rule uses to tell a value (a person, a place, a date) from
an ordinary word. They are deliberately generic: common given names across cultures, large
cities and cloud regions, calendar words, common Chinese surnames, tool-like lowercase names.
"""

from __future__ import annotations

import re


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Given names often written first in a sentence ("Lukas maintains …"), where a capital letter
# alone does not make a name.
FIRST_NAMES = word_set(
    "aaron abdul adam adrian ahmed aisha alan albert alex alexander alexandra alice alicia "
    "ali amara amelia amir amit ana andrea andrew andrei angela anita anna anne anton "
    "antonio arjun arthur ayesha barbara beatriz ben benjamin bianca bob boris brian bruno "
    "camille carla carlos carmen caroline catherine charles charlotte chen chloe chris "
    "christian christina claire clara daniel david deepak diana diego dmitri elena eli "
    "elif elizabeth ellen emily emma eric erik ethan eva fatima felix fernando fiona "
    "francesca francisco frank gabriel george giulia grace greg hana hannah hans harry "
    "helen henrik hiro hiroshi hugo ibrahim igor ingrid irene isaac isabel ivan jack "
    "jakub james jan jana jane jason javier jean jennifer jessica jin joao john jonas "
    "jonathan jorge jose joseph juan julia julian justin kai karen karim kate katarzyna "
    "kenji kevin kim laura lea lena leo liam lin linda lisa lucas lucia luis lukas maria "
    "mariana mark marta martin mateo matteo maya mei michael michelle miguel mike min "
    "ming mohammed nadia naomi natalia nathan neha nicolas nina noah nora olga oliver "
    "olivia omar oscar pablo paolo patrick paul pedro peter philip pierre pooja priya "
    "rafael rahul raj ravi rebecca ricardo robert rosa ryan sam samuel sara sarah sean "
    "sebastian sergei simon sofia sophie stefan stephen steven sunil takeshi tanya "
    "thomas tim tom tomas valentina vera victor viktor vivek wei william xavier yara "
    "yuki yusuf zara zoe"
)

PLACES = word_set(
    "amsterdam athens atlanta austin bangalore bangkok barcelona beijing belgrade berlin "
    "bogota boston brussels bucharest budapest cairo cape chennai chicago copenhagen "
    "dallas delhi denver dubai dublin edinburgh frankfurt geneva hamburg helsinki "
    "hyderabad istanbul jakarta johannesburg kyiv lagos lisbon london madrid manila "
    "melbourne mexico miami milan montreal moscow mumbai munich nairobi osaka oslo paris "
    "porto prague pune riga rome santiago seattle seoul shanghai shenzhen singapore sofia "
    "stockholm sydney taipei tallinn tokyo toronto vancouver vienna vilnius warsaw "
    "zurich cebu oregon virginia ohio ireland germany france spain portugal japan india "
    "brazil canada poland sweden norway finland netherlands italy"
)

PLACES_ZH = word_set(
    "北京 上海 深圳 廣州 广州 杭州 南京 成都 武漢 武汉 西安 蘇州 苏州 天津 重慶 重庆 廈門 厦门 "
    "青島 青岛 大連 大连 台北 臺北 新北 桃園 桃园 新竹 台中 臺中 台南 臺南 高雄 花蓮 花莲 "
    "宜蘭 香港 澳門 東京 东京 大阪 首爾 首尔 新加坡 倫敦 伦敦 巴黎 柏林 紐約 纽约 "
    "舊金山 旧金山 西雅圖 西雅图 法蘭克福 法兰克福 都柏林 阿姆斯特丹 斯德哥爾摩 雪梨 悉尼 "
    "多倫多 多伦多 曼谷 雅加達 雅加达 吉隆坡 班加羅爾 孟買"
)

# What comes right after a place name: "the Berlin office", "上海辦公室".
PLACE_AFTER = word_set("office offices region campus datacenter datacentre hq site")
PLACE_AFTER_ZH = ("辦公室", "办公室", "區域", "区域", "機房", "机房", "市", "省", "分公司", "園區")

TEAM_WORDS = word_set("team teams squad squads group guild crew tribe")
# A name after these is the thing a statement is about, not a value of it ("Project Heron").
THING_WORDS = word_set("project projects programme program initiative epic workstream codename")
TEAM_AFTER_ZH = ("團隊", "团队", "小組", "小组", "組", "组", "部門", "部门", "部", "團", "团", "隊")

WEEKDAYS = word_set(
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays "
    "thursdays fridays saturdays sundays"
)
MONTHS = word_set(
    "january february march april may june july august september october november "
    "december jan feb mar apr jun jul aug sep sept oct nov dec"
)
CJK_NUMERALS = "一二三四五六七八九十日天"
DATE_BEFORE_ZH = ("週", "周", "星期", "禮拜", "礼拜", "第")
DATE_AFTER_ZH = ("月", "號", "号", "日", "季", "點", "点")

SURNAMES_ZH = frozenset(
    "王李張张劉刘陳陈楊杨黃黄趙赵吳吴周徐孫孙馬马朱胡郭何高林羅罗鄭郑梁謝谢宋唐許许韓韩馮冯"
    "鄧邓曹彭曾蕭萧田董潘袁蔡蔣蒋余于杜葉叶程魏蘇苏呂吕丁任沈姚盧卢姜崔鍾钟譚谭陸陆汪范金石"
    "廖賈贾夏韋韦傅方白鄒邹孟熊秦邱江尹薛閻阎段雷侯龍龙史陶黎賀贺顧顾毛郝龔龚邵萬万錢钱嚴严"
    "覃武戴莫孔向湯汤歐欧溫温康施洪翁游柯詹蕭簡简"
)

# Lowercase words that name a tool as much as a capitalised one does ("install with pnpm").
DETERMINERS = word_set("the a an our this each every all its their your my that these those")
# Verbs an instruction starts with: the sentence has no subject of its own.
IMPERATIVE = word_set(
    "add adopt align always append apply approve archive ask assign avoid back backfill "
    "bump build cache call change check choose clean clear close commit compile configure "
    "copy create declare define delete deploy describe disable do document don't drop "
    "edit employ enable ensure enter execute export fetch fill fix follow format generate "
    "handle import include index install invoke keep label limit lint list log make mark "
    "merge migrate mock move name never notify open pack package pass pause pick pin place "
    "post prefer prepend preserve promote publish pull purge push put raise read rebase "
    "record refactor refer reinstall release reload remove rename render replace report "
    "request require reset restart restore restrict return reuse review roll rotate run "
    "scale seed send set ship sign skip sort specify squash start stop store stub submit "
    "switch sync tag target tell test transfer treat trigger try type update upgrade use "
    "utilize validate vendor verify wait wrap write join see visit click contact feel take "
    "look consider let go get give keep leave mention note open find search share develop"
)

TOOLS = word_set(
    "npm pnpm yarn bun pip pipx poetry uv conda git svn hg vim neovim emacs kubectl helm "
    "kustomize docker podman nginx caddy redis memcached kafka rabbitmq celery cron "
    "systemd bash zsh fish make cmake bazel gradle maven sbt cargo go rustup nvm pyenv "
    "black ruff flake8 pylint mypy eslint prettier biome jest vitest pytest mocha "
    "webpack vite esbuild rollup terraform pulumi ansible chef puppet grafana prometheus "
    "loki sentry datadog jenkins renovate dependabot trivy grype "
    # Linters, formatters, type checkers, test runners, builders and hook runners a team
    # names in its instruction files, none of them an English word.
    "prek pre-commit lefthook husky lint-staged pyright basedpyright ty pyre pytype isort "
    "autopep8 yapf bandit pdm hatch rye uvx tox nox pipenv flit twine maturin deno nodejs "
    "tsc tsx ts-node swc babel parcel turbopack turborepo nx lerna changesets oxlint rslint "
    "stylelint tslint jshint dprint taplo tombi clippy rustfmt nextest cargo-nextest "
    "golangci-lint gofmt goimports gofumpt staticcheck gopls ktlint detekt spotless "
    "checkstyle spotbugs junit testng gradlew mvn bazelisk meson ninja scons conan vcpkg "
    "clang clang-format clang-tidy gcc cppcheck valgrind phpstan psalm phpunit rubocop rspec "
    "sorbet credo dialyzer swiftlint swiftformat xcodebuild fastlane cocoapods playwright "
    "cypress puppeteer webdriverio storybook jasmine karma rspack rsbuild rslib pnpx npx "
    "yarnpkg corepack volta fnm asdf mise direnv skaffold minikube k3d k3s helmfile "
    "terragrunt tflint tfsec checkov semgrep codeql snyk gitleaks trufflehog hadolint "
    "shellcheck shfmt markdownlint vale commitlint sphinx mkdocs docusaurus vitepress"
)

# Words that mark an update without changing what is said ("we now deploy with Flux").
UPDATE_WORDS = word_set(
    "now currently still today nowadays henceforth meanwhile already actually presently"
)
UPDATE_WORDS_ZH = ("現在", "现在", "目前", "已經", "已经", "如今", "今後", "今后", "從此", "从此")

# Words that mark an entry's standing. Said or no longer said, the entry changed (`"dom"`
# (default) / `"dom"`, "Experimental: …" / "…"): not a wording.
STATUS = word_set(
    "default deprecated experimental optional recommended beta alpha stable unstable legacy "
    "obsolete preview incubating"
)
# (Not "required" / 必须: a rule's force is read as a switch, `align._flip`; "# required
# before commit" / "# before every commit" say one thing.)
STATUS_ZH = word_set("默认 默認 推荐 推薦 可选 可選 实验性 實驗性 废弃 廢棄 弃用 棄用")


def status_mark(text: str) -> str:
    """The standing a detail marks, when that is all it says ("(default)", "实验性"), or ""."""
    words = text.lower().strip(" ()[]*_:：（）").split()
    if len(words) == 1 and words[0] in STATUS:
        return words[0]
    bare = re.sub(r"[\s()（）:：*]", "", text)
    return bare if bare in STATUS_ZH else ""


CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_EDGE = re.compile(
    rf"(?<=[{CJK}])(?=[\w`/.~-])(?![{CJK}])|(?<=[\w`/.~-])(?<![{CJK}])(?=[{CJK}])"
)
_CJK_SLASH = re.compile(rf"(?<=[{CJK}])/(?=[{CJK}])")
# "CPT/SFT/DPO", "CI/CD": a list of names, not a path.
ACRONYMS = re.compile(r"[A-Z][A-Z0-9]*(?:/[A-Z][A-Z0-9]*)+[.,;:]?")


def cjk_spaced(text: str) -> str:
    """The text with a space where CJK meets Latin letters, digits or code, and a slash
    between CJK words read as the "or" it stands for (理解/断言). Chinese has no spaces, and to
    a pattern a CJK character is a word character like any other: "freeze_llm设置为True将会将
    LLM" was one word, "页面理解/断言" a path."""
    return _CJK_EDGE.sub(" ", _CJK_SLASH.sub("或", text))
