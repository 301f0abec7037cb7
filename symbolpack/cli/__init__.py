"""`tldrs` / `symbolpack`: the command line, its argparse front end.

`packs.py` wires `context` and `diff-context`; the other commands register from
`integrations.commands` and `evaluation.command`. `python -m symbolpack.cli` runs
it (what `tldrs install` writes when `tldrs` is not on PATH). The front end lives
in this `__init__` rather than a `main.py` beside it: a hook's read process then
loads one module for it, not two.

Start-up time matters (hooks run one process per tool call), so this module
imports nothing heavy at the top: each command imports what it needs when it
runs. Every user-facing failure is one line on stderr and a non-zero exit;
`--debug` shows the traceback.
"""

from __future__ import annotations

import os
import sys


TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..base.protocol import SessionStatus


def Path(*parts):  # noqa: N802 - pathlib costs start-up time; hooks pay it per call
    from pathlib import Path as _Path

    return _Path(*parts)

PROG = "tldrs"
EXIT_ERROR = 1
EXIT_USAGE = 2


def _emit_json(obj) -> None:
    import json

    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def _root_for(path):
    from ..base.workspace import project_root

    return project_root(path)


# --------------------------------------------------------------------------- engine commands

def cmd_structure(args) -> int:
    from ..engine.index import Index, walk_names
    from ..engine.outline import write_rendered_structure
    from ..base.progress import progress_bar
    from ..engine.rendercache import Renderer

    target = Path(args.path).resolve()
    if not target.exists():
        raise _user_error(f"no such file or directory: {args.path}", missing=True)
    root = _root_for(target)
    index = Index(root, use_cache=not args.no_cache)
    try:  # written as it is parsed: a big tree's symbols are never all in memory
        names, skipped = walk_names(target, root)
        with progress_bar(len(names), "structure", enabled=args.format != "json") as advance:
            # each file's fragment comes from the render cache when its bytes, path and
            # parser are the ones it was rendered from (`rendercache`)
            files = index.iter_rendered(names, Renderer("json" if args.format == "json" else "text"),
                                        progress=advance)
            if args.format == "json":
                write = sys.stdout.write
                write('{"v": 1, "files": [')
                for n, (_, fragment) in enumerate(files):
                    write((", " if n else "") + fragment)
                write("]}\n")
            else:
                write_rendered_structure(files, skipped, sys.stdout.write)
    finally:
        index.close()
    return 0


def cmd_extract(args) -> int:
    from ..engine.index import Index
    from ..engine.outline import format_extract

    path = Path(args.file)
    if not path.is_file():
        raise _user_error(f"no such file: {args.file}", missing=True)
    index = Index(_root_for(path.resolve()), use_cache=not args.no_cache)
    try:
        fs = index.file(path)
    finally:
        index.close()
    if args.format == "json":
        _emit_json({"v": 1, **fs.to_json()})
    else:
        sys.stdout.write(format_extract(fs))
    return 0


def cmd_search(args) -> int:
    from ..engine.index import Index, walk
    from ..engine.lookup import GOOD_SCORE, no_match_message, rank

    if args.limit < 1:
        raise _user_error("--limit must be at least 1")
    root = _root_for(Path(os.getcwd()))
    index = Index(root)
    try:
        files = index.files(walk(Path(args.path).resolve() if args.path else root, root).files)
    finally:
        index.close()
    symbols = [s for f in files for s in f.symbols]
    matches = rank(args.query, symbols, limit=args.limit)
    good = [m for m in matches if m.score >= GOOD_SCORE]
    if args.format == "json":
        _emit_json({"v": 1, "query": args.query, "matches": [
            {**m.symbol.to_json(), "path": m.symbol.path, "score": m.score} for m in good]})
        return 0 if good else EXIT_ERROR
    if not good:
        print(no_match_message(args.query, matches, "this repository"), file=sys.stderr)
        return EXIT_ERROR
    for m in good:
        sig = " ".join(m.symbol.signature.split())
        print(f"{m.symbol.path}:{m.symbol.lines[0]}-{m.symbol.lines[1]}  {m.symbol.kind} {m.symbol.qualname}  {sig}")
    return 0


