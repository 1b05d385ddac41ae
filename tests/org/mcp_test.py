"""The MCP `search` tool's `org` option (issue 46): the org's rows after the team's own, each
naming its team with an excerpt, only where the repository configured `org.search`."""

from __future__ import annotations

from pathlib import Path

from mcp import Client

from tests.helpers import memkit
from tests.mcp.server_test import call, drive
from tests.org.recall_test import _repos


def test_search_with_org_adds_other_teams_rows_where_configured(tmp_path: Path) -> None:
    lite = tmp_path / "org.db"
    platform, payments = _repos(tmp_path, str(lite))
    assert memkit("org", "publish", "--uri", str(lite), str(platform), cwd=tmp_path).returncode == 0
    said: dict[str, tuple[bool, str]] = {}

    async def body(client: Client) -> None:
        query = "websocket heartbeat ping interval"
        said["team"] = await call(client, "search", query=query)
        said["org"] = await call(client, "search", query=query, org=True)
        said["bad"] = await call(client, "search", query=query, org="yes")

    drive(payments, body, tmp_path, env={"MEMKIT_NO_ENGINE": "1"})
    assert "ws-heartbeat" not in said["team"][1]
    error, text = said["org"]
    assert not error, text
    assert "platform:ws-heartbeat" in text
    assert "from the platform team's memory" in text
    assert "ping every 30 s" in text  # the excerpt: `get` cannot read another team's atom
    assert said["bad"][0]

    # A repository that did not configure `org.search`: the agent is told so.
    config = payments / "memkit.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("search: true", "search: false"), "utf-8"
    )

    async def refused(client: Client) -> None:
        said["off"] = await call(client, "search", query="websocket heartbeat", org=True)

    drive(payments, refused, tmp_path, env={"MEMKIT_NO_ENGINE": "1"})
    error, text = said["off"]
    assert error
    assert "not configured" in text
