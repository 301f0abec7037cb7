"""`tldrs mcp`: symbolpack as a stdio MCP server (official Python SDK, FastMCP).

Every tool is a thin adapter over the function the CLI calls
(`operations.read_file`, `operations.refresh`, `operations.status`,
`context.context_pack`, `context.diff_context`, `lookup.rank`), so an MCP client
sees exactly what `tldrs read` would show. One process serves one connection,
and one connection is one session (`mcp-<random>`) unless a tool call passes
`session_id` (to share its copies of files with hooks or the CLI, or to keep
one across restarts).

The protocol owns stdout. The SDK writes to a duplicate of the original
stdout, and file descriptor 1 is pointed at stderr before any tool runs, so a
stray print (ours, a library's, a child process's) cannot corrupt the stream.

Delivery: a read or a pack writes into the session's copy with its lines
pending on an intent; the intent is committed only once the JSON-RPC response
to that tool call has been written and flushed to the client (`Deliveries`
wraps the protocol stream). A server killed in between leaves the lines
pending, which later answers treat as unsure (plain reads).

One resident engine (`api/resident.py`) serves every call: the file list, symbols
and call graph stay warm between calls and are invalidated file by file, so no
call re-walks or re-parses the repository. Tools are coroutines that run their
work in a worker thread under the engine's lock: the event loop keeps reading
and writing messages while a pack is built, and no process pool is forked from
this threaded process (the engine's index parses in-process).

The server is quiet: the SDK's per-request log lines are off unless
`SYMBOLPACK_LOG=debug`.

The SDK is an optional extra (`pip install 'symbolpack[mcp]'`), imported only
here; `python -m symbolpack.integrations.mcp_server` runs the server without
the CLI.
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    from ..base.settings import Settings

INSTRUCTIONS = """\
symbolpack reads code for you without wasting context and never shows you stale code.
Use read_file instead of a plain file read. What comes back:
- Numbered lines `   NN<TAB>text` are the file's lines, verbatim.
- [SKELETON] on a first read of a large file: bodies, docstring tails, long statements and
  import blocks are replaced by `... A-B elided: --symbol NAME` (or `--offset A --limit N`)
  markers; an import block's marker lists the names it imports. Drill in with
  read_file(path, symbol="NAME") or read_file(path, offset=A, limit=N) before relying on or
  editing hidden code.
- [UNCHANGED] on a re-read: the file (or range) is exactly what you read before; use that.
- [DELTA] on a re-read after a change: only changed symbols are shown; spans marked
  `... A-B unchanged` are identical to your copy (`(your X-Y)` when they moved).
