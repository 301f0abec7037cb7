"""symbolpack's MCP tools: their schemas, their arguments checked, their answers.

Every tool is a thin adapter over the function the CLI calls
(`operations.read_file`, `operations.refresh`, `operations.status`,
`context.context_pack`, `context.diff_context`, `lookup.rank`), so an MCP
client sees what `tldrs read` shows, in its own words: `front="mcp"` renders
markers and errors with the tools' parameters (`symbol="Cart.add"`,
`offset=19, limit=46`), never CLI flags.

The schemas are JSON Schema written by hand and the arguments are checked here
against them, so a missing or mistyped argument is one line naming the tool and
the argument (`read_file: missing required argument "path"`), not a validation
library's report. Each tool is annotated for hosts that decide by annotations
whether a call needs approval (Codex): every tool is read-only (symbolpack's
session bookkeeping is not the user's environment), not destructive, and closed
world. All are idempotent in MCP's sense, "a repeated call has no additional
effect": a repeated read *answers* differently (`[UNCHANGED]`, pointing at the
copy the first answer gave) but changes nothing more, in the project or in the
session's copy.

One process serves one connection, and one connection is one session
(`mcp-<random>`) unless a tool call passes `session_id` (to share copies of files
with hooks or the CLI, or to keep them across restarts). One resident engine
(`api/resident.py`) serves every call under its lock; it is built, and starts
indexing the project's symbols in the background, once `initialize` has been
answered and the tools listed, so nothing heavy is imported before those answers leave.
"""

from __future__ import annotations

import json
import os
import threading
import uuid

from .protocol import ToolAnswer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    from ...api.operations import Workspace
    from ...api.resident import Engine
    from ...base.settings import Settings
    from .roots import Bounds

FRONT = "mcp"

INSTRUCTIONS = """\
symbolpack reads code for you without wasting context and never shows you stale code.
Use read_file instead of a plain file read.
Every answer ends with its id, `[answer ID]`. When you read a file again, pass
known=[...] with the ids of the earlier answers about it that you can still see in full
in this conversation: you then get only what changed since them. Leave out ids you can no
longer see (a summary, a cleared or truncated result): you then get the text again.
Answers lean only on the ids you pass, so they are never stale.
What comes back:
- Numbered lines `   NN<TAB>text` are the file's lines, verbatim.
- [SKELETON] on a first read of a large file: bodies, docstring tails and long statements
  are replaced by markers such as `... A-B elided: symbol="NAME"` (or
  `offset=A, limit=N`). Drill in with read_file(path, symbol="NAME") or
  read_file(path, offset=A, limit=N) before relying on or editing hidden code; for
  several bodies at once, read_file(path, symbols=["A", "B"]) (one call).
- [UNCHANGED] on a re-read: the file (or range) is exactly what your known answers showed.
  (After reads of parts only, a symbol or a range, the first whole read is a [SKELETON]
  that shows those parts as they are now.)
- [DELTA] on a re-read after a change: only changed symbols are shown; spans marked
  `... A-B unchanged (were X-Y)` are the lines X-Y of your known answers, now at A-B.
- [DIFF]: a unified diff from what your known answers showed to the file now.
- [FILE] on a re-read: the whole file again, with why (a delta would be longer).
- An answer too long for a tool result stops early; its last marker names the rest.
- A range (offset/limit) or a symbol always comes back whole, as it is now.
To find code by name use search_symbols; for a task-sized slice of the code around a
symbol use context(entry); to review uncommitted changes use diff_context(). Pass them
known=[...] too (every answer id you still see): code you hold comes back as stubs.
Reads stay inside the workspace (the client's roots, else the project).
"""

