"""Scripted fake of the OpenAI Chat Completions API for the real Qwen Code
(`--auth-type openai --openai-base-url http://127.0.0.1:PORT/v1`), recording every
request with the watched files' texts as it arrived (the judge's clock).

Qwen sends, besides the main conversation, requests of its own: side queries
without tools (auto-memory extraction, titles, ...) and, when it compresses the
chat, a request whose last user message ends with its compression directive. And
Qwen puts its own reminders (skills, the date, the folder) as text parts of the
same user message as the prompt. So:

* a request whose last user message holds ``COMPRESSION_DIRECTIVE``: a
  ``<state_snapshot>`` summary (kind ``compress``), with a usage that lets Qwen
  count the compressed history as smaller than the original;
* a request without tools: a short text (kind ``side``);
* otherwise the scripted turns of the run the prompt names (``RUN <label>``,
  `set_script`): the k-th assistant message after that prompt is the k-th turn,
  a list ``[{"name", "arguments", "id"?}]`` of tool calls in one message (kind
  ``call``); past the script, ``DONE_TEXT`` (kind ``done``). One headless run thus
  plays several turns in one Qwen process, whose read cache is the process's. After
  a compression has summarised the prompt away, the run goes on where it was.

Every main request reports ``prompt_tokens`` = ``server.prompt_tokens`` (100 unless a
test raises it), or what ``server.spikes`` names for that turn of that run: over Qwen's
auto-compaction threshold, Qwen compresses before its next request. Loopback only,
stdlib only.
"""

from __future__ import annotations

import itertools
import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

RUN_PREFIX = "RUN "
DONE_TEXT = "done"
SIDE_TEXT = "nothing to note"
COMPRESSION_DIRECTIVE = "produce the <state_snapshot> XML"
SUMMARY_TEXT = ("<analysis>fake</analysis>\n<state_snapshot>\nThe user asked to read and edit app.py; "
                "it was read and edited.\n</state_snapshot>")


def run_prompt(label: str) -> str:
    """The user prompt that starts the scripted run *label*."""
    return RUN_PREFIX + label


def _parts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [p.get("text", "") for p in content if isinstance(p, dict)]
    return []


def answer_for(body: dict, scripts: dict[str, list], current: str = "",
               progress: dict[str, int] | None = None) -> tuple[str, list[dict] | str, int]:
    """(kind, tool calls or text, turn: -1 outside a script) the scripted model answers *body* with.
    A request whose run prompt a compression summarised away goes on with *current*'s
    next turn (*progress*: the turns answered so far, per run)."""
    progress = {} if progress is None else progress
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    texts = _parts(last.get("content")) if last.get("role") == "user" else []
    if any(COMPRESSION_DIRECTIVE in t for t in texts):
        return "compress", SUMMARY_TEXT, -1
    if not body.get("tools"):
        return "side", SIDE_TEXT, -1
    for k in range(len(messages) - 1, -1, -1):
        if messages[k].get("role") != "user":
            continue
        run = next((t.strip()[len(RUN_PREFIX):] for t in _parts(messages[k].get("content"))
                    if t.strip().startswith(RUN_PREFIX)), None)
        if run is None:
            continue
        turn = sum(1 for m in messages[k + 1:] if m.get("role") == "assistant")
        return _turn(scripts.get(run, []), turn, run, progress)
    if current in scripts and any(m.get("role") == "tool" for m in messages):  # summarised away
        return _turn(scripts[current], progress.get(current, 0), current, progress)
    return "done", DONE_TEXT, -1


def _turn(script: list, turn: int, run: str, progress: dict[str, int]) -> tuple[str, list[dict] | str, int]:
    progress[run] = turn + 1
    if turn < len(script):
        return "call", script[turn], turn
    return "done", DONE_TEXT, turn


class FakeQwenChat(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int = 0):
        super().__init__(("127.0.0.1", port), _Handler)
        self._lock = threading.Lock()
        self._log: list[dict] = []
        self._seq = itertools.count()
        self._watched: list[str] = []
        self.prompt_tokens = 100
        self.label = ""
        self.scripts: dict[str, list] = {}
        # (run, turn) -> the prompt tokens that answer reports: past Qwen's auto-compaction
        # threshold (167,000 of its 200,000 default window), Qwen compresses before its next request
        self.spikes: dict[tuple[str, int], int] = {}
        self.progress: dict[str, int] = {}

    def set_script(self, label: str, turns: list) -> None:
        """The turns of run *label*; requests are recorded under that label from now on."""
        with self._lock:
            self.scripts[label] = turns
            self.label = label

    def watch(self, paths: list[str]) -> None:
        with self._lock:
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

    def record(self, kind: str, body: dict, answer: Any) -> None:
        with self._lock:
            self._log.append({"seq": next(self._seq), "kind": kind, "label": self.label, "body": body,
                              "answer": answer, "files": self.snapshot()})

    def requests(self, kind: str | None = None, label: str | None = None) -> list[dict]:
        with self._lock:
            return [r for r in self._log if (kind is None or r["kind"] == kind)
                    and (label is None or r["label"] == label)]


class _Handler(BaseHTTPRequestHandler):
    server: FakeQwenChat
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
        with self.server._lock:
            kind, answer, turn = answer_for(body, self.server.scripts, self.server.label, self.server.progress)
        self.server.record(kind, body, answer)
        if kind == "compress":  # a long history summarised small: Qwen counts it as a saving
            usage = {"prompt_tokens": max(self.server.prompt_tokens, 50_000), "completion_tokens": 60,
                     "total_tokens": max(self.server.prompt_tokens, 50_000) + 60}
        else:
            tokens = self.server.spikes.get((self.server.label, turn), self.server.prompt_tokens)
            usage = {"prompt_tokens": tokens, "completion_tokens": 10, "total_tokens": tokens + 10}
        chunks = _chunks(answer, body.get("model", "fake-model"), usage)
        if body.get("stream"):
            data = ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            self._json(_whole(answer, body.get("model", "fake-model"), usage))

    def _json(self, data: Any, status: int = 200) -> None:
        raw = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


def _calls(answer: list[dict]) -> list[dict]:
    return [{"id": c.get("id") or f"call_{uuid.uuid4().hex[:16]}", "type": "function",
             "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments", {}))}} for c in answer]


def _chunks(answer: list[dict] | str, model: str, usage: dict) -> list[dict]:
    ident = f"chatcmpl-{uuid.uuid4().hex[:12]}"

    def chunk(delta: dict, finish: str | None = None, usage: dict | None = None) -> dict:
        out: dict = {"id": ident, "object": "chat.completion.chunk", "created": 0, "model": model,
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        if usage is not None:
            out["usage"] = usage
        return out

    if isinstance(answer, str):
        return [chunk({"role": "assistant", "content": answer}), chunk({}, "stop", usage)]
    calls = [{"index": i, **c} for i, c in enumerate(_calls(answer))]
    return [chunk({"role": "assistant", "content": None, "tool_calls": calls}), chunk({}, "tool_calls", usage)]


def _whole(answer: list[dict] | str, model: str, usage: dict) -> dict:
    message: dict = {"role": "assistant", "content": answer if isinstance(answer, str) else None}
    if not isinstance(answer, str):
        message["tool_calls"] = _calls(answer)
    return {"id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop" if isinstance(answer, str)
                         else "tool_calls"}], "usage": usage}


def start(port: int = 0) -> tuple[FakeQwenChat, int]:
    server = FakeQwenChat(port)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]
