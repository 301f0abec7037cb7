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

This module is the plugin itself (`--schema`, the hooks, `main`); the tools and the
delivery check are `chibi/tools.py`, the guard and the carried edits `chibi/guard.py`
(on the shared `edits.py`), and where things live (home, state, sessions)
`chibi/state.py`.

Every hook answers `{}` on any problem and exits 0; a tool prints `Error: ...`
(exit 0, so Chibi shows the message instead of "Tool execution failed").
"""

from __future__ import annotations

import json
import os
import sys

from .guard import carry_write, judge_write
from .state import (chibi_home, chibi_process, current_context, current_session, epoch,  # noqa: F401
                          forget_context, log, new_epoch, os_path, project_dir, remember_context, session_for,
                          state_root)
from .tools import (CONTEXT_DESCRIPTION, DIFF_DESCRIPTION, OUR_TOOLS, READ_DESCRIPTION,  # noqa: F401
                          TOOL_CONTEXT, TOOL_DIFF, TOOL_READ, TOOLS, ToolAnswer, run_tool, settle_delivery)

HOOKS = ("pre_api_tools", "pre_tool", "pre_file_write", "post_tool", "pre_cache_output",
         "post_clear", "post_compact", "post_rolling_compact", "on_end")
DROP_HOOKS = ("post_clear", "post_compact", "post_rolling_compact")
LAUNCHER_MARK = "# symbolpack launcher for Chibi"


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
                log(f"pre_api_tools: cannot record the context ({exc})")
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
        path = os_path(args.get("path"), project_dir())
        session_id = current_session(home) if path and os.path.isfile(path) else None
        reason = judge_write(path, session_id, "file_edit", args) if session_id and path else None
        return {"block": True, "message": reason} if reason else {}
    if name == "pre_file_write":
        if payload.get("tool_name") != "write_file":
            return {}  # file_edit: judged in pre_tool, which sees which lines it touches
        path = os_path(payload.get("path"), os.getcwd())  # write_file: relative to Chibi's cwd
        session_id = current_session(home) if path and os.path.isfile(path) else None
        reason = judge_write(path, session_id, "write_file", {"content": payload.get("content")}) \
            if session_id and path else None
        return {"denied": True, "reason": reason} if reason else {}
    if name == "post_tool":
        tool = payload.get("tool_name")
        if tool in OUR_TOOLS:
            settle_delivery(payload)
        elif tool in ("write_file", "file_edit") and isinstance(payload.get("arguments"), dict):
            args = payload["arguments"]
            path = os_path(args.get("path"), os.getcwd() if tool == "write_file" else project_dir())
            session_id = current_session(home) if path else None
            if session_id and path:
                carry_write(path, session_id, tool, args, payload.get("result"))
        return {}
    return {}


def run_hook(name: str, stdin_text: str, home: str) -> str:
    """The hook's stdout: a JSON object, `{}` when it has nothing to say. Never raises."""
    try:
        payload = json.loads(stdin_text) if stdin_text.strip() else {}
    except ValueError:
        log(f"{name}: the hook data is not JSON")
        return "{}"
    try:
        out = hook(name, payload, home)
    except Exception as exc:  # a hook never breaks the tool call or the turn
        from ...base.settings import load_settings

        if load_settings().debug:
            import traceback

            traceback.print_exc()
        log(f"{name}: {type(exc).__name__}: {exc}")
        out = {}
    return json.dumps(out, ensure_ascii=False)



def main(argv: list[str] | None = None) -> int:
    """`tldrs chibi plugin [--home DIR] [--schema]`: what Chibi runs (see the launcher)."""
    from ...base.log import configure

    configure(prefix="symbolpack (chibi)")  # warnings: one `symbolpack (chibi): warning: ...` line
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
