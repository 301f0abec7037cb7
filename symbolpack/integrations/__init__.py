"""Thin adapters from agents' tools to `symbolpack.api.operations`.

* `claude`      Claude Code hooks (`tldrs hook claude-*`): native Read/Edit made
                delta-aware and stale-safe.
* `mcp_server`  the stdio MCP server (`tldrs mcp`), for any MCP client: its
                protocol (`mcp_protocol`), tools (`mcp_tools`) and workspace
                fence (`mcp_roots`).
* `chibi`       Chibi's plugin (`tldrs chibi plugin`): tools and hooks.
* `chibi_lang`  Chibi's language plugins (`tldrs chibi lang LANGUAGE`).
* `chibi_install` `tldrs install|uninstall chibi`: launchers in Chibi's plugins dir.
* `install`     `tldrs install|uninstall|doctor`: the agents' settings files.
* `commands`    the argparse wiring of the above.

Nothing is imported here: a hook process pays only for the module it runs.
"""
