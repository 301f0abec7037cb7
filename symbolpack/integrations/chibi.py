"""Chibi: symbolpack's tools and hooks as one Chibi plugin (`tldrs chibi plugin`).

Chibi (github.com/emesal/chibi) runs every executable in `<home>/plugins/`
(home: `--home` > `$CHIBI_HOME` > `~/.chibi`): `PLUGIN --schema` describes its
tools and the hooks it wants; a tool call gets its arguments as JSON on stdin
(`$CHIBI_TOOL_NAME` names the tool of a multi-tool plugin) and its stdout is
the result; a hook call sets `$CHIBI_HOOK` and passes the hook's data as JSON
on stdin. Contracts as read in chibi's source (commit 717af12, 0.10.10):
`crates/chibi-core/src/tools/{plugins,hooks}.rs`, `api/send.rs`, `chibi.rs`,
`api/compact.rs`.

Tools (a plugin, not `tldrs mcp` behind `mcp-bridge.toml`: the bridge is one
daemon per Chibi home that starts each MCP server once and shares that one
connection with every Chibi process, context and project for as long as it
lives, so one MCP connection would be one symbolpack session for all of them):

* `symbolpack_read`, `symbolpack_context`, `symbolpack_diff_context`: the same
  functions as `tldrs read`, `tldrs context`, `tldrs diff-context`. The answer
  is written and flushed, then committed; a pre_cache_output hook keeps Chibi
  from swapping it for a truncated preview, and post_tool checks that what
  Chibi delivered is what was written (otherwise those lines are refreshed).

Sessions: one per Chibi context (Chibi's name for a conversation). Tool calls
and tool hooks carry no context name, so the `pre_api_tools` hook, which does
and fires before every turn's first request, records "Chibi process P is now
in context C"; tools and hooks spawned by P look it up (P is their parent
process: the launcher `exec`s). Unknown (no record, not Linux, a direct `chibi
-P` call): no session, plain reads, nothing recorded. The session id is
`chibi-<home hash>-<context>-<epoch>`; a context name that is not a valid
session id part is hashed.

Hooks:

* `post_clear`, `post_compact`, `post_rolling_compact`: the model lost what it
  was shown: the context's copies are dropped (in the project's store) and its
  epoch changes, so copies kept in other projects' stores are never used again.
* `pre_file_read`: not used. In Chibi it fires only for paths outside the
  allowed directories and can only deny; it cannot replace what the model gets.
* `pre_file_write` (`write_file`) and `pre_tool` (`file_edit`): the stale-edit
  guard of the Claude hooks (`edits.guard_verdict`) on the lines the write
  touches. `pre_file_write` can deny, but its payload carries only `operation`
  and `content` for `file_edit`, not which lines; `pre_tool` has the arguments
  and can block. Never an approval: an empty answer leaves Chibi's permission
  prompt as it is.
* `post_tool` (`write_file`, `file_edit`): the agent's own edit carried through
  its copy (or the file's copy dropped when it cannot be), so the guard never
  blames the agent for its own edits.
* `pre_api_tools`: also hides our `lang_*` plugins from the model (they are for
  Chibi's indexer); `pre_cache_output`: our tools' answers are not cached;
  `on_end`: the process record is removed.

Every hook answers `{}` on any problem and exits 0; a tool prints `Error: ...`
(exit 0, so Chibi shows the message instead of "Tool execution failed").
"""

from __future__ import annotations

import json
import os
import re
import sys

TOOL_READ = "symbolpack_read"
TOOL_CONTEXT = "symbolpack_context"
TOOL_DIFF = "symbolpack_diff_context"
OUR_TOOLS = (TOOL_READ, TOOL_CONTEXT, TOOL_DIFF)
HOOKS = ("pre_api_tools", "pre_tool", "pre_file_write", "post_tool", "pre_cache_output",
         "post_clear", "post_compact", "post_rolling_compact", "on_end")
DROP_HOOKS = ("post_clear", "post_compact", "post_rolling_compact")
LAUNCHER_MARK = "# symbolpack launcher for Chibi"
_SAFE_CONTEXT = re.compile(r"[A-Za-z0-9_-]{1,64}")
_WRITE_OK = "File written successfully"
_EDIT_OK = ("Edited ", "Replaced string in ")
DELIVERY_TTL_SECONDS = 24 * 3600

