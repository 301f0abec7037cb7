"""Scripted fake of the OpenAI Responses API, for driving the real Codex CLI (`codex exec`).

Codex speaks the Responses API over SSE: one `POST /v1/responses` per model turn,
whose body carries the tools offered to the model (`tools`) and the conversation
so far (`input`: messages, `function_call` items, `function_call_output` items).
The answer is a stream of events: `response.created`, one
`response.output_item.done` per output item (a `message` or a `function_call`),
and `response.completed`. Codex stops a turn when an answer has no function
call. Loopback only, stdlib only.

A *script* is a callable `turn(body) -> list of output items` (the helpers
`call(name, arguments, namespace)` and `say(text)` build items); `usage(body)`, when
given, is the token count the answer reports (Codex compacts a conversation whose
count passes its `model_auto_compact_token_limit`); every request body is
recorded, so a test judges what the model was offered and what the tools
answered. Requests to paths other than `/v1/responses` (a model list, say) are
recorded and answered 404, which Codex tolerates.
"""

from __future__ import annotations

import itertools
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Turn = Callable[[dict], list[dict]]
_ids = itertools.count(1)


def call(name: str, arguments: dict, namespace: str | None = None) -> dict:
    """A function call item; a tool offered inside a namespace is called with that namespace."""
    n = next(_ids)
    item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": name,
            "arguments": json.dumps(arguments), "status": "completed"}
    if namespace:
        item["namespace"] = namespace
    return item


def say(text: str) -> dict:
    return {"type": "message", "id": f"msg_{next(_ids)}", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def tools(body: dict) -> list[tuple[str | None, str]]:
    """The functions a request offers the model, as (namespace, name): Codex 0.171 offers an
    MCP server's tools inside a namespace named `mcp__<server>`."""
    out: list[tuple[str | None, str]] = []
    for tool in body.get("tools", []):
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "namespace":
            out += [(tool.get("name"), t.get("name")) for t in tool.get("tools", []) if isinstance(t, dict)]
        elif tool.get("name"):
            out.append((None, tool["name"]))
    return out


def outputs(body: dict) -> list[dict]:
    """The `function_call_output` items of a request's input, in order."""
    return [i for i in body.get("input", []) if isinstance(i, dict) and i.get("type") == "function_call_output"]


def output_text(item: dict) -> str:
    out = item.get("output")
    if isinstance(out, str):
        return out
    if isinstance(out, list):
        return "".join(p.get("text", "") for p in out if isinstance(p, dict))
    return json.dumps(out)


class FakeOpenAI(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], turn: Turn, usage: Callable[[dict], int] | None = None):
        super().__init__(address, _Handler)
        self.turn = turn
        self.usage = usage
        self.lock = threading.Lock()
        self.recorded: list[dict] = []  # {"path", "body"}

    def requests(self, path: str = "/v1/responses") -> list[dict]:
        with self.lock:
            return [r["body"] for r in self.recorded if r["path"] == path]


class _Handler(BaseHTTPRequestHandler):
    server: FakeOpenAI

    def log_message(self, *args: Any) -> None:
        pass

    def _record(self, body: Any) -> None:
        with self.server.lock:
            self.server.recorded.append({"path": self.path.split("?")[0], "method": self.command, "body": body})

    def do_GET(self) -> None:
        self._record(None)
        self.send_error(404)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"raw": raw.decode("utf-8", "replace")}
        self._record(body)
        if self.path.split("?")[0] != "/v1/responses":
            self.send_error(404)
            return
        try:
            items = self.server.turn(body)
            total = self.server.usage(body) if self.server.usage else 110
        except Exception as exc:  # the script failed: end the turn with the reason visible
            items, total = [say(f"fake model script error: {exc!r}")], 110
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        rid = f"resp_{next(_ids)}"
        events = [("response.created", {"type": "response.created", "response": {"id": rid}})]
        for index, item in enumerate(items):
            events.append(("response.output_item.added",
                           {"type": "response.output_item.added", "output_index": index, "item": item}))
            events.append(("response.output_item.done",
                           {"type": "response.output_item.done", "output_index": index, "item": item}))
        events.append(("response.completed", {"type": "response.completed", "response": {
            "id": rid, "status": "completed", "output": items,
            "usage": {"input_tokens": total - 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10,
                      "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": total}}}))
        for name, data in events:
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()


def start(turn: Turn, port: int = 0, usage: Callable[[dict], int] | None = None) -> tuple[FakeOpenAI, int]:
    server = FakeOpenAI(("127.0.0.1", port), turn, usage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]
