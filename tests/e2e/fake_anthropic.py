"""Scripted fake of the Anthropic Messages API, for driving the real Claude Code CLI.

The end-to-end tests judge what the model actually received: every request the
CLI sends (the model's whole context at that moment) is recorded. Loopback only.
Stdlib only.  Usage::

    from fake_anthropic import start
    server, port = start(port=0, log_path="/tmp/requests.jsonl")
    server.set_script([
        [{"type": "tool_use", "name": "Read", "input": {"file_path": "/x/a.py"}}],
        [{"type": "text", "text": "all done"}],
    ], label="run-1")
    ... run `claude -p` with ANTHROPIC_BASE_URL=http://127.0.0.1:<port> ...
    server.requests()          # every recorded request (dicts)
    server.shutdown()

Scripted model
--------------
A *script* is a list of *turns*.  Every main-loop request (a request whose body
carries a non-empty ``tools`` list and that is not a compaction request) pops the
next turn and answers with it.  A turn is one of:

* a list of content blocks: ``{"type": "text", "text": ...}`` or
  ``{"type": "tool_use", "name": ..., "input": {...}, "id": optional}``.
  ``stop_reason`` is ``tool_use`` when the turn holds a tool_use, else ``end_turn``.
* a dict ``{"content": [...], "stop_reason": optional, "usage": optional}``.
* (Python API only) a callable ``f(request_body) -> turn``.

When the script is exhausted, the answer is the end_turn text ``"done"``.

Side calls (requests without ``tools``: titles, topic detection, ...) are answered
with a short text, compaction requests (detected by the summary prompt in the last
user message) with ``SUMMARY_TEXT``.  Every request is appended to ``log_path`` as
one JSON line ``{"seq", "time", "label", "kind", "method", "path", "headers",
"body"}`` where ``kind`` is ``main`` / ``side`` / ``compact`` / ``count_tokens`` /
``unknown``.  With ``server.watch(paths)``, every Messages request also records
``"files"``: each watched file's text when the request arrived (None when absent):
the true file states a judge compares the model's context with (the tools of a
turn have all run, and their hooks, before the next request is sent).

Control endpoints (JSON bodies), usable from another process:

* ``POST /_control/script``  ``{"turns": [...], "label": "..."}``
* ``GET  /_control/requests`` -> list of recorded entries
* ``POST /_control/reset``   clears the recorded requests
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# Claude Code 2.1.332 retries the compaction request once when the answer has no <summary> tags.
SUMMARY_TEXT = "<analysis>fake analysis</analysis>\n<summary>FAKE SUMMARY: the user asked to read some files; they were read.</summary>"
SIDE_TEXT = "Fake side answer"
DONE_TEXT = "done"
# Substrings that mark the compaction (summary) request in the last user message.
COMPACT_MARKERS = (
    "create a detailed summary of the conversation",
    "Your task is to create a detailed summary",
    "summary of the conversation so far",
)
DEFAULT_USAGE = {
    "input_tokens": 100,
    "output_tokens": 10,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
}

Turn = Any  # list[dict] | dict | Callable[[dict], Any]


def _last_user_text(body: dict) -> str:
    msgs = body.get("messages") or []
    for msg in reversed(msgs):
        if msg.get("role") != "user":
            continue
        content = msg.get("content")
        if isinstance(content, str):
            return content
        parts = []
        for block in content or []:
            if isinstance(block, dict) and block.get("type") == "text":
                parts.append(block.get("text", ""))
        return "\n".join(parts)
    return ""


def classify(body: dict) -> str:
    text = _last_user_text(body)
    if any(m.lower() in text.lower() for m in COMPACT_MARKERS):
        return "compact"
    if body.get("tools"):
        return "main"
    return "side"


class FakeAnthropicServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, log_path: str | None = None):
        super().__init__(addr, _Handler)
        self.log_path = log_path
        self.lock = threading.Lock()
        self._script: list[Turn] = []
        self._label = ""
        self._records: list[dict] = []
        self._seq = itertools.count(1)
        self._ids = itertools.count(1)
        self._watched: list[str] = []
        self.summary_text = SUMMARY_TEXT  # answer to compaction requests
        self.side_text = SIDE_TEXT  # answer to side calls (no tools)

    # ---- script control -------------------------------------------------
    def set_script(self, turns: list[Turn], label: str = "") -> None:
        with self.lock:
            self._script = list(turns)
            self._label = label

    def watch(self, paths: list[str]) -> None:
        """Snapshot these files' texts with every Messages request from now on."""
        with self.lock:
            self._watched = list(paths)

    def snapshot(self) -> dict[str, str | None]:
        out: dict[str, str | None] = {}
        for path in self._watched:
            try:
                with open(path, encoding="utf-8", newline="") as fh:
                    out[path] = fh.read()
            except OSError:
                out[path] = None
        return out

    def remaining(self) -> int:
        with self.lock:
            return len(self._script)

    def requests(self, kind: str | None = None, label: str | None = None) -> list[dict]:
        with self.lock:
            recs = list(self._records)
        return [r for r in recs if (kind is None or r["kind"] == kind) and (label is None or r["label"] == label)]

    def reset_requests(self) -> None:
        with self.lock:
            self._records.clear()

    # ---- internals -----------------------------------------------------
    def _record(self, entry: dict) -> dict:
        with self.lock:
            entry["seq"] = next(self._seq)
            entry["label"] = self._label
            self._records.append(entry)
            if self.log_path:
                with open(self.log_path, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(entry) + "\n")
        return entry

    def _pop_turn(self, body: dict) -> Turn:
        with self.lock:
            turn = self._script.pop(0) if self._script else None
        if callable(turn):
            turn = turn(body)
        if turn is None:
            turn = [{"type": "text", "text": DONE_TEXT}]
        return turn

    def new_tool_id(self) -> str:
        return "toolu_fake%06d" % next(self._ids)


