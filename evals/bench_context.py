#!/usr/bin/env python3
"""Benchmark `tldrs diff-context` against `git diff` of the same change, in one run.

Generates a ~15k-line Python repository (modules of classes and functions that
import and call each other), commits it, then lays a ~100-line change on the
working tree (bodies edited in several files, one function added, one new file).
It measures, each as a fresh process:

  (a) baseline: ``git diff HEAD`` of that change;
  (b) cold:  ``tldrs diff-context --no-delta --format json`` with an empty
      ``SYMBOLPACK_DIR`` (no parse cache, no graph cache);
  (c) warm:  the same command against the caches (b) filled;
  (d) warm with a session (delta on, second call: stubs served from the session).

One untimed run first lets Python write its bytecode (``PYTHONDONTWRITEBYTECODE``
is dropped for the children): compiling symbolpack's source is not what is
measured. Wall-clock and CPU (user+sys, from ``rusage``) are both reported;
CPU does not grow when other work shares the machine.

and prints medians over ``--reps`` with the ratios against (a) and the
absolute targets (cold <= 0.5 s, warm <= 0.2 s on a 2-core machine). It
reports; it asserts nothing.

If the installed ``tldrs`` does not know ``diff-context`` yet, the command runs
through a tiny argparse runner over ``symbolpack.cli.packs`` instead (same
code path below the parser).

Example:
    python evals/bench_context.py --reps 5
    python evals/bench_context.py --json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = {"cold_seconds": 0.5, "warm_seconds": 0.2}
RUNNER = (
    "import argparse, sys\n"
    "from symbolpack.cli.packs import add_context_parsers\n"
    "p = argparse.ArgumentParser(prog='tldrs'); add_context_parsers(p.add_subparsers())\n"
    "a = p.parse_args(sys.argv[1:])\n"
    "from symbolpack.base.workspace import SymbolpackError\n"
    "try:\n    sys.exit(a.func(a))\n"
    "except SymbolpackError as e:\n    print('tldrs: error:', e, file=sys.stderr); sys.exit(1)\n"
)
_WORDS = ("cart order price item stock user account session token cache ledger invoice "
          "payment refund tax discount coupon report export import batch queue").split()


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


# --------------------------------------------------------------------------- corpus

def _function(rng: random.Random, name: str, callees: list[str], indent: str = "") -> list[str]:
    lines = [f"{indent}def {name}(self, value, count=1):" if indent else f"def {name}(value, count=1):",
             f'{indent}    """Compute {name.replace("_", " ")}."""', f"{indent}    total = 0"]
    for i in range(rng.randint(6, 16)):
        if callees and rng.random() < 0.3:
            lines.append(f"{indent}    total += {rng.choice(callees)}(value + {i})")
        else:
            lines.append(f"{indent}    total += value * {rng.randint(1, 99)} - count")
    lines += [f"{indent}    if total > {rng.randint(100, 999)}:", f"{indent}        total //= 2",
              f"{indent}    return total", ""]
    return lines


def generate(root: Path, target_lines: int = 15000, seed: int = 7) -> int:
    rng = random.Random(seed)
    pkg = root / "app"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    modules: list[tuple[str, list[str]]] = []
    total = 0
    m = 0
    while total < target_lines:
        name = f"{rng.choice(_WORDS)}_{m}"
        m += 1
        lines = ['"""Generated module."""', ""]
        imported: list[str] = []
        for prev_name, prev_funcs in rng.sample(modules, min(3, len(modules))):
            pick = rng.sample(prev_funcs, min(2, len(prev_funcs)))
            lines.append(f"from .{prev_name} import {', '.join(pick)}")
            imported += pick
        lines += ["", ""]
        funcs: list[str] = []
        for f in range(rng.randint(8, 14)):
            fname = f"{rng.choice(_WORDS)}_{rng.choice(_WORDS)}_{m}_{f}"
            lines += _function(rng, fname, imported + funcs) + [""]
            funcs.append(fname)
        cls = f"{rng.choice(_WORDS).title()}Service{m}"
        lines += [f"class {cls}:", f'    """Service {m}."""', ""]
        for meth in range(rng.randint(3, 6)):
            lines += _function(rng, f"handle_{meth}", imported + funcs, indent="    ")
        (pkg / f"{name}.py").write_text("\n".join(lines) + "\n")
        modules.append((name, funcs))
        total += len(lines)
    (root / "README.md").write_text("# generated\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "generated")
    return total


def change(root: Path, target: int = 100, seed: int = 11) -> int:
    """Edit ~*target* lines: bodies in a few modules, a new function, a new file."""
    rng = random.Random(seed)
    files = sorted((root / "app").glob("*_*.py"))
    changed = 0
    for path in rng.sample(files, 4):
        lines = path.read_text().split("\n")
        idx = [i for i, line in enumerate(lines) if "total += value *" in line]
        for i in rng.sample(idx, min(12, len(idx))):
            lines[i] = lines[i].replace("- count", "- count * 2")
            changed += 1
        extra = _function(rng, f"added_in_{path.stem}", [])
        lines[-1:-1] = extra
        changed += len(extra)
        path.write_text("\n".join(lines))
    new = ["def brand_new(value):", "    return value * 2", ""] * 1
    (root / "app" / "fresh.py").write_text("\n".join(new) + "\n")
    changed += len(new)
    with open(root / "README.md", "a") as fh:
        fh.write("\nChanged.\n")
    return changed + 1


# --------------------------------------------------------------------------- timing

def _command() -> list[str]:
    tldrs = shutil.which("tldrs") or str(Path(sys.executable).with_name("tldrs"))
    try:
        ok = subprocess.run([tldrs, "diff-context", "--help"], capture_output=True).returncode == 0
    except OSError:
        ok = False
    return [tldrs] if ok else [sys.executable, "-c", RUNNER]


CPU: dict[str, list[float]] = {}


def _time(argv: list[str], cwd: Path, env: dict, label: str | None = None) -> tuple[float, subprocess.CompletedProcess]:
    """Wall seconds of one process; its CPU seconds (user + sys) are kept under *label*."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True)
    elapsed = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if label:
        CPU.setdefault(label, []).append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"command failed: {' '.join(argv)}\n{proc.stderr.decode()}")
    return elapsed, proc


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--lines", type=int, default=15000)
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--keep", action="store_true", help="keep the generated repository")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-context-"))
    try:
        repo = tmp / "repo"
        repo.mkdir()
        total = generate(repo, args.lines)
        changed = change(repo)
        cmd = _command()
        # Python's own bytecode cache is not under test: an installed package has it
        base_env = {k: v for k, v in os.environ.items()
                    if k not in ("SYMBOLPACK_DIR", "SYMBOLPACK_SESSION_ID", "PYTHONDONTWRITEBYTECODE")}
        _time(cmd + ["diff-context", "--no-delta"], repo, {**base_env, "SYMBOLPACK_DIR": str(tmp / "warmup")})
        gitdiff, cold, warm, delta = [], [], [], []
        pack = None
        for rep in range(args.reps):
            t, _ = _time(["git", "diff", "HEAD"], repo, base_env, "git_diff")
            gitdiff.append(t)
            state = tmp / f"state-{rep}"
            env = {**base_env, "SYMBOLPACK_DIR": str(state)}
            t, proc = _time(cmd + ["diff-context", "--no-delta", "--format", "json"], repo, env, "cold")
            cold.append(t)
            pack = json.loads(proc.stdout)
            t, _ = _time(cmd + ["diff-context", "--no-delta", "--format", "json"], repo, env, "warm")
            warm.append(t)
            _time(cmd + ["diff-context", "--session-id", "bench", "--format", "json"], repo, env)
            t, _ = _time(cmd + ["diff-context", "--session-id", "bench", "--format", "json"], repo, env, "warm_delta")
            delta.append(t)
        med = {k: statistics.median(v) for k, v in
               (("git_diff", gitdiff), ("cold", cold), ("warm", warm), ("warm_delta", delta))}
        report = {
            "repo_lines": total, "changed_lines": changed, "reps": args.reps, "command": " ".join(cmd[:1]),
            "seconds": {k: round(v, 4) for k, v in med.items()},
            "cpu_seconds": {k: round(statistics.median(v), 4) for k, v in CPU.items()},
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "ratios": {"cold_over_git_diff": round(med["cold"] / med["git_diff"], 1),
                       "warm_over_git_diff": round(med["warm"] / med["git_diff"], 1),
                       "warm_over_cold": round(med["warm"] / med["cold"], 2)},
            "targets": {"cold_seconds": TARGETS["cold_seconds"], "cold_ok": med["cold"] <= TARGETS["cold_seconds"],
                        "warm_seconds": TARGETS["warm_seconds"], "warm_ok": med["warm"] <= TARGETS["warm_seconds"]},
            "pack": {"slices": len(pack["slices"]), "diffs": len(pack["diffs"]), "budget_used": pack["budget_used"]}
            if pack else None,
            "cores": os.cpu_count(),
        }
        if args.keep:
            report["kept"] = str(repo)
        if args.json:
            print(json.dumps(report, indent=2))
        else:
            s, r, c = report["seconds"], report["ratios"], report["cpu_seconds"]
            print(f"repository: {total} lines; change: ~{changed} lines; {args.reps} reps; {os.cpu_count()} cores; "
                  f"load average {report['load_average']}")
            print("medians; wall clock, then CPU (user+sys) in brackets: CPU does not grow with machine load")
            print(f"git diff HEAD             {s['git_diff'] * 1000:8.1f} ms  [{c['git_diff'] * 1000:.1f} ms]")
            print(f"diff-context cold         {s['cold'] * 1000:8.1f} ms  [{c['cold'] * 1000:.1f} ms]  "
                  f"({r['cold_over_git_diff']}x git diff; "
                  f"target <= {TARGETS['cold_seconds'] * 1000:.0f} ms: {'ok' if report['targets']['cold_ok'] else 'MISSED'})")
            print(f"diff-context warm         {s['warm'] * 1000:8.1f} ms  [{c['warm'] * 1000:.1f} ms]  "
                  f"({r['warm_over_git_diff']}x git diff; "
                  f"target <= {TARGETS['warm_seconds'] * 1000:.0f} ms: {'ok' if report['targets']['warm_ok'] else 'MISSED'})")
            print(f"diff-context warm, delta  {s['warm_delta'] * 1000:8.1f} ms  [{c['warm_delta'] * 1000:.1f} ms]")
            if pack:
                print(f"pack: {report['pack']['slices']} slices, {report['pack']['diffs']} diffs, "
                      f"{report['pack']['budget_used']} tokens")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
