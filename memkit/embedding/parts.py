"""The bulk tokeniser's table of parts, kept beside the converted model between processes.

`memkit.embedding.bulk` tokenises each distinct word of a build once; on 10,000 real atoms
(95,000 distinct words) that search is most of a build's embedding time (~2.5 s of ~4 s),
and every build, in every clone, did it again. The table (part → token ids) depends only on
the model's files and on how memkit cuts texts into parts, so it is kept in the per-user
model cache (`memkit.embedding.usercache`) as `model-<hash>.parts-<stamp>.npz`, the stamp
naming memkit's version and the source of the code that makes parts. A process adopts it
before its first bulk call and writes it back when it learnt enough new parts; a table
that does not load is ignored (it costs only the time it would have saved). Two processes
writing at once: the last one's table stays, each complete (the file is replaced whole).
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any

import numpy as np

import memkit
from memkit.files import write_atomic

log = logging.getLogger(__name__)
SAVE_FROM = 2000  # new parts from which writing the table again pays
_CODE = ("bulk.py", "parts.py", "encoder.py")


def table_file(cache_dir: Path, content: str) -> Path:
    """Where the table of the model whose files hash to `content` is kept."""
    here = Path(__file__).parent
    stamp = hashlib.sha1(memkit.__version__.encode())  # noqa: S324  (a cache key)
    for name in _CODE:
        try:
            stamp.update((here / name).read_bytes())
        except OSError:  # installed without its sources: the version alone
            stamp.update(name.encode())
    return cache_dir / f"model-{content[:24]}.parts-{stamp.hexdigest()[:12]}.npz"


def load(path: Path, parts: Any) -> None:
    """Adopt the table at `path` into `parts` (a bulk.PartTokenizer), when there is one."""
    try:
        with path.open("rb") as fh, np.load(fh, allow_pickle=False) as data:
            keys = bytes(data["keys"]).decode("utf-8", "surrogatepass").split("\x00")
            ids = np.asarray(data["ids"], dtype=np.int32)
            lengths = np.asarray(data["lengths"], dtype=np.int64)
        parts.adopt(keys if keys != [""] else [], ids, lengths)
    except FileNotFoundError:
        return
    except Exception as exc:  # a damaged zip raises many types; it costs only time
        log.info("the part table %s is unreadable (%s); tokenising from scratch", path, exc)


def save(path: Path, parts: Any) -> None:
    """Write `parts`' table to `path` (atomically)."""
    keys, ids, lengths = parts.export()
    if any("\x00" in key for key in keys):
        return  # never in normalised text; a table that cannot be written is not kept
    blob = "\x00".join(keys).encode("utf-8", "surrogatepass")

    def write(fh: Any) -> None:
        np.savez(fh, keys=np.frombuffer(blob, dtype=np.uint8), ids=ids, lengths=lengths)

    try:
        write_atomic(path, write, durable=False)
    except OSError as exc:
        log.info("cannot keep the part table in %s: %s", path, exc)
