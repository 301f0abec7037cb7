"""Qwen Code's transcript, read incrementally: which tool results the next request carries.

Qwen writes every record of a session to
`~/.qwen/projects/<cwd, sanitised>/chats/<session_id>.jsonl` (the hook payload's
`transcript_path`), one JSON object a line, each with `uuid` and `parentUuid`:
`user` prompts, `assistant` messages (`message.parts[].functionCall {id, name,
args}`), `tool_result` records (`functionResponse {id, name, response: {output} or
{error}}`), and `system` records, among them `chat_compression` (the compressed
history follows it: nothing before it is sent again), `rewind` (the chain is
re-rooted at an earlier turn) and `slash_command`. The request Qwen builds is the
active chain: the record of the current call back through `parentUuid`, cut at the
latest compression. So a rewind needs no hook (its dead branch is off the chain),
and a result counts only while its record is on it.

What the chain cannot show is Qwen's microcompaction, which blanks old tool results
in memory without a record (`[Old tool result content cleared]`): when the gap
since the last model response passes `context.clearContextOnIdle.
toolResultsThresholdMinutes` (60 by default), when tool results add up past
`toolResultsTotalCharsThreshold` (500,000 characters), or on `/compress-fast`; it keeps
the newest `toolResultsNumToKeep` (5). `present.py` treats every result it may have
blanked as blanked.

Parsed state is kept under the state dir with the byte offset reached (a transcript
grows with every request: each hook reads only what was appended); a file replaced,
shortened or rewritten in place is parsed again from the start. Telemetry records
(`ui_telemetry`, `attribution_snapshot`) are skipped before they are decoded.
"""

from __future__ import annotations

import json
import os
import re
import time

from .. import transcript_cache
from ..transcript_cache import GrowingFile, digest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterator

CACHE_VERSION = 1
POLL_SECONDS = 2.0
POLL_INTERVAL = 0.01
BARRIERS = ("chat_compression", "rewind")
CLEARED = "[Old tool result content cleared]"  # what Qwen's microcompaction leaves of a result
_LINK = re.compile(rb'"uuid": ?"([^"]+)", ?"parentUuid": ?(null|"([^"]*)")')
_SKIP = (b'"subtype": "ui_telemetry"', b'"subtype":"ui_telemetry"', b'"subtype": "attribution_snapshot"',
         b'"subtype":"attribution_snapshot"')


class Record:
    """What the chain walk and the present set need of one transcript record."""

    __slots__ = ("parent", "pos", "kind", "time", "calls", "results", "command")

    def __init__(self, parent: str | None, pos: int, kind: str, when: float | None) -> None:
        self.parent = parent
        self.pos = pos
        self.kind = kind  # user | assistant | tool_result | chat_compression | rewind | slash_command | other
        self.time = when
        self.calls: tuple = ()  # (call id, tool name, file_path or None) of an assistant record
        self.results: tuple = ()  # (call id, tool name, digest, is_error, characters, cleared)
        self.command: str | None = None  # a slash command's name