READ_DOC = """Read a file (or a range, or one symbol); use instead of a plain read.
First read of a large source file: a [SKELETON] with hidden runs marked
`... A-B elided: symbol="NAME"` (or `offset=A, limit=N`); call read_file with those
arguments to see one whole, or with symbols=["A", "B", ...] to see several in one call. Each answer ends with `[answer ID]`. Re-reading? Pass
known=[ids of earlier answers about this file you still see in full]: then [UNCHANGED]
(identical to what those answers showed), [DELTA] (only changed symbols; `... A-B unchanged`
spans are as those answers showed them) or [DIFF] (against them); after reads of parts only,
the first whole read is a [SKELETON] showing those parts. No known ids: the file again, as
on a first read. A range or a symbol always comes back whole, as it is now,
known ids or not. Lines appear as `   NN<TAB>text`."""

KNOWN_DOC = ("ids of earlier symbolpack answers (their `[answer ID]` line) that you can still see in full in "
             "this conversation; answers lean only on these. Leave out any you cannot see")

CONTEXT_DOC = """The code you need around one symbol, packed under a token budget: the
entry symbol with its callers and callees to `depth`. Code that answers you pass in `known`
showed unchanged comes back as a signature stub marked [UNCHANGED]."""

DIFF_CONTEXT_DOC = """What the working tree changes against `base` (default HEAD, staged and
unstaged included): the changed symbols with their callers and callees, packed under the
budget, plus plain diffs for changes outside any symbol. Symbols that answers you pass in
`known` showed unchanged come back as [UNCHANGED] stubs; no_delta=true shows everything."""

SEARCH_DOC = """Find symbols (functions, classes, methods, ...) by name, qualname or id,
fuzzy. One line per match: `path:start-end  kind qualname  signature`. Read one with
read_file(path, symbol=qualname)."""

REFRESH_DOC = """Forget what any earlier answer showed of a file (or of one range), for every
conversation: later answers never lean on those lines, even with known ids. Rarely
needed: leaving an id out of `known` already does this for your own reads."""

STATUS_DOC = """This session's numbers: files tracked, reads by mode, tokens shown versus
plain reads, hit rate, drill-ins."""

SESSION_DOC = "a session to count this call in instead of this connection's own (its numbers in session_status)"


class Param:
    """One argument of a tool: JSON type, whether required, its default, lower bound."""

    __slots__ = ("name", "type", "doc", "required", "default", "minimum", "non_empty")

    def __init__(self, name: str, type: str, doc: str, required: bool = False, default: object = None,
                 minimum: int | None = None, non_empty: bool = False):
        self.name = name
        self.type = type  # "string", "integer", "boolean" or "array" (of strings)
        self.doc = doc
        self.required = required
        self.default = default
        self.minimum = minimum
        self.non_empty = non_empty

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "description": self.doc}
        if self.type == "array":
            out["items"] = {"type": "string"}
        if self.default is not None:
            out["default"] = self.default
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.non_empty:
            out["minLength"] = 1
        return out


class Tool:
    """One tool as `tools/list` shows it."""

    __slots__ = ("name", "title", "doc", "params")

    def __init__(self, name: str, title: str, doc: str, params: tuple[Param, ...]):
        self.name = name
        self.title = title
        self.doc = doc
        self.params = params

    def listing(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.doc,
            "inputSchema": {"type": "object", "properties": {p.name: p.schema() for p in self.params},
                            "required": [p.name for p in self.params if p.required],
                            "additionalProperties": False},
            "annotations": {"title": self.title, "readOnlyHint": True, "destructiveHint": False,
                            "idempotentHint": True, "openWorldHint": False},
        }

    def arguments(self, given: dict[str, Any]) -> dict[str, Any]:
        """*given* checked against the parameters, defaults filled in; `BadArguments`
        (one line) when it does not fit. A null counts as not given."""
        known = {p.name for p in self.params}
        for name in given:
            if name not in known:
                raise BadArguments(f'{self.name}: unknown argument "{name}"; it takes '
                                   f'{", ".join(p.name for p in self.params) or "none"}')
        out: dict[str, Any] = {}
        for p in self.params:
            value = given.get(p.name)
            if value is None:
                if p.required:
                    raise BadArguments(f'{self.name}: missing required argument "{p.name}"')
                out[p.name] = p.default
                continue
            out[p.name] = _checked(self.name, p, value)
        return out


