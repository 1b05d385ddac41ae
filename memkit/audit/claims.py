"""What a statement claims: its subject, its relation, whether that relation holds one value at
a time, and which numbers are values rather than names.

The parts of the claim model (DESIGN.md §11b) that every reader of a statement shares
(`memkit.audit.frame`, `memkit.audit.classify`, `memkit.audit.migration`,
`memkit.audit.imperative`); `memkit.audit.verdict` decides with them:

- **identifiers are not values**: the number of a record, step, ticket or list item ("ADR 45",
  "Step 3", "OPS-412", "33. Use of AWS Cloud Map") names a thing; two such numbers are two
  things, never two values of one;
- **functional or set-valued**: a relation that holds one value at a time (the lead, the owner,
  who is on call, who ran *the* workshop, the tool in use, a limit, an interval, a version, a
  location) can be contradicted by a second value; a set-valued one (languages spoken,
  memberships, awards, places visited, being *a* climber) cannot: two people can both be
  violinists, and one person can speak two languages;
- **the subject**: the words a statement names before the thing it gives a value for ("the
  orders service" sets statement_timeout, "the API's PostgreSQL role" has it): two statements
  whose subjects share no word are about two things.
"""

from __future__ import annotations

import functools
import re

from memkit.audit.lexicon import word_set

# Words after which a number names a thing (its position, record or ticket) and is no value.
IDENTIFIER_WORDS = word_set(
    "adr adrs rfc rfcs record records decision decisions ticket tickets issue issues pr prs "
    "pull step steps phase phases stage part parts section sections chapter chapters page "
    "pages item items no nr number option options figure fig table appendix rule rules "
    "milestone sprint epic story task tasks case cases incident incidents postmortem "
    "instance instances node-id line lines row rows level tier grade attempt pdr pep kep cve "
    "jira year years fy"
)
_IDENTIFIER_CODE = re.compile(r"^[a-z]{2,}-\d+$|^#\d+$", re.I)
_LIST_NUMBER = re.compile(r"^\s*\d+\.\s+\D")


def is_identifier(before: str, token: str = "") -> bool:
    """Whether a number written after `before` (the word before it) is a name: `ADR 45`,
    `Step 3`, `#12`, `OPS-412`."""
    if token and (_IDENTIFIER_CODE.match(token) or re.fullmatch(r"0\d+", token)):
        return True  # OPS-412, #12, 0005: a record's number
    word = before.lower().strip("#.:(")
    return word in IDENTIFIER_WORDS or before.endswith("#")


_FENCE = re.compile(r"^\s*(```|~~~).*?^\s*\1[^\n]*$", re.M | re.S)
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_AUTOLINK = re.compile(r"<(?:https?|ftp)://[^>\s]+>", re.I)


def without_names(text: str) -> str:
    """The text without what only names things or states nothing: code blocks, the numbers
    of list items and records ("33. Use of AWS Cloud Map" is record 33's title) and the
    targets of links (`[text](url)`, `<url>`: a link names a page, an issue or a repository;
    two links are two pages, not two values of one). A URL written out in prose stays: "point
    the client at https://api.staging.example.com/v2" gives a value."""
    text = _FENCE.sub("\n", text)
    text = _LINK.sub(r"\1", text)
    text = _AUTOLINK.sub(" ", text)
    return re.sub(r"(?m)^\s*\d+\.\s+(?=\D)", "", text)


