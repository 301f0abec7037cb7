#!/usr/bin/env python3
"""Size of `diff-context` against plain `git diff` of the same change, over real history.

For each of the last ``--commits`` first-parent commits of ``--repo`` (oldest
first), in a temporary ``git clone --shared`` (the corpus is never touched) with
a temporary state dir, as `symbolpack.evaluation.replay` does:

1. the clone's HEAD is the commit's parent; the commit is laid on the index and
   the work tree (``read-tree -m -u``), so the change is what an agent would have
   uncommitted;
2. ``git diff PARENT COMMIT`` is the baseline: its tokens
   (``symbolpack.base.tokens.count_tokens``, the counter every policy is priced with);
3. ``diff_context(ws, base="HEAD", budget=--budget)`` without a session (what a
   fresh agent gets) and, when ``--session`` is on (the default), with one session
   that lives across the replay (packs only: stubs for what earlier packs gave);
   its ``budget_used`` (the tokens of its text) is the pack's size;
4. every pack is judged by the eval's `PackJudge` against the eval's changed
   lines (a line counts as changed when git's myers, patience and histogram
   diffs and difflib agree): every added line must be visible (in code, an
   ``[UNCHANGED]`` stub the session holds, or a diff), or its file summarized
   by a line the text shows (counted, not a failure); the session's packs are
   judged against the agent's copy they build (the eval's read oracle, line by
   line: a window gives only its lines).

Prints one row per commit (git diff tokens, pack tokens, ratio, judge failures,
summarized files) and totals: the ratio of summed pack tokens to summed git diff
tokens, and the median per-commit ratio. Target (issue 10): total ratio <= 1.5
(goal <= 1.0) with 0 failures. It reports; it asserts nothing (exit 1 only when
the judge found a failure).

Example:
    python evals/bench_diff_context_size.py --repo /tmp/corpora/requests --commits 20
    python evals/bench_diff_context_size.py --json            # this repository's own history
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

TARGET_RATIO = 1.5
GOAL_RATIO = 1.0


def _file_lines(root: Path):
    from symbolpack.evaluation.oracle import split_lines

    def file_lines(rel: str) -> list[str] | None:
        try:
            return split_lines((root / rel).read_bytes().decode("utf-8"))
        except (OSError, UnicodeDecodeError):
            return None

    return file_lines


def bench(repo: Path, commits: int = 20, end: str = "HEAD", budget: int | None = None, session: bool = True,
          progress=None) -> dict:
    from symbolpack.api.context import DEFAULT_BUDGET, diff_context
    from symbolpack.evaluation.harness import PackJudge, isolated_state
    from symbolpack.evaluation.oracle import ReadOracle
    from symbolpack.evaluation.replay import diff_context_changes, first_parent_commits, git, git_ok
    from symbolpack.api.operations import Workspace
    from symbolpack.base.tokens import count_tokens, counter_name

    budget = budget or DEFAULT_BUDGET
    repo = Path(repo).resolve()
    chain = first_parent_commits(repo, end, commits)
    rows: list[dict] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="symbolpack-bench-dcsize-") as tmp, isolated_state() as settings:
        clone = Path(tmp) / "clone"
        git(Path(tmp), "clone", "-q", "--shared", "--no-checkout", str(repo), str(clone))
        git(clone, "config", "core.autocrlf", "false")
        git(clone, "-c", "advice.detachedHead=false", "checkout", "-q", "--detach", f"{chain[0]}^1")
        file_lines = _file_lines(clone)
        # the session's packs are judged against the agent's copy they build, line by line
        judges = {False: PackJudge(delta=False), True: PackJudge(delta=True, read_oracle=ReadOracle())}
        ws = Workspace(clone, settings)
        try:
            for i, commit in enumerate(chain):
                parent = git(clone, "rev-parse", "HEAD").strip()
                if progress:
                    progress(i, len(chain), commit[:10])
                laid = git_ok(clone, "read-tree", "-m", "-u", "HEAD", commit) and \
                    git(clone, "write-tree", check=False).strip() == git(clone, "rev-parse", f"{commit}^{{tree}}").strip()
                if not laid:  # a tree read-tree cannot lay (submodules...): skipped, said
                    git(clone, "-c", "advice.detachedHead=false", "checkout", "-q", "-f", "--detach", commit)
                    rows.append({"commit": commit[:10], "skipped": "the commit could not be laid on its parent"})
                    continue
                plain = git(clone, "diff", "--no-color", "--no-ext-diff", parent, commit)
                changed = diff_context_changes(clone, parent, commit)
                row: dict = {"commit": commit[:10], "files": len(changed), "git_diff": count_tokens(plain)}
                for delta in ((False, True) if session else (False,)):
                    key = "session" if delta else "pack"
                    t0 = time.perf_counter()
                    pack = diff_context(ws, base="HEAD", session_id="bench" if delta else None, delta=delta,
                                        budget=budget)
                    row[f"{key}_seconds"] = round(time.perf_counter() - t0, 3)
                    problems = judges[delta].apply(pack, file_lines, changed)
                    row[key] = pack["budget_used"]
                    row[f"{key}_ratio"] = round(pack["budget_used"] / row["git_diff"], 3) if row["git_diff"] else None
                    row[f"{key}_failures"] = problems
                    row[f"{key}_summarized"] = list(judges[delta].summarized)
                    if key == "pack":
                        row["code_slices"] = sum(1 for s in pack["slices"] if s.get("code") is not None)
                        row["slices"] = len(pack["slices"])
                    else:
                        row["unchanged"] = len(pack["unchanged"])
                rows.append(row)
                git(clone, "reset", "-q", "--soft", commit)
        finally:
            ws.close()
    done = [r for r in rows if "skipped" not in r]
    base = sum(r["git_diff"] for r in done)
    summary = {"repo": str(repo), "commits": len(rows), "skipped": len(rows) - len(done), "budget": budget,
               "counter": counter_name(), "git_diff_tokens": base,
               "pack_tokens": sum(r["pack"] for r in done),
               "failures": sum(len(r["pack_failures"]) for r in done),
               "summarized": sum(len(r["pack_summarized"]) for r in done),
               "seconds": round(time.perf_counter() - started, 1)}
    summary["ratio"] = round(summary["pack_tokens"] / base, 3) if base else None
    ratios = [r["pack_ratio"] for r in done if r["pack_ratio"] is not None]
    summary["median_commit_ratio"] = round(statistics.median(ratios), 3) if ratios else None
    summary["max_commit_ratio"] = max(ratios) if ratios else None
    if session:
        summary["session_tokens"] = sum(r["session"] for r in done)
        summary["session_ratio"] = round(summary["session_tokens"] / base, 3) if base else None
        summary["session_failures"] = sum(len(r["session_failures"]) for r in done)
        summary["unchanged"] = sum(r["unchanged"] for r in done)
    summary["targets"] = {"ratio": TARGET_RATIO, "goal": GOAL_RATIO}
    summary["meets_target"] = summary["ratio"] is not None and summary["ratio"] <= TARGET_RATIO \
        and summary["failures"] == 0
    return {"summary": summary, "commits": rows}


def _print(report: dict) -> None:
    for r in report["commits"]:
        if "skipped" in r:
            print(f"{r['commit']}  skipped: {r['skipped']}")
            continue
        ratio = f"{r['pack_ratio']:5.2f}x" if r["pack_ratio"] is not None else "    -"
        line = (f"{r['commit']}  files {r['files']:3d}  git diff {r['git_diff']:6d}  pack {r['pack']:6d}  {ratio}"
                f"  slices {r['slices']:3d} (code {r['code_slices']:3d})")
        if "session" in r:
            line += f"  session {r['session']:6d} ({r['unchanged']} [UNCHANGED])"
        bad = r["pack_failures"] + r.get("session_failures", [])
        if r["pack_summarized"]:
            line += f"  summarized {len(r['pack_summarized'])}"
        print(line + ("  OK" if not bad else "  FAIL: " + "; ".join(bad[:3])))
    s = report["summary"]
    print(f"\n{s['repo']}: {s['commits']} commits ({s['skipped']} skipped), budget {s['budget']}, "
          f"counter {s['counter']}")
    print(f"git diff {s['git_diff_tokens']} tokens, diff-context {s['pack_tokens']}: ratio {s['ratio']} "
          f"(median per commit {s['median_commit_ratio']}, max {s['max_commit_ratio']}); "
          f"{s['failures']} judge failures, {s['summarized']} files summarized")
    if "session_tokens" in s:
        print(f"with one session across the replay: {s['session_tokens']} tokens (ratio {s['session_ratio']}), "
              f"{s['unchanged']} [UNCHANGED] stubs, {s['session_failures']} judge failures")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, default=Path(__file__).resolve().parent.parent,
                    help="a git repository (never modified; default: this one)")
    ap.add_argument("--commits", type=int, default=20)
    ap.add_argument("--rev", default="HEAD", help="the last commit replayed (default HEAD)")
    ap.add_argument("--budget", type=int, default=None, help="pack budget (default: diff-context's default)")
    ap.add_argument("--no-session", action="store_true", help="skip the run with a session")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    report = bench(args.repo, args.commits, args.rev, args.budget, session=not args.no_session,
                   progress=None if args.json else
                   (lambda i, n, c: print(f"[{i + 1}/{n}] {c}", file=sys.stderr, flush=True)))
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        _print(report)
    s = report["summary"]
    return 1 if s["failures"] or s.get("session_failures") else 0


if __name__ == "__main__":
    sys.exit(main())