class BadArguments(Exception):
    """Arguments that do not fit a tool's schema; the message is one line."""


_TYPE_NAMES = {"string": "a string", "integer": "an integer", "boolean": "true or false",
               "array": "a list of strings"}


def _checked(tool: str, p: Param, value: object) -> object:
    ok = {"string": isinstance(value, str),
          "integer": isinstance(value, int) and not isinstance(value, bool),
          "boolean": isinstance(value, bool),
          "array": isinstance(value, list) and all(isinstance(v, str) for v in value)}[p.type]
    if not ok and p.type == "integer" and isinstance(value, float) and value.is_integer():
        value, ok = int(value), True  # 5.0 from a client that only has floats
    if not ok:
        raise BadArguments(f'{tool}: argument "{p.name}" must be {_TYPE_NAMES[p.type]}, got {_shown(value)}')
    if p.minimum is not None and value < p.minimum:  # type: ignore[operator]
        raise BadArguments(f'{tool}: argument "{p.name}" must be at least {p.minimum}, got {value}')
    if p.non_empty and value == "":
        raise BadArguments(f'{tool}: argument "{p.name}" must not be empty')
    return value


def _shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def _session_param() -> Param:
    return Param("session_id", "string", SESSION_DOC, non_empty=True)


def _known_param() -> Param:
    return Param("known", "array", KNOWN_DOC)


TOOLS: tuple[Tool, ...] = (
    Tool("read_file", "Read a file (skeleton first, then only what changed)", READ_DOC, (
        Param("path", "string", "the file: repository-relative or absolute, inside the workspace", required=True,
              non_empty=True),
        Param("offset", "integer", "first line to read (1-based)", minimum=1),
        Param("limit", "integer", "number of lines to read", minimum=1),
        Param("symbol", "string", "one symbol to read whole: a name, a qualname (Class.method) or an id from "
              "search_symbols; a name its overloads share reads them all", non_empty=True),
        Param("symbols", "array", "several symbols to read whole in this one call (names as for symbol), "
              "each with its own answer id; instead of symbol"),
        _known_param(),
        _session_param())),
    Tool("context", "Code around a symbol, packed", CONTEXT_DOC, (
        Param("entry", "string", "the symbol: a name, qualname or id (see search_symbols)", required=True,
              non_empty=True),
        Param("depth", "integer", "how many calls away from the entry to follow", default=2, minimum=0),
        Param("budget", "integer", "the most tokens the pack may take", minimum=1),
        _known_param(),
        _session_param())),
    Tool("diff_context", "Uncommitted changes with their callers and callees", DIFF_CONTEXT_DOC, (
        Param("base", "string", "the revision to compare the working tree with", default="HEAD", non_empty=True),
        Param("budget", "integer", "the most tokens the pack may take", minimum=1),
        Param("no_delta", "boolean", "show everything, whatever you pass in known", default=False),
        _known_param(),
        _session_param())),
    Tool("search_symbols", "Find symbols by name", SEARCH_DOC, (
        Param("query", "string", "a name, qualname or id; fuzzy", required=True, non_empty=True),
        Param("limit", "integer", "most matches to list", default=10, minimum=1))),
    Tool("refresh", "Forget what this session was shown of a file", REFRESH_DOC, (
        Param("path", "string", "the file: repository-relative or absolute, inside the workspace", required=True,
              non_empty=True),
        Param("offset", "integer", "first line of the range to forget (1-based)", minimum=1),
        Param("limit", "integer", "number of lines of the range to forget", minimum=1),
        _session_param())),
    Tool("session_status", "This session's numbers", STATUS_DOC, (_session_param(),)),
)
_BY_NAME = {t.name: t for t in TOOLS}


def default_session_id() -> str:
    return f"mcp-{uuid.uuid4().hex[:16]}"


