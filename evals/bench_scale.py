#!/usr/bin/env python3
"""Scale rows of issue 11: big-file diffs, diff-context on real history, a monorepo.

Every row is a ratio to a baseline measured in the same run (or a time against
its target), printed next to the figure the issue was filed with:

1. **re-read of a 9,000-line JS file after 40 scattered edits**, through the CLI
   (a fresh process, as hooks run it), over `python -c pass` run alternately,
   and through the resident engine (the MCP server, official client: what the
   issue's engine design is for) over `python -c pass` timed beside each call;
   also the line alignment alone, `linediff` against `difflib.SequenceMatcher`,
   and the floor of any fresh process that parses the file: a bare script that
   loads the grammar, compiles the definitions query symbolpack compiles for that
   file, parses it and runs the query, nothing else (`FLOOR`).
2. **`diff-context` per commit on real history** (each `--history` repository,
   `--commits` first-parent commits, oldest first): the commit is laid on the
   index and work tree of a temporary clone, then `tldrs diff-context --format json`
   runs as a process with one state dir across the replay (what an agent working
   on the repository gets); p50 wall time per repository, and beside it the p50 of
   its floor, a bare process that compiles the queries for and parses the files
   the commit changed (`FLOOR`: what any fresh process packing from their
   symbols must do) and the p50 of `python -c pass`, both timed next to each call. `--digests FILE` writes
   each pack's sha256, to compare packs before and after a change.
3. **a ~30,000-file monorepo** built from the checkout(s) given as arguments
   (their Python and C files copied round after round under `copyNNN/`, each copy
   made distinct by a first comment line so no two files share a cache entry, then
   committed to a git repository under `--monorepo-dir`): `tldrs structure`
   cold (empty state dir) and warm (again) over a bare tree-sitter parse of the
   same files on one core, the peak memory of the cold run (the whole process
   tree, sampled), and `diff-context` for a 3-line change once caches are warm.

It reports; it asserts nothing. Example:

    python evals/bench_scale.py /tmp/corpora/requests /tmp/corpora/hiredis /usr/lib/python3.11
    python evals/bench_scale.py --skip-monorepo --json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

# (row, issue figure, target, unit); "x" rows are ratios to their baseline
ROWS = [
    ("reread_over_python", 31.0, 10.0, "x"),
    ("diff_context_p50_ms", None, 300.0, "ms"),
    ("structure_cold_over_parse", 1.9, 1.5, "x"),
    ("structure_warm_over_parse", 0.53, 0.1, "x"),
    ("structure_cold_peak_mb", 2300.0, 1000.0, "MB"),
    ("diff_context_3_lines_warm_ms", 1800.0, 1000.0, "ms"),
]
ISSUE_DIFF_CONTEXT_MS = {"requests": 120, "cobra": 220, "ky": 750}
SOURCE_EXTS = (".py", ".c", ".h")
MAX_SOURCE_BYTES = 64 * 1024  # 30,000 files of CPython's library, requests and hiredis under it: ~240 MB


def _cli() -> list[str]:
    return [sys.executable, "-m", "symbolpack.cli"]


def _compile_package() -> None:
    """Byte-compile the symbolpack the CLI will import, as an install does (with
    PYTHONDONTWRITEBYTECODE set every process would otherwise compile it afresh)."""
    import compileall

    where = subprocess.run([sys.executable, "-c", "import os, symbolpack; print(os.path.dirname(symbolpack.__file__))"],
                           capture_output=True, text=True, check=True).stdout.strip()
    compileall.compile_dir(where, quiet=1)


def _env(state: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SYMBOLPACK_")}
    env["SYMBOLPACK_DIR"] = str(state)
    return env


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def _timed(cmd: list[str], cwd: Path, env: dict) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True)
    return time.perf_counter() - start, proc


# --------------------------------------------------------------------------- 1. re-read of a big file

def js_module(n_lines: int = 9000) -> str:
    """A JavaScript module of classes whose methods repeat the same shapes (the
    repeated lines that made difflib quadratic)."""
    out = ['"use strict";', "const util = require('./util');", ""]
    k = 0
    while len(out) < n_lines:
        out += [f"class Widget{k} extends util.Base {{", "  constructor(options) {", "    super(options);",
                f"    this.name = 'widget{k}';", "    this.items = [];", "  }", ""]
        for m in range(6):
            out += [f"  method{m}(value, index) {{", "    if (value == null) {", "      return null;", "    }",
                    f"    const result = util.compute(value, {m}, index);", "    for (const item of this.items) {",
                    "      item.update(result);", "    }", "    return result;", "  }", ""]
        out += ["}", ""]
        k += 1
    return "\n".join(out[:n_lines]) + "\n"


def scattered_edits(text: str, edits: int = 40, seed: int = 0) -> str:
    """*edits* edits spread evenly: a line changed, a line inserted or a line deleted by turns."""
    lines = text.split("\n")
    rng = random.Random(seed)
    step = len(lines) // edits
    for e in reversed(range(edits)):
        i = e * step + rng.randrange(step)
        if e % 3 == 0:
            lines[i] += " // edited"
        elif e % 3 == 1:
            lines.insert(i, f"    console.log('added line {e}');")
        else:
            del lines[i]
    return "\n".join(lines)


# what any fresh process answering from files' symbols must do at least: load the
# grammar, compile the query symbolpack compiles for the file (the definitions for
# a read: argv[1] "defs"; every pattern for a pack: "all"), parse, run the query
FLOOR = """
import sys
from tree_sitter import QueryCursor
from symbolpack.engine.languages import has_query, language_for_path, parser_and_query
for path in sys.argv[2:]:
    lang = language_for_path(path)
    if has_query(lang):
        try:
            data = open(path, "rb").read()
        except OSError:
            continue
        parser, query = parser_and_query(lang, sys.argv[1] == "all", data)
        QueryCursor(query).matches(parser.parse(data).root_node)
