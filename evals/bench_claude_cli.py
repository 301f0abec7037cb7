"""What symbolpack's hooks add to each tool call in the real Claude Code CLI, against plain Claude Code in the same run.

The pinned Claude Code (`tests/e2e/npm/claude`, installed into the e2e cache when
missing) runs headless against the scripted model of `tests/e2e/fake_anthropic.py`
on 127.0.0.1: the `work` run of `tests/e2e/test_claude_code.py` (first read,
re-reads, an outside change, own edits, a range, two reads in one message, a stale
edit: 17 tool calls, 11 of them Reads), with fresh tool ids and the files reset
before every run. Arms, interleaved run by run:

* `plain`: no hooks;
* `resident`: `tldrs install claude`, hooks answered by the resident hook server
  (the default; its first run, which starts it, is a warm-up and not timed);
* `in-process`: the same hooks, each in its own process (`SYMBOLPACK_HOOK_SERVER=0`).

Reported: per arm the median wall time of a run, and per tool call the median over
runs of (arm - plain) / tool calls, each run paired with the plain run beside it.
Target (issue 28): at most 50 ms added per tool call at the median.

Usage: python evals/bench_claude_cli.py [--runs N] [--arms plain,resident,in-process] [--json]
Exit 1 when the resident arm adds more than --max-ms per tool call (default 50).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

E2E = Path(__file__).resolve().parent.parent / "tests" / "e2e"
sys.path.insert(0, str(E2E))

import clients  # noqa: E402
import fake_anthropic  # noqa: E402
from test_claude_code import APP, NOTES, Lab, scenario  # noqa: E402


def fresh_ids(turns: list) -> list:
    """The scenario's turns with new tool ids (the store keeps answers by id)."""
    turns = copy.deepcopy(turns)
    for turn in turns:
        for block in turn:
            if block.get("type") == "tool_use":
                block["id"] = f"toolu_{uuid.uuid4().hex[:20]}"
    return turns


def run_once(lab: Lab, claude: Path, extra_env: dict) -> tuple[float, int]:
    """One `work` run from the files' first state: (wall seconds, tool calls)."""
    (lab.proj / "app.py").write_text(APP)
    (lab.proj / "notes.txt").write_text(NOTES)
    turns = fresh_ids(scenario(lab.proj)["work"])
    calls = sum(1 for turn in turns for block in turn if block.get("type") == "tool_use")
    lab.server.set_script(turns, "work")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(lab.home), "LANG": "C.UTF-8",
           "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{lab.port}", "ANTHROPIC_API_KEY": "fake",
           "DISABLE_TELEMETRY": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
           "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1", "IS_SANDBOX": "1", **extra_env}
    start = time.perf_counter()
    proc = subprocess.run([str(claude), "-p", "work", "--output-format", "stream-json", "--verbose",
                           "--model", "claude-sonnet-4-5", "--permission-mode", "bypassPermissions",
                           "--session-id", str(uuid.uuid4())], cwd=lab.proj, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=300)
    wall = time.perf_counter() - start
    if proc.returncode != 0 or lab.server.remaining():
        raise SystemExit(f"the run failed: {proc.stderr[-600:]}")
    return wall, calls


def bench(runs: int, arms: list[str]) -> dict:
    claude = clients.claude_binary()
    with tempfile.TemporaryDirectory(prefix="symbolpack-bench-cli-") as tmp:
        labs: dict[str, Lab] = {}
        envs: dict[str, dict] = {}
        for arm in arms:
            state = Path(tmp) / f"state-{arm}"
            os.environ["SYMBOLPACK_DIR"] = str(state)  # Lab installs with it; runs get it below
            labs[arm] = Lab(Path(tmp) / arm, claude, hooks=arm != "plain")
            envs[arm] = {"SYMBOLPACK_DIR": str(state), "SYMBOLPACK_HOOK_SERVER_IDLE": "120"}
            if arm == "in-process":
                envs[arm]["SYMBOLPACK_HOOK_SERVER"] = "0"
        os.environ.pop("SYMBOLPACK_DIR", None)
        try:
            for arm in arms:  # warm-up: the resident arm starts its server here
                run_once(labs[arm], claude, envs[arm])
            time.sleep(1.0)
            walls: dict[str, list[float]] = {arm: [] for arm in arms}
            calls = 0
            for _ in range(runs):
                for arm in arms:
                    wall, calls = run_once(labs[arm], claude, envs[arm])
                    walls[arm].append(wall)
        finally:
            for lab in labs.values():
                lab.server.shutdown()
                for sock in (lab.home / ".local" / "state" / "symbolpack" / "claude-hooks").glob("*.sock"):
                    sock.unlink()  # the resident server ends when its socket is gone
    out: dict = {"runs": runs, "tool_calls": calls, "arms": {}}
    for arm in arms:
        row: dict = {"median_s": round(statistics.median(walls[arm]), 3)}
        if arm != "plain" and "plain" in walls:
            added = [(a - p) / calls * 1000 for a, p in zip(walls[arm], walls["plain"])]
            row["added_ms_per_call"] = round(statistics.median(added), 1)
        out["arms"][arm] = row
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--arms", default="plain,resident,in-process")
    parser.add_argument("--max-ms", type=float, default=50.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    arms = args.arms.split(",")
    if "plain" not in arms:
        arms.insert(0, "plain")
    results = bench(args.runs, arms)
    added = results["arms"].get("resident", {}).get("added_ms_per_call")
    results["ok"] = added is None or added <= args.max_ms
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print(f"real Claude Code, `work` scenario, {results['tool_calls']} tool calls; medians of {args.runs} "
              f"interleaved runs")
        for arm, row in results["arms"].items():
            extra = f", {row['added_ms_per_call']:+.1f} ms per tool call vs plain" if "added_ms_per_call" in row else ""
            print(f"  {arm:<11} {row['median_s']:6.2f} s per run{extra}")
        print("OK" if results["ok"] else f"OVER TARGET (resident adds more than {args.max_ms} ms per tool call)")
    return 0 if results["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
