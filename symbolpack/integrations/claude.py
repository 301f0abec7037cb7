"""Claude Code hooks: the native Read and Edit tools, made delta-aware and stale-safe.

`tldrs hook NAME` (or `python -m symbolpack.integrations.claude NAME`) reads one
hook payload (Claude Code's documented schema: `session_id`, `cwd`,
`hook_event_name`, `tool_name`, `tool_input`, ...) on stdin and answers on stdout.

* `claude-pre-read` (PreToolUse, `Read`). The first read of a file in a session
  goes to the native tool (no decision), so Claude's own read-before-edit
  tracking sees it; symbolpack records as the baseline exactly what the native
  tool shows: its scope (`offset`/`limit`, at most 2000 lines by default), in
  full. Re-reads are answered by symbolpack through a `deny` whose reason is
  the content: `[UNCHANGED]`, a `[DELTA]` or a `[DIFF]`. Why deny and not
  `updatedInput`: the native tool cannot show a delta, and the deny reason is
  the one channel whose text reaches the model in place of the tool's output.
  Whenever symbolpack would answer with a plain read anyway, the native tool
  runs (no decision), so Claude's tracking stays current.
* `claude-post-edit` (PostToolUse, `Edit|Write|MultiEdit|NotebookEdit`). The
  agent's own edit updates its view: the edit is replayed on the content the
  agent last saw, and it then knows the lines it wrote plus the lines it knew
  before (nothing else). What it believes is recorded, not what is on disk, so
  a formatter that rewrote the file afterwards shows up at the next read.
  `additionalContext` warns when the edit landed inside lines it saw elided.
* `claude-pre-edit` (PreToolUse, `Edit|MultiEdit|Write`): the stale-read guard.
  Deny when the file's content (hash, authoritative) differs from the agent's
  last view for another reason than its own edits, or when the edit targets
  lines the agent never saw. After a denied or failed edit (no PostToolUse
  followed its PreToolUse) the next read of that file goes to the native tool.
* `claude-session-start` (SessionStart, `compact|clear`): the agent lost its
  context; its views are dropped so the next reads are full.

Sessions: `claude-<session_id>`, plus `-<agent_id>` inside a subagent (subagents
share the parent's session id, but not its context). Per-file hook state
(`fresh`, `pending`, `own`) lives in the session document under `"claude"`.

A hook must never break a tool call: every failure (bad payload, missing file,
corrupt store, any exception) exits 0 with no output, and at most one line on
stderr. Imports are lazy: an unchanged re-read pays for the read path only.
"""

from __future__ import annotations

import json
import os
import re
import sys

from ..views import known_mask, mask_ranges
from ..workspace import sha256_hex

NATIVE_READ_CAP = 2000  # lines the native Read tool shows without a limit
READ_TOOLS = ("Read",)
EDIT_TOOLS = ("Edit", "MultiEdit", "Write")
POST_EDIT_TOOLS = ("Edit", "MultiEdit", "Write", "NotebookEdit")
# the native tool shows these as images/pages/cells, not numbered text lines
NATIVE_ONLY_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".ico", ".pdf", ".ipynb")
STATE_KEY = "claude"
MAX_OWN = 8
_SAFE_ID = re.compile(r"[A-Za-z0-9._-]{1,60}")

PREAMBLE = ("symbolpack answered this Read from your session's record of the file. This is the file's "
            "content for you, not an error; do not retry the Read.")
FOOTER = ("(Lost your earlier copy? Run `tldrs session refresh {path} --session-id {sid}` "
          "and Read again for the full text.)")


# --------------------------------------------------------------------------- payload

class HookRequest:
    """The parts of a tool-hook payload every hook needs, validated."""

    __slots__ = ("tool", "path", "tool_input", "session_id", "root", "payload")

    def __init__(self, tool, path, tool_input, session_id, root, payload):
        self.tool = tool
        self.path = path  # absolute, as given (symlinks unresolved)
        self.tool_input = tool_input
        self.session_id = session_id
        self.root = root  # the project root (repository of cwd), real path
        self.payload = payload


