"""Indexing's fast tokenisation (each distinct word once, Python's normaliser) gives the same
token ids and vectors as the tokenizer itself (issue 18)."""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

import numpy as np
import pytest

from memkit.atom.read import parse_atom_bytes
from memkit.atom.text import atom_text
from memkit.embedding import Encoder, load_encoder
from memkit.embedding.bulk import _OLD_ENOUGH, Normaliser
from memkit.index import embed as embed_module
from memkit.index import prepare as prepare_module
from memkit.index.embed import embed

ROOT = Path(__file__).resolve().parents[2]
EDGES = [
    "",
    " ",
    "a ",
    " a",
    "，开头",
    "x|y",
    "|",
    "µm ≥ 5 – ok",
    "e\u0301 combining",
    "tab\there",
    "ﬁ ligature",
    "①②",
    "Ⅻ",
    "ｈａｌｆ",
    "\u3000全角空格",
    "x" * 3000,
    "中" * 3000,
    "\U0001f600 emoji",
    "\u200bzero width",
    "ends\u200b",
    "´ acute alone",
    "ctrl\x01char",
    "a\u2581b",
    "line\nbreaks\r\nand\ttabs",
    "日本語のテキスト、句読点。",
    "한국어 문장입니다.",
    "<unk> and <pad>",
]


@pytest.fixture(scope="module")
def encoder(tmp_path_factory: pytest.TempPathFactory) -> Encoder:
    return load_encoder(cache_dir=tmp_path_factory.mktemp("models"))


def _texts() -> list[str]:
    texts = list(EDGES)
    for path in sorted((ROOT / "benchmarks" / "data").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            texts += [v for v in json.loads(line).values() if isinstance(v, str)]
    return texts


def test_bulk_token_ids_are_the_tokenizers(encoder: Encoder) -> None:
    texts = _texts()
    assert encoder.bulk_token_ids(texts) == encoder.token_ids(texts, full=True)
    again = encoder.bulk_token_ids(list(reversed(texts)))  # from the cache this time
    assert again == encoder.token_ids(list(reversed(texts)), full=True)
    bulk, full = encoder.encode(texts, bulk=True), encoder.encode(texts, full=True)
    assert np.array_equal(bulk, full)


def test_the_python_normaliser_agrees_on_every_character_it_accepts(encoder: Encoder) -> None:
    spec = json.loads(Path(encoder.path / "tokenizer.json").read_text(encoding="utf-8"))
    normalise = Normaliser.from_spec(spec["normalizer"])
    assert normalise is not None
    tokenizer = encoder._full_tokenizer().normalizer
    accepted = [chr(c) for c in range(1, 0x10000) if not _OLD_ENOUGH.search(chr(c))]
    accepted = [c for c in accepted if unicodedata.category(c) != "Cs"]
    assert len(accepted) > 40_000
    for start in range(0, len(accepted), 2000):
        # Each character alone, after a letter and before one: compositions included.
        text = "\x00".join(f"a{c}b" for c in accepted[start : start + 2000])
        assert normalise(text) == tokenizer.normalize_str(text)


@pytest.mark.parametrize("bulk_chars", [0, 10**9])  # the part cache; the tokenizer as it is
def test_atom_vectors_are_the_gates(
    encoder: Encoder, bulk_chars: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    bodies = [
        "# Heartbeat\n\nSend a ping every 30 s.\n\n## Why\n\n- proxies drop idle sockets\n",
        "No heading at all, just a note about UTC cron jobs.",
        "# 心跳\n\nWebSocket 連線每 30 秒送一次心跳。\n\n## 原因\n\n- 代理會斷開閒置連線\n",
        "# Title\n\n```text\nTraceback: KeyError 'x'\n```\n\n## Fix\n\n1. retry\n2. log\n",
        "Preamble line.\n\n# Later title\n\nBody ´ with an acute\u200b.\n",
    ]
    atoms = []
    for n, body in enumerate(bodies * 3):
        data = f"---\nid: a-{n}\ntype: fact\nconfidence: fixed\ncreated: 2026-01-01\n---\n{body}"
        atom = parse_atom_bytes(f"shared/a-{n}.md", data.encode(), fast=True).atom
        assert atom is not None
        atoms.append(atom)
    monkeypatch.setattr(embed_module, "BULK_CHARS", bulk_chars)
    vectors = embed(encoder, atoms)
    assert np.array_equal(vectors, encoder.encode([atom_text(a) for a in atoms]))


def test_the_child_process_prepares_what_one_process_would(
    encoder: Encoder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memkit.config import Config

    (tmp_path / "shared").mkdir()
    paths, blobs = [], {}
    for n in range(40):
        rel = f"shared/b-{n}.md"
        body = f"# Note {n}\n\nThe queue {n} retries every {n + 1} s.\n\n## Fix\n\n- restart {n}\n"
        if n == 7:
            body = ""  # refused: empty body
        text = f"---\nid: b-{n}\ntype: fact\nconfidence: fixed\ncreated: 2026-01-01\n---\n{body}"
        (tmp_path / rel).write_text(text, encoding="utf-8")
        paths.append(rel)
        blobs[rel] = f"{n:040x}"
    config = Config()

    def run() -> prepare_module.Prepared:
        return prepare_module.prepare(tmp_path, paths, blobs, config, lambda: encoder)

    monkeypatch.setenv("MEMKIT_PROCESSES", "1")
    alone = run()
    monkeypatch.delenv("MEMKIT_PROCESSES")
    monkeypatch.setattr(prepare_module, "PARALLEL_ATOMS", 10)
    if sys.platform == "win32":
        pytest.skip("no fork")
    both = run()
    assert both.entries == alone.entries and both.skipped == alone.skipped == ["shared/b-7.md"]
    assert np.array_equal(np.concatenate(both.vectors), np.concatenate(alone.vectors))
