"""memkit's MCP server (`memkit mcp`): the agent searches, reads and saves memory on demand.

No module here imports the `mcp` SDK (too slow to start: `memkit.mcp.server` says why);
`memkit.mcp.server` and `memkit.mcp.rpc` speak the protocol, `memkit.mcp.tools` describes the
tools, `memkit.mcp.answers` answers them from `memkit.mcp.memory`. The warm engine answers the
`search` tool (`memkit.mcp.lookup`) too; the hook path never imports any of it.
"""
