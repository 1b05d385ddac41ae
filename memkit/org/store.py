"""The organisation's collection in Milvus, through its official client (pymilvus).

Two collections. `memkit_atoms`: one row per published atom, keyed `<repo>:<path>`, with its
repository, commit, path, id, blob, scope, type, tier (confidence), title, text, memkit's
BM25 terms (`memkit.org.terms`, turned into a sparse vector by a Milvus BM25 Function) and
its model2vec vector. `memkit_repos`: one row per repository: the commit published, when,
with which model, and who holds which role (its `shared/_roles.md` at that commit).

The same code talks to Milvus Lite (a `.db` path: pymilvus starts Lite in this process) and
to a Milvus server or cluster (`http://HOST:PORT`, the token from MEMKIT_ORG_TOKEN). Lite is
one process at a time (`memkit.org.lease`).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pymilvus import (
    AnnSearchRequest,
    DataType,
    Function,
    FunctionType,
    MilvusClient,
    RRFRanker,
    WeightedRanker,
)
from pymilvus.exceptions import MilvusException

from memkit.errors import MemkitError
from memkit.org import lease
from memkit.org.settings import OrgSettings

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"milvus_lite.server_manager"}

log = logging.getLogger(__name__)
# pymilvus prints every failed call to stderr with its traceback (its own handler); memkit
# says what failed itself, once (OrgUnavailable), and a hook must print nothing.
logging.getLogger("pymilvus").setLevel(logging.CRITICAL)

ATOMS = "memkit_atoms"
REPOS = "memkit_repos"
ORG_ROW = "~memkit"  # the row of `memkit_repos` saying which layout and model made them
MIN_SERVER = (2, 5)  # a Milvus server's version (Milvus Lite names itself milvus_lite-3.x)
VERSION = 1  # of the rows' layout: a collection of another version is refused, never mixed
BATCH = 500
TEXT_BYTES = 60_000  # Milvus caps a VARCHAR at 65,535 bytes
# Hybrid search: BM25 leads, as in the local index (memkit.index.fusion); set before any
# measurement, tuned on nothing (docs/benchmarks.md, "The organisation's memory").
BM25_WEIGHT, DENSE_WEIGHT = 0.7, 0.3
POOL = 50  # candidates each route brings to the ranker
OUTPUT = (
    *("repo", "path", "atom_id", "commit", "scope", "type", "confidence"),
    *("title", "text", "expires"),
)


class OrgUnavailable(MemkitError):
    """Milvus cannot be reached, or its collection is not memkit's (the message says)."""


@dataclass(frozen=True)
class Row:
    repo: str
    path: str
    atom_id: str
    blob: str
    commit: str
    scope: str  # shared | role:<name>
    type: str
    confidence: str
    title: str
    text: str
    terms: str
    dense: Sequence[float]
    expires: str = ""

    @property
    def pk(self) -> str:
        return row_key(self.repo, self.path)

    @property
    def audience(self) -> str:
        return audience_of(self.repo, self.scope)

    def record(self) -> dict[str, Any]:
        return {
            "pk": self.pk,
            "repo": self.repo,
            "path": self.path,
            "atom_id": self.atom_id,
            "blob": self.blob,
            "commit": self.commit,
            "scope": self.scope,
            "audience": self.audience,
            "type": self.type,
            "confidence": self.confidence,
            "title": cut(self.title, 1000),
            "text": cut(self.text, TEXT_BYTES),
            "terms": self.terms,
            "expires": self.expires,
            "dense": [float(x) for x in self.dense],
        }


@dataclass(frozen=True)
class RepoState:
    repo: str
    commit: str
    published: str  # ISO time
    model: str
    atoms: int
    roles: dict[str, list[str]] = field(default_factory=dict)  # role -> member emails
    version: int = VERSION


def row_key(repo: str, path: str) -> str:
    return f"{repo}:{path}"


def audience_of(repo: str, scope: str) -> str:
    """Who may be served an atom: "shared" (everyone the org serves), or the members of one
    role of one repository ("<repo>#role:<name>")."""
    return "shared" if scope == "shared" else f"{repo}#{scope}"


def cut(text: str, limit: int) -> str:
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[: limit - 80].decode("utf-8", "ignore") + "\n[… cut: read it in its repository]"


def quoted(value: str) -> str:
    """A string as a Milvus filter literal."""
    return json.dumps(value, ensure_ascii=False)


