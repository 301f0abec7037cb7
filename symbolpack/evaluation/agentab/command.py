"""`tldrs ab`: the real-agent A/B from the command line.

    tldrs ab setup EPISODE.json plain|symbolpack RUNDIR    a run directory for one agent
    tldrs ab prompt RUNDIR                                 the prompt to give that agent
    tldrs ab grade RUNDIR                                  one run's figures
    tldrs ab report RUNDIR...                              the A/B table over many runs
    tldrs ab run EPISODE.json... --agent CMD --out DIR     set up, run your agent, report

`run` gives each run a neutral name (the agent sees its path, never its arm),
starts CMD in that directory with the prompt on stdin (e.g. `claude -p
--allowedTools Bash`, or `codex exec -`), waits, and reports.
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import subprocess
import sys
from pathlib import Path

DESCRIPTION = """\
Measure, with a real LLM agent, what symbolpack saves: the same multi-step tasks on a real
repository (questions checked exactly, edits checked on the final file, later real commits
landing between steps), read through plain Claude-Code-style reads or through symbolpack.
Cost charges each call the context it re-sends (0.1 x, a cache read) plus its output."""


def add_ab_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("ab", help="real-agent A/B: plain reads against symbolpack's, scored by cost",
                              description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="ab_command", required=True)
    s = sub.add_parser("setup", help="a run directory for one agent in one arm")
    s.add_argument("episode")
    s.add_argument("arm", choices=("plain", "symbolpack", "mcp"),
                   help="plain reads; symbolpack as Claude Code's hooks answer; symbolpack as an MCP client gets it")
    s.add_argument("rundir")
    s.add_argument("--mirrors", metavar="DIR", default=None,
                   help="folder of clones named owner+name (default: $SYMBOLPACK_MIRRORS)")
    s.add_argument("--tldrs", metavar="CMD", default=None, help="how the symbolpack and mcp arms run tldrs (default: this one)")
    s.add_argument("--without", action="append", default=[], choices=("grep",),
                   help="a tool the agent does not get (an agent that can only read)")
    s = sub.add_parser("prompt", help="the prompt for a run's agent")
    s.add_argument("rundir")
    s = sub.add_parser("grade", help="one run's figures")
    s.add_argument("rundir")
    s.add_argument("--json", action="store_true")
    s = sub.add_parser("report", help="the A/B table over runs")
    s.add_argument("rundirs", nargs="+")
    s.add_argument("--json", action="store_true")
    s = sub.add_parser("run", help="set up runs of both arms, run an agent command in each, report")
    s.add_argument("episodes", nargs="+")
    s.add_argument("--agent", required=True, metavar="CMD",
                   help="the agent command; it gets the prompt on stdin (e.g. \"claude -p --allowedTools Bash\")")
    s.add_argument("--out", required=True, metavar="DIR", help="where the run directories go")
    s.add_argument("--rounds", type=int, default=2, help="runs per arm and episode (default 2)")
    s.add_argument("--mirrors", metavar="DIR", default=None)
    s.add_argument("--seed", type=int, default=0, help="order of the runs and their names")
    s.add_argument("--without", action="append", default=[], choices=("grep",),
                   help="a tool the agents do not get")
    s.add_argument("--against", choices=("symbolpack", "mcp"), default="symbolpack",
                   help="the arm run against plain: symbolpack as Claude Code's hooks answer (default), or "
                        "over MCP (read_file with the ids the agent passes back)")
    p.set_defaults(func=cmd_ab)
    return p


def cmd_ab(args) -> int:
    from .grade import grade_run
    from .lab import prompt_for, setup
    from .report import ab_report, format_report

    if args.ab_command == "setup":
        rundir = setup(args.episode, args.arm, args.rundir, mirrors=args.mirrors, tldrs=args.tldrs,
                       without=tuple(args.without))
        sys.stdout.write(f"{rundir}/lab is ready; its prompt: tldrs ab prompt {rundir}\n")
    elif args.ab_command == "prompt":
        sys.stdout.write(prompt_for(_rundir(args.rundir)))
    elif args.ab_command == "grade":
        graded = grade_run(_rundir(args.rundir))
        sys.stdout.write(json.dumps(graded, indent=1) + "\n" if args.json else _one_line(graded) + "\n")
    elif args.ab_command == "report":
        report = ab_report([grade_run(_rundir(d)) for d in args.rundirs])
        sys.stdout.write(json.dumps(report, indent=1) + "\n" if args.json else format_report(report))
    else:
        runs = _plan(args.episodes, args.rounds, Path(args.out), args.seed, args.against)
        for episode, arm, rundir in runs:
            setup(episode, arm, str(rundir), mirrors=args.mirrors, without=tuple(args.without))
            with open(rundir / "agent.log", "w") as log:
                subprocess.run(shlex.split(args.agent), input=prompt_for(rundir), text=True, cwd=rundir,
                               stdout=log, stderr=subprocess.STDOUT)
            sys.stderr.write(_one_line(grade_run(rundir)) + "\n")
        sys.stdout.write(format_report(ab_report([grade_run(r) for _, _, r in runs])))
    return 0


def _rundir(path: str) -> Path:
    from ...base.errors import NotFound

    p = Path(path)
    if not (p / "state.json").is_file():
        raise NotFound(f"{path} is not a run directory (no state.json; make one with tldrs ab setup)")
    return p


def _plan(episodes: list[str], rounds: int, out: Path, seed: int,
          against: str = "symbolpack") -> list[tuple[str, str, Path]]:
    """Every (episode, arm) `rounds` times, in a seeded order, under neutral numbered names."""
    jobs = [(e, arm) for _ in range(rounds) for e in episodes for arm in ("plain", against)]
    random.Random(seed).shuffle(jobs)
    return [(e, arm, out / f"run-{k:02d}") for k, (e, arm) in enumerate(jobs, 1)]


def _one_line(g: dict) -> str:
    return (f"{g['episode']} [{g['arm']}] {Path(g['run']).name}: questions {g['questions_right']}/{g['questions']}, "
            f"edits {g['edits_passed']}/{g['edits']}, calls {g['tool_calls']}, tokens {g['tool_tokens']}, "
            f"cost {g['cost']:.0f}, feedback: {g['feedback']}")