# --------------------------------------------------------------------------- reads and sessions

def _workspace(path=None):
    """The project of *path* (default: the working directory), with its settings
    (the environment over its pyproject.toml)."""
    from ..api.operations import Workspace
    from ..base.settings import load_settings
    from ..base.workspace import project_root_dir

    root = project_root_dir(path or os.getcwd())  # a str: no pathlib on the read path
    return Workspace(root, load_settings(root))


def present_ids(text: str | None) -> list[str] | None:
    """`--present IDS`: the comma-separated answer ids ('' for none); None without the option."""
    return None if text is None else [i for i in text.split(",") if i.strip()]


def _session_id(args, ws) -> str | None:
    """The session of this command (see session_id.py), or None: no session, so a
    read is a plain read that records nothing."""
    from ..state.session_id import resolve_session_id

    return resolve_session_id(getattr(args, "session_id", None), ws.settings)


NO_SESSION = "no session: pass --session-id or set SYMBOLPACK_SESSION_ID"


def cmd_read(args) -> int:
    from ..api.operations import read_file
    from ..reads.read import ReadPolicy

    path = args.path
    parent = os.path.dirname(os.path.join(os.getcwd(), path))  # no pathlib on the read path
    ws = _workspace(parent if os.path.exists(parent) else None)
    session_id = _session_id(args, ws)
    if args.elide_min_lines < 1:
        raise _user_error("--elide-min-lines must be at least 1")
    # --front mcp answers as `tldrs mcp`'s read_file does, under the same cap on its size
    cap = ws.settings.mcp_max_answer_chars if args.front == "mcp" else 0
    policy = ReadPolicy(elide_min_lines=args.elide_min_lines, max_answer_chars=cap or None)
    if session_id is None and not args.full:
        # a script, a CI job, a pipe: no terminal, no agent process, no id -- every read would
        # silently be the whole file; say so once per read, on stderr, with the way out
        print(f"{PROG}: note: {NO_SESSION}, or run it from a terminal; without one, every read is the "
              f"whole file (no skeleton, no [UNCHANGED], nothing remembered)", file=sys.stderr)
    try:
        known = present_ids(args.known)
        if known is not None and args.present is not None:
            raise _user_error("--known and --present are two ways to name what the model holds: give one")
        present = present_ids(args.present) if known is None else frozenset(known)
        names = args.symbol or []
        if names and args.format == "text" and not args.answer_id:  # symbols whole, and --offset/--limit too
            return _read_symbols(ws, path, session_id, names, policy, present, known, args.front,
                                 (args.offset, args.limit))
        if len(names) > 1:
            raise _user_error("several --symbol in one read answer as text only, without --answer-id")
        result = read_file(ws, path, session_id, offset=args.offset, limit=args.limit,
                           symbol=names[0] if names else None, force_full=args.full, policy=policy, confirm=False,
                           answer_id=args.answer_id, present=present, front=args.front)
        if args.format == "json":
            _emit_json(result.response)
        else:
            text = result.response["text"]
            if known is not None:  # the model passes ids back: the answer names its own
                from ..reads.hints import with_answer_id

                asked = args.offset is not None or args.limit is not None or args.symbol is not None
                why = result.fallback or (None if asked else "first")
                text = with_answer_id(text, result.response, result.response.get("path"), bool(known), args.front, why,
                                      known)
            sys.stdout.write(text + ("\n" if text and not text.endswith("\n") else ""))
        sys.stdout.flush()  # raises if the reader is gone: then the answer stays uncommitted
        result.commit()
        ws.maybe_gc()
    finally:
        ws.close()
    return result.exit_code


