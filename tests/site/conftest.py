"""Fixtures of the site's browser tests: one headless Chromium per test module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.site.chromium import Browser, browser, chromium_or_skip


@pytest.fixture(scope="module")
def chrome() -> Iterator[Browser]:
    with browser(chromium_or_skip()) as opened:
        yield opened