class SymbolpackTools:
    """The tools over one project, for one connection (`protocol.Connection`
    calls `tool_list`, `call` and the lifecycle methods)."""

    name = "symbolpack"
    instructions = INSTRUCTIONS

    def __init__(self, project: str, settings: Settings, session_id: str | None = None):
        from ..._version import __version__
        from .roots import Bounds

        self.version = __version__
        self.project = project
        self.settings = settings
        self.session_id = session_id or default_session_id()
        self.bounds: Bounds = Bounds(project, settings.mcp_allow_dirs)
        self._started = False
        self._engine: Engine | None = None
        self._engine_lock = threading.Lock()

    # -- the lifecycle (the protocol's reader thread)
    def tool_list(self) -> list[dict[str, Any]]:
        return [t.listing() for t in TOOLS]

    def has_tool(self, name: str) -> bool:
        return name in _BY_NAME

    def start(self) -> None:
        """The tools were listed (or one was called): build the engine and index symbols
        in the background, once."""
        if not self._started:
            self._started = True
            threading.Thread(target=self._start, name="symbolpack-mcp-start", daemon=True).start()

    def roots_requested(self) -> None:
        self.bounds.roots_requested()

    def roots_answered(self, uris: list[str] | None) -> None:
        self.bounds.roots_answered(uris)

    # -- the engine
    def _start(self) -> None:
        try:
            self.engine().start_warm_up()  # symbols indexed before the first name lookup
        except Exception:  # a tool call builds it again and reports the failure
            pass

    def engine(self) -> Engine:
        with self._engine_lock:
            if self._engine is None:
                from ...api.resident import Engine

                self._engine = Engine(self.project, self.settings)
            return self._engine

    def close(self) -> None:
        with self._engine_lock:
            if self._engine is not None:
                self._engine.close()

    # -- calls (the protocol's worker thread)
    def call(self, name: str, arguments: dict[str, Any]) -> ToolAnswer:
        """One tool call's answer; its failures are answers with `is_error`."""
        from ...base.errors import SymbolpackError
        from .roots import OutsideWorkspace

        tool = _BY_NAME[name]
        try:
            args = tool.arguments(arguments)
            return getattr(self, "_" + name)(**args)
        except (BadArguments, OutsideWorkspace, SymbolpackError) as exc:
            return ToolAnswer(str(exc), is_error=True)
        except Exception as exc:  # a bug: one line to the client, the traceback on stderr
            import traceback

            from ...base.log import warning

            warning(f"{name} failed:\n{traceback.format_exc().rstrip()}")
            return ToolAnswer(f"{name}: internal error: {type(exc).__name__}: {exc}", is_error=True)

    def _run(self, fn: Callable[[Workspace], Any]) -> Any:
        return self.engine().run(fn)

    def _session(self, session_id: str | None) -> str:
        from ...state.session_id import validate_session_id

        return validate_session_id(session_id) if session_id else self.session_id

    def _path(self, path: str) -> str:
        """*path* made absolute (relative to the project) and judged against the workspace."""
        p = os.path.expanduser(path)
        p = p if os.path.isabs(p) else os.path.join(self.engine().root, p)
        self.bounds.check(p)
        return p

    def _read_file(self, path: str, offset: int | None, limit: int | None, symbol: str | None,
                   symbols: list[str] | None, known: list[str] | None, session_id: str | None) -> ToolAnswer:
        from ...api import operations
        from ...reads.hints import with_answer_id

        session, target = self._session(session_id), self._path(path)
        names = ([symbol] if symbol else []) + list(symbols or ())
        if names:  # symbols whole, and the lines offset/limit name as one more part
            return self._read_symbols(target, names, known, session, (offset, limit))

        def read(ws: Workspace) -> Any:
            return operations.read_file(ws, target, session, offset=offset, limit=limit, policy=_policy(ws),
                                        confirm=False, front=FRONT, present=frozenset(known or ()))

        result = self._run(read)
        response = result.response
        why = result.fallback or (None if offset or limit else "first")
        return ToolAnswer(with_answer_id(response["text"], response, response.get("path"), bool(known), FRONT, why,
                                         known or ()), commit=result.commit)

    def _read_symbols(self, target: str, names: list[str], known: list[str] | None, session: str,
                      lines_too: tuple[int | None, int | None]) -> ToolAnswer:
        """Each symbol *names* name, whole, in one answer (`operations.read_symbols`)."""
        from ...api import operations
        from ...reads.hints import symbols_read_answer

        def read(ws: Workspace) -> Any:
            return operations.read_symbols(ws, target, session, names, policy=_policy(ws), front=FRONT,
                                           present=frozenset(known or ()), lines_too=lines_too)

        parts, misses = self._run(read)
        text = symbols_read_answer([(label, span, result.response, line) for label, span, result, line in parts],
                                   misses, target, names, known or (), FRONT)

        def commit() -> None:
            for _, _, result, _ in parts:
                result.commit()

        return ToolAnswer(text, commit=commit)

    def _context(self, entry: str, depth: int, budget: int | None, known: list[str] | None,
                 session_id: str | None) -> ToolAnswer:
        from ...api import context

        kwargs: dict[str, Any] = {"depth": depth, "session_id": self._session(session_id), "confirm": False,
                                  "front": FRONT, "present": frozenset(known or ())}
        if budget is not None:
            kwargs["budget"] = budget
        return _pack_answer(self._run(lambda ws: context.context_pack(ws, entry, **kwargs)), bool(known))

    def _diff_context(self, base: str, budget: int | None, no_delta: bool, known: list[str] | None,
                      session_id: str | None) -> ToolAnswer:
        from ...api import context

        kwargs: dict[str, Any] = {"base": base, "session_id": None if no_delta else self._session(session_id),
                                  "delta": not no_delta, "confirm": False, "front": FRONT,
                                  "present": None if no_delta else frozenset(known or ())}
        if budget is not None:
            kwargs["budget"] = budget
        return _pack_answer(self._run(lambda ws: context.diff_context(ws, **kwargs)), bool(known))

    def _search_symbols(self, query: str, limit: int) -> ToolAnswer:
        return ToolAnswer(self._run(lambda ws: _search(ws, query, limit)))

    def _refresh(self, path: str, offset: int | None, limit: int | None, session_id: str | None) -> ToolAnswer:
        from ...api import operations

        session, target = self._session(session_id), self._path(path)
        return ToolAnswer(self._run(lambda ws: operations.refresh(ws, target, session, offset, limit, front=FRONT)))

    def _session_status(self, session_id: str | None) -> ToolAnswer:
        from ...api import operations

        session = self._session(session_id)
        return ToolAnswer(self._run(lambda ws: json.dumps(operations.status(ws, session), indent=1)))


