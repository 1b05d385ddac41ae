"""The team's blind spots: what prompts ask about that memory has nothing on.

When a prompt gets no atom, it gets nothing (recall says nothing it does not have). When the
team opts in (`capture: {blind_spots: true}` in memkit.yaml), each clone also counts the
prompt's words that no atom holds, once per session and only the words, never the prompt,
in its local usage log (`memkit.claude.prompt`). `memkit health` lists the words asked about
in several sessions lately that still no atom holds: what the team keeps asking its agents
and never wrote down.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from memkit.capture.settings import load as capture_settings
from memkit.index import IndexUnavailable
from memkit.index.lite import open_light
from memkit.recall.usage import usage_log

SESSIONS = 3  # a word asked about in this many sessions or more
DAYS = 30  # within the last this many days
FIELDS = ("body", "title", "triggers", "tags", "cjk")


def enabled(root: Path) -> bool:
    return capture_settings(root).blind_spots


def blind_spots(root: Path, today: dt.date) -> list[tuple[str, int]]:
    """(word, sessions) asked about in SESSIONS or more sessions of the last DAYS days that
    no indexed atom holds today, most asked first."""
    since = (today - dt.timedelta(days=DAYS)).isoformat()
    with usage_log(root) as usage:
        spots = usage.blind_spots(since, SESSIONS)
    if not spots:
        return []
    try:
        searcher = open_light(root).searcher
    except (IndexUnavailable, OSError):
        searcher = None
    if searcher is None:
        return spots
    # Written down since: an atom holds the word now.
    return [(t, n) for t, n in spots if not any(searcher.doc_freq(f, t) for f in FIELDS)]
