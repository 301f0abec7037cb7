"""`tldrs mcp` start-up: spawn to the `initialize` answer, and to the `tools/list`
answer, as ratios against `python -c pass` measured in the same run.

Why it matters (issue 21): a host gives an MCP server a short grace to start
(Codex: 1 s by default, then it goes on without the server's tools), and with the
SDK's server `tldrs mcp` took a median of 862 ms to answer `initialize` here (39x
`python -c pass`). Target: the `initialize` answer within 12x `python -c pass`.

Each run spawns the console script of this environment (`tldrs mcp`, as the
installers write it) in a generated repository, writes `initialize`,
`notifications/initialized` and `tools/list` at once (as hosts do), and times the
two answer lines; with `--first-call` it also times a first `read_file` (the
engine's cold start, after the answers above). Runs are interleaved with
`python -c pass` so a busy machine slows both sides alike; medians are compared.
The report also says whether importing `symbolpack.integrations.mcp_server`
loads the MCP SDK, pydantic or anyio (it must not).

Usage: python evals/bench_mcp_start.py [--runs N] [--files N] [--first-call] [--max-ratio R] [--json]
Exit 1 when the initialize ratio exceeds --max-ratio (default 12) or the SDK is imported.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAVY = ("mcp", "pydantic", "anyio")


def _module(k: int) -> str:
    funcs = [f"def handler_{k}_{i}(request):\n    value = request.get('field_{i}', {i})\n    return value * 2\n"
             for i in range(12)]
    return f'"""Generated module {k}."""\n\n' + "\n\n".join(funcs)


def _repo(root: Path, files: int) -> None:
    (root / "src").mkdir(parents=True)
    for k in range(files):
        (root / "src" / f"mod_{k}.py").write_text(_module(k))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "init"], cwd=root,
                   check=True)


def _messages(first_call: bool) -> bytes:
    out = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
               "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}},
           {"jsonrpc": "2.0", "method": "notifications/initialized"},
           {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    if first_call:
        out.append({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "read_file", "arguments": {"path": "src/mod_0.py"}}})
    return b"".join(json.dumps(m).encode() + b"\n" for m in out)


def _one_server(cmd: list[str], root: Path, env: dict, first_call: bool) -> dict[int, float]:
    """Seconds from spawn to each answer line, by request id."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(_messages(first_call))
    proc.stdin.flush()
    want = {1, 2, 3} if first_call else {1, 2}
    times: dict[int, float] = {}
    try:
        while not want <= set(times):
            line = proc.stdout.readline()
            if not line:
                raise SystemExit(f"{' '.join(cmd)} closed stdout after answering {sorted(times)}")
            message = json.loads(line)
            if message.get("id") in want and "method" not in message:
                if "result" not in message:
                    raise SystemExit(f"request {message['id']} failed: {message}")
                times[message["id"]] = time.perf_counter() - start
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return times


def _pass_time(env: dict, root: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], env=env, cwd=root, check=True)
    return time.perf_counter() - start


def _imports(env: dict) -> list[str]:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", "import symbolpack.integrations.mcp_server"],
                          env=env, capture_output=True, text=True, check=True)
    return [line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")]


def bench(runs: int, files: int, first_call: bool) -> dict:
    import symbolpack

    tldrs = Path(sys.executable).with_name("tldrs")
    if not tldrs.exists():
        raise SystemExit(f"no console script at {tldrs}: install symbolpack in this environment (pip install -e .)")
    compileall.compile_dir(os.path.dirname(symbolpack.__file__), quiet=1)  # as an install would
    with tempfile.TemporaryDirectory(prefix="symbolpack-bench-mcp-") as tmp:
        root = Path(tmp) / "repo"
        _repo(root, files)
        env = {**os.environ, "SYMBOLPACK_DIR": str(Path(tmp) / "state")}
        env.pop("SYMBOLPACK_SESSION_ID", None)
        cmd = [str(tldrs), "mcp"]
        _one_server(cmd, root, env, first_call)  # prime the page cache and the parse cache
        passes: list[float] = []
        answers: dict[int, list[float]] = {1: [], 2: [], 3: []}
        for _ in range(runs):
            passes.append(_pass_time(env, root))
            for request_id, seconds in _one_server(cmd, root, env, first_call).items():
                answers[request_id].append(seconds)
        modules = _imports(env)
    base = statistics.median(passes)
    report: dict = {"runs": runs, "files": files, "python_pass_ms": round(base * 1000, 1)}
    for request_id, label in ((1, "initialize"), (2, "tools_list"), (3, "first_read")):
        if answers[request_id]:
            med = statistics.median(answers[request_id])
            report[f"{label}_ms"] = round(med * 1000, 1)
            report[f"{label}_over_pass"] = round(med / base, 2)
    report["module_imports"] = len(modules)
    report["sdk_imported"] = sorted({m.split(".")[0] for m in modules} & set(HEAVY))
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--files", type=int, default=300, help="Python files in the generated repository")
    parser.add_argument("--first-call", action="store_true", help="also time a first read_file")
    parser.add_argument("--max-ratio", type=float, default=12.0, help="target for initialize_over_pass")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = bench(args.runs, args.files, args.first_call)
    report["targets"] = {"initialize_over_pass": args.max_ratio}
    report["ok"] = report["initialize_over_pass"] <= args.max_ratio and not report["sdk_imported"]
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"python -c pass: {report['python_pass_ms']} ms (median of {args.runs})")
        print(f"tldrs mcp, spawn -> initialize answer: {report['initialize_ms']} ms = "
              f"{report['initialize_over_pass']}x pass (target <= {args.max_ratio}x)")
        print(f"tldrs mcp, spawn -> tools/list answer: {report['tools_list_ms']} ms = "
              f"{report['tools_list_over_pass']}x pass")
        if "first_read_ms" in report:
            print(f"tldrs mcp, spawn -> first read_file answer: {report['first_read_ms']} ms = "
                  f"{report['first_read_over_pass']}x pass")
        print(f"importing mcp_server: {report['module_imports']} modules; SDK imported: "
              f"{', '.join(report['sdk_imported']) or 'no'}")
        print("OK" if report["ok"] else "OVER TARGET")
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
