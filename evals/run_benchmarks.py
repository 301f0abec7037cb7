#!/usr/bin/env python3
"""Run every ``evals/bench_*.py`` and print their ratios, one command for all benchmarks.

Each benchmark runs in its own process with ``--json`` (every bench script takes it)
and its default settings. From each report this prints every number whose key says it
is a ratio (``ratio``, ``*_over_*``), with the target found beside it (the nearest
``targets`` object holding the same key, or ``max_ratio``), and every pass/fail flag
(``ok``, ``*_ok``, ``meets_target``). A benchmark that fails or prints no JSON is
shown with the tail of its output. It reports; the exit status is 1 only when a
benchmark itself failed to run (or exited non-zero), never for a missed target.

Example:
    python evals/run_benchmarks.py
    python evals/run_benchmarks.py --only read --only hooks --json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def find_benchmarks(only: list[str] | None = None) -> list[Path]:
    found = sorted(HERE.glob("bench_*.py"))
    if only:
        found = [p for p in found if any(name in p.stem for name in only)]
    return found


def parse_report(stdout: str) -> dict | None:
    """The JSON object a benchmark printed (the last one, if it printed text before it)."""
    text = stdout.strip()
    try:
        doc = json.loads(text)
        return doc if isinstance(doc, dict) else None
    except ValueError:
        pass
    start = text.rfind("\n{")
    while start != -1:
        try:
            doc = json.loads(text[start + 1:])
            return doc if isinstance(doc, dict) else None
        except ValueError:
            start = text.rfind("\n{", 0, start)
    return None


def _is_ratio_key(key: str) -> bool:
    return not key.startswith("max_") and (key == "ratio" or "_over_" in key or key.endswith("_ratio"))


def _is_flag_key(key: str) -> bool:
    return key in ("ok", "meets_target") or key.endswith("_ok")


def ratios(report: dict) -> list[dict]:
    """Every ratio in *report*, with its path, value and target (None when none is given)."""
    out: list[dict] = []

    def target_for(key: str, ancestors: list[dict]) -> float | None:
        for node in reversed(ancestors):
            targets = node.get("targets")
            if isinstance(targets, dict) and isinstance(targets.get(key), (int, float)) \
                    and not isinstance(targets.get(key), bool):
                return float(targets[key])
        top = ancestors[0]
        if key == "ratio" and isinstance(top.get("max_ratio"), (int, float)):
            return float(top["max_ratio"])
        return None

    def walk(node: dict, path: list[str], ancestors: list[dict]) -> None:
        for key, value in node.items():
            if key == "targets":
                continue
            if isinstance(value, dict):
                walk(value, path + [key], ancestors + [node])
            elif isinstance(value, (int, float)) and not isinstance(value, bool) and _is_ratio_key(key):
                out.append({"name": ".".join(path + [key]), "value": float(value),
                            "target": target_for(key, ancestors + [node])})

    walk(report, [], [])
    return out


def flags(report: dict) -> list[tuple[str, bool]]:
    out: list[tuple[str, bool]] = []

    def walk(node: dict, path: list[str]) -> None:
        for key, value in node.items():
            if isinstance(value, dict):
                walk(value, path + [key])
            elif isinstance(value, bool) and _is_flag_key(key):
                out.append((".".join(path + [key]), value))

    walk(report, [])
    return out


def run_one(script: Path, timeout: float) -> dict:
    started = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, str(script), "--json"], capture_output=True, text=True,
                              timeout=timeout, cwd=HERE.parent)
    except subprocess.TimeoutExpired:
        return {"name": script.stem, "ok": False, "error": f"timed out after {timeout:.0f} s"}
    seconds = round(time.perf_counter() - started, 1)
    report = parse_report(proc.stdout)
    result = {"name": script.stem, "exit_code": proc.returncode, "seconds": seconds, "report": report}
    if report is None:
        result.update(ok=False, error="printed no JSON report",
                      tail=(proc.stdout + proc.stderr).strip().splitlines()[-8:])
    else:
        result.update(ok=proc.returncode == 0, ratios=ratios(report), flags=flags(report))
        if proc.returncode != 0:
            result["tail"] = proc.stderr.strip().splitlines()[-8:]
    return result


def print_result(r: dict) -> None:
    head = f"{r['name']}" + (f"  ({r['seconds']} s, exit {r['exit_code']})" if "seconds" in r else "")
    print(head)
    if r.get("error"):
        print(f"  FAILED: {r['error']}")
    for ratio in r.get("ratios", []):
        target = ratio["target"]
        verdict = "" if target is None else f"  (target <= {target:g}x: {'ok' if ratio['value'] <= target else 'OVER'})"
        print(f"  {ratio['name']:<45} {ratio['value']:8.2f}x{verdict}")
    for name, value in r.get("flags", []):
        print(f"  {name:<45} {'yes' if value else 'NO'}")
    for line in r.get("tail", []):
        print(f"  | {line}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", metavar="NAME", help="run benchmarks whose name contains NAME")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds allowed per benchmark (default 1800)")
    ap.add_argument("--json", action="store_true", help="print all results as one JSON object")
    args = ap.parse_args(argv)
    scripts = find_benchmarks(args.only)
    if not scripts:
        print("no benchmarks matched", file=sys.stderr)
        return 1
    results = []
    for script in scripts:
        if not args.json:
            print(f"running {script.name} ...", file=sys.stderr, flush=True)
        result = run_one(script, args.timeout)
        results.append(result)
        if not args.json:
            print_result(result)
    if args.json:
        print(json.dumps({"benchmarks": results}, indent=1))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
