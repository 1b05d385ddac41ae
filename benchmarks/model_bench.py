"""The default embedding model: cold load, query encode, bulk throughput, memory, size.

    python benchmarks/model_bench.py [--runs 20]

Fresh-process timings run side by side with `python -c pass` so that machine noise hits both.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import PYTHON, p50_p95, side_by_side

from memkit.embedding import DEFAULT_MODEL_DIR, encode_bulk, load_encoder

SANITY = {
    "en": [
        (
            "How often must the websocket send a heartbeat?",
            "Send a WebSocket ping every 30 seconds.",
            "Export textures at 2048 pixels.",
        ),
        (
            "run migrations before deploy",
            "Apply schema migrations before deploying.",
            "The coffee machine is broken.",
        ),
    ],
    "zh": [
        ("心跳間隔多久", "WebSocket 連線每 30 秒送一次心跳。", "貼圖集匯出為 2048 像素。"),
        ("部署前要做什麼", "部署之前必須先執行資料庫遷移。", "咖啡機又壞了。"),
    ],
    "ja": [
        (
            "デプロイ前に何をする",
            "デプロイの前に必ずテストを実行する。",
            "コーヒーマシンが壊れた。",
        ),
        (
            "ハートビートの間隔",
            "WebSocket は30秒ごとにピングを送る。",
            "テクスチャは2048ピクセル。",
        ),
    ],
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        load_encoder(cache_dir=cache)  # the one-time float32 conversion
        code = (
            "from pathlib import Path; from memkit.embedding import load_encoder; "
            f"load_encoder(cache_dir=Path({str(cache)!r})).encode(['how often ping'])"
        )
        times = side_by_side(
            args.runs, {"pass": [PYTHON, "-c", "pass"], "load+encode": [PYTHON, "-c", code]}
        )
        base, model = p50_p95(times["pass"]), p50_p95(times["load+encode"])
        start = time.perf_counter()
        encoder = load_encoder(cache_dir=cache)
        load_warm = time.perf_counter() - start
        texts = [
            f"Always flush the cache {i} before the queue grows past {i * 7} items; "
            f"config key cache.limit.{i} sets it."
            for i in range(20_000)
        ]
        start = time.perf_counter()
        encode_bulk(encoder, texts)
        bulk = len(texts) / (time.perf_counter() - start)
        start = time.perf_counter()
        for i in range(200):
            encoder.encode([f"how often should the websocket ping {i}"])
        per_query = (time.perf_counter() - start) / 200 * 1000
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    size = sum(p.stat().st_size for p in DEFAULT_MODEL_DIR.iterdir()) / 1e6
    child = subprocess.run(
        [
            PYTHON,
            "-c",
            f"import resource; {code}; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    print("| measure | value |\n|---|---|")
    print(f"| `python -c pass`, fresh process, p50 / p95 | {base[0]:.0f} / {base[1]:.0f} ms |")
    print(
        f"| cold load + one query encode, fresh process, p50 / p95 | {model[0]:.0f} / "
        f"{model[1]:.0f} ms |"
    )
    print(f"| of which beyond interpreter start (p50) | {model[0] - base[0]:.0f} ms |")
    print(
        f"| ratio to `python -c pass` (p50 / p95) | {model[0] / base[0]:.1f}× / "
        f"{model[1] / base[1]:.1f}× |"
    )
    print(f"| load in a warm process (mmap'd cache) | {load_warm * 1000:.0f} ms |")
    print(f"| one query encode, warm | {per_query:.2f} ms |")
    print(f"| bulk encode | {bulk:,.0f} atoms/s |")
    print(
        f"| peak memory: fresh load + encode / this benchmark | "
        f"{int(child.stdout.strip()) / 1024:.0f} MB / {peak:.0f} MB |"
    )
    print(f"| disk: model folder | {size:.1f} MB |")
    print()
    print("| lang | query | related | unrelated | cos related | cos unrelated |")
    print("|---|---|---|---|---|---|")
    for lang, rows in SANITY.items():
        for q, r, u in rows:
            vq, vr, vu = encoder.encode([q, r, u])
            print(f"| {lang} | {q} | {r} | {u} | {float(vq @ vr):.3f} | {float(vq @ vu):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