def _normalise_turn(server: FakeAnthropicServer, turn: Turn) -> tuple[list[dict], str, dict]:
    if isinstance(turn, dict):
        content = turn.get("content", [])
        stop = turn.get("stop_reason")
        usage = {**DEFAULT_USAGE, **turn.get("usage", {})}
    else:
        content, stop, usage = turn, None, dict(DEFAULT_USAGE)
    blocks = []
    for b in content:
        b = dict(b)
        if b["type"] == "tool_use":
            b.setdefault("id", server.new_tool_id())
            b.setdefault("input", {})
        blocks.append(b)
    if stop is None:
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    return blocks, stop, usage


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: FakeAnthropicServer

    def log_message(self, fmt, *args):  # silence stderr
        pass

    # ---- helpers --------------------------------------------------------
    def _read_body(self) -> tuple[bytes, Any]:
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            return raw, json.loads(raw) if raw else None
        except ValueError:
            return raw, None

    def _send_json(self, obj: Any, status: int = 200) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", "req_fake")
        self.end_headers()
        self.wfile.write(data)

    def _path(self) -> str:
        return self.path.split("?", 1)[0]

    # ---- verbs ----------------------------------------------------------
    def do_GET(self):
        path = self._path()
        if path == "/_control/requests":
            return self._send_json(self.server.requests())
        self.server._record({"time": time.time(), "kind": "unknown", "method": "GET", "path": self.path,
                             "headers": dict(self.headers), "body": None})
        self._send_json({"type": "error", "error": {"type": "not_found_error", "message": "fake: no " + path}}, 404)

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        path = self._path()
        raw, body = self._read_body()
        srv = self.server
        if path == "/_control/script":
            srv.set_script(body.get("turns", []), body.get("label", ""))
            return self._send_json({"ok": True})
        if path == "/_control/reset":
            srv.reset_requests()
            return self._send_json({"ok": True})
        entry = {"time": time.time(), "method": "POST", "path": self.path, "headers": dict(self.headers),
                 "body": body if body is not None else raw.decode("utf-8", "replace")}
        if path == "/v1/messages/count_tokens":
            entry["kind"] = "count_tokens"
            srv._record(entry)
            n = max(1, len(raw) // 4)
            return self._send_json({"input_tokens": n})
        if path != "/v1/messages" or not isinstance(body, dict):
            entry["kind"] = "unknown"
            srv._record(entry)
            return self._send_json({"type": "error", "error": {"type": "not_found_error", "message": "fake: no " + path}}, 404)

        kind = classify(body)
        entry["kind"] = kind
        entry["files"] = srv.snapshot()
        if kind == "main":
            turn = srv._pop_turn(body)
        elif kind == "compact":
            turn = [{"type": "text", "text": srv.summary_text}]
        else:
            turn = [{"type": "text", "text": srv.side_text}]
        blocks, stop, usage = _normalise_turn(srv, turn)
        entry["response"] = {"content": blocks, "stop_reason": stop}
        srv._record(entry)
        msg_id = "msg_fake%06d" % entry["seq"]
        model = body.get("model", "claude-fake")
        if body.get("stream"):
            self._stream(msg_id, model, blocks, stop, usage)
        else:
            self._send_json({"id": msg_id, "type": "message", "role": "assistant", "model": model,
                             "content": blocks, "stop_reason": stop, "stop_sequence": None, "usage": usage})

    def _stream(self, msg_id, model, blocks, stop, usage):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.send_header("request-id", "req_fake")
        self.end_headers()
        self.close_connection = True

        def ev(name: str, data: dict) -> None:
            self.wfile.write(("event: %s\ndata: %s\n\n" % (name, json.dumps(data))).encode())
            self.wfile.flush()

        start_usage = {**usage, "output_tokens": 1}
        ev("message_start", {"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": start_usage}})
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                ev("content_block_start", {"type": "content_block_start", "index": i,
                                           "content_block": {"type": "text", "text": ""}})
                ev("content_block_delta", {"type": "content_block_delta", "index": i,
                                           "delta": {"type": "text_delta", "text": b["text"]}})
            elif b["type"] == "tool_use":
                ev("content_block_start", {"type": "content_block_start", "index": i, "content_block": {
                    "type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}})
                ev("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                    "type": "input_json_delta", "partial_json": json.dumps(b["input"])}})
            else:
                raise ValueError("unsupported block type %r" % b["type"])
            ev("content_block_stop", {"type": "content_block_stop", "index": i})
        ev("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                             "usage": {"output_tokens": usage["output_tokens"]}})
        ev("message_stop", {"type": "message_stop"})


def start(port: int = 0, log_path: str | None = None, host: str = "127.0.0.1") -> tuple[FakeAnthropicServer, int]:
    """Start the fake server in a daemon thread; return (server, port)."""
    server = FakeAnthropicServer((host, port), log_path=log_path)
    t = threading.Thread(target=server.serve_forever, name="fake-anthropic", daemon=True)
    t.start()
    return server, server.server_address[1]


if __name__ == "__main__":  # manual use: python fake_anthropic.py [port] [log]
    import sys

    p = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    srv, p = start(p, sys.argv[2] if len(sys.argv) > 2 else None)
    print("listening on 127.0.0.1:%d" % p, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        srv.shutdown()
