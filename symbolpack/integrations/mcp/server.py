"""`tldrs mcp`: symbolpack as a stdio MCP server, for any MCP client.

The parts: `mcp/protocol.py` speaks MCP's stdio JSON-RPC (no SDK: the answer to
`initialize` must leave within a host's start-up grace, and the SDK's imports
alone took longer), `mcp/tools.py` holds the tools (schemas, argument checks,
adapters over the CLI's operations) and `mcp/roots.py` the workspace fence. This
module wires them to the process: streams, logging, the project.

The protocol owns stdout. It is written through a duplicate of the original
stdout, and file descriptor 1 is pointed at stderr before any tool runs, so a
stray print (ours, a library's, a child process's) cannot corrupt the stream.

The server is quiet: warnings only, unless `SYMBOLPACK_LOG=debug`.

`python -m symbolpack.integrations.mcp_server` runs the server without the CLI.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import BinaryIO


def open_protocol_streams() -> tuple[BinaryIO, BinaryIO]:
    """(input, output) of the protocol: stdin, and a duplicate of the original stdout;
    from here on fd 1 and `sys.stdout` reach stderr."""
    protocol_fd = os.dup(1)
    os.dup2(2, 1)  # fd 1 now reaches stderr: only the protocol writes to the protocol stream
    sys.stdout = sys.stderr
    return sys.stdin.buffer, os.fdopen(protocol_fd, "wb")


def serve(root: Path | str | None = None, session_id: str | None = None) -> int:
    """Run the stdio server until the client closes stdin."""
    from ...base.log import configure, warning
    from ...base.settings import load_settings
    from ...base.workspace import project_root_dir
    from ...state.session_id import validate_session_id
    from ...base.errors import SymbolpackError
    from .protocol import Connection
    from .tools import SymbolpackTools

    try:
        session = validate_session_id(session_id) if session_id else None
    except SymbolpackError as exc:
        print(f"tldrs mcp: {exc}", file=sys.stderr)
        return 2
    project = project_root_dir(root) if root else project_root_dir()
    settings = load_settings(project)
    configure(settings.log)
    inp, out = open_protocol_streams()
    tools = SymbolpackTools(project, settings, session)
    connection = Connection(inp, out, tools,
                            on_commit_error=lambda exc: warning(f"could not confirm a delivered answer ({exc})"))
    try:
        connection.run()
    except KeyboardInterrupt:
        pass
    finally:
        tools.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="tldrs mcp", description="symbolpack's stdio MCP server")
    add_arguments(parser)
    args = parser.parse_args(argv)
    return serve(args.root, args.session_id)


def add_arguments(parser) -> None:
    parser.add_argument("--root", default=None, metavar="DIR",
                        help="project root (default: the repository of the working directory)")
    parser.add_argument("--session-id", default=None, metavar="S",
                        help="default session for this connection (default: a new one)")


if __name__ == "__main__":
    sys.exit(main())