def _read_symbols(ws, path, session_id, names, policy, present, known, front, lines_too) -> int:
    """`tldrs read PATH --symbol A [--symbol B ...]`: each symbol whole, in one answer
    (`operations.read_symbols`); one symbol answers as a plain drill-in does. The
    caller closes *ws*."""
    from ..api.operations import read_symbols
    from ..reads.hints import symbols_read_answer

    parts, misses = read_symbols(ws, path, session_id, names, policy=policy, present=present, front=front,
                                 lines_too=lines_too)
    text = symbols_read_answer([(label, span, result.response, line) for label, span, result, line in parts],
                               misses, path, names, known, front)
    sys.stdout.write(text + ("\n" if text and not text.endswith("\n") else ""))
    sys.stdout.flush()  # raises if the reader is gone: then the answers stay uncommitted
    for _, _, result, _ in parts:
        result.commit()
    ws.maybe_gc()
    return max(result.exit_code for _, _, result, _ in parts)


# `tldrs read`'s options, read by both the argparse parser and the start-up fast
# path below: (flags, dest, type or choices, default, metavar, help).
_READ_OPTIONS = (
    (("--offset",), "offset", int, None, "N", "first line to read (1-based)"),
    (("--limit",), "limit", int, None, "N", "number of lines to read"),
    (("--symbol",), "symbol", str, None, "NAME",
     "read a symbol whole (drill-in); repeat it to read several in one call (a name its overloads share reads "
     "them all)"),
    (("--session-id",), "session_id", str, None, "S", "session (default: $SYMBOLPACK_SESSION_ID, then the agent process or terminal session; none: a plain read)"),
    (("--elide-min-lines",), "elide_min_lines", int, 3, "N",
     "in skeletons, hide no run shorter than N lines (default 3)"),
    (("--format",), "format", ("text", "json"), "text", None, "text (default) or the protocol's JSON"),
    (("--answer-id",), "answer_id", str, None, "ID",
     "keep this answer under ID (a host's tool-call id), for later --present sets"),
    (("--present",), "present", str, None, "IDS",
     "comma-separated ids of the answers still in the model's context, oldest first: answer against "
     "exactly what they gave it ('' for none)"),
    (("--known",), "known", str, None, "IDS",
     "the ids of earlier answers the model still sees, comma-separated, in any order (as MCP's known): the "
     "answer leans only on them and ends with its own id"),
    (("--front",), "front", ("cli", "mcp", "claude", "pi", "opencode"), "cli", None,
     "whose words markers and errors use: this CLI's flags (default), or the read tool's parameters "
     "of an MCP client, Claude Code, pi or OpenCode"),
)
_READ_FLAGS = ((("--full", "--no-compress"), "full", "plain full read: no skeleton, no delta"),)
_READ_REPEATED = frozenset({"symbol"})  # options given more than once make a list


def _fast_read_args(argv: list[str]):
    """`read` arguments without argparse (agents run one process per read; argparse
    and what it imports cost as much as the read). Anything unusual -- --help, an
    unknown option, a bad value, `--opt=value` -- returns None and argparse takes
    over, so errors and help read exactly as they always do."""
    from types import SimpleNamespace

    values: dict[str, object] = {dest: default for _, dest, _, default, _, _ in _READ_OPTIONS}
    values.update({dest: False for _, dest, _ in _READ_FLAGS})
    options = {flag: (dest, kind) for flags, dest, kind, _, _, _ in _READ_OPTIONS for flag in flags}
    switches = {flag: dest for flags, dest, _ in _READ_FLAGS for flag in flags}
    path = None
    it = iter(argv)
    for token in it:
        if token in switches:
            values[switches[token]] = True
        elif token in options:
            dest, kind = options[token]
            raw = next(it, None)
            if raw is None:
                return None
            if isinstance(kind, tuple):
                if raw not in kind:
                    return None
                values[dest] = raw
            else:
                try:
                    value = kind(raw)
                except ValueError:
                    return None
                if dest in _READ_REPEATED:
                    given = values[dest]
                    values[dest] = [*(given if isinstance(given, list) else []), value]
                else:
                    values[dest] = value
        elif token.startswith("-") or path is not None:
            return None
        else:
            path = token
    if path is None:
        return None
    return SimpleNamespace(command="read", func=cmd_read, debug=False, verbose=False, path=path, **values)


