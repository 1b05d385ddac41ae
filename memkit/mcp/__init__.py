"""memkit's MCP server (`memkit mcp`): the agent searches, reads and saves memory on demand.

Only `memkit.mcp.server` imports the `mcp` SDK; the other modules are plain memkit, so the
warm engine can answer the `search` tool (`memkit.mcp.lookup`) without loading the SDK and the
hook path never imports it.
"""
