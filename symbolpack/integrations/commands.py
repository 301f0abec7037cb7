"""The CLI's integration commands: `mcp`, `hook`, `install`, `uninstall`, `doctor`.

`cli.py` registers them with one call, `add_integration_parsers(subparsers)`;
each command imports its module only when it runs, so `tldrs read` pays
nothing for them. `python -m symbolpack.integrations.commands ...` runs the
same commands without `cli.py`.
"""

from __future__ import annotations

import sys

AGENTS = ("claude", "codex", "gemini")
HOOK_NAMES = ("claude-pre-read", "claude-pre-edit", "claude-post-edit", "claude-session-start")


def cmd_mcp(args) -> int:
    from pathlib import Path

    from .mcp_server import serve

    return serve(Path(args.root) if args.root else None, args.session_id)


def cmd_hook(args) -> int:
    from .claude import run_as_process

    run_as_process([args.name])  # does not return: the hook process ends here
    return 0


def cmd_install(args) -> int:
    from .install import install

    return install(args.agent, global_=args.global_, dry_run=args.dry_run)


def cmd_uninstall(args) -> int:
    from .install import uninstall

    return uninstall(args.agent, global_=args.global_, dry_run=args.dry_run)


def cmd_doctor(args) -> int:
    from .install import doctor

    return doctor(as_json=args.json)


def add_integration_parsers(subparsers) -> None:
    """Register the integration commands on the CLI's subparsers."""
    p = subparsers.add_parser("mcp", help="serve symbolpack's tools to an MCP client over stdio",
                              description="Run the stdio MCP server (needs: pip install 'symbolpack[mcp]').")
    p.add_argument("--root", default=None, metavar="DIR",
                   help="project root (default: the repository of the working directory)")
    p.add_argument("--session-id", default=None, metavar="S",
                   help="default session for this connection (default: a new one per connection)")
    p.set_defaults(func=cmd_mcp)

    p = subparsers.add_parser("hook", help="run one Claude Code hook (payload JSON on stdin)",
                              description="Answer one Claude Code hook. Never fails the tool call: "
                                          "any problem means exit 0 and no decision.")
    # no `choices`: a usage error exits 2, which Claude Code treats as "block the tool call"
    p.add_argument("name", metavar="NAME", help=", ".join(HOOK_NAMES))
    p.set_defaults(func=cmd_hook)

    for name, verb in (("install", "add symbolpack to"), ("uninstall", "remove symbolpack from")):
        p = subparsers.add_parser(name, help=f"{verb} an agent's settings (claude, codex, gemini)",
                                  description=f"{verb.capitalize()} the agent's settings: Claude Code hooks, "
                                              f"or the MCP server for Codex and Gemini. Prints exactly what "
                                              f"changed; keeps a backup next to the file.")
        p.add_argument("agent", choices=AGENTS, metavar="AGENT", help=", ".join(AGENTS))
        p.add_argument("--global", dest="global_", action="store_true",
                       help="the user-wide settings in your home directory (default: this project's)")
        p.add_argument("--dry-run", action="store_true", help="show the change without writing it")
        p.set_defaults(func=cmd_install if name == "install" else cmd_uninstall)

    p = subparsers.add_parser("doctor", help="what is installed for which agent, and whether the hooks answer")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_doctor)


def _mcp_main(argv: list[str] | None = None) -> int:
    from .mcp_server import main

    return main(argv)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m symbolpack.integrations.commands")
    add_integration_parsers(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except Exception as exc:
        from ..workspace import SymbolpackError

        if not isinstance(exc, SymbolpackError):
            raise
        print(f"tldrs: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
