"""Scripted fake of the Gemini API (`v1beta`), for driving the real Gemini CLI headless
(`gemini -p`, `GOOGLE_GEMINI_BASE_URL` pointing here, `GEMINI_API_KEY=fake`).

Gemini CLI 0.61 speaks the Gemini API through `@google/genai`: one
`POST /v1beta/models/<model>:streamGenerateContent?alt=sse` per model turn, whose
body carries the conversation (`contents`: `user` and `model` turns of `parts`:
text, `functionCall`, `functionResponse`), the system instruction and the tools
offered (`tools[].functionDeclarations`). The answer is a stream of `data:` events,
each a `GenerateContentResponse`; the last carries `finishReason` and
`usageMetadata`, whose `promptTokenCount` Gemini keeps as the size of its context
(it compresses the chat when that passes its threshold). Side calls made with the
base client (the next-speaker check, chat compression and its verification, loop
detection, the model router's classifier) use `:generateContent` (one JSON
answer) with their own system instruction or response schema; `:countTokens` is
asked only for media, and answered from the text's length. Gemini stops a turn
when an answer has no `functionCall`. Loopback only, stdlib only.

A *script* is a callable `turn(body) -> list of parts` (the helpers `call(name, args)`
and `say(text)` build parts), called for every `generateContent` and
`streamGenerateContent` request: it tells a side call from a chat turn by the body
(`is_chat`, `schema_of`, `system_text`). `usage(body)`, when given, is the prompt
token count the answer reports. Every request is recorded with its path, so a
test judges what the model was offered and what the tools answered. Other paths
are recorded and answered 404.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Turn = Callable[[dict], list[dict]]
MODEL_PATH = "/v1beta/models/"


def call(name: str, args: dict) -> dict:
    """A `functionCall` part: Gemini CLI offers an MCP tool as `mcp_<server>_<tool>`."""
    return {"functionCall": {"name": name, "args": args}}


def say(text: str) -> dict:
    return {"text": text}


def method_of(path: str) -> tuple[str, str] | None:
    """(model, method) of a `/v1beta/models/<model>:<method>` path, else None."""
    bare = path.split("?", 1)[0]
    if not bare.startswith(MODEL_PATH) or ":" not in bare:
        return None
    model, _, method = bare[len(MODEL_PATH):].rpartition(":")
    return model, method


def is_chat(body: dict) -> bool:
    """A turn of the main chat: it offers tools (side calls offer none)."""
    return any(t.get("functionDeclarations") for t in body.get("tools") or [] if isinstance(t, dict))


def tools(body: dict) -> list[str]:
    """The function names a request offers the model."""
    return [str(f.get("name")) for t in body.get("tools") or [] if isinstance(t, dict)
            for f in t.get("functionDeclarations") or [] if isinstance(f, dict)]


def system_text(body: dict) -> str:
    si = body.get("systemInstruction") or (body.get("config") or {}).get("systemInstruction") or {}
    if isinstance(si, str):
        return si
    return "".join(p.get("text", "") for p in si.get("parts") or [] if isinstance(p, dict))


def schema_of(body: dict) -> dict | None:
    """The JSON schema a side call wants its answer in (`generateJson`), if any."""
    config = body.get("generationConfig") or {}
    return config.get("responseJsonSchema") or config.get("responseSchema")


def last_user_text(body: dict) -> str:
    users = [c for c in body.get("contents") or [] if c.get("role") == "user"]
    return "".join(p.get("text", "") for p in users[-1].get("parts") or []) if users else ""


def _response(parts: list[dict], prompt_tokens: int) -> dict:
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": prompt_tokens, "candidatesTokenCount": 10,
                              "totalTokenCount": prompt_tokens + 10},
            "modelVersion": "gemini-fake"}


class FakeGemini(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], turn: Turn, usage: Callable[[dict], int] | None = None):
        super().__init__(address, _Handler)
        self.turn = turn
        self.usage = usage
        self.lock = threading.Lock()
        self.recorded: list[dict] = []  # {"path", "method", "body"}

    def requests(self, method: str | None = "streamGenerateContent") -> list[dict]:
        """Bodies of the requests to one API method (None: every request), in order."""
        with self.lock:
            return [r["body"] for r in self.recorded if method is None or r["method"] == method]


class _Handler(BaseHTTPRequestHandler):
    server: FakeGemini
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def _record(self, method: str | None, body: Any) -> None:
        with self.server.lock:
            self.server.recorded.append({"path": self.path, "method": method, "body": body})

    def _send(self, code: int, content_type: str, data: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def do_GET(self) -> None:
        self._record(None, None)
        self._send(404, "application/json", b'{"error": {"code": 404, "message": "not faked"}}')

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"raw": raw.decode("utf-8", "replace")}
        target = method_of(self.path)
        method = target[1] if target else None
        self._record(method, body)
        if method == "countTokens":
            text = json.dumps(body.get("contents") or body.get("generateContentRequest") or body)
            self._send(200, "application/json", json.dumps({"totalTokens": len(text) // 4}).encode())
            return
        if method not in ("generateContent", "streamGenerateContent"):
            self._send(404, "application/json", b'{"error": {"code": 404, "message": "not faked"}}')
            return
        try:
            parts = self.server.turn(body)
            prompt_tokens = self.server.usage(body) if self.server.usage else 100
        except Exception as exc:  # the script failed: end the turn with the reason visible
            parts, prompt_tokens = [say(f"fake model script error: {exc!r}")], 100
        answer = _response(parts, prompt_tokens)
        if method == "generateContent":
            self._send(200, "application/json", json.dumps(answer).encode())
        else:
            self._send(200, "text/event-stream", f"data: {json.dumps(answer)}\r\n\r\n".encode())


def start(turn: Turn, port: int = 0, usage: Callable[[dict], int] | None = None) -> tuple[FakeGemini, int]:
    server = FakeGemini(("127.0.0.1", port), turn, usage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]
