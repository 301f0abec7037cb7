#!/usr/bin/env python3
"""Benchmark `tldrs structure` against bare tree-sitter parsing, in one run.

Measures, on one corpus of Python files:

  (a) baseline: read every ``.py`` file and ``parser.parse`` it, in this process
      (``tree_sitter_language_pack.get_parser("python")``; the parser is loaded
      before the clock starts);
  (b) cold:  ``tldrs structure CORPUS --format json`` in a subprocess with a fresh,
      empty ``SYMBOLPACK_DIR`` (so the parse cache is empty);
  (c) warm:  the same command again against that now-filled cache;
  (d) start-up: ``tldrs --version`` versus ``python -c pass`` (best of N each).

and prints the ratios against their targets (cold/baseline <= 4x,
warm/baseline <= 1.5x, version/python <= 2x). Timings are medians over
``--reps`` repetitions (best-of for start-up). It reports; it asserts nothing.

The corpus is ``--corpus``, else ``$SYMBOLPACK_BENCH_CORPUS``, else a synthetic
Python tree of about 7 MB generated in a temporary directory (and removed
afterwards), so the script runs anywhere. ``structure`` lists files with
``git ls-files`` inside a git repository and with its own ``.gitignore`` walk
outside one; the report says which one was used. ``--git-init`` turns a corpus
that is not in a repository into one (``git init``, nothing committed: the walk
lists untracked files too). The synthetic corpus is always a repository.

Example:
    python evals/bench_structure.py --corpus /tmp/corpora/sqla7 --reps 3
    python evals/bench_structure.py --json          # synthetic corpus
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = {"cold_over_baseline": 4.0, "warm_over_baseline": 1.5, "version_over_python": 2.0}


# --------------------------------------------------------------------------- corpus

_WORDS = (
    "session engine query column table mapper result row cursor dialect pool "
    "event schema index key value cache token node symbol parse loader config "
    "handler request response stream buffer record field batch filter order"
).split()


def _ident(rng: random.Random, parts: int = 2) -> str:
    return "_".join(rng.choice(_WORDS) for _ in range(parts))


def _camel(rng: random.Random, parts: int = 2) -> str:
    return "".join(rng.choice(_WORDS).capitalize() for _ in range(parts))


def _body(rng: random.Random, indent: str, lines: int) -> list[str]:
    out = []
    var = _ident(rng, 1)
    out.append(f"{indent}{var} = {rng.randint(0, 999)}")
    for _ in range(lines):
        r = rng.random()
        a, b = _ident(rng, 1), _ident(rng, 2)
        if r < 0.25:
            out.append(f"{indent}if {var} > {rng.randint(0, 99)} and {a} is not None:")
            out.append(f"{indent}    {var} = self_check({a}, {b}={var} + 1)  # keep {b}")
        elif r < 0.45:
            out.append(f"{indent}for {a} in range({var}):")
            out.append(f"{indent}    {var} += len(str({a})) * {rng.randint(1, 9)}")
        elif r < 0.6:
            out.append(f"{indent}{b} = [{a} for {a} in ({var}, {var} + 1) if {a}]")
        elif r < 0.75:
            out.append(f'{indent}{b} = "{_ident(rng, 3)}: %s" % ({var},)')
        else:
            out.append(f"{indent}{var} = {var} + call_{b}({a}=None, strict=True)")
    out.append(f"{indent}return {var}")
    return out


def _module(rng: random.Random) -> str:
    out = [f'"""{_camel(rng, 3)}: synthetic benchmark module."""', "", "from __future__ import annotations", "",
           "import os", "import sys", "from typing import Any, Optional", ""]
    for _ in range(rng.randint(2, 5)):
        out.append(f"{_ident(rng, 2).upper()} = {rng.randint(0, 10**6)}")
    out.append("")
    for _ in range(rng.randint(3, 7)):
        if rng.random() < 0.65:
            cls = _camel(rng, 2)
            base = f"({_camel(rng, 1)}Base)" if rng.random() < 0.5 else ""
            out += ["", f"class {cls}{base}:", f'    """{cls} holds {_ident(rng, 3).replace("_", " ")}."""', ""]
            out.append(f"    {_ident(rng, 1)}: Optional[int] = None")
            for m in range(rng.randint(4, 14)):
                out.append("")
                if rng.random() < 0.2:
                    out.append(f"    @{rng.choice(['property', 'classmethod', 'staticmethod', 'functools.cache'])}")
                prefix = "async def" if rng.random() < 0.1 else "def"
                name = "__init__" if m == 0 else _ident(rng, 2)
                out.append(f"    {prefix} {name}(self, {_ident(rng, 1)}: int, *args: Any, **kw: Any) -> int:")
                if rng.random() < 0.5:
                    out.append(f'        """Return the {_ident(rng, 2).replace("_", " ")}."""')
                if rng.random() < 0.1:
                    out.append(f"        def _{_ident(rng, 1)}(x):")
                    out.append("            return x + 1")
                out += _body(rng, "        ", rng.randint(3, 14))
        else:
            out += ["", ""]
            if rng.random() < 0.15:
                out.append("@functools.lru_cache(maxsize=None)")
            out.append(f"def {_ident(rng, 2)}({_ident(rng, 1)}: str, {_ident(rng, 1)}: int = 0) -> int:")
            out.append(f'    """{_ident(rng, 4).replace("_", " ").capitalize()}."""')
            out += _body(rng, "    ", rng.randint(4, 20))
    return "\n".join(out) + "\n"


def make_synthetic(root: Path, megabytes: float = 7.0, seed: int = 1) -> None:
    """A deterministic tree of Python packages of about *megabytes* MB, as a git repo."""
    rng = random.Random(seed)
    target = int(megabytes * 1024 * 1024)
    total = 0
    i = 0
    while total < target:
        pkg = root / f"pkg{i // 25:02d}"
        pkg.mkdir(parents=True, exist_ok=True)
        init = pkg / "__init__.py"
        if not init.exists():
            init.write_text('"""Package."""\n')
        text = "".join(_module(rng) for _ in range(rng.randint(1, 3)))
        (pkg / f"mod_{i:04d}.py").write_text(text)
        total += len(text)
        i += 1
    _git_init(root)


def _git_init(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)


def in_git_repo(path: Path) -> bool:
    for candidate in (path, *path.parents):
        if (candidate / ".git").exists():
            return True
    return False


def python_files(corpus: Path) -> list[Path]:
    """The `.py` files `structure` would see (git's list in a repo, else os.walk)."""
    if in_git_repo(corpus):
        out = subprocess.run(
            ["git", "-C", str(corpus), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True, check=True).stdout.decode("utf-8", "surrogateescape")
        files = [corpus / p for p in out.split("\0") if p]
    else:
        files = [Path(d) / f for d, dirs, fs in os.walk(corpus) for f in fs
                 if not (set(Path(d).relative_to(corpus).parts) & {".git", ".symbolpack"})]
    return sorted(p for p in files if p.suffix == ".py" and p.is_file())


# --------------------------------------------------------------------------- measurements

def baseline_once(files: list[Path]) -> float:
    from tree_sitter_language_pack import get_parser

    parser = get_parser("python")
    t0 = time.perf_counter()
    for path in files:
        parser.parse(path.read_bytes())
    return time.perf_counter() - t0


def run_timed(cmd: list[str], env: dict, cwd: str) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True)
    return time.perf_counter() - t0, proc


def find_tldrs() -> str:
    here = Path(sys.executable).parent / "tldrs"
    if here.exists():
        return str(here)
    found = shutil.which("tldrs")
    if found:
        return found
    raise SystemExit("bench_structure: cannot find the tldrs executable (use --tldrs)")


def interpreter_of(script: str) -> str:
    """The Python that runs *script* (its shebang), to compare start-up like for like."""
    try:
        with open(script, "rb") as fh:
            first = fh.readline().decode("utf-8", "replace").strip()
    except OSError:
        return sys.executable
    if first.startswith("#!") and "python" in first:
        return first[2:].split()[0]
    return sys.executable


def summarize_json(stdout: bytes) -> dict:
    try:
        doc = json.loads(stdout)
    except ValueError:
        return {"files": None, "symbols": None}
    files = doc.get("files", [])
    return {"files": len(files), "symbols": sum(len(f.get("symbols", [])) for f in files)}


def _loadavg() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except (OSError, AttributeError):
        return None


def bench(corpus: Path, tldrs: str, reps: int, version_runs: int) -> dict:
    load_before = _loadavg()
    scratch = Path(tempfile.mkdtemp(prefix="sp-bench-"))
    # a neutral cwd: a corpus with e.g. types.py would shadow the stdlib of `python -c`
    cwd = str(scratch)
    try:
        files = python_files(corpus)
        nbytes = sum(p.stat().st_size for p in files)
        nlines = sum(p.read_bytes().count(b"\n") for p in files)  # also warms the page cache

        baseline_once(files)  # warm-up: page cache, grammar load
        baselines = [baseline_once(files) for _ in range(reps)]

        cmd = [tldrs, "structure", str(corpus), "--format", "json"]
        colds, warms, outputs_match, summary, errors = [], [], True, {}, []
        for i in range(reps):
            state = scratch / f"state{i}"
            env = {**os.environ, "SYMBOLPACK_DIR": str(state)}
            t_cold, p_cold = run_timed(cmd, env, cwd)
            t_warm, p_warm = run_timed(cmd, env, cwd)
            for p in (p_cold, p_warm):
                if p.returncode != 0:
                    errors.append(p.stderr.decode("utf-8", "replace").strip()[:500])
            colds.append(t_cold)
            warms.append(t_warm)
            outputs_match &= p_cold.stdout == p_warm.stdout
            if i == 0:
                summary = summarize_json(p_cold.stdout)
                summary["json_bytes"] = len(p_cold.stdout)
            shutil.rmtree(state, ignore_errors=True)

        python = interpreter_of(tldrs)
        # An installed wheel has bytecode; an editable checkout under PYTHONDONTWRITEBYTECODE
        # would recompile on every start. Compile once so start-up is measured as installed.
        import compileall
        import symbolpack

        compileall.compile_dir(os.path.dirname(symbolpack.__file__), quiet=1)
        run_timed([tldrs, "--version"], dict(os.environ), cwd)  # warm-up
        run_timed([python, "-c", "pass"], dict(os.environ), cwd)
        versions = [run_timed([tldrs, "--version"], dict(os.environ), cwd)[0] for _ in range(version_runs)]
        pythons = [run_timed([python, "-c", "pass"], dict(os.environ), cwd)[0] for _ in range(version_runs)]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    baseline = statistics.median(baselines)
    cold = statistics.median(colds)
    warm = statistics.median(warms)
    version, py = min(versions), min(pythons)
    ratios = {
        "cold_over_baseline": cold / baseline,
        "warm_over_baseline": warm / baseline,
        "version_over_python": version / py,
    }
    return {
        "corpus": str(corpus),
        "walk": "git ls-files" if in_git_repo(corpus) else "os.walk + .gitignore (not a git repository)",
        "py_files": len(files),
        "py_bytes": nbytes,
        "py_lines": nlines,
        "cpus": os.cpu_count(),
        # other work on the machine skews the subprocess timings (the pool wants every core)
        "loadavg_1min_before_after": [load_before, _loadavg()],
        # with bytecode writes off, symbolpack's own modules are compiled from source on every run
        "PYTHONDONTWRITEBYTECODE": os.environ.get("PYTHONDONTWRITEBYTECODE"),
        "reps": reps,
        "tldrs": tldrs,
        "python": python,
        "seconds": {
            "baseline": baseline, "cold": cold, "warm": warm,
            "version_best": version, "python_best": py,
            "baseline_all": baselines, "cold_all": colds, "warm_all": warms,
        },
        "ratios": ratios,
        "targets": TARGETS,
        "meets_target": {k: ratios[k] <= TARGETS[k] for k in ratios},
        "structure_output": summary,
        "cold_and_warm_output_identical": outputs_match,
        "errors": errors,
    }


def print_report(r: dict) -> None:
    s = r["seconds"]
    print(f"corpus   {r['corpus']}  ({r['walk']})")
    print(f"         {r['py_files']} .py files, {r['py_bytes'] / 1e6:.2f} MB, {r['py_lines']} lines; "
          f"{r['cpus']} CPUs; median of {r['reps']}; load average before/after "
          f"{r['loadavg_1min_before_after']}")
    if r["PYTHONDONTWRITEBYTECODE"]:
        print("         note: PYTHONDONTWRITEBYTECODE is set (modules without .pyc compile on every start)")
    out = r["structure_output"]
    print(f"output   {out.get('files')} files, {out.get('symbols')} symbols, "
          f"{(out.get('json_bytes') or 0) / 1e6:.2f} MB JSON; cold == warm: {r['cold_and_warm_output_identical']}")
    print(f"baseline {s['baseline']:.3f}s  (read + tree-sitter parse, in-process)")
    print(f"cold     {s['cold']:.3f}s  (tldrs structure --format json, empty cache)")
    print(f"warm     {s['warm']:.3f}s  (same, cache filled)")
    print(f"version  {s['version_best'] * 1000:.1f}ms  (tldrs --version, best)  "
          f"python -c pass {s['python_best'] * 1000:.1f}ms")
    labels = {"cold_over_baseline": "cold/baseline", "warm_over_baseline": "warm/baseline",
              "version_over_python": "version/python"}
    for key, label in labels.items():
        ok = "ok" if r["meets_target"][key] else "MISSES TARGET"
        print(f"  {label:<15} {r['ratios'][key]:6.2f}x  (target <= {r['targets'][key]}x)  {ok}")
    for e in r["errors"]:
        print(f"error: {e}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=os.environ.get("SYMBOLPACK_BENCH_CORPUS"),
                    help="a directory of Python files (default: $SYMBOLPACK_BENCH_CORPUS, else synthetic)")
    ap.add_argument("--reps", type=int, default=3, help="repetitions for the median (default 3)")
    ap.add_argument("--version-runs", type=int, default=15, help="runs for best-of start-up (default 15)")
    ap.add_argument("--synthetic-mb", type=float, default=7.0, help="size of the synthetic corpus")
    ap.add_argument("--git-init", action="store_true", help="git init a corpus that is not in a repository")
    ap.add_argument("--tldrs", default=None, help="the tldrs executable (default: next to this python)")
    ap.add_argument("--json", action="store_true", help="emit the results as JSON")
    args = ap.parse_args(argv)

    tmp = None
    if args.corpus:
        corpus = Path(args.corpus).expanduser().resolve()
        if not corpus.is_dir():
            ap.error(f"no such directory: {corpus}")
        if args.git_init and not in_git_repo(corpus):
            _git_init(corpus)
    else:
        tmp = Path(tempfile.mkdtemp(prefix="sp-bench-corpus-"))
        corpus = tmp / "corpus"
        make_synthetic(corpus, args.synthetic_mb)
    try:
        result = bench(corpus, args.tldrs or find_tldrs(), max(1, args.reps), max(1, args.version_runs))
        result["synthetic"] = tmp is not None
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