def cmd_session(args) -> int:
    from ..api import operations

    if args.action == "edit":
        return _session_edit(args)
    ws = _workspace()
    action = args.action
    if action == "list":
        sessions = ws.store.list_sessions()
        if args.json:
            _emit_json({"v": 1, "sessions": sessions})
        else:
            import time

            for s in sessions:
                age = time.time() - s["touched"] if s["touched"] else 0
                flag = " (corrupt)" if s.get("corrupt") else ""
                print(f"{s['id']}  {s['files']} files  last used {age / 60:.0f} min ago{flag}")
            if not sessions:
                print("no sessions")
        return 0
    if action == "gc":
        result = ws.store.gc()
        _emit_json({"v": 1, **result}) if args.json else print(
            f"removed {result['sessions_removed']} expired sessions and {result['objects_removed']} "
            f"unreferenced baselines; kept {result['objects_kept']}")
        return 0
    session_id = _session_id(args, ws)
    if session_id is None:
        print(f"{PROG}: error: {NO_SESSION}", file=sys.stderr)
        return EXIT_USAGE
    if action == "status":
        st = operations.status(ws, session_id)
        if args.json:
            _emit_json({"v": 1, **st})
        else:
            print(_format_status(st))
        return 0
    if action == "clear":
        existed = ws.store.clear(session_id)
        print(f"session {session_id} {'cleared' if existed else 'had nothing stored'}")
        return 0
    if action == "refresh":
        if not args.path:
            raise _user_error("session refresh needs a PATH")
        print(operations.refresh(ws, args.path, session_id, args.offset, args.limit))
        return 0
    raise _user_error(f"unknown session action {action!r}")


def _session_edit(args) -> int:
    """`tldrs session edit PATH --answer-id ID --present IDS (--edits [--together] | --write)`:
    the model's own edit of PATH, kept as an answer (`integrations/own_edits.py`) for a
    host that names the answers in its context. What the model did comes on stdin: with
    --edits a JSON list of {"old", "new", "replace_all"?}, with --write the text it wrote."""
    def bad(message: str) -> int:
        print(f"{PROG}: error: session edit: {message}", file=sys.stderr)
        return EXIT_USAGE

    if not args.path:
        return bad("needs a PATH")
    if not args.answer_id:
        return bad("needs --answer-id ID (the host's id for the edit call)")
    if args.present is None:
        return bad("needs --present IDS (the answers in the model's context before the edit; '' for none)")
    if args.edits == args.write:
        return bad("give exactly one of --edits (a JSON list on stdin) and --write (the written text on stdin)")
    if args.together and not args.edits:
        return bad("--together applies to --edits only")
    raw = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    edits = written = None
    if args.write:
        written = raw
    else:
        import json

        try:
            data = json.loads(raw)
        except ValueError as exc:
            return bad(f"--edits: stdin is not JSON ({exc})")
        if not isinstance(data, list) or not data:
            return bad("--edits: stdin must be a non-empty JSON list of {\"old\", \"new\", \"replace_all\"?}")
        edits = []
        for n, item in enumerate(data):
            if not (isinstance(item, dict) and isinstance(item.get("old"), str) and isinstance(item.get("new"), str)
                    and isinstance(item.get("replace_all", False), bool)
                    and set(item) <= {"old", "new", "replace_all"}):
                return bad(f"--edits: item {n} is not {{\"old\": string, \"new\": string, \"replace_all\"?: bool}}")
            edits.append((item["old"], item["new"], item.get("replace_all", False)))
    from ..integrations.own_edits import record_own_edit

    path = os.path.abspath(args.path)
    ws = _workspace(os.path.dirname(os.path.realpath(path)) if os.path.exists(path) else None)
    try:
        store = ws.store_or_none()
        if store is None:
            raise _user_error("no usable state dir: the edit is not kept")
        rel = record_own_edit(store, ws.root_dir, path, args.answer_id, present_ids(args.present) or [],
                              ws.settings.sensitive, edits,
                              written, args.together)
    finally:
        ws.close()
    print(f"{rel}: your edit is kept as answer {args.answer_id}")
    return 0