class OrgStore:
    """A connection to the org's Milvus, opened by `open` and closed by `close`."""

    def __init__(self, settings: OrgSettings, *, timeout: float | None = 60.0) -> None:
        self.settings = settings
        self.timeout = timeout
        self.client: Any = None
        self._loaded = False

    # -- connection ----------------------------------------------------------------------
    def open(self) -> OrgStore:
        if self.settings.is_lite:
            lease.prepare(Path(self.settings.uri))
        try:
            self.client = MilvusClient(
                uri=self.settings.uri, token=self.settings.token, timeout=self.timeout
            )
        except MilvusException as exc:
            raise OrgUnavailable(f"Milvus at {self.where}: {exc.message}") from exc
        return self

    @property
    def where(self) -> str:
        return self.settings.uri if self.settings.is_lite else _no_secret(self.settings.uri)

    def close(self) -> None:
        client, self.client = self.client, None
        self._loaded = False
        if client is None:
            return
        try:
            client.close()
        finally:
            if self.settings.is_lite:
                # pymilvus leaves Lite serving the file until the process exits; the lock
                # must go now, for the next command or the warm engine.
                from milvus_lite.server_manager import server_manager_instance

                server_manager_instance.release_server(self.settings.uri)

    def __enter__(self) -> OrgStore:
        return self.open()

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def server_version(self) -> str:
        return str(self._call("get_server_version"))

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return getattr(self.client, name)(*args, **kwargs)
        except MilvusException as exc:
            raise OrgUnavailable(f"Milvus at {self.where}: {name}: {exc.message}") from exc

    # -- the collections -----------------------------------------------------------------
    def exists(self) -> bool:
        """Whether anything was published here (the collections then loaded for search)."""
        if not (self._call("has_collection", ATOMS) and self._call("has_collection", REPOS)):
            return False
        self.load()
        return True

    def check_version(self) -> None:
        """Refuse a Milvus server older than MIN_SERVER: BM25 functions and sparse vectors
        (the collection's `terms` and `sparse`) came with Milvus 2.5."""
        version = self.server_version()
        found = re.match(r"v?(\d+)\.(\d+)", version)
        if found and (int(found[1]), int(found[2])) < MIN_SERVER:
            raise OrgUnavailable(
                f"Milvus {version} at {self.where}: the org's collection needs Milvus "
                f"{'.'.join(map(str, MIN_SERVER))} or later (BM25 functions, sparse vectors)"
            )

    def ensure(self, dim: int, model: str) -> None:
        """Make the two collections when there are none; refuse ones of another layout or
        model (their vectors would not compare). What made them is a row of `memkit_repos`
        (ORG_ROW): Milvus Lite keeps no collection description."""
        self.check_version()
        if not self._call("has_collection", ATOMS):
            self._create_atoms(dim)
        if not self._call("has_collection", REPOS):
            self._create_repos()
        self.load()
        made = self.describe()
        if not made:
            made = {"version": VERSION, "model": model}
            record = {"repo": ORG_ROW, "state": json.dumps(made), "unused": [0.0, 0.0]}
            self._call("upsert", REPOS, [record])
        if made.get("version") != VERSION or made.get("model") != model:
            raise OrgUnavailable(
                f"the org's collections at {self.where} hold layout {made.get('version')} "
                f"made with the model {made.get('model')!r}; this memkit publishes layout "
                f"{VERSION} with {model!r}: drop them (`memkit org drop`) and publish every "
                "repository again"
            )

    def load(self) -> None:
        """Collections are searched once loaded (in every process that opens them)."""
        if not self._loaded:
            for name in (ATOMS, REPOS):
                self._call("load_collection", name)
            self._loaded = True

    def describe(self) -> dict[str, Any]:
        rows = self._call("get", REPOS, ids=[ORG_ROW], output_fields=["state"])
        try:
            found = json.loads(str(rows[0]["state"])) if rows else {}
        except ValueError:
            return {"version": "unreadable"}
        return found if isinstance(found, dict) else {"version": "unreadable"}

    def _create_atoms(self, dim: int) -> None:
        schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field("pk", DataType.VARCHAR, is_primary=True, max_length=1400)
        for name, size in (
            *(("repo", 256), ("path", 1024), ("atom_id", 256), ("blob", 64), ("commit", 64)),
            *(("scope", 128), ("audience", 512), ("type", 32), ("confidence", 32)),
            *(("title", 1024), ("expires", 32)),
        ):
            schema.add_field(name, DataType.VARCHAR, max_length=size)
        schema.add_field("text", DataType.VARCHAR, max_length=65_535)
        schema.add_field(
            "terms",
            DataType.VARCHAR,
            max_length=65_535,
            enable_analyzer=True,
            # memkit analysed the text already (memkit.org.terms): split on its spaces.
            analyzer_params={"tokenizer": "standard"},
        )
        schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
        schema.add_field("dense", DataType.FLOAT_VECTOR, dim=dim)
        schema.add_function(
            Function(
                name="terms_bm25",
                function_type=FunctionType.BM25,
                input_field_names=["terms"],
                output_field_names=["sparse"],
            )
        )
        index = self.client.prepare_index_params()
        index.add_index(field_name="sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25")
        index.add_index(
            field_name="dense",
            index_type="HNSW",
            metric_type="COSINE",
            params={"M": 16, "efConstruction": 200},
        )
        for name in ("repo", "audience"):
            index.add_index(field_name=name, index_type="INVERTED")
        self._create(ATOMS, schema, index)

    def _create_repos(self) -> None:
        schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field("repo", DataType.VARCHAR, is_primary=True, max_length=256)
        schema.add_field("state", DataType.VARCHAR, max_length=65_535)
        # Milvus wants a vector in every collection; this one is never searched.
        schema.add_field("unused", DataType.FLOAT_VECTOR, dim=2)
        index = self.client.prepare_index_params()
        index.add_index(field_name="unused", index_type="FLAT", metric_type="L2")
        self._create(REPOS, schema, index)

    def _create(self, name: str, schema: Any, index: Any) -> None:
        # Indexes apart and not waited for: pymilvus waits by asking for a timestamp, which
        # Milvus Lite does not give (AllocTimestamp is not implemented there).
        self._call("create_collection", name, schema=schema)
        self._call("create_index", name, index, sync=False)

    def drop(self) -> None:
        for name in (ATOMS, REPOS):
            if self._call("has_collection", name):
                self._call("drop_collection", name)

    # -- what is published -----------------------------------------------------------------
    def states(self) -> dict[str, RepoState]:
        if not self.exists():
            return {}
        rows = self._call(
            "query",
            REPOS,
            filter=f"repo != {quoted(ORG_ROW)}",
            output_fields=["state"],
            limit=16_384,
        )
        out: dict[str, RepoState] = {}
        for row in rows:
            try:
                data = json.loads(str(row.get("state") or "{}"))
                state = RepoState(**data)
            except (TypeError, ValueError):
                log.warning("unreadable state row in %s: %r", REPOS, row.get("repo"))
                continue
            out[state.repo] = state
        return out

    def set_state(self, state: RepoState) -> None:
        record = {"repo": state.repo, "state": json.dumps(state.__dict__), "unused": [0.0, 0.0]}
        self._call("upsert", REPOS, [record])

    def published(self, repo: str) -> dict[str, str]:
        """pk -> blob of every row of `repo`."""
        return {
            str(r["pk"]): str(r["blob"])
            for r in self.rows(f"repo == {quoted(repo)}", ["pk", "blob"])
        }

    def rows(self, expr: str, fields: Sequence[str]) -> Iterator[dict[str, Any]]:
        """Every row matching `expr`, in batches (a query alone stops at 16,384)."""
        it = self._call(
            "query_iterator", ATOMS, batch_size=1000, filter=expr, output_fields=list(fields)
        )
        try:
            while True:
                batch = it.next()
                if not batch:
                    return
                yield from batch
        finally:
            it.close()

    def upsert(self, rows: Sequence[Row]) -> None:
        for start in range(0, len(rows), BATCH):
            self._call("upsert", ATOMS, [r.record() for r in rows[start : start + BATCH]])

    def delete(self, keys: Sequence[str]) -> None:
        for start in range(0, len(keys), BATCH):
            self._call("delete", ATOMS, ids=list(keys[start : start + BATCH]))

    def forget(self, repo: str) -> int:
        """Remove a repository from the org: its rows and its state."""
        keys = list(self.published(repo))
        self.delete(keys)
        self._call("delete", REPOS, ids=[repo])
        return len(keys)

    def flush(self) -> None:
        self._call("flush", ATOMS)
        self._call("flush", REPOS)

    # -- search ----------------------------------------------------------------------------
    def search(
        self,
        terms: str,
        vector: Sequence[float],
        audiences: Sequence[str],
        *,
        limit: int,
        ranker: str = "weighted",
        timeout: float | None = None,
    ) -> list[dict[str, Any]]:
        """Hybrid search (BM25 over `terms`, cosine over `vector`) among the rows whose
        audience is one of `audiences`; each hit's fields and its fused `score`."""
        expr = f"audience in [{', '.join(quoted(a) for a in audiences)}]"
        routes = []
        if terms.strip():
            routes.append(AnnSearchRequest([terms], "sparse", {}, POOL, expr=expr))
        routes.append(AnnSearchRequest([list(map(float, vector))], "dense", {}, POOL, expr=expr))
        if len(routes) == 1:
            hits = self._call(
                "search",
                ATOMS,
                data=routes[0].data,
                anns_field="dense",
                filter=expr,
                limit=limit,
                output_fields=list(OUTPUT),
                timeout=timeout,
            )
        else:
            fuse = RRFRanker(60) if ranker == "rrf" else WeightedRanker(BM25_WEIGHT, DENSE_WEIGHT)
            hits = self._call(
                "hybrid_search",
                ATOMS,
                routes,
                fuse,
                limit=limit,
                output_fields=list(OUTPUT),
                timeout=timeout,
            )
        out = []
        for hit in hits[0] if hits else []:
            entity = dict(hit.get("entity") or {})
            entity["score"] = float(hit.get("distance") or 0.0)
            entity["pk"] = str(hit.get("pk") or hit.get("id") or "")
            out.append(entity)
        return out


def _no_secret(uri: str) -> str:
    """A server URI without the user:password a person may have put in it."""
    head, sep, rest = uri.partition("://")
    return f"{head}{sep}{rest.rpartition('@')[2]}" if sep else uri
