"""The protocol's objects as types: what `--format json`, the MCP tools and the hooks emit.

docs/PROTOCOL.md says what each field means; `docs/schemas/*.schema.json` says the
same for programs in other languages, and `tests/test_schemas.py` checks real
responses against them. These `TypedDict`s are for type checkers: the engine
builds plain dicts (a hook process should not import `typing` to answer a
read), so the modules on the read path import this one only under
`TYPE_CHECKING`.

A change of shape here is a change of the protocol: bump `v`, and the schema
and PROTOCOL.md with it.
"""

from __future__ import annotations

from typing import List, Literal, Optional, TypedDict, Union

ReadMode = Literal["full", "skeleton", "unchanged", "delta", "diff", "range", "passthrough"]
SymbolKind = str  # kinds.py; new kinds may be added (PROTOCOL.md), so not a closed Literal
Relevance = Literal["entry", "contains_diff", "caller", "callee", "test"]


# --------------------------------------------------------------------------- read

class Scope(TypedDict):
    start: int
    end: int


class ShownSegment(TypedDict):
    kind: Literal["shown"]
    start: int
    end: int


class _ElidedSegment(TypedDict):
    kind: Literal["elided"]
    start: int
    end: int


class ElidedSegment(_ElidedSegment, total=False):
    symbol: str


# "from" is a keyword, hence the functional form: the first line of the agent's copy
# that these lines equal
_UnchangedSegment = TypedDict("_UnchangedSegment", {
    "kind": Literal["unchanged"], "start": int, "end": int, "from": int})


class UnchangedSegment(_UnchangedSegment, total=False):
    symbol: str


Segment = Union[ShownSegment, ElidedSegment, UnchangedSegment]


class _ReadResponse(TypedDict):
    v: Literal[1]
    path: str
    mode: ReadMode
    scope: Optional[Scope]
    total_lines: Optional[int]
    sha256: Optional[str]
    text: str
    tokens: int
    full_tokens: Optional[int]


class ReadResponse(_ReadResponse, total=False):
    """`tldrs read --format json`; `segments` for full, skeleton, delta and range."""

    segments: List[Segment]


class ErrorResponse(TypedDict):
    """What `--format json` prints (besides the stderr line) when a command fails."""

    v: Literal[1]
    mode: Literal["error"]
    error: str


# --------------------------------------------------------------------------- packs

class PackSliceJSON(TypedDict):
    id: str
    path: str
    kind: SymbolKind
    signature: str
    lines: List[int]
    code: Optional[str]
    etag: str
    relevance: str  # a Relevance


class _DiffEntry(TypedDict):
    path: str
    diff: Optional[str]


class DiffEntry(_DiffEntry, total=False):
    """A unified diff, or `"diff": null` and the one-line `summary` the text shows."""

    summary: str


class CacheStats(TypedDict):
    hits: int
    misses: int
    hit_rate: float


class _Pack(TypedDict):
    v: Literal[1]
    session_id: Optional[str]
    budget_used: int
    slices: List[PackSliceJSON]
    unchanged: List[str]
    cache_stats: CacheStats


class _DiffContextPack(_Pack):
    base: str
    diffs: List[DiffEntry]


class DiffContextPack(_DiffContextPack, total=False):
    """`tldrs diff-context --format json` (`text` only with `--with-text`)."""

    text: str


class UnresolvedCall(TypedDict):
    """A call `context` could not follow (or that has several candidates)."""

    caller: str
    line: int
    name: str
    receiver: Optional[str]
    status: Literal["unresolved", "ambiguous"]
    candidates: List[str]


class _ContextPack(_Pack):
    entry: str
    depth: int
    unresolved: List[UnresolvedCall]


class ContextPack(_ContextPack, total=False):
    """`tldrs context --format json` (`text` only with `--with-text`)."""

    text: str


# --------------------------------------------------------------------------- sessions

class DrillIn(TypedDict):
    """A `--symbol` read, or a range over lines a skeleton hid."""

    path: str
    symbol: Optional[str]
    hidden: bool
    lines: List[int]
    at: float


class SessionStatus(TypedDict):
    """`operations.status` (`tldrs session status --json` adds `"v": 1`)."""

    session_id: str
    files: int
    reads: int
    reads_by_mode: dict[str, int]
    tokens: int
    full_tokens: int
    saved_tokens: int
    hit_rate: float
    drill_ins: int
    recent_drill_ins: List[DrillIn]


class _SessionSummary(TypedDict):
    id: str
    touched: float
    files: int
    stats: dict[str, object]


class SessionSummary(_SessionSummary, total=False):
    corrupt: bool


class GcResult(TypedDict):
    sessions_removed: int
    objects_removed: int
    objects_kept: int


# --------------------------------------------------------------------------- symbols

class SymbolJSON(TypedDict):
    """One symbol of `extract` / `structure` (and of `search`, with `path` and `score`)."""

    id: str
    name: str
    qualname: str
    kind: SymbolKind
    parent: Optional[str]
    signature: str
    lines: List[int]
    body: Optional[List[int]]
    etag: str


class FileSymbolsJSON(TypedDict):
    path: str
    language: Optional[str]
    symbols: List[SymbolJSON]


# --------------------------------------------------------------------------- hooks (Claude Code)

class _PreToolUseOutput(TypedDict):
    hookEventName: Literal["PreToolUse"]
    permissionDecision: Literal["allow", "deny", "ask"]
    permissionDecisionReason: str


class _ContextOutput(TypedDict):
    hookEventName: Literal["PostToolUse", "SessionStart"]
    additionalContext: str


class _ReadFile(TypedDict):
    filePath: str
    content: str
    numLines: int
    startLine: int
    totalLines: int


class _ReadOutput(TypedDict):
    type: Literal["text"]
    file: _ReadFile


class _ReplacedReadOutput(TypedDict):
    hookEventName: Literal["PostToolUse"]
    updatedToolOutput: _ReadOutput
    additionalContext: str


class HookOutput(TypedDict):
    """A hook's stdout (nothing at all when it has no decision)."""

    hookSpecificOutput: Union[_PreToolUseOutput, _ContextOutput, _ReplacedReadOutput]