def _format_status(st: SessionStatus) -> str:
    modes = ", ".join(f"{k} {v}" for k, v in sorted(st["reads_by_mode"].items())) or "none"
    saved = st["saved_tokens"]
    share = f" ({saved / st['full_tokens']:.0%})" if st["full_tokens"] else ""
    return "\n".join([
        f"session {st['session_id']}: {st['files']} files tracked",
        f"reads: {st['reads']} ({modes})",
        f"tokens shown: {st['tokens']} vs {st['full_tokens']} for plain reads; saved {saved}{share}",
        f"hit rate (unchanged answers): {st['hit_rate']:.0%}",
        f"drill-ins: {st['drill_ins']}",
    ])


# --------------------------------------------------------------------------- parser

def _user_error(message: str, missing: bool = False):
    """The error to raise for a bad request (`UsageError`), or for a path that is not
    there (*missing*: `NotFound`); `_run` prints either as one line."""
    from ..base.errors import NotFound, UsageError

    return NotFound(message) if missing else UsageError(message)


def build_parser(only: str | None = None):
    """The argument parser; with *only*, just that command's subparser (start-up time)."""
    import argparse

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str):  # one line, not argparse's usage dump
            self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see --help)\n")

    parser = _Parser(
        prog=PROG,
        description="symbolpack: symbol-level, never-stale code reads for LLM coding agents.",
        epilog="Run 'tldrs COMMAND --help' for a command's options. Docs: README.md and ARCHITECTURE.md.",
    )
    from .._version import __version__

    parser.add_argument("--version", action="version", version=f"symbolpack {__version__}")
    parser.add_argument("--verbose", action="store_true",
                        help="log what symbolpack does on stderr (as SYMBOLPACK_LOG=debug)")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def wanted(*names: str) -> bool:
        return only is None or only in names

    if wanted("structure"):
        p = sub.add_parser("structure", help="outline every symbol of the files under PATH")
        p.add_argument("path", nargs="?", default=".", metavar="PATH")
        p.add_argument("--format", choices=("text", "json"), default="text")
        p.add_argument("--no-cache", action="store_true", help="parse everything afresh")
        p.set_defaults(func=cmd_structure)

    if wanted("extract"):
        p = sub.add_parser("extract", help="the symbols of one file, with spans and ETags")
        p.add_argument("file", metavar="FILE")
        p.add_argument("--format", choices=("text", "json"), default="text")
        p.add_argument("--no-cache", action="store_true", help="parse afresh")
        p.set_defaults(func=cmd_extract)

    if wanted("search"):
        p = sub.add_parser("search", help="fuzzy-find symbols by name, qualname or id")
        p.add_argument("query", metavar="QUERY")
        p.add_argument("--limit", type=int, default=10)
        p.add_argument("--path", default=None, help="search under this directory only")
        p.add_argument("--format", choices=("text", "json"), default="text")
        p.set_defaults(func=cmd_search)

    if wanted("read"):
        p = sub.add_parser("read", help="read a file the way an agent should: skeleton, delta or [UNCHANGED]",
                           description="Read PATH for this session: a skeleton first, then only what changed.")
        p.add_argument("path", metavar="PATH")
        for flags, dest, kind, default, metavar, help_text in _READ_OPTIONS:
            if dest in _READ_REPEATED:
                p.add_argument(*flags, dest=dest, type=str, action="append", metavar=metavar, help=help_text)
            elif isinstance(kind, tuple):
                p.add_argument(*flags, dest=dest, choices=kind, default=default, help=help_text)
            else:
                p.add_argument(*flags, dest=dest, type=kind, default=default, metavar=metavar, help=help_text)
        for switches, dest, help_text in _READ_FLAGS:
            p.add_argument(*switches, dest=dest, action="store_true", help=help_text)
        p.set_defaults(func=cmd_read)

    if wanted("session"):
        p = sub.add_parser("session", help="inspect and manage read sessions")
        p.add_argument("action", choices=("status", "list", "refresh", "edit", "clear", "gc"))
        p.add_argument("path", nargs="?", default=None, metavar="PATH", help="for refresh and edit")
        p.add_argument("--offset", type=int, default=None)
        p.add_argument("--limit", type=int, default=None)
        p.add_argument("--session-id", default=None, metavar="S")
        p.add_argument("--json", action="store_true")
        p.add_argument("--answer-id", default=None, metavar="ID",
                       help="edit: keep the model's own edit as the answer ID (the host's id for the edit call)")
        p.add_argument("--present", default=None, metavar="IDS",
                       help="edit: the answers in the model's context before the edit, oldest first ('' for none)")
        p.add_argument("--edits", action="store_true",
                       help='edit: stdin is a JSON list of {"old", "new", "replace_all"?}, applied one after '
                            "another (Claude Code's Edit)")
        p.add_argument("--together", action="store_true",
                       help="edit: with --edits, every old text is matched once against the file before the "
                            "edit, all applied at once (pi's edit)")
        p.add_argument("--write", action="store_true", help="edit: stdin is the whole text the model wrote")
        p.set_defaults(func=cmd_session)

    for register, names in _EXTENSIONS:
        if wanted(*names):
            register(sub)
    return parser