class Transcript(GrowingFile):
    def __init__(self) -> None:
        super().__init__()
        self.records: dict[str, Record] = {}
        self.owner: dict[str, str] = {}  # call id -> uuid of the assistant record that made it

    def update(self, path: str) -> bool:
        """Read what was appended since the last update; False when the file is not there."""
        lines = self.new_lines(path)
        if lines is None:
            return False
        for line, pos in lines:
            if line and any(s in line[:600] for s in _SKIP):
                self._link(line, pos)  # a telemetry record: only its place in the chain
            elif line:
                self._add(line, pos)
        return True

    def _link(self, line: bytes, pos: int) -> None:
        found = _LINK.search(line[:400])
        if found is None:
            self._add(line, pos)
            return
        parent = found.group(3)
        self.records[found.group(1).decode()] = Record(parent.decode() if parent else None, pos, "other", None)

    def _add(self, line: bytes, pos: int) -> None:
        try:
            raw = json.loads(line)
        except ValueError:
            return
        if not isinstance(raw, dict) or not isinstance(raw.get("uuid"), str):
            return
        parent = raw.get("parentUuid")
        kind = str(raw.get("type"))
        if kind == "system":
            kind = str(raw.get("subtype")) if raw.get("subtype") in (*BARRIERS, "slash_command") else "other"
        elif kind not in ("user", "assistant", "tool_result"):
            kind = "other"
        rec = Record(parent if isinstance(parent, str) else None, pos, kind, _when(raw.get("timestamp")))
        message = raw.get("message")
        parts = message.get("parts") if isinstance(message, dict) else None
        parts = [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []
        if kind == "assistant":
            calls = []
            for p in parts:
                call = p.get("functionCall")
                if isinstance(call, dict) and isinstance(call.get("id"), str):
                    args = call.get("args")
                    path = args.get("file_path") if isinstance(args, dict) else None
                    calls.append((call["id"], str(call.get("name")), path if isinstance(path, str) else None))
                    self.owner[call["id"]] = raw["uuid"]
            rec.calls = tuple(calls)
        elif kind in ("tool_result", "user"):
            results = []
            for p in parts:
                resp = p.get("functionResponse")
                if isinstance(resp, dict) and isinstance(resp.get("id"), str):
                    results.append(_result(resp))
            rec.results = tuple(results)
        elif kind == "slash_command":
            payload = raw.get("systemPayload")
            name = payload.get("rawCommand") or payload.get("name") if isinstance(payload, dict) else None
            rec.command = str(name) if name is not None else json.dumps(payload)[:200]
        self.records[raw["uuid"]] = rec

    def chain(self, leaf: str) -> list[str]:
        """The records of the context that ends at *leaf*, oldest first, from the latest
        compression on (the compression record first)."""
        out: list[str] = []
        seen: set[str] = set()
        cur: str | None = leaf
        while cur is not None and cur not in seen:
            seen.add(cur)
            rec = self.records.get(cur)
            if rec is None:
                break
            out.append(cur)
            if rec.kind == "chat_compression":
                break
            cur = rec.parent
        out.reverse()
        return out

    def items(self, leaf: str) -> Iterator[tuple[str, Record]]:
        for uuid in self.chain(leaf):
            rec = self.records.get(uuid)
            if rec is not None:
                yield uuid, rec


def _result(resp: dict) -> tuple:
    response = resp.get("response")
    response = response if isinstance(response, dict) else {}
    error = response.get("error")
    if isinstance(error, str):
        text, is_error = error, True
    else:
        output = response.get("output")
        text, is_error = (output if isinstance(output, str) else json.dumps(output)), False
    return resp["id"], str(resp.get("name")), digest(text), is_error, len(text), text.strip() == CLEARED


def _when(stamp) -> float | None:
    if not isinstance(stamp, str):
        return None
    from datetime import datetime

    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


# --------------------------------------------------------------------------- the cache

def load(cache_path: str) -> Transcript:
    return transcript_cache.load(cache_path, CACHE_VERSION, Transcript)


def save(cache_path: str, transcript: Transcript) -> None:
    transcript_cache.save(cache_path, CACHE_VERSION, transcript)


def transcript_for(payload: dict) -> str | None:
    path = payload.get("transcript_path")
    return path if isinstance(path, str) and os.path.isabs(path) else None


def find_call(path: str, cache_path: str, call_id: str, wait: float = POLL_SECONDS) -> tuple[Transcript, str] | None:
    """The transcript once it holds the assistant record that made *call_id*, and that
    record's uuid; None when it does not show up within *wait* seconds."""
    transcript = load(cache_path)
    deadline = time.monotonic() + wait
    while True:
        if transcript.update(path):
            leaf = transcript.owner.get(call_id)
            if leaf is not None:
                save(cache_path, transcript)
                return transcript, leaf
        if time.monotonic() >= deadline:
            save(cache_path, transcript)
            return None
        time.sleep(POLL_INTERVAL)