- [DIFF]: a unified diff from your copy to the file now.
If you no longer have an earlier copy in context, call refresh(path) and read again.
To find code by name use search_symbols; for a task-sized slice of the code around a
symbol use context(entry); to review uncommitted changes use diff_context().
"""

READ_DOC = """Read a file (or a range, or one symbol) for this session; use instead of a plain read.
First read of a large source file: a [SKELETON] with hidden runs marked
`... A-B elided: --symbol NAME` (or `--offset A --limit N`); pass symbol="NAME" (or
offset/limit) to see one whole. Re-reads: [UNCHANGED] (identical to what you read; use
your copy), [DELTA] (only changed symbols; `... A-B unchanged` spans are as you saw them)
or [DIFF] (unified diff against your copy). Lines appear as `   NN<TAB>text`.
path: repo-relative or absolute. offset: first line (1-based). limit: number of lines.
symbol: a name, qualname (Class.method) or id from search_symbols."""

CONTEXT_DOC = """The code you need around one symbol, packed under a token budget: the
entry symbol with its callers and callees to `depth`. Code you were already given unchanged
in this session comes back as a signature stub marked [UNCHANGED].
entry: a symbol name, qualname or id (see search_symbols)."""

DIFF_CONTEXT_DOC = """What the working tree changes against `base` (default HEAD, staged and
unstaged included): the changed symbols with their callers and callees, packed under the
budget, plus plain diffs for changes outside any symbol. Symbols you were already given
unchanged come back as [UNCHANGED] stubs; no_delta=true shows everything and leaves the
session untouched."""

SEARCH_DOC = """Find symbols (functions, classes, methods, ...) by name, qualname or id,
fuzzy. One line per match: `path:start-end  kind qualname  signature`. Read one with
read_file(path, symbol=qualname)."""

REFRESH_DOC = """Forget what this session was shown of a file (or of one range), so the next
read_file of it is a plain full read. Use when you lost the earlier copy from your context."""

STATUS_DOC = """This session's numbers: files tracked, reads by mode, tokens shown versus
plain reads, hit rate, drill-ins."""


def default_session_id() -> str:
    return f"mcp-{uuid.uuid4().hex[:16]}"


class Deliveries:
    """Commits that wait for their answer to reach the client, by JSON-RPC request id.

    A tool registers `result.commit` under the id of the request it is answering;
    `stream(out)` wraps the protocol stream the SDK writes to, and after a response
    line with that id has been written and flushed, its commits run. Until a stream
    is attached (the server used in-process, or run by something other than
    `serve`) returning is delivering: commits run at once.

    A message on its way out (written, not yet flushed and committed) holds back
    the next tool call (`settled`): a client that sends its next request as soon
    as it has an answer must not race that answer's commit, or the next read would
    find the lines still pending and answer plainly."""

    def __init__(self):
        self.attached = False
        self._waiting: dict[str, list] = {}
        self._in_flight = 0  # messages written and not yet flushed
        self._idle = None  # an anyio.Event while a tool call waits for them

    def begin(self) -> None:
        self._in_flight += 1

    def end(self, count: int = 1) -> None:
        self._in_flight -= count
        if self._in_flight <= 0 and self._idle is not None:
            self._idle.set()
            self._idle = None

    async def settled(self) -> None:
        """Return once every message written so far is flushed and its commits ran."""
        while self._in_flight > 0:
            if self._idle is None:
                import anyio

                self._idle = anyio.Event()
            await self._idle.wait()

    def register(self, request_id: str | None, commit) -> None:
        if commit is None:
            return
        if not self.attached or request_id is None:
            _run(commit)
        else:
            self._waiting.setdefault(request_id, []).append(commit)

    def delivered(self, request_id: str, ok: bool = True) -> None:
        for commit in self._waiting.pop(request_id, ()):
            if ok:
                _run(commit)  # else: not delivered as an answer; its lines stay pending (unsure)

    def stream(self, out) -> "_DeliveryStream":
        self.attached = True
        return _DeliveryStream(out, self)


class _DeliveryStream:
    """The async text stream `mcp.server.stdio.stdio_server` writes each message to
    (`write(line)` then `flush()`), telling `Deliveries` which responses went out."""

    def __init__(self, out, deliveries: Deliveries):
        self._out = out
        self._deliveries = deliveries
        self._unflushed: list[str] = []

    async def write(self, text: str):
        self._deliveries.begin()  # before any byte can leave (a big write may flush on its own)
        try:
            result = await self._out.write(text)
        except BaseException:
            self._deliveries.end()
            raise
        self._unflushed.append(text)
        return result

    async def flush(self) -> None:
        written, self._unflushed = self._unflushed, []
        try:
            await self._out.flush()
            for text in written:
                answer = _response_id(text)
                if answer is not None:
                    self._deliveries.delivered(*answer)
        finally:
            self._deliveries.end(len(written))

    def __getattr__(self, name):
        return getattr(self._out, name)


def _response_id(line: str) -> tuple[str, bool] | None:
    """(request id, succeeded) when *line* is a JSON-RPC response, else None."""
    if '"result"' not in line and '"error"' not in line:
        return None
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or "id" not in message or "method" in message:
        return None
    if "result" not in message and "error" not in message:
        return None
    return str(message["id"]), "result" in message


def _run(commit) -> None:
    try:
        commit()
    except Exception as exc:  # an uncommitted intent only means "unsure"
        from ..base.log import warning

        warning(f"could not confirm a delivered answer ({exc})")


def quiet_logging(settings: Settings | None = None) -> Literal["DEBUG", "WARNING"]:
    """The SDK logs every request at INFO on stderr; keep only warnings unless the
    `log` setting is debug (`SYMBOLPACK_LOG=debug`). Returns the level for FastMCP's
    own set-up."""
    import logging

    from ..base.log import configure
    from ..base.settings import load_settings

    settings = settings if settings is not None else load_settings()
    level: Literal["DEBUG", "WARNING"] = "DEBUG" if settings.log == "debug" else "WARNING"
    for name in ("mcp", "FastMCP"):
        logging.getLogger(name).setLevel(level)
    configure(settings.log)
    return level


def build_server(root: Path | None = None, session_id: str | None = None, settings: Settings | None = None):
    """A FastMCP server over one workspace. *session_id*: the connection's default;
    *settings*: the project's (default: the environment over its pyproject.toml).
    A tool's `SymbolpackError` (or any exception) becomes the SDK's tool error:
    `isError` and the one-line message."""
    from mcp.server.fastmcp import FastMCP

    import anyio

    from ..api import operations
    from ..api.resident import Engine
    from ..state.session_id import validate_session_id
    from ..base.settings import load_settings
    from ..base.workspace import project_root_dir

    project = project_root_dir(root) if root else project_root_dir()
    settings = settings if settings is not None else load_settings(project)
    engine = Engine(project, settings)
    ws = engine.ws
    connection_session = validate_session_id(session_id) if session_id else default_session_id()
    server = FastMCP("symbolpack", instructions=INSTRUCTIONS, log_level=quiet_logging(settings))
    quiet_logging(settings)  # again: FastMCP's set-up may have touched the loggers
    deliveries = Deliveries()

    def request_id() -> str | None:
        """The JSON-RPC id of the tool call being answered (None outside a request)."""
        try:
            return server.get_context().request_id
        except (LookupError, ValueError, AttributeError):
            return None

    async def work(fn):
        """fn(workspace) in a worker thread under the engine's lock; the records it
        wrote are committed once the answer to this call is out."""
        answering = request_id()  # read here: the request's context lives on this task
        await deliveries.settled()  # the answers already on their way are committed first
        result = await anyio.to_thread.run_sync(engine.run, fn)
        deliveries.register(answering, getattr(result, "commit", None))
        return result

    def sid(value: str | None) -> str:
        return validate_session_id(value) if value else connection_session

    def resolve(path: str) -> str:
        p = os.path.expanduser(path)
        return p if os.path.isabs(p) else os.path.join(ws.root_dir, p)

    @server.tool(description=READ_DOC, structured_output=False)
    async def read_file(path: str, offset: int | None = None, limit: int | None = None, symbol: str | None = None,
                        session_id: str | None = None) -> str:
        session = sid(session_id)
        result = await work(lambda ws: operations.read_file(ws, resolve(path), session, offset=offset, limit=limit,
                                                            symbol=symbol, confirm=False))
        return result.response["text"]

    @server.tool(description=CONTEXT_DOC, structured_output=False)
    async def context(entry: str, depth: int = 2, budget: int | None = None, session_id: str | None = None) -> str:
        context_mod = _context_module()
        kwargs = {"depth": depth, "session_id": sid(session_id), "confirm": False}
        if budget is not None:
            kwargs["budget"] = budget
        return _text_of(await work(lambda ws: context_mod.context_pack(ws, entry, **kwargs)))

    @server.tool(description=DIFF_CONTEXT_DOC, structured_output=False)
    async def diff_context(base: str = "HEAD", budget: int | None = None, no_delta: bool = False,
                           session_id: str | None = None) -> str:
        context_mod = _context_module()
        kwargs: dict[str, Any] = {"base": base, "session_id": None if no_delta else sid(session_id),
                                  "delta": not no_delta, "confirm": False}
        if budget is not None:
            kwargs["budget"] = budget
        return _text_of(await work(lambda ws: context_mod.diff_context(ws, **kwargs)))

    @server.tool(description=SEARCH_DOC, structured_output=False)
    async def search_symbols(query: str, limit: int = 10) -> str:
        return await work(lambda ws: _search(ws, query, limit))

    @server.tool(description=REFRESH_DOC, structured_output=False)
    async def refresh(path: str, offset: int | None = None, limit: int | None = None,
                      session_id: str | None = None) -> str:
        session = sid(session_id)
        return await work(lambda ws: operations.refresh(ws, resolve(path), session, offset, limit))

    @server.tool(description=STATUS_DOC, structured_output=False)
    async def session_status(session_id: str | None = None) -> str:
        session = sid(session_id)
        return await work(lambda ws: json.dumps(operations.status(ws, session), indent=1))

    server.symbolpack_engine = engine  # type: ignore[attr-defined]  # for tests and shutdown
    server.symbolpack_workspace = ws  # type: ignore[attr-defined]
    server.symbolpack_session_id = connection_session  # type: ignore[attr-defined]
    server.symbolpack_deliveries = deliveries  # type: ignore[attr-defined]
    return server


def _context_module():
    from ..api import context  # imported on first use: most sessions never ask for a pack

    return context


def _text_of(result) -> str:
    return result["text"] if isinstance(result, dict) and "text" in result else json.dumps(result)


def _search(ws, query: str, limit: int) -> str:
    from ..base.errors import UsageError
    from ..engine.lookup import GOOD_SCORE, no_match_message, rank

    if limit < 1:
        raise UsageError("limit must be at least 1")
    symbols = ws.all_symbols(ws.root)
    matches = rank(query, symbols, limit=limit)
    good = [m for m in matches if m.score >= GOOD_SCORE]
    if not good:
        return no_match_message(query, matches, "this repository")
    return "\n".join(
        f"{m.symbol.path}:{m.symbol.lines[0]}-{m.symbol.lines[1]}  {m.symbol.kind} {m.symbol.qualname}  "
        f"{' '.join(m.symbol.signature.split())}" for m in good)


def serve(root: Path | None = None, session_id: str | None = None) -> int:
    """Run the stdio server until the client closes stdin."""
    try:
        import anyio
        from mcp.server.stdio import stdio_server
    except ImportError:
        print("tldrs mcp: the MCP SDK is not installed; run: pip install 'symbolpack[mcp]'", file=sys.stderr)
        return 1
    import io

    protocol_fd = os.dup(1)
    os.dup2(2, 1)  # fd 1 now reaches stderr: only the SDK writes to the protocol stream
    sys.stdout = sys.stderr
    protocol_out = anyio.wrap_file(io.TextIOWrapper(os.fdopen(protocol_fd, "wb"), encoding="utf-8"))
    server = build_server(root, session_id)
    protocol_out = server.symbolpack_deliveries.stream(protocol_out)  # commits follow the answers out

    async def run() -> None:
        server.symbolpack_engine.start_warm_up()  # symbols indexed before the first name lookup
        async with stdio_server(stdout=protocol_out) as (read_stream, write_stream):
            low = server._mcp_server  # FastMCP.run_stdio_async() minus its fixed sys.stdout
            await low.run(read_stream, write_stream, low.create_initialization_options())

    try:
        anyio.run(run)
    except KeyboardInterrupt:
        pass
    finally:
        server.symbolpack_engine.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="tldrs mcp", description="symbolpack's stdio MCP server")
    add_arguments(parser)
    args = parser.parse_args(argv)
    return serve(Path(args.root) if args.root else None, args.session_id)


def add_arguments(parser) -> None:
    parser.add_argument("--root", default=None, metavar="DIR",
                        help="project root (default: the repository of the working directory)")
    parser.add_argument("--session-id", default=None, metavar="S",
                        help="default session for this connection (default: a new one)")


if __name__ == "__main__":
    sys.exit(main())