def _extension(module: str, function: str):
    def register(sub):
        from importlib import import_module

        getattr(import_module(module, __package__), function)(sub)

    return register


# Commands that live in their own modules: (registrar, the command names it adds).
_EXTENSIONS: list = [
    (_extension("..evaluation.command", "add_eval_parser"), {"eval"}),
    (_extension("..evaluation.agentab.command", "add_ab_parser"), {"ab"}),
    (_extension(".packs", "add_context_parsers"), {"context", "diff-context"}),
    (_extension("..integrations.commands", "add_integration_parsers"),
     {"mcp", "hook", "chibi", "install", "uninstall", "doctor"}),
]
_BUILTIN_COMMANDS = {"structure", "extract", "search", "read", "session"}


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    if args_in in (["--version"], ["-V"]):  # hooks and health checks: skip building the parser
        from .._version import __version__

        sys.stdout.write(f"symbolpack {__version__}\n")
        return 0
    _configure_logging("--verbose" in args_in[:1])
    if args_in[:1] == ["hook"]:  # one process per agent tool call: no argparse on this path
        from ..integrations.claude import run_as_process

        run_as_process(args_in[1:])
    if args_in[:2] == ["chibi", "plugin"] and "-h" not in args_in and "--help" not in args_in:
        from ..integrations.chibi.plugin import main as chibi_main  # Chibi runs it for every tool call and hook

        return chibi_main(args_in[2:])
    if args_in[:2] == ["chibi", "lang"] and len(args_in) >= 3 and not args_in[2].startswith("-"):
        from ..integrations.chibi.lang import main as lang_main  # one process per indexed file

        return lang_main(args_in[2:])
    args = _fast_read_args(args_in[1:]) if args_in[:1] == ["read"] else None
    if args is not None:
        code = _run(args)
        if argv is None:  # this process's own command line: end it as soon as it is answered
            from ..base.process import exit_now

            exit_now(code)
        return code
    first = next((a for a in args_in if not a.startswith("-")), None)
    known = _BUILTIN_COMMANDS.union(*(names for _, names in _EXTENSIONS))
    parser = build_parser(only=first if first in known else None)
    args = parser.parse_args(args_in)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    return _run(args)


def _configure_logging(verbose: bool) -> None:
    """Warnings (a corrupt session moved aside, an unusable state dir) as one
    `symbolpack: warning: ...` line on stderr; debug notes with --verbose or
    SYMBOLPACK_LOG=debug. Nothing is imported until a first record is logged."""
    from ..base.log import configure
    from ..base.settings import load_settings

    configure("debug" if verbose else load_settings().log)


def _run(args) -> int:
    """Run a parsed command; every failure becomes one line on stderr (and the
    protocol's error object with --format json)."""
    from ..base.settings import load_settings

    settings = load_settings()  # the environment's; a project's pyproject.toml is read by its workspace
    debug = args.debug or settings.debug
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:
        from ..base.errors import SymbolpackError

        if debug:
            raise
        if isinstance(exc, SymbolpackError):
            message = str(exc)
        elif isinstance(exc, OSError):
            message = f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc)
        else:
            message = f"internal error: {type(exc).__name__}: {exc} (rerun with --debug for the traceback)"
        if getattr(args, "format", None) == "json":
            _emit_json({"v": 1, "mode": "error", "error": message})
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
