"""MCP over stdio, spoken by hand: newline-delimited JSON-RPC 2.0 for a tools server.

Why not the official SDK's server: an MCP host starts `tldrs mcp` and gives it a
second or so to answer `initialize` (Codex: 1 s by default, then it starts without
the tools). Importing the SDK's `mcp.types` alone took 510-720 ms here (pydantic
140-200 ms of it), and the SDK's server answered `initialize` 406 ms after spawn
against 30 ms for this one; the part of the protocol a tools server speaks is small. This
module imports `json`, `threading` and nothing of symbolpack's engine, so the
answer to `initialize` leaves before any parser is loaded. The official Python
client and the MCP Inspector are what the tests drive it with.

What it serves, as the SDK's FastMCP server did: `initialize` (the client's
protocol version when supported, else the latest), `ping`, `tools/list`,
`tools/call`, empty `prompts/list`, `resources/list` and
`resources/templates/list`; it honours `notifications/cancelled` and asks a
client that declares `roots` for `roots/list` after `notifications/initialized`
and on `notifications/roots/list_changed`. Errors are JSON-RPC's: -32700 (not
JSON), -32600 (not a request), -32601 (unknown method), -32602 (bad params,
unknown tool). A tool's own failure is a result with `isError`, not a protocol
error.

The server's heavy part (the engine) starts in the background once the first
`tools/list` is answered (or a tool is called): a host lists the tools right after
`initialize`, and both answers leave before any parser is imported (measured with
`evals/bench_mcp_start.py`: started after `initialize` instead, the engine's imports
delayed the `tools/list` answer by ~1 ms).

Threads: the reader (the caller of `Connection.run`) reads and answers everything
but tool calls, which go to one worker thread in arrival order, so a long pack
never holds up `ping`, `tools/list` or a cancellation. Lines are written whole
under one lock.

Delivery: a tool's answer may carry a `commit` (a read's lines pending on an
intent in the session's copy). It runs only after the response line has been
written and flushed to the client; a response that could not be written, or
whose request was cancelled first, is never committed, and a server killed in
between leaves the lines pending, which later answers treat as unsure. Because
the worker commits before it takes the next call, a client that sends its next
request as soon as it has an answer always finds that answer committed. One race
stays open, as in any JSON-RPC server: a cancellation that crosses its answer on
the wire (the client gave up on a response already sent) is not taken back.
"""

from __future__ import annotations

import json
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO, Callable, Protocol

    class ToolServer(Protocol):
        """What a `Connection` serves: symbolpack's tools (`tools.SymbolpackTools`)."""

        name: str
        version: str
        instructions: str

        def tool_list(self) -> list[dict[str, Any]]: ...

        def has_tool(self, name: str) -> bool: ...

        def call(self, name: str, arguments: dict[str, Any]) -> ToolAnswer: ...

        def start(self) -> None: ...

        def roots_requested(self) -> None: ...

        def roots_answered(self, uris: list[str] | None) -> None: ...

# Oldest first; the last is what a client asking for an unknown version gets.
PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_PROTOCOL_VERSION = PROTOCOL_VERSIONS[-1]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

# What the SDK's FastMCP server advertised (and answered with empty lists), so no client loses a feature.
CAPABILITIES = {"experimental": {}, "prompts": {"listChanged": False},
                "resources": {"subscribe": False, "listChanged": False}, "tools": {"listChanged": False}}
EMPTY_LISTS = {"prompts/list": "prompts", "resources/list": "resources",
               "resources/templates/list": "resourceTemplates"}