def _policy(ws: Workspace) -> Any:
    """The read policy of an MCP answer: a whole file, or several symbols, stop short of
    the host's cap on a tool result (`mcp_max_answer_chars`)."""
    from ...reads.read import ReadPolicy

    return ReadPolicy(max_answer_chars=ws.settings.mcp_max_answer_chars or None)


def _pack_answer(result: Any, knew: bool) -> ToolAnswer:
    text = result["text"] if isinstance(result, dict) and "text" in result else json.dumps(result)
    if isinstance(result, dict):
        from ...reads.hints import with_answer_id

        text = with_answer_id(text, result, None, knew, FRONT)
    return ToolAnswer(text, commit=getattr(result, "commit", None))


def _search(ws: Workspace, query: str, limit: int) -> str:
    from ...engine.lookup import GOOD_SCORE, no_match_message, rank

    symbols = ws.all_symbols(ws.root)
    matches = rank(query, symbols, limit=limit)
    good = [m for m in matches if m.score >= GOOD_SCORE]
    if not good:
        return no_match_message(query, matches, "this repository")
    return "\n".join(
        f"{m.symbol.path}:{m.symbol.lines[0]}-{m.symbol.lines[1]}  {m.symbol.kind} {m.symbol.qualname}  "
        f"{' '.join(m.symbol.signature.split())}" for m in good)