def session_id_for(payload: dict) -> str | None:
    """`claude-<session_id>[-<agent_id>]`, made file-name safe; None when absent."""
    parts = []
    for field in ("session_id", "agent_id"):
        raw = payload.get(field)
        if raw is None or raw == "":
            if field == "session_id":
                return None
            continue
        if not isinstance(raw, str):
            return None
        parts.append(raw if _SAFE_ID.fullmatch(raw) and raw not in (".", "..")
                     else sha256_hex(raw.encode("utf-8", "surrogatepass"))[:24])
    return "claude-" + "-".join(parts)


def hook_root(payload: dict) -> str:
    """The repository holding the payload's `cwd` (as `workspace.project_root` finds it)."""
    cwd = payload.get("cwd")
    if not isinstance(cwd, str) or not os.path.isabs(cwd) or not os.path.isdir(cwd):
        cwd = os.getcwd()
    here = os.path.realpath(cwd)
    d = here
    while True:
        if os.path.exists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return here
        d = parent


def parse_request(payload, tools: tuple[str, ...], path_field: str = "file_path") -> HookRequest | None:
    if not isinstance(payload, dict):
        return None
    tool = payload.get("tool_name")
    if tool not in tools:
        return None
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    path = tool_input.get(path_field)
    if path_field == "file_path" and path is None and tool == "NotebookEdit":
        path = tool_input.get("notebook_path")
    if not isinstance(path, str) or not path or "\0" in path:
        return None
    session_id = session_id_for(payload)
    if session_id is None:
        return None
    root = hook_root(payload)
    if not os.path.isabs(path):
        cwd = payload.get("cwd")
        path = os.path.join(cwd if isinstance(cwd, str) and os.path.isabs(cwd) else os.getcwd(), path)
    return HookRequest(tool, os.path.normpath(path), tool_input, session_id, root, payload)


def _int_arg(value) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def native_scope(total: int, offset, limit) -> tuple[int | None, int | None]:
    """(offset, limit) for `operations.read_file` naming exactly the lines the native Read
    shows for these arguments; (None, None) for the whole file."""
    offset, limit = _int_arg(offset), _int_arg(limit)
    start = offset if offset is not None and offset > 0 else 1
    cap = limit if limit is not None and limit > 0 else NATIVE_READ_CAP
    end = min(total, start + cap - 1)
    if start <= 1 and end >= total:
        return None, None
    return start, max(end - start + 1, 1)


def _count_lines(data: bytes) -> int:
    """Lines as `sources.split_text_lines` counts them."""
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


# --------------------------------------------------------------------------- outputs

def _pre_tool(decision: str, reason: str) -> dict:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision,
                                   "permissionDecisionReason": reason}}


def _post_tool(context: str) -> dict:
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": context}}


# --------------------------------------------------------------------------- shared pieces

def _workspace(root: str):
    from pathlib import Path

    from ..operations import Workspace

    return Workspace(Path(root))


def _rel(real: str, root: str) -> str:
    """`workspace.display_path` on plain strings (both arguments real paths)."""
    if real == root:
        return "."
    prefix = root.rstrip(os.sep) + os.sep
    return real[len(prefix):].replace(os.sep, "/") if real.startswith(prefix) else real.replace(os.sep, "/")


def _state(session, rel: str, create: bool = True) -> dict:
    """This file's hook state in the session document (created on demand)."""
    states = session.data.get(STATE_KEY)
    if not isinstance(states, dict):
        if not create:
            return {}
        states = session.data[STATE_KEY] = {}
    state = states.get(rel)
    if not isinstance(state, dict):
        if not create:
            return {}
        state = states[rel] = {}
    return state


def _tidy(session, rel: str) -> None:
    states = session.data.get(STATE_KEY)
    if isinstance(states, dict) and not states.get(rel):
        states.pop(rel, None)
        if not states:
            session.data.pop(STATE_KEY, None)


def _load_views(session, rel: str) -> dict | None:
    """This file's views as ViewStates; None when an entry is damaged."""
    from ..read import ViewState

    try:
        return {key: ViewState.from_json(raw) for key, raw in session.views(rel).items()}
    except (KeyError, TypeError, ValueError):
        return None