# Relations that hold a set of values: what someone speaks, plays, won, visited, belongs to.
_SET_VALUED_EN = re.compile(
    r"\b(?:speaks?|spoke|spoken|knows?|likes?|loves?|enjoys?|plays?|played|visit(?:s|ed)?|"
    r"attend(?:s|ed)?|won|wins?|receiv(?:es|ed)|awards?|awarded|volunteers?|volunteered|"
    r"member|members|membership|joined|hobby|hobbies|skills?|languages?|"
    r"fluent(?:ly)?|collects?|studie[sd]|trains?|trained|certified|certifications?|"
    r"contribut(?:es|ed))\b",
    re.I,
)
_SET_VALUED_ZH = re.compile(
    r"會說|会说|會講|会讲|喜歡|喜欢|愛好|爱好|去過|去过|參加過|参加过|獲得過|获得过|獲過|获过|"
    # Training where or how often (平时在成都训练), not a training log or a trained model.
    r"成員|成员|志願者|志愿者|擅長|擅长|在[^，。,;；]{1,8}(?:訓練|训练)|(?:訓練|训练)過|训练过|"
    r"語言|语言"
)
# Words that make what is said of a subject one of many: "any awards", "one of", "also".
_MANY_EN = re.compile(r"\b(?:among|one of|also|any|too|as well)\b", re.I)
_MANY_ZH = re.compile(r"一名|一位|一個|一个|之一|任何|也是|也會|也会|都")
# An indefinite predicate: "is a professional rock climber", "has a black belt".
_INDEFINITE_EN = re.compile(r"\b(?:is|are|was|were|has|have|had|became)\s+(?:an?|some)\b", re.I)
# Relations that hold one value at a time when the value is who does it: the lead, the owner,
# the one on call, the one who ran *the* event.
_FUNCTIONAL_EN = re.compile(
    # A role as what is said of the subject: "is the tech lead of …", "is on call for …".
    r"\b(?:is|are|was|were|as|remains?)\s+(?:now\s+|still\s+)?(?:the\s+)?(?:[\w-]+\s+){0,2}?"
    r"(?:lead|owner|owners|maintainer|manager|head|chair|on[- ]call|contact|dri|responsible|"
    r"accountable|approver|point of contact)\b"
    # Or a verb whose object has one holder: owns, leads, maintains, ran *the* workshop.
    r"|\b(?:leads|led|owns|owned|maintains|maintained|manages|managed|heads|headed|chairs|"
    r"chaired|approves|signs? off|signed off|escalated|decides|runs|ran|hosts|hosted|"
    r"presents|presented|assigned|belongs? to|ask|go(?:es)? to|for access)\b",
    re.I,
)
_FUNCTIONAL_ZH = re.compile(
    r"負責|负责|值班|組長|组长|主管|經理|经理|領導|领导|主持|維護|维护|審核|审核|簽核|签核|擁有|拥有|"
    r"聯絡人|联络人|聯繫人|联系人|由.{1,6}(?:帶|带|管)"
)


@functools.lru_cache(maxsize=65536)
def set_valued(frame: str) -> bool:
    """The relation of a statement (its text around the value) holds a set of values."""
    return bool(_SET_VALUED_EN.search(frame) or _SET_VALUED_ZH.search(frame))


@functools.lru_cache(maxsize=65536)
def functional_for_subject(frame: str) -> bool:
    """Whether a statement with its subject swapped ("Lukas maintains the internal Terraform
    modules" / "Fatima …") can be two values of one thing: only when what it says of the
    subject is a role one holder fills (the lead, the maintainer, who ran *the* workshop),
    never an indefinite or set-valued one ("is a rock climber", "speaks three languages",
    "did not receive any awards")."""
    if set_valued(frame) or _INDEFINITE_EN.search(frame) or _MANY_EN.search(frame):
        return False
    if _MANY_ZH.search(frame):
        return False
    return bool(_FUNCTIONAL_EN.search(frame) or _FUNCTIONAL_ZH.search(frame))


# Words that say nothing of what a statement is about: function words, and the verbs a value
# is given with ("sets", "has", "uses", "needs").
_HEAD_GENERIC = word_set(
    "a an the is are was were be been this that these those it its we our us you your they "
    "their all every each any some of in on at for by with and or to from as per default "
    "defaults sets set has have had uses use used using needs need needed requires require "
    "gets get got keeps keep runs run makes make takes take gives give should must can will "
    "may always never now currently still also only just then so do does did there here "
    "send sends configure configured configures value values config setting settings"
)
_WORD = re.compile(r"[a-z][a-z0-9+#-]*|[\u4e00-\u9fff]{2}", re.I)


def _stem(word: str) -> str:
    word = word.removesuffix("'s").removesuffix("’s")
    for suffix in ("ies", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: -len(suffix)]
    return word


@functools.lru_cache(maxsize=65536)
def head(sentence: str, key: frozenset[str]) -> frozenset[str]:
    """The subject words of `sentence`: content words before the first word of `key` (the
    thing the statement gives a value for). Empty when the key comes first or is absent."""
    words = [w.lower() for w in _WORD.findall(sentence)]
    stems = [_stem(w) for w in words]
    at = next((i for i, s in enumerate(stems) if s in key or words[i] in key), None)
    if at is None:
        return frozenset()
    return frozenset(s for s in stems[:at] if s not in _HEAD_GENERIC and len(s) > 1)


def key_stems(words: set[str] | frozenset[str]) -> frozenset[str]:
    return frozenset(_stem(w.lower()) for w in words)


def other_subjects(sa: str, sb: str, key: frozenset[str]) -> bool:
    """Two statements giving a value for the same `key` about two subjects: each names a
    subject before the key, and the two share no word (by stem or a common prefix of four
    letters: "payments" and "payment service" are one)."""
    ha, hb = head(sa, key), head(sb, key)
    if not ha or not hb:
        return False
    return not any(
        x == y or (min(len(x), len(y)) >= 4 and (x.startswith(y) or y.startswith(x)))
        for x in ha
        for y in hb
    )
