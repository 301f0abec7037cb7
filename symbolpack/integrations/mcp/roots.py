"""Where the MCP tools may read: the client's roots, else the server's project.

Why: an MCP tool is driven by a model, and without a fence `read_file` served any
file the user can read (`/etc/hostname`, another project's secrets). The agent
host's own read tool already covers files outside the project, with the host's
own permission prompts; symbolpack's tools stay inside the workspace.

The workspace is the client's roots (`file://` URIs from `roots/list`) when the
client declares the `roots` capability and answers with at least one; otherwise
(no capability, an error, an empty list, no answer within `ROOTS_WAIT_SECONDS`)
it is the repository the server started in. The `mcp_allow_dirs` setting adds
directories (`/` allows everything). A path is judged after resolving it fully
(`realpath`: `..` and symlinks followed), so a link inside the workspace that
points outside is outside.
"""

from __future__ import annotations

import os
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

ROOTS_WAIT_SECONDS = 5.0
HOW_TO_ALLOW = ("to allow it, add a directory to mcp_allow_dirs "
                "([tool.symbolpack] in pyproject.toml, or SYMBOLPACK_MCP_ALLOW_DIRS)")


class OutsideWorkspace(Exception):
    """A path the tools may not read; the message is the whole story."""


class Bounds:
    """The directories MCP tools may read under. Thread-safe: the protocol's reader
    sets the roots while the tool worker judges paths."""

    def __init__(self, project: str, allowed: Iterable[str] = ()):
        self.project = os.path.realpath(project)
        self.allowed = tuple(os.path.realpath(os.path.expanduser(d)) for d in allowed)
        self._roots: tuple[str, ...] | None = None  # the client's, when it gave any
        self._settled = threading.Event()
        self._settled.set()  # nothing asked: the project is the workspace

    def roots_requested(self) -> None:
        """The client was asked for its roots: judging waits for the answer (briefly)."""
        self._settled.clear()

    def roots_answered(self, uris: list[str] | None) -> None:
        """The client's roots (None: it did not answer with a list)."""
        dirs = [d for d in (_file_uri_path(u) for u in uris or ()) if d]
        self._roots = tuple(os.path.realpath(d) for d in dirs) or None
        self._settled.set()

    def workspace(self) -> tuple[str, ...]:
        """The workspace's directories: the client's roots, else the project. A client
        that does not answer within `ROOTS_WAIT_SECONDS` is not waited for again (its
        answer, should it come later, still sets the roots)."""
        if not self._settled.wait(ROOTS_WAIT_SECONDS):
            from ...base.log import warning

            warning(f"the MCP client did not list its roots within {ROOTS_WAIT_SECONDS:g} s; "
                    f"the workspace is {self.project} until it does")
            self._settled.set()
        return self._roots or (self.project,)

    def check(self, path: str) -> None:
        """Raise `OutsideWorkspace` unless *path* (absolute) resolves inside the
        workspace or an allowed directory."""
        real = os.path.realpath(path)
        workspace = self.workspace()
        if any(_inside(real, d) for d in (*workspace, *self.allowed)):
            return
        raise OutsideWorkspace(f"{path} is outside the workspace ({', '.join(workspace)}); {HOW_TO_ALLOW}")


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _file_uri_path(uri: str) -> str | None:
    """The local path of a `file://` URI (None for any other scheme or a remote host)."""
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        return None
    path = unquote(parts.path)
    return path if os.path.isabs(path) else None