def _known_mask(total: int, views, sha: str) -> list[bool]:
    """1-based mask of the lines known through any view of content *sha*."""
    return known_mask(total, [run for view in views if view.sha256 == sha for run in view.known])


def _symbols_over(views, start: int, end: int) -> list[str]:
    """Qualnames of elided bodies (in any view) overlapping lines start..end."""
    names = []
    for view in views:
        for a, b, sid in view.elided:
            if sid and a <= end and start <= b:
                name = sid.split(":", 2)[-1]
                if name not in names:
                    names.append(name)
    return names


# --------------------------------------------------------------------------- edits replayed

def apply_edit(text: str, old: str, new: str, replace_all: bool = False) -> str | None:
    """The native Edit tool's semantics; None when it would refuse the edit."""
    if not isinstance(old, str) or not isinstance(new, str):
        return None
    if old == "":
        return new if text == "" else None
    count = text.count(old)
    if count == 0 or (count > 1 and not replace_all):
        return None
    return text.replace(old, new) if replace_all else text.replace(old, new, 1)


def edits_of(tool: str, tool_input: dict) -> list[tuple[str, str, bool]] | None:
    if tool == "Edit":
        return [(tool_input.get("old_string"), tool_input.get("new_string"), bool(tool_input.get("replace_all")))]
    if tool == "MultiEdit":
        edits = tool_input.get("edits")
        if not isinstance(edits, list) or not edits:
            return None
        out = []
        for e in edits:
            if not isinstance(e, dict):
                return None
            out.append((e.get("old_string"), e.get("new_string"), bool(e.get("replace_all"))))
        return out
    return None


def carry_known(old_lines, new_lines, known_old: list[bool]):
    """Which new lines the agent knows after an edit it made: lines kept from lines it
    knew, lines it inserted, and lines it rewrote wholly inside lines it knew.
    Returns (mask, blind) where blind lists (old_start, old_end, new_start, new_end)
    for changes that touched lines it did not know."""
    import difflib

    known_new = [False] * (len(new_lines) + 1)
    blind = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines,
                                      autojunk=len(old_lines) + len(new_lines) > 20000)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                known_new[j1 + k + 1] = known_old[i1 + k + 1]
        elif tag == "insert":
            for j in range(j1, j2):
                known_new[j + 1] = True
        else:  # replace / delete
            if all(known_old[i + 1] for i in range(i1, i2)):
                for j in range(j1, j2):
                    known_new[j + 1] = True
            else:
                blind.append((i1 + 1, i2, j1 + 1, j2))
    return known_new, blind


def _occurrence_lines(text: str, old: str, replace_all: bool) -> list[tuple[int, int]]:
    spans = []
    at = text.find(old)
    while at >= 0:
        start = text.count("\n", 0, at) + 1
        spans.append((start, start + old.count("\n", 0, max(len(old) - 1, 0))))
        if not replace_all:
            break
        at = text.find(old, at + len(old))
    return spans


def unseen_target(tool: str, tool_input: dict, text: str, known: list[bool]) -> tuple[int, int] | None:
    """The first run of lines the edit would change that the agent has not seen."""
    from ..sources import split_text_lines

    if tool == "Write":
        missing = mask_ranges(known, False)
        return missing[0] if missing else None
    edits = edits_of(tool, tool_input)
    if not edits:
        return None
    for old, new, replace_all in edits:
        if not isinstance(old, str) or not old:
            return None
        after = apply_edit(text, old, new, replace_all)
        if after is None:
            return None  # the native tool refuses it on its own
        for a, b in _occurrence_lines(text, old, replace_all):
            missing = [i for i in range(a, b + 1) if i >= len(known) or not known[i]]
            if missing:
                return missing[0], missing[-1]
        known, _ = carry_known(split_text_lines(text), split_text_lines(after), known)
        text = after
    return None


# --------------------------------------------------------------------------- baseline