READ_DESCRIPTION = (
    "Read a source file (or a range, or one symbol) without wasting context; use instead of "
    "file_head/file_lines for code. A first read of a large file is a [SKELETON]: bodies are "
    "elided as `... A-B elided: --symbol NAME` (or `--offset A --limit N`); pass symbol=NAME or "
    "offset/limit to see one whole. A re-read is [UNCHANGED] (identical to what you were given: "
    "use your copy), [DELTA] (only changed symbols; `... A-B unchanged` spans are as you saw them) "
    "or [DIFF] (a unified diff from your copy). Lines are `   NN<TAB>text`. full=true: a plain "
    "full read (use it when you lost your earlier copy). path: relative to the project root.")
CONTEXT_DESCRIPTION = (
    "The code around one symbol under a token budget: the entry with its callees (and callers "
    "with callers=true) to `depth`. Code you were already given unchanged comes back as an "
    "[UNCHANGED] signature stub. entry: a name, Class.method, or path:name.")
DIFF_DESCRIPTION = (
    "What the working tree changes against `base` (default HEAD; staged, unstaged and untracked): "
    "the changed symbols with their callers, callees and tests under a token budget, and plain "
    "diffs for the rest. Code you were already given unchanged comes back as [UNCHANGED] stubs; "
    "no_delta=true shows everything.")


def plugin_schema() -> list[dict]:
    """What `--schema` prints: three tools; the hooks ride on the first only (Chibi runs a
    hook once per tool that lists it)."""
    def obj(props: dict, required=()) -> dict:
        return {"type": "object", "properties": props, "required": list(required)}

    integer = {"type": "integer"}
    return [
        {"name": TOOL_READ, "description": READ_DESCRIPTION, "summary_params": ["path"],
         "parameters": obj({"path": {"type": "string", "description": "file path (relative to the project root)"},
                            "offset": {**integer, "description": "first line (1-based)"},
                            "limit": {**integer, "description": "number of lines"},
                            "symbol": {"type": "string", "description": "a symbol to read whole"},
                            "full": {"type": "boolean", "description": "plain full read"}}, ["path"]),
         "hooks": list(HOOKS)},
        {"name": TOOL_CONTEXT, "description": CONTEXT_DESCRIPTION, "summary_params": ["entry"],
         "parameters": obj({"entry": {"type": "string", "description": "the symbol to start from"},
                            "depth": {**integer, "description": "call-graph hops (default 2)"},
                            "callers": {"type": "boolean", "description": "follow callers too"},
                            "budget": {**integer, "description": "token budget (default 8000)"}}, ["entry"])},
        {"name": TOOL_DIFF, "description": DIFF_DESCRIPTION, "summary_params": ["base"],
         "parameters": obj({"base": {"type": "string", "description": "revision to compare against (default HEAD)"},
                            "head": {"type": "string", "description": "compare two commits: base..head"},
                            "budget": {**integer, "description": "token budget (default 8000)"},
                            "no_delta": {"type": "boolean", "description": "ignore what you were given"}})},
    ]


# --------------------------------------------------------------------------- where things live

def chibi_home(explicit: str | None = None) -> str:
    """Chibi's own rule: --home, else $CHIBI_HOME, else ~/.chibi."""
    home = explicit or os.environ.get("CHIBI_HOME") or os.path.join(os.path.expanduser("~"), ".chibi")
    return os.path.abspath(os.path.expanduser(home))


def state_root() -> str:
    """symbolpack's Chibi bookkeeping (process records, epochs, deliveries):
    `$XDG_STATE_HOME/symbolpack/chibi` (default `~/.local/state`), never inside the Chibi home."""
    base = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "symbolpack", "chibi")


def _home_key(home: str) -> str:
    from ..workspace import sha256_hex

    return sha256_hex(os.path.realpath(home).encode("utf-8", "surrogateescape"))[:10]


def _context_key(context: str) -> str:
    from ..workspace import sha256_hex

    if _SAFE_CONTEXT.fullmatch(context):
        return context
    return "h" + sha256_hex(context.encode("utf-8", "surrogatepass"))[:20]


def _private_dir(*parts: str) -> str:
    from pathlib import Path

    from ..workspace import ensure_private_dir

    return str(ensure_private_dir(Path(state_root(), *parts)))


