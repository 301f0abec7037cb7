"""Which answers Claude Code's model holds right now, proven from the session's transcript.

Claude Code writes every message to `~/.claude/projects/<cwd>/<session>.jsonl`
(a subagent's to `<session>/subagents/agent-<id>.jsonl`), one record per line,
each with `uuid` and `parentUuid`. The next request carries exactly the active
chain: the current leaf back through `parentUuid`. So the answers in the model's
context are the tool results on that chain, and no hook is needed for a rewind
(`--resume-session-at`: a new leaf on an old branch), a fork (a new file whose
copied records keep their uuids and tool-use ids), `/clear` (a new session) or
a cleared result (its content becomes `[Old tool result content cleared]`).

Compaction writes a `compact_boundary` (`parentUuid: null`) and a summary after
it; the messages it preserves keep their old records, so a chain that reaches the
preserved tail from a record written after the boundary takes the preserved
messages, then the summary, and stops: what came before the boundary is gone.
The files Claude re-attaches after a compaction (`attachment` records of type
`file`, read from disk) are displays of their whole content, and count as answers.

A result counts only if its content is what symbolpack's answer said it would be
(`digest`; a denied Read is stored as `PreToolUse:Read hook error: <reason>`), or,
for a native read, only that it is there and not cleared.

Transcripts reach tens of MB (each API request is logged in it), so they are read
incrementally: what was parsed is kept under the state dir with the byte offset
it reached, and a hook reads only what was appended since. Claude Code appends;
a file replaced (another inode), shortened, or rewritten in place where its first
4 KB or the last bytes parsed changed is parsed again from the start. Bookkeeping records
(`api-request*`, `queue-operation`, ...) carry no `parentUuid` and are skipped
before they are decoded. Claude Code flushes the transcript a little after it
runs a PreToolUse hook (a 100 ms timer), so `present_for` polls until the call's own
`tool_use` record is there. That wait is the proof's price: the records not yet
written may hold a rewind, a compaction or a cleared result, and only the call's own
record, reached through its chain, shows which answers the model still holds
(ARCHITECTURE.md, "The transcript wait stays").
"""

from __future__ import annotations

import json
import os
import time

from .. import transcript_cache
from ..transcript_cache import GrowingFile, digest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterator

CLEARED = "[Old tool result content cleared]"
CACHE_VERSION = 3
POLL_SECONDS = 2.0
POLL_INTERVAL = 0.01
# `wait_for_record` polls finer: a poll is one stat while nothing is appended, and the time
# from Claude Code's flush to the hook noticing it is on every pre-read's and pre-edit's path
WAIT_INTERVAL = 0.002
_SKIP_PREFIXES = (b'{"type":"api-request', b'{"type":"queue-operation', b'{"type":"last-prompt',
                  b'{"type":"atis-latch', b'{"type":"tools-used', b'{"type":"cost-state', b'{"type":"mode"')


class Record:
    """What the chain walk and the present set need of one transcript record."""

    __slots__ = ("parent", "pos", "results", "file", "boundary")

    def __init__(self, parent: str | None, pos: int) -> None:
        self.parent = parent
        self.pos = pos
        self.results: tuple = ()  # (tool_use_id, digest of the content, is_error, cleared)
        self.file: tuple | None = None  # (path, content, start line) of a re-attached file
        self.boundary: tuple | None = None  # (head, tail, anchor, preserved uuids) of a compaction