def record_native_read(ws, path: str, session_id: str, offset=None, limit=None) -> dict | None:
    """Record as the session's view exactly what Claude's native Read shows for these
    arguments (its scope, plainly, in full) and return the response (text unused).
    None when the file is not one symbolpack tracks."""
    from ..operations import read_file

    scope = _native_read_args(path, offset, limit)
    if scope is None:
        return None
    return read_file(ws, path, session_id, offset=scope[0], limit=scope[1], force_full=True).response


def _native_read_args(path: str, offset, limit):
    """(offset, limit) of the native scope, or None for files that are not plain text
    lines to the native tool (or not regular files: never open a FIFO)."""
    import stat

    from ..sources import MAX_READ_BYTES

    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_READ_BYTES:
        return None
    with open(path, "rb") as fh:
        data = fh.read(MAX_READ_BYTES + 1)
    return native_scope(_count_lines(data), offset, limit)


# --------------------------------------------------------------------------- hooks

def pre_read(payload) -> dict | None:
    """PreToolUse(Read): pass the first read through and record it; answer re-reads."""
    req = parse_request(payload, READ_TOOLS)
    if req is None or req.path.lower().endswith(NATIVE_ONLY_SUFFIXES):
        return None
    scope = _native_read_args(req.path, req.tool_input.get("offset"), req.tool_input.get("limit"))
    if scope is None:
        return None
    offset, limit = scope
    ws = _workspace(req.root)
    try:
        rel = _rel(os.path.realpath(req.path), str(ws.root))
        with ws.store.session(req.session_id, write=False) as session:
            state = _state(session, rel, create=False)
            fresh = not session.views(rel) or bool(state.get("fresh")) or "pending" in state
            had_state = bool(state)
        from ..operations import read_file
        from ..read import ReadPolicy

        if fresh:
            record_native_read(ws, req.path, req.session_id, req.tool_input.get("offset"),
                               req.tool_input.get("limit"))
            if had_state:  # the native read makes the view current again
                with ws.store.session(req.session_id) as session:
                    state = _state(session, rel)
                    for key in ("fresh", "pending", "own"):
                        state.pop(key, None)
                    _tidy(session, rel)
            return None
        # no skeletons here: the native tool shows plain text, and so do we
        response = read_file(ws, req.path, req.session_id, offset=offset, limit=limit,
                             policy=ReadPolicy(skeleton_max_share=0.0)).response
    finally:
        ws.close()
    if response["mode"] not in ("unchanged", "delta", "diff"):
        return None  # a plain read: let the native tool show it (and track it)
    footer = FOOTER.format(path=_shell_quote(req.path), sid=req.session_id)
    return _pre_tool("deny", f"{PREAMBLE}\n{response['text']}\n{footer}")


def _shell_quote(text: str) -> str:
    """`shlex.quote` without importing shlex on the hot path."""
    if text and re.fullmatch(r"[\w@%+=:,./-]+", text, re.ASCII):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"


def pre_edit(payload) -> dict | None:
    """PreToolUse(Edit|MultiEdit|Write): the stale-read guard."""
    req = parse_request(payload, EDIT_TOOLS)
    if req is None or not os.path.isfile(req.path):
        return None  # a new file: nothing to be stale about
    from pathlib import Path

    from ..sources import load_source, split_text_lines

    ws = _workspace(req.root)
    try:
        source = load_source(Path(req.path), ws.root)
        if source.passthrough:
            return None
        with ws.store.session(req.session_id) as session:
            views = _load_views(session, source.rel)
            if not views:
                return None  # never read through symbolpack: Claude's own rule applies
            state = _state(session, source.rel)
            last = max(views.values(), key=lambda v: v.seq)
            if source.sha256 != last.sha256:
                if source.sha256 in state.get("own", ()):
                    state["pending"] = source.sha256
                    return None
                state["fresh"] = True
                state.pop("pending", None)
                return _pre_tool("deny", _stale_reason(source, req.tool))
            lines = split_text_lines(source.text)
            known = _known_mask(len(lines), views.values(), source.sha256)
            unseen = unseen_target(req.tool, req.tool_input, source.text, known)
            if unseen is not None:
                state["fresh"] = True
                state.pop("pending", None)
                names = _symbols_over(views.values(), *unseen)
                return _pre_tool("deny", _unseen_reason(source.rel, req.tool, unseen, names))
            state["pending"] = source.sha256
            return None
    finally:
        ws.close()


