"""`tldrs context` and `tldrs diff-context`: argparse wiring for context packs.

Kept apart from the front end (`cli/__init__.py`) so the packer's options live next to each other and
the front end registers them with one call. Like the rest of the CLI, nothing heavy
is imported until a command runs; errors are `SymbolpackError`s, which the
main entry point prints as one line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

DEFAULT_BUDGET = 8000  # mirrors context.DEFAULT_BUDGET without importing it at start-up


def _emit(result, fmt: str, with_text: bool = False) -> int:
    """Print the pack, then confirm its delivery (the session trusts what it showed
    only from then on; a process killed before that leaves it "unsure"). The JSON
    form holds the text's content in its fields: the text itself only on request."""
    if fmt == "json":
        data = result if with_text else {k: v for k, v in result.items() if k != "text"}
        sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
    else:
        text = result["text"]
        sys.stdout.write(text + ("\n" if text and not text.endswith("\n") else ""))
    sys.stdout.flush()
    result.commit()
    return 0


def _workspace():
    from ..api.operations import Workspace
    from ..base.settings import load_settings
    from ..base.workspace import project_root

    root = project_root(Path.cwd())
    return Workspace(root, load_settings(root))


def _session(args, ws) -> tuple[str | None, bool]:
    """(session id, delta): with no session (see session_id.py) a pack is sent whole
    and nothing is recorded, as with --no-delta."""
    if args.no_delta:
        return None, False
    from ..state.session_id import resolve_session_id

    session_id = resolve_session_id(args.session_id, ws.settings)
    return session_id, session_id is not None


def cmd_context(args) -> int:
    from ..api.context import context_pack
    from . import present_ids

    ws = _workspace()
    try:
        session_id, delta = _session(args, ws)
        result = context_pack(ws, args.entry, depth=args.depth, budget=args.budget, callers=args.callers,
                              session_id=session_id, delta=delta, confirm=False, front=args.front,
                              answer_id=args.answer_id, present=present_ids(args.present))
        return _emit(result, args.format, args.with_text)
    finally:
        ws.close()


def cmd_diff_context(args) -> int:
    from ..api.context import diff_context
    from . import present_ids

    ws = _workspace()
    try:
        session_id, delta = _session(args, ws)
        result = diff_context(ws, base=args.base, head=args.head, session_id=session_id,
                              delta=delta, budget=args.budget, confirm=False, front=args.front,
                              answer_id=args.answer_id, present=present_ids(args.present))
        return _emit(result, args.format, args.with_text)
    finally:
        ws.close()


def _common(p) -> None:
    p.add_argument("--budget", type=int, default=DEFAULT_BUDGET, metavar="TOKENS",
                   help=f"token budget for the pack (default {DEFAULT_BUDGET})")
    p.add_argument("--session-id", default=None, metavar="S",
                   help="session whose earlier context makes unchanged symbols [UNCHANGED] stubs "
                        "(default: $SYMBOLPACK_SESSION_ID, then the agent process or terminal session; "
                        "none: no delta)")
    p.add_argument("--no-delta", action="store_true", help="neither read nor update the session")
    p.add_argument("--answer-id", default=None, metavar="ID",
                   help="keep this pack as an answer under ID (a host's tool-call id), for later --present sets")
    p.add_argument("--present", default=None, metavar="IDS",
                   help="comma-separated ids of the answers still in the model's context, oldest first: "
                        "[UNCHANGED] stubs only for code they gave it ('' for none)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--with-text", action="store_true",
                   help="with --format json: also put the text rendering in the JSON (`text`)")
    p.add_argument("--front", choices=("cli", "mcp", "claude", "pi", "opencode"), default="cli",
                   help="whose words the pack's \"not shown\" lines use: this CLI's flags (default), "
                        "or the read tool's parameters of an MCP client, Claude Code, pi or OpenCode")


def add_context_parsers(subparsers) -> None:
    """Register `context` and `diff-context` on an argparse subparsers object."""
    p = subparsers.add_parser(
        "context", help="a symbol with its callees (and callers) under a token budget",
        description="Pack ENTRY (a qualname, an id, or FILE:NAME) with code, and the symbols it calls "
                    "breadth-first to --depth: the nearest with code, the rest as signatures.")
    p.add_argument("entry", metavar="ENTRY")
    p.add_argument("--depth", type=int, default=2, help="call-graph hops to follow (default 2)")
    p.add_argument("--callers", action="store_true", help="follow callers as well as callees")
    _common(p)
    p.set_defaults(func=cmd_context)

    p = subparsers.add_parser(
        "diff-context", help="the symbols a change touches, with callers, callees and tests",
        description="Pack the symbols the working tree (staged, unstaged and untracked files) changes "
                    "against --base, or that --head changes against --base; everything else that "
                    "changed comes as unified diffs.")
    p.add_argument("--base", default="HEAD", metavar="REV", help="revision to compare against (default HEAD)")
    p.add_argument("--head", default=None, metavar="REV", help="compare two commits: --base A --head B")
    _common(p)
    p.set_defaults(func=cmd_diff_context)