"""


def _scratch_repo(tmp: Path) -> tuple[Path, dict]:
    """An empty git repository under *tmp*, and the environment of a state dir beside it."""
    root = tmp / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    return root, _env(tmp / "state")


def bench_reread(runs: int) -> dict:
    from symbolpack.base.linediff import opcodes

    text = js_module()
    with tempfile.TemporaryDirectory(prefix="symbolpack-bench-scale-") as tmp:
        root, env = _scratch_repo(Path(tmp))
        big = root / "big.js"
        ours, base, floor, modes = [], [], [], []
        for run in range(runs):
            big.write_text(text)
            session = f"bench{run}"
            subprocess.run(_cli() + ["read", "big.js", "--session-id", session], cwd=root, env=env,
                           capture_output=True, check=True)  # the first read (a skeleton), untimed
            big.write_text(scattered_edits(text, seed=run))
            seconds, proc = _timed(_cli() + ["read", "big.js", "--session-id", session, "--format", "json"], root, env)
            ours.append(seconds)
            base.append(_timed([sys.executable, "-c", "pass"], root, env)[0])
            floor.append(_timed([sys.executable, "-c", FLOOR, "defs", str(big)], root, env)[0])
            modes.append(json.loads(proc.stdout)["mode"])
    resident = _mcp_rereads(text, runs)
    old, new = text.split("\n"), scattered_edits(text).split("\n")
    start = time.perf_counter()
    ops = opcodes(old, new)
    linediff_s = time.perf_counter() - start
    import difflib

    start = time.perf_counter()
    reference = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    difflib_s = time.perf_counter() - start
    changed = sum(i2 - i1 + j2 - j1 for t, i1, i2, j1, j2 in ops if t != "equal")
    changed_ref = sum(i2 - i1 + j2 - j1 for t, i1, i2, j1, j2 in reference if t != "equal")
    return {"lines": len(old), "reread_ms": statistics.median(ours) * 1000,
            "python_ms": statistics.median(base) * 1000,
            "reread_over_python": statistics.median(ours) / statistics.median(base), "modes": sorted(set(modes)),
            "parse_floor_ms": statistics.median(floor) * 1000,
            "parse_floor_over_python": statistics.median(floor) / statistics.median(base),
            "linediff_ms": linediff_s * 1000, "difflib_ms": difflib_s * 1000,
            "changed_lines": changed, "difflib_changed_lines": changed_ref, **resident}


def _mcp_rereads(text: str, runs: int) -> dict:
    """The same re-reads through the resident engine: the MCP server (official
    client, stdio), one session per run as in the CLI loop, each timed call a
    `read_file` of the edited file; `python -c pass` beside each. Empty when the
    optional MCP SDK is not installed."""
    try:
        import anyio
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client
    except ImportError:
        return {}
    times: list[float] = []
    base: list[float] = []
    modes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="symbolpack-bench-scale-") as tmp:
        root, env = _scratch_repo(Path(tmp))
        big = root / "big.js"
        big.write_text(text)
        params = StdioServerParameters(command=sys.executable, args=["-m", "symbolpack.integrations.mcp_server"],
                                       cwd=str(root), env=env)

        async def main() -> None:
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    for run in range(runs):
                        big.write_text(text)
                        args = {"path": "big.js", "session_id": f"mcp{run}"}
                        await session.call_tool("read_file", args)  # the first read (a skeleton), untimed
                        big.write_text(scattered_edits(text, seed=run))
                        start = time.perf_counter()
                        result = await session.call_tool("read_file", args)
                        times.append(time.perf_counter() - start)
                        modes.append(result.content[0].text.split(" ", 1)[0] if result.content else "")
                        base.append(_timed([sys.executable, "-c", "pass"], root, env)[0])

        anyio.run(main)
    return {"mcp_reread_ms": statistics.median(times) * 1000, "mcp_python_ms": statistics.median(base) * 1000,
            "mcp_reread_over_python": statistics.median(times) / statistics.median(base),
            "mcp_modes": sorted(set(modes))}


# --------------------------------------------------------------------------- 2. diff-context on real history

def bench_history(repo: Path, commits: int, digests: list | None) -> dict:
    repo = repo.resolve()
    chain = _git(repo, "rev-list", "--first-parent", f"--max-count={commits}", "HEAD").split()[::-1]
    times: list[float] = []
    floors: list[float] = []
    bases: list[float] = []
    with tempfile.TemporaryDirectory(prefix="symbolpack-bench-scale-") as tmp:
        clone = Path(tmp) / "clone"
        _git(Path(tmp), "clone", "-q", "--shared", "--no-checkout", str(repo), str(clone))
        _git(clone, "config", "core.autocrlf", "false")
        _git(clone, "-c", "advice.detachedHead=false", "checkout", "-q", "--detach", f"{chain[0]}^1")
        env = _env(Path(tmp) / "state")
        for commit in chain:
            if subprocess.run(["git", "read-tree", "-m", "-u", "HEAD", commit], cwd=clone,
                              capture_output=True).returncode:
                _git(clone, "-c", "advice.detachedHead=false", "checkout", "-q", "-f", "--detach", commit)
                continue
            seconds, proc = _timed(_cli() + ["diff-context", "--no-delta", "--format", "json"], clone, env)
            times.append(seconds)
            changed = _git(clone, "diff", "--cached", "--name-only", "--diff-filter=AM", "-z").split("\0")
            floors.append(_timed([sys.executable, "-c", FLOOR, "all", *filter(None, changed)], clone, env)[0])
            bases.append(_timed([sys.executable, "-c", "pass"], clone, env)[0])
            if digests is not None:
                digests.append({"repo": repo.name, "commit": commit[:10], "rc": proc.returncode,
                                "sha256": hashlib.sha256(proc.stdout).hexdigest()})
            _git(clone, "reset", "-q", "--soft", commit)
    return {"repo": repo.name, "commits": len(times), "p50_ms": statistics.median(times) * 1000 if times else None,
            "max_ms": max(times) * 1000 if times else None,
            "floor_p50_ms": statistics.median(floors) * 1000 if floors else None,
            "python_p50_ms": statistics.median(bases) * 1000 if bases else None}


def diff_sizes(repo: Path, commits: int) -> dict:
    """Unified diffs (3 lines of context) of every file the last *commits* commits
    modified, by `linediff` and by difflib: changed lines, hunks and text size."""
    import difflib

    from symbolpack.base.linediff import grouped_opcodes, opcodes

    totals = {"files": 0, "linediff": [0, 0, 0], "difflib": [0, 0, 0], "linediff_ms": 0.0, "difflib_ms": 0.0}
    for commit in _git(repo, "rev-list", "--first-parent", f"--max-count={commits}", "HEAD").split():
        listed = _git(repo, "diff-tree", "-r", "--no-commit-id", "--diff-filter=M", "-z", "--name-only",
                      f"{commit}^", commit).split("\0")
        for path in filter(None, listed):
            try:
                old = _git(repo, "show", f"{commit}^:{path}").split("\n")
                new = _git(repo, "show", f"{commit}:{path}").split("\n")
            except (subprocess.CalledProcessError, UnicodeDecodeError):
                continue
            totals["files"] += 1
            start = time.perf_counter()
            ours = list(grouped_opcodes(opcodes(old, new)))
            totals["linediff_ms"] += (time.perf_counter() - start) * 1000
            start = time.perf_counter()
            theirs = list(difflib.SequenceMatcher(None, old, new, autojunk=len(old) + len(new) > 20000)
                          .get_grouped_opcodes(3))
            totals["difflib_ms"] += (time.perf_counter() - start) * 1000
            for key, groups in (("linediff", ours), ("difflib", theirs)):
                changed = sum(i2 - i1 + j2 - j1 for g in groups for t, i1, i2, j1, j2 in g if t != "equal")
                shown = sum(i2 - i1 if t in ("equal", "delete") else (j2 - j1 if t == "insert" else i2 - i1 + j2 - j1)
                            for g in groups for t, i1, i2, j1, j2 in g)
                totals[key][0] += changed
                totals[key][1] += len(groups)
                totals[key][2] += shown
    return {"repo": repo.name, "files": totals["files"],
            **{f"{k}_{what}": totals[k][n] for k in ("linediff", "difflib")
               for n, what in enumerate(("changed_lines", "hunks", "diff_lines"))},
            "linediff_ms": round(totals["linediff_ms"], 1), "difflib_ms": round(totals["difflib_ms"], 1)}


# --------------------------------------------------------------------------- 3. the monorepo

def _sources(checkout: Path) -> list[Path]:
    try:
        listed = _git(checkout, "ls-files", "-z").split("\0")
        files = [checkout / p for p in listed if p.endswith(SOURCE_EXTS)]
    except (subprocess.CalledProcessError, OSError):
        files = [Path(d) / f for d, dirs, names in os.walk(checkout)
                 for f in names if f.endswith(SOURCE_EXTS) and "/." not in d[len(str(checkout)):]]
    return sorted(p for p in files if p.is_file() and not p.is_symlink() and p.stat().st_size <= MAX_SOURCE_BYTES)


def build_monorepo(checkouts: list[Path], target: Path, files: int) -> dict:
    """Copy the checkouts' Python/C files (up to 64 kB each) round after round until
    *files* files, commit. Built once per --monorepo-dir (a stamp file says what)."""
    stamp = target / ".bench-scale-built"
    if stamp.exists():
        return json.loads(stamp.read_text())
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    pool = [(c, p) for c in checkouts for p in _sources(c)]
    if not pool:
        raise SystemExit("bench_scale: no .py/.c/.h files in the checkouts given")
    written = size = 0
    rnd = 0
    while written < files:
        for checkout, path in pool:
            if written >= files:
                break
            data = path.read_bytes()
            mark = (f"# copy {rnd}\n" if path.suffix == ".py" else f"/* copy {rnd} */\n").encode()
            out = target / f"copy{rnd:03d}" / checkout.name / path.relative_to(checkout)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(mark + data)
            written += 1
            size += len(mark) + len(data)
        rnd += 1
    _git(target, "init", "-q")
    _git(target, "add", "-A")
    _git(target, "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-q", "-m", "monorepo")
    info = {"files": written, "mb": round(size / 1e6, 1), "checkouts": [str(c) for c in checkouts]}
    stamp.write_text(json.dumps(info))
    (target / ".git" / "info" / "exclude").write_text(".bench-scale-built\n")
    return info


_BARE_PARSE = r"""
import subprocess, sys, time
from pathlib import Path
from tree_sitter_language_pack import get_parser
root = Path(sys.argv[1])
names = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout.decode().split("\0")
parsers = {".py": get_parser("python"), ".c": get_parser("c"), ".h": get_parser("c")}
start = time.perf_counter()
for name in names:
    parser = parsers.get(Path(name).suffix)
    if parser is not None:
        parser.parse((root / name).read_bytes())
