"""symbolpack for any MCP client (`tldrs mcp`, or `python -m symbolpack.integrations.mcp_server`):
`server` wires the process's streams, `protocol` speaks MCP's stdio JSON-RPC without the
SDK, `tools` holds the tools (schemas, argument checks, the answers' ids and `known`),
`roots` the workspace fence, `probe` a minimal client `tldrs doctor` starts servers with.
"""
