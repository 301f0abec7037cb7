"""Chibi: symbolpack's three tools (`symbolpack_read`, `symbolpack_context`,
`symbolpack_diff_context`), their answers and the check that Chibi delivered them.

A tool call is one process: the answer is written and flushed, then committed; what
it gave the agent is noted, and the `post_tool` hook (`settle_delivery`) takes those
lines back when Chibi cached or rewrote the answer. See `chibi.py` for the contracts.
"""

from __future__ import annotations

import json
import os

from .state import (chibi_process, current_session, log, os_path, private_dir, project_dir, read_json,
                          state_root, workspace_for, write_json)

TOOL_READ = "symbolpack_read"
TOOL_CONTEXT = "symbolpack_context"
TOOL_DIFF = "symbolpack_diff_context"
OUR_TOOLS = (TOOL_READ, TOOL_CONTEXT, TOOL_DIFF)
DELIVERY_TTL_SECONDS = 24 * 3600

READ_DESCRIPTION = (
    "Read a source file (or a range, or one symbol) without wasting context; use instead of "
    "file_head/file_lines for code. A first read of a large file is a [SKELETON]: bodies are "
    "elided as `... A-B elided: symbol=\"NAME\"` (or `offset=A limit=N`); pass that symbol or "
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


# --------------------------------------------------------------------------- tools

class ToolAnswer:
    """A tool's text plus what to do once it was written (commit) and what the answer
    gave the agent (to take back if Chibi did not deliver it as written)."""

    def __init__(self, text: str, commit=None, ws=None, session_id=None, scopes=()):
        self.text, self.commit, self.ws, self.session_id, self.scopes = text, commit, ws, session_id, list(scopes)


def _int(value, name: str) -> int | None:
    from ..edits import int_arg
    from ...base.errors import UsageError

    if value is None:
        return None
    n = int_arg(value)
    if n is None:
        raise UsageError(f"{name} must be an integer, not {value!r}")
    return n


def _inside(path: str, root: str) -> bool:
    real, base = os.path.realpath(path), os.path.realpath(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def tool_read(args: dict, home: str) -> ToolAnswer:
    from ...api.operations import read_file
    from ...base.errors import UsageError

    root = project_dir()
    path = os_path(args.get("path"), root)
    if path is None:
        raise UsageError("path must be a file path (vfs:// paths: use file_head/file_lines)")
    if not _inside(path, root):  # Chibi asks permission for those (pre_file_read); a plugin cannot
        raise UsageError(f"{args.get('path')} is outside the project ({root}); use Chibi's file tools")
    session_id = current_session(home)
    ws = workspace_for(path)
    result = read_file(ws, path, session_id, offset=_int(args.get("offset"), "offset"),
                       limit=_int(args.get("limit"), "limit"),
                       symbol=args.get("symbol") if isinstance(args.get("symbol"), str) else None,
                       force_full=args.get("full") is True, confirm=False, front="chibi")
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

    from ...api.operations import Workspace
    from ...base.workspace import project_root

    return Workspace(project_root(Path(project_dir())))


def tool_context(args: dict, home: str) -> ToolAnswer:
    from ...api.context import DEFAULT_BUDGET, context_pack
    from ...base.errors import UsageError

    entry = args.get("entry")
    if not isinstance(entry, str) or not entry:
        raise UsageError("entry is required: a symbol name, Class.method or path:name")
    session_id = current_session(home)
    ws = _project_workspace()
    depth = _int(args.get("depth"), "depth")
    budget = _int(args.get("budget"), "budget")
    result = context_pack(ws, entry, depth=2 if depth is None else depth,
                          budget=DEFAULT_BUDGET if budget is None else budget, callers=args.get("callers") is True,
                          session_id=session_id, delta=session_id is not None, confirm=False, front="chibi")
    return _pack_answer(result, ws, session_id)


def tool_diff_context(args: dict, home: str) -> ToolAnswer:
    from ...api.context import DEFAULT_BUDGET, diff_context

    no_delta = args.get("no_delta") is True
    session_id = None if no_delta else current_session(home)
    ws = _project_workspace()
    raw_base, raw_head = args.get("base"), args.get("head")
    base = raw_base if isinstance(raw_base, str) and raw_base else "HEAD"
    head = raw_head if isinstance(raw_head, str) and raw_head else None
    budget = _int(args.get("budget"), "budget")
    result = diff_context(ws, base=base, head=head, session_id=session_id, delta=session_id is not None,
                          budget=DEFAULT_BUDGET if budget is None else budget, confirm=False, front="chibi")
    return _pack_answer(result, ws, session_id)


TOOLS = {TOOL_READ: tool_read, TOOL_CONTEXT: tool_context, TOOL_DIFF: tool_diff_context}
_DIRECT_ARG = {TOOL_READ: "path", TOOL_CONTEXT: "entry", TOOL_DIFF: "base"}


def run_tool(name: str, stdin_text: str, home: str, out) -> int:
    """One tool call: the answer on *out*, flushed, then committed. Always exit 0."""
    from ...base.errors import SymbolpackError, UsageError

    handler = TOOLS.get(name)
    answer = None
    try:
        if handler is None:
            raise UsageError(f"unknown tool {name!r} (this plugin has {', '.join(OUR_TOOLS)})")
        try:
            args = json.loads(stdin_text) if stdin_text.strip() else {}
        except ValueError:
            raise UsageError("the arguments are not JSON") from None
        if not isinstance(args, dict):
            raise UsageError("the arguments are not a JSON object")
        if isinstance(args.get("args"), list):  # `chibi -p symbolpack_read "src/a.py"`
            words = [a for a in args["args"] if isinstance(a, str)]
            args = {_DIRECT_ARG[name]: words[0]} if words else {}
        answer = handler(args, home)
        text = answer.text
    except SymbolpackError as exc:
        text = f"Error: {exc}"
    except Exception as exc:  # a tool never dies with a traceback
        from ...base.settings import load_settings

        if load_settings().debug:
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
            log(f"after {name}: {type(exc).__name__}: {exc}")
        finally:
            answer.ws.close()
    return 0


# --------------------------------------------------------------------------- delivery check

def _call_key(name: object, args: object) -> str | None:
    from ...base.workspace import sha256_hex

    proc = chibi_process()
    if proc is None:
        return None
    canonical = json.dumps([name, args], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return f"{proc}-{sha256_hex(canonical.encode('utf-8', 'surrogatepass'))[:24]}"


def _text_hash(text: str) -> str:
    from ...base.workspace import sha256_hex

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

    directory = private_dir("deliveries")
    write_json(os.path.join(directory, key + ".json"),
                {"text": _text_hash(answer.text), "session": answer.session_id,
                 "scopes": [list(s) for s in answer.scopes]})
    now = time.time()
    for entry in os.scandir(directory):  # calls post_tool never reported
        try:
            if now - entry.stat().st_mtime > DELIVERY_TTL_SECONDS:
                os.unlink(entry.path)
        except OSError:
            pass


def settle_delivery(payload: dict) -> None:
    """post_tool of one of our tools: if Chibi cached the answer (the model got a
    preview) or a plugin rewrote it, the lines it gave are taken back (refreshed)."""
    key = _call_key(payload.get("tool_name"), payload.get("arguments"))
    if key is None:
        return
    path = os.path.join(state_root(), "deliveries", key + ".json")
    record = read_json(path)
    try:
        os.unlink(path)
    except OSError:
        pass
    if not isinstance(record, dict):
        return
    result = payload.get("result")
    if payload.get("cached") is not True and isinstance(result, str) and _text_hash(result) == record.get("text"):
        return  # delivered as written
    from ...api.operations import refresh

    for file_path, start, end in record.get("scopes", ()):
        ws = workspace_for(file_path)
        try:
            if start is None:
                refresh(ws, file_path, record["session"])
            else:
                refresh(ws, file_path, record["session"], start, end - start + 1)
        except Exception as exc:
            log(f"could not take back {file_path}: {exc}")
        finally:
            ws.close()
