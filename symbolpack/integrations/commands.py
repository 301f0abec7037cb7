"""The CLI's integration commands: `mcp`, `hook`, `qwen-hook`, `chibi`, `install`, `uninstall`, `doctor`.

`symbolpack.cli` registers them with one call, `add_integration_parsers(subparsers)`;
each command imports its module only when it runs, so `tldrs read` pays
nothing for them. `python -m symbolpack.integrations.commands ...` runs the
same commands without `symbolpack.cli`.
"""

from __future__ import annotations

import sys

AGENTS = ("claude", "codex", "gemini", "chibi", "pi", "opencode", "qwen")
HOOK_NAMES = ("claude-pre-read", "claude-post-read", "claude-pre-edit", "claude-post-edit", "claude-session-start")


def cmd_mcp(args) -> int:
    from pathlib import Path

    from .mcp.server import serve

    return serve(Path(args.root) if args.root else None, args.session_id)


def cmd_hook(args) -> int:
    from .claude import run_as_process

    run_as_process([args.name])  # does not return: the hook process ends here
    return 0


def cmd_qwen_hook(args) -> int:
    from .qwen.runner import run_as_process

    run_as_process([args.name])  # does not return: the hook process ends here
    return 0


def cmd_chibi(args) -> int:
    if args.what == "lang":
        from .chibi.lang import main

        return main([args.language, *(["--schema"] if args.schema else [])])
    from .chibi.plugin import main

    return main([*(["--home", args.home] if args.home else []), *(["--schema"] if args.schema else [])])


def cmd_install(args) -> int:
    if args.agent == "chibi":
        from .chibi.install import install as install_chibi

        return install_chibi(home=args.home, dry_run=args.dry_run)
    if args.agent == "pi":
        from .pi.install import install as install_pi

        return install_pi(global_=args.global_, dry_run=args.dry_run)
    if args.agent == "opencode":
        from .opencode.install import install as install_opencode

        return install_opencode(global_=args.global_, dry_run=args.dry_run)
    from .installers.install import install

    return install(args.agent, global_=args.global_, dry_run=args.dry_run)


def cmd_uninstall(args) -> int:
    if args.agent == "chibi":
        from .chibi.install import uninstall as uninstall_chibi

        return uninstall_chibi(home=args.home, dry_run=args.dry_run)
    if args.agent == "pi":
        from .pi.install import uninstall as uninstall_pi

        return uninstall_pi(global_=args.global_, dry_run=args.dry_run)
    if args.agent == "opencode":
        from .opencode.install import uninstall as uninstall_opencode

        return uninstall_opencode(global_=args.global_, dry_run=args.dry_run)
    from .installers.install import uninstall

    return uninstall(args.agent, global_=args.global_, dry_run=args.dry_run)


def cmd_doctor(args) -> int:
    from .installers.doctor import doctor

    return doctor(as_json=args.json)


def add_integration_parsers(subparsers) -> None:
    """Register the integration commands on the CLI's subparsers."""
    p = subparsers.add_parser("mcp", help="serve symbolpack's tools to an MCP client over stdio",
                              description="Run the stdio MCP server (tools: read_file, context, diff_context, "
                                          "search_symbols, refresh, session_status).")
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

    p = subparsers.add_parser("qwen-hook", help="run one Qwen Code hook (payload JSON on stdin)",
                              description="Answer one Qwen Code hook. Never fails the tool call: "
                                          "any problem means exit 0 and no decision.")
    p.add_argument("name", metavar="NAME", help="qwen-pre-read, qwen-post-read, qwen-post-edit (the retired "
                                                "qwen-edit-refused and qwen-lifecycle of older installs do nothing)")
    p.set_defaults(func=cmd_qwen_hook)

    p = subparsers.add_parser("chibi", help="what Chibi runs: its language plugins and symbolpack's plugin",
                              description="Run by the launchers `tldrs install chibi` writes into Chibi's "
                                          "plugins directory; input is JSON on stdin, as Chibi sends it.")
    chibi = p.add_subparsers(dest="what", metavar="lang|plugin", required=True)
    q = chibi.add_parser("lang", help="a language plugin (lang_LANGUAGE): symbols and refs of a batch of files")
    q.add_argument("language", metavar="LANGUAGE", help="Chibi's language name (python, rust, shell, ...)")
    q.add_argument("--schema", action="store_true", help="print the plugin schema")
    q.set_defaults(func=cmd_chibi)
    q = chibi.add_parser("plugin", help="the symbolpack plugin: tools ($CHIBI_TOOL_NAME) and hooks ($CHIBI_HOOK)")
    q.add_argument("--home", default=None, metavar="DIR", help="the Chibi home the plugin is installed in")
    q.add_argument("--schema", action="store_true", help="print the plugin schema")
    q.set_defaults(func=cmd_chibi)

    for name, verb in (("install", "add symbolpack to"), ("uninstall", "remove symbolpack from")):
        p = subparsers.add_parser(name, help=f"{verb} an agent's settings ({', '.join(AGENTS)})",
                                  description=f"{verb.capitalize()} the agent's settings: Claude Code hooks, "
                                              f"the MCP server for Codex and Gemini, Chibi's plugins "
                                              f"directory, pi's extensions directory, or OpenCode's plugin "
                                              f"directory. Prints exactly what changed; keeps a backup of "
                                              f"what it replaces.")
        p.add_argument("agent", choices=AGENTS, metavar="AGENT", help=", ".join(AGENTS))
        p.add_argument("--global", dest="global_", action="store_true",
                       help="the user-wide settings in your home directory (default: this project's; "
                            "chibi: always its home)")
        p.add_argument("--home", default=None, metavar="DIR",
                       help="chibi only: its home (default: $CHIBI_HOME, else ~/.chibi)")
        p.add_argument("--dry-run", action="store_true", help="show the change without writing it")
        p.set_defaults(func=cmd_install if name == "install" else cmd_uninstall)

    p = subparsers.add_parser("doctor", help="what is installed for which agent, and whether it works here",
                              description="Starts each installed MCP server as its host would and lists its tools, "
                                          "checks Codex's and Gemini's trust of this project, runs the Claude Code "
                                          "hooks and Chibi launchers on probes. Exit 0: everything installed works; "
                                          "1: something does not (one line per problem).")
    p.add_argument("--json", action="store_true", help="the whole report as JSON")
    p.set_defaults(func=cmd_doctor)


def _mcp_main(argv: list[str] | None = None) -> int:
    from .mcp.server import main

    return main(argv)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m symbolpack.integrations.commands")
    add_integration_parsers(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except Exception as exc:
        from ..base.errors import SymbolpackError

        if not isinstance(exc, SymbolpackError):
            raise
        print(f"tldrs: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