class ProtocolError(Exception):
    """A request answered with a JSON-RPC error object."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class ToolAnswer:
    """A tool call's result: its text, whether it is an error, and what to commit once
    the response carrying it reached the client."""

    __slots__ = ("text", "is_error", "commit")

    def __init__(self, text: str, is_error: bool = False, commit: Callable[[], object] | None = None):
        self.text = text
        self.is_error = is_error
        self.commit = commit

    def result(self) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": self.text}], "isError": self.is_error}


class _Call:
    """A queued or running tool call."""

    __slots__ = ("request_id", "name", "arguments", "cancelled")

    def __init__(self, request_id: str | int, name: str, arguments: dict[str, Any]):
        self.request_id = request_id
        self.name = name
        self.arguments = arguments
        self.cancelled = False


class Connection:
    """One client over two byte streams (`inp` read line by line, `out` written and
    flushed a line at a time). `run()` serves until the client closes `inp`."""

    def __init__(self, inp: BinaryIO, out: BinaryIO, server: ToolServer,
                 on_commit_error: Callable[[Exception], None] | None = None):
        self._inp = inp
        self._out = out
        self._server = server
        self._on_commit_error = on_commit_error
        self._write_lock = threading.Lock()
        self._calls: dict[str | int, _Call] = {}  # queued or running, by request id
        self._queue: list[_Call | None] = []
        self._queued = threading.Condition()
        self._worker: threading.Thread | None = None
        self._client_has_roots = False
        self._next_request = 0
        self._waiting: dict[str, Callable[[dict[str, Any] | None], None]] = {}  # our requests, by id
        self.closed = False  # the output is gone: nothing more can be answered

    # -- the reader
    def run(self) -> None:
        """Read and answer messages until end of input; queued tool calls are answered
        before it returns."""
        try:
            while not self.closed:
                line = self._inp.readline()
                if not line:
                    break
                if line.strip():
                    self._receive(line)
        finally:
            self._stop_worker()

    def _receive(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError as exc:  # UnicodeDecodeError included
            self._send_error(None, PARSE_ERROR, f"Parse error: {exc}")
            return
        if not isinstance(message, dict):
            what = "a batch (JSON array)" if isinstance(message, list) else "not a JSON object"
            self._send_error(None, INVALID_REQUEST, f"Invalid request: {what}")
            return
        request_id = message.get("id")
        has_id = "id" in message
        if has_id and not _valid_id(request_id):
            self._send_error(None, INVALID_REQUEST, "Invalid request: id must be a string or an integer")
            return
        if message.get("jsonrpc") != "2.0":
            self._send_error(request_id, INVALID_REQUEST, 'Invalid request: "jsonrpc" must be "2.0"')
            return
        method = message.get("method")
        if method is None and has_id and ("result" in message or "error" in message):
            self._answered(request_id, message.get("result") if "result" in message else None)
            return
        if not isinstance(method, str):
            if has_id:
                self._send_error(request_id, INVALID_REQUEST, 'Invalid request: "method" must be a string')
            return
        params = message.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            if has_id:
                self._send_error(request_id, INVALID_PARAMS, f"Invalid params for {method}: must be an object")
            return
        if not has_id or request_id is None:  # a notification (a null id was refused above)
            self._notified(method, params)
            return
        try:
            self._request(request_id, method, params)
        except ProtocolError as exc:
            self._send_error(request_id, exc.code, exc.message)

    def _request(self, request_id: str | int, method: str, params: dict[str, Any]) -> None:
        if method == "tools/call":
            self._queue_call(request_id, params)
        elif method == "initialize":
            self._send_result(request_id, self._initialize(params))
        elif method == "ping":
            self._send_result(request_id, {})
        elif method == "tools/list":
            self._send_result(request_id, {"tools": self._server.tool_list()})
            self._server.start()  # only now: the engine's imports would slow the answers before it
        elif method in EMPTY_LISTS:
            self._send_result(request_id, {EMPTY_LISTS[method]: []})
        elif method == "prompts/get":
            raise ProtocolError(INVALID_PARAMS, f"Unknown prompt: {params.get('name')}")
        elif method == "resources/read":
            raise ProtocolError(INVALID_PARAMS, f"Unknown resource: {params.get('uri')}")
        else:
            raise ProtocolError(METHOD_NOT_FOUND, f"Method not found: {method}")

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        asked = params.get("protocolVersion")
        if not isinstance(asked, str):
            raise ProtocolError(INVALID_PARAMS, "Invalid params for initialize: protocolVersion must be a string")
        capabilities = params.get("capabilities")
        self._client_has_roots = isinstance(capabilities, dict) and isinstance(capabilities.get("roots"), dict)
        result: dict[str, Any] = {
            "protocolVersion": asked if asked in PROTOCOL_VERSIONS else LATEST_PROTOCOL_VERSION,
            "capabilities": CAPABILITIES,
            "serverInfo": {"name": self._server.name, "version": self._server.version},
        }
        if self._server.instructions:
            result["instructions"] = self._server.instructions
        return result

    def _notified(self, method: str, params: dict[str, Any]) -> None:
        if method == "notifications/cancelled":
            self._cancel(params.get("requestId"))
        elif method in ("notifications/initialized", "notifications/roots/list_changed"):
            if self._client_has_roots:
                self._ask_roots()
        # any other notification (progress, log levels, ...) needs nothing from a tools server

    # -- roots: requests of our own to the client
    def _ask_roots(self) -> None:
        self._server.roots_requested()  # tool calls wait for the answer (briefly) before judging a path
        self._next_request += 1
        request_id = f"symbolpack-{self._next_request}"

        def answered(result: dict[str, Any] | None) -> None:
            roots = result.get("roots") if isinstance(result, dict) else None
            uris = [r["uri"] for r in roots if isinstance(r, dict) and isinstance(r.get("uri"), str)] \
                if isinstance(roots, list) else None
            self._server.roots_answered(uris)

        self._waiting[request_id] = answered
        if not self._send({"jsonrpc": "2.0", "id": request_id, "method": "roots/list"}):
            self._waiting.pop(request_id, None)
            self._server.roots_answered(None)

    def _answered(self, request_id: object, result: dict[str, Any] | None) -> None:
        callback = self._waiting.pop(str(request_id), None)
        if callback is not None:
            callback(result if isinstance(result, dict) else None)

    # -- tool calls: one worker, in order
    def _queue_call(self, request_id: str | int, params: dict[str, Any]) -> None:
        name = params.get("name")
        if not isinstance(name, str):
            raise ProtocolError(INVALID_PARAMS, "Invalid params for tools/call: name must be a string")
        if not self._server.has_tool(name):
            raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {name}")
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise ProtocolError(INVALID_PARAMS, "Invalid params for tools/call: arguments must be an object")
        call = _Call(request_id, name, arguments)
        self._server.start()
        with self._queued:
            self._calls[request_id] = call
            self._queue.append(call)
            if self._worker is None:
                self._worker = threading.Thread(target=self._work, name="symbolpack-mcp-tools", daemon=True)
                self._worker.start()
            self._queued.notify()

    def _cancel(self, request_id: object) -> None:
        """No answer for a cancelled call: dropped when still queued, its answer (and
        commit) discarded when running (the engine's work is not interrupted)."""
        with self._write_lock:  # a call is answered or cancelled, never both
            call = self._calls.get(request_id) if isinstance(request_id, (str, int)) else None
            if call is not None:
                call.cancelled = True

    def _work(self) -> None:
        while True:
            with self._queued:
                while not self._queue:
                    self._queued.wait()
                call = self._queue.pop(0)
            if call is None:
                return
            if not call.cancelled and not self.closed:
                self._answer(call)
            self._calls.pop(call.request_id, None)

    def _answer(self, call: _Call) -> None:
        try:
            answer = self._server.call(call.name, call.arguments)
        except Exception as exc:  # the tools turn their own failures into answers; this is a bug
            answer = ToolAnswer(f"{call.name} failed: {type(exc).__name__}: {exc}", is_error=True)
        response = {"jsonrpc": "2.0", "id": call.request_id, "result": answer.result()}
        with self._write_lock:
            delivered = not call.cancelled and self._write(response)
        if delivered and answer.commit is not None:
            try:
                answer.commit()
            except Exception as exc:  # an uncommitted intent only means "unsure"
                if self._on_commit_error is not None:
                    self._on_commit_error(exc)

    def _stop_worker(self) -> None:
        with self._queued:
            worker = self._worker
            if worker is None:
                return
            self._queue.append(None)
            self._queued.notify()
        worker.join()

    # -- writing
    def _send_result(self, request_id: str | int, result: dict[str, Any]) -> None:
        self._send({"jsonrpc": "2.0", "id": request_id, "result": result})

    def _send_error(self, request_id: object, code: int, message: str) -> None:
        self._send({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})

    def _send(self, message: dict[str, Any]) -> bool:
        with self._write_lock:
            return self._write(message)

    def _write(self, message: dict[str, Any]) -> bool:
        """One line, written and flushed (the caller holds the write lock). False when
        the client is gone."""
        if self.closed:
            return False
        data = (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        try:
            self._out.write(data)
            self._out.flush()
        except (OSError, ValueError):  # a broken pipe, or a closed stream
            self.closed = True
            return False
        return True


def _valid_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))