print(time.perf_counter() - start)
"""


def _tree_rss_mb(pid: int) -> float:
    """Resident memory of *pid* and its descendants, in MB."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo += children.get(p, [])
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def _peak_run(cmd: list[str], cwd: Path, env: dict) -> tuple[float, float, int]:
    """Wall seconds, peak MB of the process tree (sampled every 50 ms), exit code."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = [0.0]

    def sample():
        while proc.poll() is None:
            peak[0] = max(peak[0], _tree_rss_mb(proc.pid))
            time.sleep(0.05)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    rc = proc.wait()
    seconds = time.perf_counter() - start
    watcher.join()
    return seconds, peak[0], rc


def bench_monorepo(checkouts: list[Path], target: Path, files: int) -> dict:
    info = build_monorepo(checkouts, target, files)
    out: dict = {"monorepo": str(target), **info}
    bare = float(subprocess.run([sys.executable, "-c", _BARE_PARSE, str(target)], check=True,
                                capture_output=True, text=True).stdout)
    out["bare_parse_s"] = bare
    with tempfile.TemporaryDirectory(prefix="symbolpack-bench-scale-state-") as state:
        env = _env(Path(state))
        cold, peak, rc = _peak_run(_cli() + ["structure", ".", "--format", "json"], target, env)
        warm, _, rc_warm = _peak_run(_cli() + ["structure", ".", "--format", "json"], target, env)
        out.update(structure_cold_s=cold, structure_warm_s=warm, structure_rc=[rc, rc_warm],
                   structure_cold_peak_mb=peak, structure_cold_over_parse=cold / bare,
                   structure_warm_over_parse=warm / bare)
        # a 3-line change in one file, diff-context once to warm its caches, then timed
        victim = sorted(p for p in target.rglob("*.py") if p.stat().st_size > 4000)[0]
        original = victim.read_bytes()
        try:
            lines = original.split(b"\n")
            middle = len(lines) // 2
            for k in range(3):
                lines[middle + k] += b"  # changed"
            victim.write_bytes(b"\n".join(lines))
            subprocess.run(_cli() + ["diff-context", "--no-delta", "--format", "json"], cwd=target, env=env,
                           capture_output=True)
            times = [_timed(_cli() + ["diff-context", "--no-delta", "--format", "json"], target, env)[0]
                     for _ in range(3)]
        finally:
            victim.write_bytes(original)
        out["diff_context_3_lines_warm_ms"] = statistics.median(times) * 1000
    return out


# --------------------------------------------------------------------------- report

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkouts", nargs="*", type=Path, help="checkout(s) whose Python/C files build the monorepo")
    ap.add_argument("--history", nargs="*", type=Path,
                    default=[Path("/tmp/corpora") / n for n in ("requests", "cobra", "ky")])
    ap.add_argument("--commits", type=int, default=15)
    ap.add_argument("--runs", type=int, default=5, help="re-reads timed (median)")
    ap.add_argument("--monorepo-dir", type=Path, default=Path(tempfile.gettempdir()) / "symbolpack-bench-monorepo")
    ap.add_argument("--monorepo-files", type=int, default=30000)
    ap.add_argument("--skip-reread", action="store_true")
    ap.add_argument("--skip-history", action="store_true")
    ap.add_argument("--skip-monorepo", action="store_true")
    ap.add_argument("--digests", type=Path, help="write each diff-context pack's sha256 here (JSON)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    _compile_package()
    report: dict = {}
    if not args.skip_reread:
        report["reread"] = bench_reread(max(1, args.runs))
    if not args.skip_history:
        digests: list | None = [] if args.digests else None
        report["history"] = [bench_history(r, args.commits, digests) for r in args.history if r.exists()]
        report["diff_sizes"] = [diff_sizes(r, 50) for r in args.history if r.exists()]
        if args.digests:
            args.digests.write_text(json.dumps(digests, indent=1))
    if not args.skip_monorepo and args.checkouts:
        report["monorepo"] = bench_monorepo([c.resolve() for c in args.checkouts], args.monorepo_dir,
                                            args.monorepo_files)
    report["targets"] = {name: target for name, _, target, _ in ROWS}
    if "monorepo" in report:
        report["monorepo"]["targets"] = report["targets"]
    if "reread" in report:
        report["reread"]["targets"] = report["targets"]
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    _print(report)
    return 0


def _row(name: str, now, key: str, issue=None) -> str:
    """One row: the issue's figure, now, the target (from ROWS, by *key*)."""
    filed, target, unit = next((i, t, u) for k, i, t, u in ROWS if k == key)
    issue = filed if issue is None else issue

    def fmt(v):
        return "-" if v is None else (f"{v:.2f}x" if unit == "x" else f"{v:.0f} {unit}")
    ok = "" if now is None else ("  OK" if now <= target else "  MISSED")
    return f"{name:<44} issue {fmt(issue):>10}   now {fmt(now):>10}   target <= {fmt(target)}{ok}"


