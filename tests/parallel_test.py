"""memkit.parallel: the cyclic collector paused around building many small records, and
always as it was afterwards (readers of the index use it on every open)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from memkit.index.lite import open_light
from memkit.index.search import open_index
from memkit.parallel import no_cyclic_gc
from tests.helpers import heartbeat_repo


@pytest.mark.parametrize("was", [True, False])
def test_the_collector_is_as_it_was_afterwards_even_on_an_error(was: bool) -> None:
    (gc.enable if was else gc.disable)()
    try:
        with no_cyclic_gc():
            assert not gc.isenabled()
        assert gc.isenabled() is was
        with pytest.raises(RuntimeError), no_cyclic_gc():
            raise RuntimeError("boom")
        assert gc.isenabled() is was
    finally:
        gc.enable()


def test_opening_the_index_leaves_the_collector_on(tmp_path: Path) -> None:
    repo = heartbeat_repo(tmp_path)
    assert gc.isenabled()
    for open_ in (open_index, open_light, open_light):  # in full, then from the columns
        assert open_(repo).atoms
        assert gc.isenabled()
