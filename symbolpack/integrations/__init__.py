"""Thin adapters from agents' tools to `symbolpack.operations`.

* `claude`      Claude Code hooks (`tldrs hook claude-*`): native Read/Edit made
                delta-aware and stale-safe.
* `mcp_server`  the stdio MCP server (`tldrs mcp`), for any MCP client.
* `install`     `tldrs install|uninstall|doctor`: the agents' settings files.
* `commands`    the argparse wiring of the above.

Nothing is imported here: a hook process pays only for the module it runs.
"""