def _print(report: dict) -> None:
    if "reread" in report:
        r = report["reread"]
        print(f"re-read of a {r['lines']}-line JS file after 40 scattered edits ({'/'.join(r['modes'])}): "
              f"{r['reread_ms']:.0f} ms, python -c pass {r['python_ms']:.0f} ms")
        print(_row("  CLI re-read / python -c pass", r["reread_over_python"], "reread_over_python"))
        if "mcp_reread_ms" in r:
            print(_row("  MCP re-read / python -c pass", r["mcp_reread_over_python"], "reread_over_python")
                  + f"   ({r['mcp_reread_ms']:.0f} ms through the resident engine; python -c pass "
                  f"{r['mcp_python_ms']:.0f} ms; {'/'.join(r['mcp_modes'])})")
        print(f"  floor, a bare parse and definitions query in a fresh process: {r['parse_floor_ms']:.0f} ms = "
              f"{r['parse_floor_over_python']:.2f}x python -c pass; the re-read is "
              f"{r['reread_ms'] / r['parse_floor_ms']:.2f}x the floor")
        print(f"  alignment alone: linediff {r['linediff_ms']:.1f} ms ({r['changed_lines']} lines changed), "
              f"difflib {r['difflib_ms']:.0f} ms ({r['difflib_changed_lines']} lines changed)")
    for h in report.get("history", []):
        print(_row(f"diff-context p50 per commit, {h['repo']} ({h['commits']} commits)", h["p50_ms"],
                   "diff_context_p50_ms", ISSUE_DIFF_CONTEXT_MS.get(h["repo"])) + f"   (max {h['max_ms']:.0f} ms)")
        if h.get("floor_p50_ms") is not None:
            print(f"  floor p50, compiling the queries for and parsing the changed files in a fresh process: "
                  f"{h['floor_p50_ms']:.0f} ms; python -c pass p50 {h['python_p50_ms']:.0f} ms")
    for d in report.get("diff_sizes", []):
        print(f"unified diffs of {d['files']} files modified by the last 50 commits of {d['repo']}: linediff "
              f"{d['linediff_changed_lines']} changed lines in {d['linediff_hunks']} hunks ({d['linediff_diff_lines']} "
              f"diff lines, {d['linediff_ms']:.0f} ms), difflib {d['difflib_changed_lines']} in {d['difflib_hunks']} "
              f"({d['difflib_diff_lines']}, {d['difflib_ms']:.0f} ms)")
    if "monorepo" in report:
        m = report["monorepo"]
        print(f"monorepo {m['monorepo']}: {m['files']} files, {m['mb']} MB; bare tree-sitter parse on one core "
              f"{m['bare_parse_s']:.1f} s; structure cold {m['structure_cold_s']:.1f} s, warm {m['structure_warm_s']:.1f} s"
              f" (exit {m['structure_rc']})")
        print(_row("  structure cold / bare parse", m["structure_cold_over_parse"], "structure_cold_over_parse"))
        print(_row("  structure warm / bare parse", m["structure_warm_over_parse"], "structure_warm_over_parse"))
        print(_row("  structure cold, peak memory", m["structure_cold_peak_mb"], "structure_cold_peak_mb"))
        print(_row("  diff-context, 3-line change, warm", m["diff_context_3_lines_warm_ms"],
                   "diff_context_3_lines_warm_ms"))
    elif "reread" in report or "history" in report:
        print("monorepo rows: give checkout(s) to build it from (e.g. /tmp/corpora/requests /tmp/corpora/hiredis)")


if __name__ == "__main__":
    sys.exit(main())
