"""`python -m symbolpack.integrations.mcp_server`: the documented way to run the stdio
MCP server without the CLI (`tldrs mcp` is the other), kept at this name for the
commands users wrote; the server itself is `mcp/server.py`."""

from __future__ import annotations

import sys

from .mcp.server import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