def _write_json(path: str, data) -> None:
    from pathlib import Path

    from ..workspace import atomic_write

    atomic_write(Path(path), json.dumps(data).encode())


def _read_json(path: str):
    try:
        with open(path, "rb") as fh:
            return json.loads(fh.read())
    except (OSError, ValueError):
        return None


def epoch(home: str, context: str) -> str:
    data = _read_json(os.path.join(state_root(), "epochs", f"{_home_key(home)}-{_context_key(context)}"))
    value = data.get("epoch") if isinstance(data, dict) else None
    return value if isinstance(value, str) and re.fullmatch(r"[0-9a-f]{1,16}", value) else "0"


def new_epoch(home: str, context: str) -> str:
    import time

    value = f"{time.time_ns():x}"[-16:]
    _write_json(os.path.join(_private_dir("epochs"), f"{_home_key(home)}-{_context_key(context)}"),
                {"epoch": value, "context": context})
    return value


def session_for(home: str, context: str) -> str:
    """The symbolpack session of Chibi context *context* under *home*, as it is now."""
    from ..session_id import validate_session_id

    return validate_session_id(f"chibi-{_home_key(home)}-{_context_key(context)}-{epoch(home, context)}")


def chibi_process() -> str | None:
    """Our parent (the Chibi process: plugins are spawned by it, and the launcher
    execs) as `pid-starttime`, or None where /proc cannot say (no session then)."""
    pid = os.getppid()
    if pid <= 1:
        return None
    start = _start_time(pid)
    return f"{pid}-{start}" if start else None


