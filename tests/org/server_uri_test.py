"""The client path for a Milvus server by URI (issue 46), against Milvus Lite's own gRPC
server on loopback: the Milvus protocol over the network, as a cluster is reached. A Milvus
server proper cannot run here (docs/benchmarks.md says what was tried: the PyPI `milvus`
package's standalone binary runs, but it is Milvus 2.3.5, older than the BM25 functions the
collection needs, and memkit says so; no Docker)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memkit.org.settings import default_uri
from tests.helpers import memkit
from tests.org.recall_test import _repos


@pytest.fixture
def milvus_server(tmp_path: Path) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "milvus_lite", "server", "--data-dir", str(tmp_path / "srv")),
            *("--host", "127.0.0.1", "--port", str(port)),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the Milvus Lite server did not start"
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_publish_and_search_through_a_server_uri(tmp_path: Path, milvus_server: str) -> None:
    platform, payments = _repos(tmp_path, milvus_server)
    env = {"MEMKIT_ORG_TOKEN": "root:Milvus"}  # sent as a cluster wants it; Lite ignores it
    done = memkit("org", "publish", "--uri", milvus_server, str(platform), cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert "platform: published" in done.stdout
    # The repository's own `org.uri` is this server: no --uri needed there.
    found = memkit("org", "search", "--json", "websocket heartbeat ping", cwd=payments, env=env)
    assert found.returncode == 0, found.stderr
    hits = [json.loads(line) for line in found.stdout.splitlines()]
    assert [(h["repo"], h["id"]) for h in hits] == [("platform", "ws-heartbeat")]
    again = memkit("org", "publish", "--uri", milvus_server, str(platform), cwd=tmp_path, env=env)
    assert "up to date" in again.stdout
    # Nothing went to a Milvus Lite file on this machine.
    assert not Path(default_uri()).exists()