def _stale_reason(source, tool: str) -> str:
    import time

    try:
        age = f"; last modified {max(0, int(time.time() - os.stat(source.path).st_mtime))} s ago"
    except OSError:
        age = ""
    return (f"[symbolpack stale-read guard] This {tool} was NOT applied: {source.rel} changed on disk since "
            f"you last read it, and not by your own edits{age}. Read {source.rel} again (that read shows "
            f"its current content), then redo the {tool} against what is there now.")


def _unseen_reason(rel: str, tool: str, unseen: tuple[int, int], names: list[str]) -> str:
    a, b = unseen
    inside = f" (inside {', '.join(names[:3])})" if names else ""
    if tool == "Write":
        return (f"[symbolpack stale-read guard] This Write was NOT applied: it overwrites {rel}, including "
                f"lines {a}-{b}{inside} that you have not seen (elided or never read). Read the whole file "
                f"first, then write it again, or use Edit for a targeted change.")
    return (f"[symbolpack stale-read guard] This {tool} was NOT applied: it changes {rel} lines {a}-{b}{inside}, "
            f"which you have not seen (they were elided or outside what you read). Read them first "
            f"(Read {rel} with offset={a} and limit={b - a + 1}), then redo the {tool}.")


def post_edit(payload) -> dict | None:
    """PostToolUse(Edit|Write|MultiEdit|NotebookEdit): carry the view through the edit."""
    req = parse_request(payload, POST_EDIT_TOOLS)
    if req is None:
        return None
    from pathlib import Path

    from ..read import FULL, ViewState, range_key
    from ..sources import load_source, split_text_lines

    ws = _workspace(req.root)
    try:
        try:
            source = load_source(Path(req.path), ws.root)
        except Exception:
            source = None
        rel = source.rel if source is not None else _rel(os.path.realpath(req.path), str(ws.root))
        with ws.store.session(req.session_id) as session:
            state = _state(session, rel)
            state.pop("pending", None)
            if req.tool == "NotebookEdit" or source is None or source.passthrough:
                session.drop_file(rel)  # not something symbolpack can follow: start over
                state.clear()
                _tidy(session, rel)
                return None
            views = _load_views(session, rel)
            if views is None:
                session.drop_file(rel)
                _tidy(session, rel)
                return None
            blind: list = []
            base = max(views.values(), key=lambda v: v.seq) if views else None
            if req.tool == "Write":
                content = req.tool_input.get("content")
                expected = content if isinstance(content, str) else None
            elif base is None:
                expected = None
            else:
                expected = _replay(ws, base, edits_of(req.tool, req.tool_input))
            if expected is None:
                _remember_own(state, source.sha256)  # the change is the agent's; its view stays as it was
                _tidy(session, rel)
                return None
            new_lines = split_text_lines(expected)
            total = len(new_lines)
            if req.tool == "Write":
                known = [True] * (total + 1)
                whole = True
            else:
                old_text = ws.store.get_object(base.sha256).decode("utf-8")
                old_lines = split_text_lines(old_text)
                known_old = _known_mask(len(old_lines), views.values(), base.sha256)
                known, blind = carry_known(old_lines, new_lines, known_old)
                full_view = views.get(FULL)
                whole = (full_view is not None and full_view.sha256 == base.sha256) or all(known[1:])
            data = expected.encode("utf-8")
            sha = ws.store.put_object(data)
            seq = session.next_seq()
            known_runs = mask_ranges(known)
            if whole:
                elided = tuple((a, b, "") for a, b in mask_ranges(known, False))
                session.set_view(rel, FULL, ViewState(sha, seq, total, tuple(known_runs), None, elided).to_json())
            else:
                for a, b in known_runs:
                    key = FULL if (a, b) == (1, total) else range_key((a, b))
                    session.set_view(rel, key, ViewState(sha, seq, total, ((a, b),),
                                                         None if key == FULL else (a, b)).to_json())
            state.pop("own", None)
            state.pop("fresh", None)
            _tidy(session, rel)
            if not blind:
                return None
            return _post_tool(_blind_warning(rel, blind, list(views.values())))
    finally:
        ws.close()


