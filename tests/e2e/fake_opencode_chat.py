"""Scripted fake of the OpenAI Chat Completions API for the real OpenCode (its
`@ai-sdk/openai-compatible` provider pointed at this server), recording every request.

`fake_openai_chat.py` (pi's) answers from the last message alone; OpenCode also sends
requests that carry no tools -- a session title made from the first prompt, a
compaction's summary of the conversation -- whose last message is the user's prompt
too, and a scripted call there would be a tool call in a title. So here:

* a request without tools: ``SUMMARY_TEXT`` (kind ``title`` when its system prompt is
  OpenCode's title generator, else ``summary``);
* the last message is a user message whose text starts with ``CALL `` followed by a
  JSON list ``[{"name", "arguments", "id"?}]``: exactly those tool calls, in one
  assistant message (kind ``call``);
* otherwise (tool results came back, or a prompt that is not a script): ``DONE_TEXT``
  (kind ``done``).

The wire format (chunks, whole answers) is pi's fake's. Loopback only, stdlib only.
"""

from __future__ import annotations

import itertools
import json
import threading
from http.server import ThreadingHTTPServer

import fake_openai_chat as chat

CALL_PREFIX = chat.CALL_PREFIX
SUMMARY_TEXT = chat.SUMMARY_TEXT
DONE_TEXT = chat.DONE_TEXT
call_prompt = chat.call_prompt


def answer_for(body: dict) -> tuple[str, list[dict] | str]:
    """(kind, tool calls or text) the scripted model answers *body* with."""
    messages = body.get("messages") or []
    if not body.get("tools"):
        system = " ".join(chat._text(m.get("content")) for m in messages if m.get("role") == "system")
        return ("title" if "title generator" in system else "summary"), SUMMARY_TEXT
    last = messages[-1] if messages else {}
    if last.get("role") == "user":
        text = chat._text(last.get("content")).strip()
        if text.startswith(CALL_PREFIX):
            return "call", json.loads(text[len(CALL_PREFIX):])
    return "done", DONE_TEXT


class FakeOpenCodeChat(ThreadingHTTPServer):
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


class _Handler(chat._Handler):
    server: FakeOpenCodeChat  # type: ignore[assignment]

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
        model = body.get("model", "fake-model")
        if not body.get("stream"):
            self._json(chat._whole(answer, model))
            return
        data = ("".join(f"data: {json.dumps(c)}\n\n" for c in chat._chunks(answer, model))
                + "data: [DONE]\n\n").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def start(port: int = 0) -> tuple[FakeOpenCodeChat, int]:
    server = FakeOpenCodeChat(port)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]