class Transcript(GrowingFile):
    """The parsed part of one transcript file (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.records: dict[str, Record] = {}
        self.owner: dict[str, str] = {}  # tool_use id -> uuid of the record holding it
        self.tails: dict[str, str] = {}  # preserved tail uuid -> uuid of its compact boundary
        # a request carried the API's `clear_tool_uses` context edit: the server may have
        # cleared old tool results the transcript still holds in full
        self.server_clearing = False

    # -- reading
    def update(self, path: str) -> bool:
        """Read what was appended since the last update; False when the file is gone."""
        lines = self.new_lines(path)
        if lines is None:
            return False
        for line, pos in lines:
            if line and not line.startswith(_SKIP_PREFIXES):
                self._add(line, pos)
            if b"api-request" in line[:64] and b"clear_tool_uses" in line:
                self.server_clearing = True
        return True

    def _add(self, line: bytes, pos: int) -> None:
        try:
            raw = json.loads(line)
        except ValueError:
            return
        if not isinstance(raw, dict) or "parentUuid" not in raw or not isinstance(raw.get("uuid"), str):
            return
        parent = raw["parentUuid"]
        rec = Record(parent if isinstance(parent, str) else None, pos)
        uuid = raw["uuid"]
        kind = raw.get("type")
        message = raw.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if kind == "assistant" and isinstance(content, list):
            for b in content:
                if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("id"), str):
                    self.owner[b["id"]] = uuid
        elif kind == "user" and isinstance(content, list):
            rec.results = tuple(_result(b) for b in content if isinstance(b, dict) and b.get("type") == "tool_result"
                                and isinstance(b.get("tool_use_id"), str))
        elif kind == "attachment":
            attachment = raw.get("attachment")
            if isinstance(attachment, dict) and attachment.get("type") == "file":
                rec.file = _attached_file(attachment)
        elif kind == "system" and raw.get("subtype") == "compact_boundary":
            meta = raw.get("compactMetadata") or {}
            segment = meta.get("preservedSegment") or {}
            kept = (meta.get("preservedMessages") or {}).get("uuids") or []
            if isinstance(segment, dict) and all(isinstance(segment.get(k), str)
                                                for k in ("headUuid", "tailUuid", "anchorUuid")):
                rec.boundary = (segment["headUuid"], segment["tailUuid"], segment["anchorUuid"],
                                tuple(u for u in kept if isinstance(u, str)))
                self.tails[segment["tailUuid"]] = uuid
        self.records[uuid] = rec

    # -- the active chain
    def chain(self, leaf: str) -> list[str]:
        """The records of the context that ends at *leaf*, oldest first."""
        out: list[str] = []
        seen: set[str] = set()
        cur: str | None = leaf
        came_from = self.records[leaf].pos if leaf in self.records else 0
        while cur is not None and cur not in seen:
            seen.add(cur)
            rec = self.records.get(cur)
            if rec is None:
                break
            boundary_id = self.tails.get(cur)
            boundary = self.records.get(boundary_id) if boundary_id else None
            if boundary is not None and boundary.boundary is not None and came_from > boundary.pos:
                head, tail, anchor, kept = boundary.boundary
                out.extend(reversed([u for u in kept if u in self.records]))  # the preserved messages
                out.append(anchor)
                out.append(boundary_id)  # type: ignore[arg-type]
                break
            out.append(cur)
            came_from = rec.pos
            cur = rec.parent
        out.reverse()
        return out

    def items(self, leaf: str) -> Iterator[tuple[str, Record]]:
        for uuid in self.chain(leaf):
            rec = self.records.get(uuid)
            if rec is not None:
                yield uuid, rec


def _result(block: dict) -> tuple:
    content = block.get("content")
    if isinstance(content, list):  # text blocks (images and the like count as other text)
        text = "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    else:
        text = content if isinstance(content, str) else ""
    return (block["tool_use_id"], digest(text), block.get("is_error") is True, text.strip() == CLEARED)


def _attached_file(attachment: dict) -> tuple | None:
    filename = attachment.get("filename")
    content = attachment.get("content")
    file = content.get("file") if isinstance(content, dict) else None
    if not isinstance(filename, str) or not isinstance(file, dict) or not isinstance(file.get("content"), str):
        return None
    start = file.get("startLine")
    return filename, file["content"], start if type(start) is int and start >= 1 else 1


# --------------------------------------------------------------------------- the cache

def load(cache_path: str) -> Transcript:
    return transcript_cache.load(cache_path, CACHE_VERSION, Transcript)


def save(cache_path: str, transcript: Transcript) -> None:
    transcript_cache.save(cache_path, CACHE_VERSION, transcript)


def transcript_for(payload: dict) -> str | None:
    """The transcript of the context the hook runs in (a subagent's own, inside one)."""
    path = payload.get("transcript_path")
    if not isinstance(path, str) or not os.path.isabs(path):
        return None
    agent = payload.get("agent_id")
    session = payload.get("session_id")
    if isinstance(agent, str) and agent and isinstance(session, str) and "/" not in agent + session:
        return os.path.join(os.path.dirname(path), session, "subagents", f"agent-{agent}.jsonl")
    return path


def present_for(path: str, cache_path: str, tool_use_id: str,
                wait: float | None = None) -> tuple[Transcript, str] | None:
    """The transcript once it holds the record of *tool_use_id*, and that record's uuid;
    None when it does not show up within *wait* seconds (default `POLL_SECONDS`, read
    at call time: the resident server waits before the hook runs, `wait_for_record`)."""
    transcript = load(cache_path)
    deadline = time.monotonic() + (POLL_SECONDS if wait is None else wait)
    while True:
        if not transcript.update(path):  # a new session's file is created a moment after its first hook runs
            if time.monotonic() >= deadline:
                return None
            time.sleep(POLL_INTERVAL)
            continue
        leaf = transcript.owner.get(tool_use_id)
        if leaf is not None:
            save(cache_path, transcript)
            return transcript, leaf
        if time.monotonic() >= deadline:
            save(cache_path, transcript)
            return None
        time.sleep(POLL_INTERVAL)


def present_results(transcript: Transcript, leaf: str) -> list[tuple[str, Any]]:
    """(id, what proves it) in context order: ("result", (tool_use_id, digest, is_error,
    cleared)) for each tool result on the chain, ("file", (uuid, path, content, start))
    for each re-attached file. Where the API's server-side clearing was on
    (`clear_tool_uses` in a logged request), which results the server dropped is not
    in the transcript: no tool result counts then (a cost, never a wrong line)."""
    out: list[tuple[str, Any]] = []
    for uuid, rec in transcript.items(leaf):
        for result in rec.results:
            if not transcript.server_clearing:
                out.append(("result", result))
        if rec.file is not None:
            out.append(("file", (uuid, *rec.file)))
    return out


def wait_for_record(path: str, tool_use_id: str, wait: float = POLL_SECONDS, window: int = 8 << 20) -> bool:
    """Does the transcript hold *tool_use_id* within *wait* seconds? A byte search of
    its last *window* bytes, then of what is appended: no parse, nothing kept, so the
    resident server can wait for Claude Code's flush without holding up other hooks
    (the hook's own parse then finds the record at once)."""
    needle = ('"' + tool_use_id + '"').encode("utf-8", "surrogateescape")
    deadline = time.monotonic() + wait
    seen = -1
    while True:
        try:
            size = os.path.getsize(path)
            if size < seen:
                seen = -1  # rewritten shorter: search it again
            if size != seen:
                with open(path, "rb") as fh:
                    start = max(0, size - window) if seen < 0 else max(0, seen - len(needle))
                    fh.seek(start)
                    if fh.read(size - start).find(needle) >= 0:
                        return True
                seen = size
        except OSError:
            pass  # not created yet: a new session's file appears a moment after its first hook
        if time.monotonic() >= deadline:
            return False
        time.sleep(WAIT_INTERVAL)