def _replay(ws, base, edits) -> str | None:
    """The content the agent believes the file has now: its last view with its edits."""
    if not edits:
        return None
    data = ws.store.get_object(base.sha256)
    if data is None:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    for old, new, replace_all in edits:
        text = apply_edit(text, old, new, replace_all)
        if text is None:
            return None
    return text


def _remember_own(state: dict, sha: str) -> None:
    own = [s for s in state.get("own", []) if s != sha]
    own.append(sha)
    state["own"] = own[-MAX_OWN:]


def _blind_warning(rel: str, blind, views) -> str:
    parts = []
    for old_a, old_b, new_a, new_b in blind[:4]:
        names = _symbols_over(views, old_a, old_b)
        where = f" in {', '.join(names[:3])}" if names else ""
        now = f"now lines {new_a}-{new_b}" if new_b >= new_a else "now removed"
        parts.append(f"your old lines {old_a}-{old_b}{where} ({now})")
    return (f"symbolpack: your edit to {rel} changed code you had only seen elided: {'; '.join(parts)}. "
            f"Read those lines to check the result before relying on it.")


def session_start(payload) -> dict | None:
    """SessionStart(compact|clear): the agent lost its context; forget what it saw."""
    if not isinstance(payload, dict):
        return None
    source = payload.get("source")
    if source is not None and source not in ("compact", "clear"):
        return None
    session_id = session_id_for(payload)
    if session_id is None:
        return None
    ws = _workspace(hook_root(payload))
    try:
        with ws.store.session(session_id) as session:
            had = bool(session.data.get("files"))
            session.data["files"] = {}
            session.data["symbols"] = {}
            session.data.pop(STATE_KEY, None)
    finally:
        ws.close()
    if not had:
        return None
    return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext":
            "symbolpack: your earlier file views were dropped with the context; the next Read of each file "
            "shows it in full."}}


HOOKS = {
    "claude-pre-read": pre_read,
    "claude-pre-edit": pre_edit,
    "claude-post-edit": post_edit,
    "claude-session-start": session_start,
}


def run_hook(name: str, stdin_text: str) -> str:
    """The hook's stdout for one payload; '' for no decision. Never raises."""
    handler = HOOKS.get(name) or HOOKS.get(f"claude-{name}")
    if handler is None:
        _log(f"unknown hook {name!r} (known: {', '.join(HOOKS)})")
        return ""
    try:
        payload = json.loads(stdin_text) if stdin_text.strip() else None
    except ValueError:
        _log(f"{name}: payload is not JSON; no decision")
        return ""
    try:
        out = handler(payload)
    except Exception as exc:  # a hook never breaks the tool call
        if os.environ.get("SYMBOLPACK_DEBUG") == "1":
            import traceback

            traceback.print_exc()
        _log(f"{name}: {type(exc).__name__}: {exc}; no decision")
        return ""
    return json.dumps(out, ensure_ascii=False) if out else ""


def _log(message: str) -> None:
    try:
        print(f"symbolpack hook: {message}", file=sys.stderr)
    except Exception:
        pass


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        _log(f"usage: tldrs hook {{{','.join(HOOKS)}}} < payload.json")
        return 0
    try:
        text = sys.stdin.buffer.read().decode("utf-8", "replace")
    except Exception:
        return 0
    out = run_hook(argv[0], text)
    if out:
        try:
            sys.stdout.write(out + "\n")
            sys.stdout.flush()
        except Exception:
            pass
    return 0


def run_as_process(argv: list[str] | None = None) -> None:
    """`main`, then end the process at once: everything is written and flushed, and
    skipping the interpreter's teardown saves ~4 ms per tool call."""
    code = main(argv)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(code)


if __name__ == "__main__":
    run_as_process()
