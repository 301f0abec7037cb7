"""Scripted fake of the OpenAI Chat Completions API (streamed), for driving the real
pi CLI (a provider with `api: "openai-completions"` whose baseUrl is this server).

The end-to-end tests judge what the model actually received, so every request (the
model's whole context at that moment) is recorded. Loopback only, stdlib only.

The scripted model is stateless and answers from the request alone:

* the last message is a user message whose text starts with ``CALL `` followed by a
  JSON list of tool calls ``[{"name": ..., "arguments": {...}, "id": optional}]``:
  it answers with exactly those calls (all in one assistant message);
* the last message is a user message of another kind (pi's compaction or branch
  summary request): it answers ``SUMMARY_TEXT``;
* otherwise (tool results came back): it answers ``DONE_TEXT``.

So a test drives the model by what it prompts, and two runs of the same prompts get
the same calls. ``requests()`` returns ``[{"seq", "kind", "body"}]`` with kind
``call``, ``summary`` or ``done``.
"""

from __future__ import annotations

import itertools
import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CALL_PREFIX = "CALL "
SUMMARY_TEXT = "## Goal\nRead files.\n\n## Progress\nThe files were read."
DONE_TEXT = "done"


def call_prompt(calls: list[dict]) -> str:
    """The user prompt that makes the model answer with *calls*."""
    return CALL_PREFIX + json.dumps(calls)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def answer_for(body: dict) -> tuple[str, list[dict] | str]:
    """(kind, tool calls or text) the scripted model answers *body* with."""
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    if last.get("role") == "user":
        text = _text(last.get("content")).strip()
        if text.startswith(CALL_PREFIX):
            return "call", json.loads(text[len(CALL_PREFIX):])
        return "summary", SUMMARY_TEXT
    return "done", DONE_TEXT


class FakeChat(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int = 0):
        super().__init__(("127.0.0.1", port), _Handler)
        self._lock = threading.Lock()
        self._log: list[dict] = []
        self._seq = itertools.count()

    def record(self, kind: str, body: dict) -> None:
        with self._lock:
            self._log.append({"seq": next(self._seq), "kind": kind, "body": body})

    def requests(self, kind: str | None = None) -> list[dict]:
        with self._lock:
            return [r for r in self._log if kind is None or r["kind"] == kind]


class _Handler(BaseHTTPRequestHandler):
    server: FakeChat
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._json({"object": "list", "data": [{"id": "fake-model", "object": "model"}]})
        else:
            self._json({"error": {"message": "not found"}}, 404)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self._json({"error": {"message": "bad json"}}, 400)
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._json({"error": {"message": f"no route {self.path}"}}, 404)
            return
        kind, answer = answer_for(body)
        self.server.record(kind, body)
        chunks = _chunks(answer, body.get("model", "fake-model"))
        if body.get("stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            payload = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
            data = payload.encode()
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            self._json(_whole(answer, body.get("model", "fake-model")))

    def _json(self, data: Any, status: int = 200) -> None:
        raw = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


USAGE = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}


def _calls(answer: list[dict]) -> list[dict]:
    return [{"id": c.get("id") or f"call_{uuid.uuid4().hex[:16]}", "type": "function",
             "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments", {}))}} for c in answer]


def _chunks(answer: list[dict] | str, model: str) -> list[dict]:
    ident = f"chatcmpl-{uuid.uuid4().hex[:12]}"

    def chunk(delta: dict, finish: str | None = None, usage: dict | None = None) -> dict:
        out: dict = {"id": ident, "object": "chat.completion.chunk", "created": 0, "model": model,
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        if usage is not None:
            out["usage"] = usage
        return out

    if isinstance(answer, str):
        return [chunk({"role": "assistant", "content": answer}), chunk({}, "stop", USAGE)]
    calls = [{"index": i, **c} for i, c in enumerate(_calls(answer))]
    return [chunk({"role": "assistant", "content": None, "tool_calls": calls}), chunk({}, "tool_calls", USAGE)]


def _whole(answer: list[dict] | str, model: str) -> dict:
    message: dict = {"role": "assistant", "content": answer if isinstance(answer, str) else None}
    if not isinstance(answer, str):
        message["tool_calls"] = _calls(answer)
    return {"id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop" if isinstance(answer, str)
                         else "tool_calls"}], "usage": USAGE}


def start(port: int = 0) -> tuple[FakeChat, int]:
    server = FakeChat(port)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]
