"""The bulk tokeniser's table of parts is kept beside the converted model (issue 33): a later
process (another build, another clone) adopts it and tokenises only words it has not seen,
with bit-identical vectors; a damaged table is ignored and written again."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from memkit.embedding import encoder as encoder_module
from memkit.embedding import load_encoder
from memkit.embedding.bulk import PartTokenizer
from memkit.embedding.encoder import Encoder, encode_bulk

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _texts() -> list[str]:
    """Paragraphs of the project's own docs: English and Chinese prose, thousands of words."""
    text = "\n\n".join(p.read_text(encoding="utf-8") for p in sorted(DOCS.glob("*.md")))
    return [p.strip() for p in re.split(r"\n\s*\n", text) if len(p.strip()) > 40]


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "models"


@pytest.fixture
def learnt(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many parts each `_learn` call tokenised, in this process."""
    seen: list[int] = []
    original = PartTokenizer._learn

    def counting(self: PartTokenizer, words: list[str], inner: list[str]) -> None:
        seen.append(len(words) + len(inner))
        original(self, words, inner)

    monkeypatch.setattr(PartTokenizer, "_learn", counting)
    return seen


def _fresh(cache: Path) -> Encoder:
    encoder_module._LOADED.clear()  # as a new process would
    return load_encoder(None, cache_dir=cache)


def test_a_later_process_tokenises_only_new_words(cache: Path, learnt: list[int]) -> None:
    texts = _texts()
    first = encode_bulk(_fresh(cache), texts)
    (table,) = cache.glob("*.parts-*.npz")
    assert sum(learnt) > 5000
    learnt.clear()
    again = encode_bulk(_fresh(cache), texts)
    assert sum(learnt) == 0
    assert np.array_equal(first, again)
    assert np.array_equal(first, _fresh(cache).encode(texts, full=True))  # the plain path
    learnt.clear()
    extra = ["Zebrafish lanterns glimmer beside 量子糖葫芦 on Tuesdays."]
    mixed = encode_bulk(_fresh(cache), texts + extra)
    assert 0 < sum(learnt) < 20  # the new words only
    assert np.array_equal(mixed[:-1], first)
    assert table.is_file()


@pytest.mark.parametrize("damage", ["cut short", "ids do not match the keys"])
def test_a_damaged_table_is_ignored_and_written_again(
    cache: Path, learnt: list[int], damage: str
) -> None:
    texts = _texts()
    first = encode_bulk(_fresh(cache), texts)
    (table,) = cache.glob("*.parts-*.npz")
    if damage == "cut short":
        table.write_bytes(table.read_bytes()[:5000])
    else:
        with np.load(table) as data:
            arrays = {name: data[name] for name in data.files}
        np.savez(table, **{**arrays, "ids": arrays["ids"][:-3]})
    learnt.clear()
    again = encode_bulk(_fresh(cache), texts)
    assert sum(learnt) > 5000  # tokenised from scratch
    assert np.array_equal(first, again)
    learnt.clear()
    encode_bulk(_fresh(cache), texts)
    assert sum(learnt) == 0  # and the table whole again


def test_the_table_is_named_by_the_model_and_the_code(cache: Path) -> None:
    encoder = _fresh(cache)
    encode_bulk(encoder, _texts())
    (table,) = cache.glob("*.parts-*.npz")
    (matrix,) = cache.glob("*.f32.npy")
    assert table.name.startswith(matrix.name.split(".")[0] + ".parts-")
    assert encoder._parts_file == table