def _start_time(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read().decode("utf-8", "surrogateescape")
        return raw.rpartition(")")[2].split()[19]
    except (OSError, IndexError):
        return None


def remember_context(home: str, context: str) -> None:
    proc = chibi_process()
    if proc is None:
        return
    directory = _private_dir("procs")
    _write_json(os.path.join(directory, proc + ".json"), {"home": os.path.realpath(home), "context": context})
    for name in os.listdir(directory):  # records of processes that are gone
        pid, _, start = name[:-5].partition("-")
        if name.endswith(".json") and pid.isdigit() and _start_time(int(pid)) != start:
            try:
                os.unlink(os.path.join(directory, name))
            except OSError:
                pass


def current_context(home: str) -> str | None:
    proc = chibi_process()
    if proc is None:
        return None
    data = _read_json(os.path.join(state_root(), "procs", proc + ".json"))
    if not isinstance(data, dict) or data.get("home") != os.path.realpath(home):
        return None
    context = data.get("context")
    return context if isinstance(context, str) and context else None


def current_session(home: str) -> str | None:
    context = current_context(home)
    return session_for(home, context) if context is not None else None


def project_dir() -> str:
    """Chibi's project root (it exports `$CHIBI_PROJECT_ROOT` to plugins), else the cwd."""
    root = os.environ.get("CHIBI_PROJECT_ROOT")
    return root if root and os.path.isabs(root) and os.path.isdir(root) else os.getcwd()


def _os_path(raw, relative_to: str) -> str | None:
    """An OS path from a Chibi tool argument (None for `vfs://` URIs and junk)."""
    if not isinstance(raw, str) or not raw or "\0" in raw or raw.startswith("vfs:"):
        return None
    raw = os.path.expanduser(raw)
    return os.path.normpath(raw if os.path.isabs(raw) else os.path.join(relative_to, raw))


def _workspace_for(path: str):
    """The workspace of a file: its repository, as `tldrs read` picks it, so the read
    tool and the hooks land on the same store."""
    from pathlib import Path

    from ..operations import Workspace
    from ..workspace import project_root

    parent = Path(path).parent
    return Workspace(project_root(parent if parent.exists() else None))


# --------------------------------------------------------------------------- tools

class ToolAnswer:
    """A tool's text plus what to do once it was written (commit) and what the answer
    gave the agent (to take back if Chibi did not deliver it as written)."""

    def __init__(self, text: str, commit=None, ws=None, session_id=None, scopes=()):
        self.text, self.commit, self.ws, self.session_id, self.scopes = text, commit, ws, session_id, list(scopes)


def _int(value, name: str) -> int | None:
    from .edits import int_arg
    from ..workspace import SymbolpackError

    if value is None:
        return None
    n = int_arg(value)
    if n is None:
        raise SymbolpackError(f"{name} must be an integer, not {value!r}")
    return n


def _inside(path: str, root: str) -> bool:
    real, base = os.path.realpath(path), os.path.realpath(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def tool_read(args: dict, home: str) -> ToolAnswer:
    from ..operations import read_file
    from ..workspace import SymbolpackError

    root = project_dir()
    path = _os_path(args.get("path"), root)
    if path is None:
        raise SymbolpackError("path must be a file path (vfs:// paths: use file_head/file_lines)")
    if not _inside(path, root):  # Chibi asks permission for those (pre_file_read); a plugin cannot
        raise SymbolpackError(f"{args.get('path')} is outside the project ({root}); use Chibi's file tools")
    session_id = current_session(home)
    ws = _workspace_for(path)
    result = read_file(ws, path, session_id, offset=_int(args.get("offset"), "offset"),
                       limit=_int(args.get("limit"), "limit"),
                       symbol=args.get("symbol") if isinstance(args.get("symbol"), str) else None,
                       force_full=args.get("full") is True, confirm=False)
    response = result.response
    scopes = []
    if session_id is not None and response["mode"] not in ("unchanged", "passthrough"):
        scope = response.get("scope")
        scopes.append((path, scope["start"], scope["end"]) if scope else (path, None, None))
    return ToolAnswer(response["text"], result.commit, ws, session_id, scopes)


def _pack_answer(result, ws, session_id) -> ToolAnswer:
    scopes = []
    if session_id is not None:
        for s in result.get("slices", ()):
            if s.get("code") is not None and s.get("path"):
                scopes.append((str(ws.root / s["path"]), s["lines"][0], s["lines"][1]))
    return ToolAnswer(result["text"], result.commit, ws, session_id, scopes)


def _project_workspace():
    from pathlib import Path

    from ..operations import Workspace
    from ..workspace import project_root

    return Workspace(project_root(Path(project_dir())))


def tool_context(args: dict, home: str) -> ToolAnswer:
    from ..context import DEFAULT_BUDGET, context_pack
    from ..workspace import SymbolpackError

    entry = args.get("entry")
    if not isinstance(entry, str) or not entry:
        raise SymbolpackError("entry is required: a symbol name, Class.method or path:name")
    session_id = current_session(home)
    ws = _project_workspace()
    depth = _int(args.get("depth"), "depth")
    budget = _int(args.get("budget"), "budget")
    result = context_pack(ws, entry, depth=2 if depth is None else depth,
                          budget=DEFAULT_BUDGET if budget is None else budget, callers=args.get("callers") is True,
                          session_id=session_id, delta=session_id is not None, confirm=False)
    return _pack_answer(result, ws, session_id)


def tool_diff_context(args: dict, home: str) -> ToolAnswer:
    from ..context import DEFAULT_BUDGET, diff_context

    no_delta = args.get("no_delta") is True
    session_id = None if no_delta else current_session(home)
    ws = _project_workspace()
    base = args.get("base") if isinstance(args.get("base"), str) and args.get("base") else "HEAD"
    head = args.get("head") if isinstance(args.get("head"), str) and args.get("head") else None
    budget = _int(args.get("budget"), "budget")
    result = diff_context(ws, base=base, head=head, session_id=session_id, delta=session_id is not None,
                          budget=DEFAULT_BUDGET if budget is None else budget, confirm=False)
    return _pack_answer(result, ws, session_id)


TOOLS = {TOOL_READ: tool_read, TOOL_CONTEXT: tool_context, TOOL_DIFF: tool_diff_context}
_DIRECT_ARG = {TOOL_READ: "path", TOOL_CONTEXT: "entry", TOOL_DIFF: "base"}


def run_tool(name: str, stdin_text: str, home: str, out) -> int:
    """One tool call: the answer on *out*, flushed, then committed. Always exit 0."""
    from ..workspace import SymbolpackError

    handler = TOOLS.get(name)
    answer = None
    try:
        if handler is None:
            raise SymbolpackError(f"unknown tool {name!r} (this plugin has {', '.join(OUR_TOOLS)})")
        try:
            args = json.loads(stdin_text) if stdin_text.strip() else {}
        except ValueError:
            raise SymbolpackError("the arguments are not JSON") from None
        if not isinstance(args, dict):
            raise SymbolpackError("the arguments are not a JSON object")
        if isinstance(args.get("args"), list):  # `chibi -p symbolpack_read "src/a.py"`
            words = [a for a in args["args"] if isinstance(a, str)]
            args = {_DIRECT_ARG[name]: words[0]} if words else {}
        answer = handler(args, home)
        text = answer.text
    except SymbolpackError as exc:
        text = f"Error: {exc}"
    except Exception as exc:  # a tool never dies with a traceback
        if os.environ.get("SYMBOLPACK_DEBUG") == "1":
            import traceback

            traceback.print_exc()
        text = f"Error: internal error: {type(exc).__name__}: {exc}"
    try:
        out.write(text if text.endswith("\n") else text + "\n")
        out.flush()
    except Exception:
        return 0  # not delivered: the answer's lines stay pending (unsure)
    if answer is not None:
        try:
            if answer.commit is not None:
                answer.commit()
            _expect_delivery(name, stdin_text, answer)
            answer.ws.maybe_gc()
        except Exception as exc:
            _log(f"after {name}: {type(exc).__name__}: {exc}")
        finally:
            answer.ws.close()
    return 0


# --------------------------------------------------------------------------- delivery check

def _call_key(name: str, args) -> str | None:
    from ..workspace import sha256_hex

    proc = chibi_process()
    if proc is None:
        return None
    canonical = json.dumps([name, args], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return f"{proc}-{sha256_hex(canonical.encode('utf-8', 'surrogatepass'))[:24]}"


def _text_hash(text: str) -> str:
    from ..workspace import sha256_hex

    return sha256_hex(text.rstrip("\n").encode("utf-8", "surrogatepass"))


def _expect_delivery(name: str, stdin_text: str, answer: ToolAnswer) -> None:
    """Note what this call wrote, for post_tool to check against what Chibi delivered."""
    if not answer.scopes or answer.session_id is None:
        return
    try:
        args = json.loads(stdin_text) if stdin_text.strip() else {}
    except ValueError:
        return
    key = _call_key(name, args)
    if key is None:
        return
    import time

    directory = _private_dir("deliveries")
    _write_json(os.path.join(directory, key + ".json"),
                {"text": _text_hash(answer.text), "session": answer.session_id,
                 "scopes": [list(s) for s in answer.scopes]})
    now = time.time()
    for entry in os.scandir(directory):  # calls post_tool never reported
        try:
            if now - entry.stat().st_mtime > DELIVERY_TTL_SECONDS:
                os.unlink(entry.path)
        except OSError:
            pass


def _settle_delivery(payload: dict) -> None:
    """post_tool of one of our tools: if Chibi cached the answer (the model got a
    preview) or a plugin rewrote it, the lines it gave are taken back (refreshed)."""
    key = _call_key(payload.get("tool_name"), payload.get("arguments"))
    if key is None:
        return
    path = os.path.join(state_root(), "deliveries", key + ".json")
    record = _read_json(path)
    try:
        os.unlink(path)
    except OSError:
        pass
    if not isinstance(record, dict):
        return
    result = payload.get("result")
    if payload.get("cached") is not True and isinstance(result, str) and _text_hash(result) == record.get("text"):
        return  # delivered as written
    from ..operations import refresh

    for file_path, start, end in record.get("scopes", ()):
        ws = _workspace_for(file_path)
        try:
            if start is None:
                refresh(ws, file_path, record["session"])
            else:
                refresh(ws, file_path, record["session"], start, end - start + 1)
        except Exception as exc:
            _log(f"could not take back {file_path}: {exc}")
        finally:
            ws.close()


# --------------------------------------------------------------------------- the guard

def _deny_text(rel: str, tool: str, verdict) -> str:
    from .edits import qualnames

    a, b = verdict[1], verdict[2]
    where = f"line {a}" if a == b else f"lines {a}-{b}"
    if verdict[0] == "unseen":
        names = qualnames(verdict[3])
        inside = f" (inside {', '.join(names[:3])})" if names else ""
        if tool == "write_file":
            return (f"[symbolpack stale-edit guard] This write_file was NOT applied: it overwrites {rel}, including "
                    f"{where}{inside} that you have not seen (elided or never read). Read the whole file first "
                    f"({TOOL_READ} path={rel} full=true), then write it again, or use file_edit for a targeted "
                    f"change.")
        return (f"[symbolpack stale-edit guard] This {tool} was NOT applied: it changes {rel} {where}{inside}, "
                f"which you have not seen (elided or never read). Read them first ({TOOL_READ} path={rel} "
                f"offset={a} limit={b - a + 1}), then redo the {tool}.")
    return (f"[symbolpack stale-edit guard] This {tool} was NOT applied: {rel} {where} changed on disk since "
            f"you last read it, and not by your own edits. Read {rel} again ({TOOL_READ} shows what changed), "
            f"then redo the {tool} against what is there now.")


def _marks_now(store, copy, source):
    """(lines, marks) of the file now: per line (index 0 unused) the guard's mark (`edits`):
    KNOWN (held and equal), DIFFERS (held, different now), hidden or GAP."""
    from .edits import DIFFERS, KNOWN, copy_marks, loader
    from ..sources import split_text_lines

    lines = split_text_lines(source.text)
    texts, marks = copy_marks(copy, loader(store, source.sha256, lines), len(lines))
    for n in range(1, len(lines) + 1):
        if marks[n] == KNOWN and texts[n] != lines[n - 1]:
            marks[n] = DIFFERS
    return lines, marks


def _edit_span(args: dict, lines: list[str], text: str) -> tuple[int, int] | None:
    """The lines of the file now that a Chibi `file_edit` replaces or places its text
    by (fs_write.rs semantics); None when Chibi would refuse the edit itself."""
    from .edits import int_arg

    op = args.get("operation")
    total = len(lines)
    if op == "replace_string":
        find = args.get("find")
        if not isinstance(find, str) or not isinstance(args.get("replace"), str):
            return None
        at = text.find(find)
        if at < 0:
            return None
        first = text.count("\n", 0, at) + 1
        last = text.count("\n", 0, at + max(len(find), 1) - 1) + 1  # the line of its last character
        return first, min(max(last, first), max(total, 1))
    start = int_arg(args.get("line_start"))
    if start is None or start < 1:
        return None
    if op in ("replace_lines", "delete_lines"):
        end = int_arg(args.get("line_end"))
        if end is None or end < start or end > total:
            return None
        return start, end
    if op in ("insert_before", "insert_after"):
        return (start, start) if start <= total else None  # the line it is placed by
    return None


def judge_write(path: str, session_id: str, tool: str, args: dict) -> str | None:
    """The guard's refusal for this write_file/file_edit, or None (no opinion)."""
    from pathlib import Path

    from .edits import KNOWN, guard_verdict
    from ..sources import load_source

    ws = _workspace_for(path)
    try:
        source = load_source(Path(path), ws.root)
        if source.passthrough:
            return None
        store = ws.store_or_none()
        if store is None:
            return None
        with store.session(session_id, write=False) as session:
            copy = session.copy(source.rel)
            if copy.empty:
                return None  # never read through symbolpack: nothing to judge by
            lines, marks = _marks_now(store, copy, source)
        if tool == "write_file":
            all_marks = marks[1:]
            if len(all_marks) < len(source.text.split("\n")):
                all_marks.append(KNOWN)  # the empty piece after a final newline
            verdict = guard_verdict("Write", {}, source.text, all_marks)
            if verdict is None and copy.length is not None and copy.length != len(lines):
                verdict = ("changed", min(copy.length, len(lines)) + 1, max(copy.length, len(lines)))
        else:
            span = _edit_span(args, lines, source.text)
            if span is None:
                return None
            a, b = span
            # the touched lines judged as a file of their own (guard_verdict's Write rule)
            sub = lines[a - 1:b] or [""]
            sub_marks = (marks[a:b + 1] or [KNOWN]) + [KNOWN]
            verdict = guard_verdict("Write", {}, "\n".join(sub) + "\n", sub_marks)
            if verdict is not None:
                verdict = (verdict[0], verdict[1] + a - 1, verdict[2] + a - 1, *verdict[3:])
        return None if verdict is None else _deny_text(source.rel, tool, verdict)
    finally:
        ws.close()


# --------------------------------------------------------------------------- edits carried

def _rust_lines(text: str) -> list[str]:
    """Rust's `str::lines`: split on LF, drop one trailing empty piece, strip a CR."""
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


def _carry_lines(copy, load, args: dict, disk: list[str]):
    """Per-line cells of the copy after a line-based `file_edit` (index 0 unused), or
    None when the result disagrees with the file on any line the copy says anything about."""
    from .edits import GAP, KNOWN, copy_marks, int_arg

    op = args.get("operation")
    start = int_arg(args.get("line_start"))
    if start is None or start < 1:
        return None
    new = _rust_lines(args["content"]) if isinstance(args.get("content"), str) else []
    if op in ("replace_lines", "delete_lines"):
        end = int_arg(args.get("line_end"))
        if end is None or end < start:
            return None
        i, j = start - 1, end
        if op == "delete_lines":
            new = []
    elif op == "insert_before":
        i = j = start - 1
    elif op == "insert_after":
        i = j = start
    else:
        return None
    extent = copy.extent()
    texts, marks = copy_marks(copy, load, extent)
    cells, words = list(marks[1:]), list(texts[1:])
    if j > len(cells):
        cells += [GAP] * (j - len(cells))
        words += [None] * (j - len(words))
    cells[i:j] = [KNOWN] * len(new)
    words[i:j] = new
    if copy.length is not None:
        if copy.length - (j - i) + len(new) != len(disk):
            return None
    elif len(cells) > len(disk):
        return None
    out: list = [None] + [GAP] * len(disk)
    for k, mark in enumerate(cells):
        if mark == GAP or words[k] is None:
            continue
        if k >= len(disk) or words[k] != disk[k]:
            return None
        out[k + 1] = mark
    return out


def carry_write(path: str, session_id: str, tool: str, args: dict, result) -> None:
    """post_tool of write_file/file_edit: the agent's copy after its own edit."""
    from pathlib import Path

    from ..agentcopy import AgentCopy
    from ..sources import load_source, split_text_lines
    from .edits import carry_edit, copy_from_cells, ends_with_newline, loader

    ok = _WRITE_OK if tool == "write_file" else _EDIT_OK
    if not isinstance(result, str) or not result.startswith(ok):
        return  # refused, blocked or failed: the file is as it was, and so is the copy
    ws = _workspace_for(path)
    try:
        try:
            source = load_source(Path(path), ws.root)
        except Exception:
            source = None
        store = ws.store_or_none()
        if store is None:
            return
        from ..sources import stored_name

        rel = source.rel if source is not None else stored_name(Path(os.path.realpath(path)), ws.root)
        with store.session(session_id) as session:
            if source is None or source.passthrough:
                session.drop_file(rel)
                return
            disk = split_text_lines(source.text)
            if tool == "write_file":
                content = args.get("content")
                if not isinstance(content, str) or split_text_lines(content) != disk:
                    session.drop_file(rel)
                    return
                store.put_object(source.data, source.sha256)
                session.set_copy(rel, AgentCopy().replaced(len(disk), source.sha256, [True] * (len(disk) + 1)))
                return
            copy = session.copy(rel)
            if copy.empty:
                return
            load = loader(store)
            if args.get("operation") == "replace_string":
                carried = carry_edit(copy, load, [(args.get("find"), args.get("replace"), False)], disk,
                                     ends_with_newline(copy, load))
                cells = carried[0] if carried else None
            else:
                cells = _carry_lines(copy, load, args, disk)
            if cells is None:
                session.drop_file(rel)  # the copy and the file part ways: the next read is plain
                return
            store.put_object(source.data, source.sha256)
            session.set_copy(rel, copy_from_cells(cells, source.sha256, len(disk) if copy.length is not None else None))
    finally:
        ws.close()


# --------------------------------------------------------------------------- hooks

def _our_lang_plugins(home: str, names) -> list[str]:
    """Those of *names* that are `lang_*` launchers written by `tldrs install chibi`."""
    out = []
    for name in names:
        if not isinstance(name, str) or not name.startswith("lang_") or "/" in name:
            continue
        try:
            with open(os.path.join(home, "plugins", name), "rb") as fh:
                head = fh.read(200)
        except OSError:
            continue
        if LAUNCHER_MARK.encode() in head:
            out.append(name)
    return out


def hook(name: str, payload, home: str) -> dict:
    if not isinstance(payload, dict):
        payload = {}
    if name == "pre_api_tools":
        context = payload.get("context_name")
        if isinstance(context, str) and context:
            try:
                remember_context(home, context)
            except OSError as exc:  # no record: this turn's tools answer without a session
                _log(f"pre_api_tools: cannot record the context ({exc})")
        tools = payload.get("tools")
        names = [t.get("name") for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []
        hidden = _our_lang_plugins(home, names)
        return {"exclude": hidden} if hidden else {}
    if name == "pre_cache_output":
        return {"block": True} if payload.get("tool_name") in OUR_TOOLS else {}
    if name in DROP_HOOKS:
        context = payload.get("context_name")
        if isinstance(context, str) and context:
            forget_context(home, context)
        return {}
    if name == "on_end":
        proc = chibi_process()
        if proc is not None:
            try:
                os.unlink(os.path.join(state_root(), "procs", proc + ".json"))
            except OSError:
                pass
        return {}
    if name == "pre_tool":
        args = payload.get("arguments")
        if payload.get("tool_name") != "file_edit" or not isinstance(args, dict):
            return {}
        path = _os_path(args.get("path"), project_dir())
        session_id = current_session(home) if path and os.path.isfile(path) else None
        reason = judge_write(path, session_id, "file_edit", args) if session_id else None
        return {"block": True, "message": reason} if reason else {}
    if name == "pre_file_write":
        if payload.get("tool_name") != "write_file":
            return {}  # file_edit: judged in pre_tool, which sees which lines it touches
        path = _os_path(payload.get("path"), os.getcwd())  # write_file: relative to Chibi's cwd
        session_id = current_session(home) if path and os.path.isfile(path) else None
        reason = judge_write(path, session_id, "write_file", {"content": payload.get("content")}) \
            if session_id else None
        return {"denied": True, "reason": reason} if reason else {}
    if name == "post_tool":
        tool = payload.get("tool_name")
        if tool in OUR_TOOLS:
            _settle_delivery(payload)
        elif tool in ("write_file", "file_edit") and isinstance(payload.get("arguments"), dict):
            args = payload["arguments"]
            path = _os_path(args.get("path"), os.getcwd() if tool == "write_file" else project_dir())
            session_id = current_session(home) if path else None
            if session_id:
                carry_write(path, session_id, tool, args, payload.get("result"))
        return {}
    return {}


def forget_context(home: str, context: str) -> None:
    """The context lost what it was shown: drop its copies here, and give it a new
    epoch so copies in other projects' stores are never consulted again."""
    from pathlib import Path

    from ..operations import Workspace
    from ..workspace import project_root

    old = session_for(home, context)
    new_epoch(home, context)
    ws = Workspace(project_root(Path(project_dir())))
    try:
        store = ws.store_or_none()
        if store is not None:
            with store.session(old) as session:
                session.data["files"] = {}
    finally:
        ws.close()


def run_hook(name: str, stdin_text: str, home: str) -> str:
    """The hook's stdout: a JSON object, `{}` when it has nothing to say. Never raises."""
    try:
        payload = json.loads(stdin_text) if stdin_text.strip() else {}
    except ValueError:
        _log(f"{name}: the hook data is not JSON")
        return "{}"
    try:
        out = hook(name, payload, home)
    except Exception as exc:  # a hook never breaks the tool call or the turn
        if os.environ.get("SYMBOLPACK_DEBUG") == "1":
            import traceback

            traceback.print_exc()
        _log(f"{name}: {type(exc).__name__}: {exc}")
        out = {}
    return json.dumps(out, ensure_ascii=False)


def _log(message: str) -> None:
    try:
        print(f"symbolpack (chibi): {message}", file=sys.stderr)
    except Exception:
        pass


def main(argv: list[str] | None = None) -> int:
    """`tldrs chibi plugin [--home DIR] [--schema]`: what Chibi runs (see the launcher)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    home = None
    if "--home" in argv:
        at = argv.index("--home")
        home = argv[at + 1] if at + 1 < len(argv) else None
        del argv[at:at + 2]
    home = chibi_home(home)
    if argv[:1] == ["--schema"]:
        sys.stdout.write(json.dumps(plugin_schema()) + "\n")
        return 0
    try:
        stdin_text = sys.stdin.buffer.read().decode("utf-8", "replace")
    except Exception:
        stdin_text = ""
    hook_name = os.environ.get("CHIBI_HOOK")
    if hook_name:
        out = run_hook(hook_name, stdin_text, home)
        try:
            sys.stdout.write(out + "\n")
            sys.stdout.flush()
        except Exception:
            pass
        return 0
    return run_tool(os.environ.get("CHIBI_TOOL_NAME", ""), stdin_text, home, sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
