#!/usr/bin/env python3
"""Replay a repository's history through `diff_context` and check its invariants.

For each of the last ``--commits`` first-parent commits of ``--rev`` (oldest
first), in one temporary detached worktree:

1. check out the commit's parent, clean;
2. lay the commit's change on the working tree with ``git apply`` -- every
   other commit with ``--index`` (staged), the rest unstaged, so added files
   are untracked then tracked by turns;
3. call ``diff_context`` with one session that lives across the whole replay
   (delta on), and again with ``delta=False`` for the token comparison;
4. check:
   * every slice's ``code`` equals the file's lines ``lines[0]..lines[1]``
     and its ``etag`` is the hash of those lines;
   * a slice is ``unchanged`` only if this session was given exactly that
     code (same id, same etag) by an earlier pack -- tracked here from the
     packs themselves, not from the store;
   * every changed line is visible: each added line (``git diff -U0`` of the
     commit) lies in a slice with code, in an unchanged slice, or is a ``+``
     line at that number in a ``diffs`` entry of its path; each removed line
     is a ``-`` line of a ``diffs`` entry, or the old symbol holding it
     (innermost, by its own parse of the parent's file) survives under the
     same local id and is shown as a changed symbol (code or unchanged), or
     its deletion point lies in a shown changed symbol; binary, renamed and
     mode-only paths need a ``diffs`` entry;
   * the JSON has exactly the protocol's keys.

Prints one line per commit and totals: checks failed, slices, unchanged
stubs, cache hit rate, tokens with delta vs ``--no-delta``. Exits 1 when a
check failed. The corpus is never modified: the worktree is removed at the end.

Example:
    python evals/replay_diff_context.py --repo /tmp/corpora/click --commits 20
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOP_KEYS = {"v", "base", "session_id", "budget_used", "slices", "unchanged", "diffs", "cache_stats", "text"}
SLICE_KEYS = {"id", "path", "kind", "signature", "lines", "code", "etag", "relevance"}
NOTE = re.compile(r"^(binary file |renamed |mode of |empty file |submodule )")


def git(cwd: Path, *args: str, input: bytes | None = None) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "r", "GIT_AUTHOR_EMAIL": "r@example.com",
           "GIT_COMMITTER_NAME": "r", "GIT_COMMITTER_EMAIL": "r@example.com"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          input=input).stdout.decode("utf-8", "surrogateescape")


def commit_changes(repo: Path, parent: str, commit: str) -> tuple[dict, dict, dict, set]:
    """(added new lines, removed old lines with their new-side position, new->old paths, note paths)."""
    out = git(repo, "diff", "-U0", "--no-color", "--no-ext-diff", "-M", parent, commit, "--")
    added: dict[str, set[int]] = {}
    removed: dict[str, list[tuple[int, int]]] = {}  # new path -> [(old line, new position)]
    renamed: dict[str, str] = {}
    notes: set[str] = set()
    old_path = new_path = None
    for line in out.splitlines():
        if line.startswith("diff --git "):
            old_path = new_path = None
            m = re.match(r"diff --git a/(.*) b/(.*)$", line)
            if m:
                old_path, new_path = m.group(1), m.group(2)
        elif line.startswith("--- "):
            old_path = None if line[4:] == "/dev/null" else line[6:]
        elif line.startswith("+++ "):
            new_path = None if line[4:] == "/dev/null" else line[6:]
        elif line.startswith("Binary files") or line.startswith("rename to ") or line.startswith("new mode"):
            notes.add(new_path or old_path)
        else:
            m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", line)
            if not m:
                continue
            a, b = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
            c, d = int(m.group(3)), int(m.group(4) if m.group(4) is not None else 1)
            if new_path and d:
                added.setdefault(new_path, set()).update(range(c, c + d))
            if b:
                key = new_path or old_path
                removed.setdefault(key, []).extend((o, c) for o in range(a, a + b))
                if old_path:
                    renamed[key] = old_path
    return added, removed, renamed, notes


def survivors(repo: Path, parent: str, old_path: str, new_path: str, lines: list[int]) -> dict[int, str]:
    """Removed old line -> id (in the new file) of the old symbol holding it, by local id."""
    from symbolpack.engine.languages import has_query, language_for_path
    from symbolpack.engine.symbols import extract

    lang = language_for_path(old_path)
    if not has_query(lang):
        return {}
    try:
        data = subprocess.run(["git", "show", f"{parent}:{old_path}"], cwd=repo, capture_output=True,
                              check=True).stdout
        records, _ = extract(data, lang)
    except Exception:
        return {}
    out = {}
    for o in lines:
        inside = [r for r in records if r.lines[0] <= o <= r.lines[1]]
        if inside:
            best = min(inside, key=lambda r: r.lines[1] - r.lines[0])
            out[o] = f"{new_path}:{language_for_path(new_path)}:{best.local_id}"
    return out


def diff_lines(diffs: list[dict]) -> tuple[dict[str, set[int]], dict[str, set[int]], set[str]]:
    """'+' new line numbers and '-' old line numbers per path shown in `diffs`, and note paths."""
    plus: dict[str, set[int]] = {}
    minus: dict[str, set[int]] = {}
    notes: set[str] = set()
    for d in diffs:
        if NOTE.match(d["diff"]):
            notes.add(d["path"])
            continue
        o = n = None
        for line in d["diff"].splitlines():
            m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", line)
            if m:
                o = int(m.group(1)) + (1 if m.group(2) == "0" else 0)
                n = int(m.group(3)) + (1 if m.group(4) == "0" else 0)
                continue
            if n is None or line.startswith(("--- ", "+++ ")):
                continue
            if line.startswith("+"):
                plus.setdefault(d["path"], set()).add(n)
                n += 1
            elif line.startswith("-"):
                minus.setdefault(d["path"], set()).add(o)
                o += 1
            else:
                n += 1
                o += 1
    return plus, minus, notes


def check(result: dict, tree: Path, given: dict[str, str], changes, repo: Path, parent: str) -> list[str]:
    from symbolpack.engine.symbols import etag_of, split_lines

    problems: list[str] = []
    if set(result) != TOP_KEYS:
        problems.append(f"top-level keys {sorted(result)}")
    shown: dict[str, list[tuple[int, int]]] = {}
    changed_shown: dict[str, list[tuple[int, int]]] = {}
    changed_shown_ids: set[str] = set()
    file_cache: dict[str, list[bytes]] = {}
    for s in result["slices"]:
        if set(s) != SLICE_KEYS:
            problems.append(f"slice keys {sorted(s)}")
        path = s["path"]
        if path not in file_cache:
            file_cache[path] = split_lines((tree / path).read_bytes())
        lines = file_cache[path]
        a, b = s["lines"]
        if etag_of(lines, a, b) != s["etag"]:
            problems.append(f"{s['id']}: etag is not the hash of lines {a}-{b}")
        if s["code"] is not None:
            want = "\n".join(x.decode("utf-8", "replace") for x in lines[a - 1:b])
            if s["code"] != want:
                problems.append(f"{s['id']}: code differs from the file's lines {a}-{b}")
        unchanged = s["id"] in result["unchanged"]
        if unchanged:
            if s["code"] is not None:
                problems.append(f"{s['id']}: unchanged but has code")
            if given.get(s["id"]) != s["etag"]:
                problems.append(f"{s['id']}: marked unchanged but this session never got that code")
        if s["code"] is not None or unchanged:
            shown.setdefault(path, []).append((a, b))
            if s["relevance"] == "contains_diff":
                changed_shown.setdefault(path, []).append((a, b))
                changed_shown_ids.add(s["id"])
    plus, minus, note_paths = diff_lines(result["diffs"])
    added, removed, renamed, notes = changes
    for path, numbers in added.items():
        if path in note_paths:
            continue
        for n in sorted(numbers):
            if not any(a <= n <= b for a, b in shown.get(path, ())) and n not in plus.get(path, set()):
                problems.append(f"{path}:{n} added but not visible")
                break
    for path, pairs in removed.items():
        if path in note_paths:
            continue
        owners = None
        for o, pos in pairs:
            if o in minus.get(path, set()):
                continue
            if any(a <= pos + k <= b for a, b in changed_shown.get(path, ()) for k in (0, 1)):
                continue
            if owners is None:  # the old symbol survives (same local id) and is shown whole
                owners = survivors(repo, parent, renamed.get(path, path), path, [x for x, _ in pairs])
            if owners.get(o) in changed_shown_ids:
                continue
            problems.append(f"{path}: removed old line {o} not visible")
            break
    for path in notes:
        if path not in note_paths and path not in plus and path not in shown:
            problems.append(f"{path}: binary/rename/mode change not reported")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", required=True, type=Path, help="a clone (never modified; a worktree is used)")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--commits", type=int, default=20)
    ap.add_argument("--budget", type=int, default=8000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    from symbolpack.api.context import diff_context
    from symbolpack.api.operations import Workspace
    from symbolpack.base.settings import load_settings

    repo = args.repo.resolve()
    commits = git(repo, "rev-list", "--first-parent", "-n", str(args.commits), args.rev).split()[::-1]
    tmp = Path(tempfile.mkdtemp(prefix="replay-"))
    tree = tmp / "wt"
    settings = load_settings().replace(state_dir=str(tmp / "state"))  # caches and sessions outside the corpus
    session = "replay"
    given: dict[str, str] = {}
    rows = []
    failures = 0
    try:
        git(repo, "worktree", "add", "-q", "--detach", str(tree), commits[0] + "^")
        for k, commit in enumerate(commits):
            parent = git(repo, "rev-parse", commit + "^").strip()
            git(tree, "checkout", "-q", "-f", "--detach", parent)
            git(tree, "clean", "-fdq")
            patch = subprocess.run(["git", "diff", "--binary", "-M", parent, commit], cwd=repo,
                                   capture_output=True, check=True).stdout
            staged = k % 2 == 0
            if patch:
                git(tree, "apply", *(["--index"] if staged else []), "--whitespace=nowarn", "-", input=patch)
            changes = commit_changes(repo, parent, commit)
            ws = Workspace(tree, settings)
            t0 = time.perf_counter()
            result = diff_context(ws, session_id=session, delta=True, budget=args.budget)
            elapsed = time.perf_counter() - t0
            plain = diff_context(ws, delta=False, budget=args.budget)
            ws.close()
            problems = check(result, tree, given, changes, repo, parent)
            json.dumps(result)  # must serialise
            for s in result["slices"]:
                if s["code"] is not None:
                    given[s["id"]] = s["etag"]
            failures += bool(problems)
            row = {"commit": commit[:10], "staged": staged,
                   "files": len(set(changes[0]) | set(changes[1]) | changes[3]),
                   "slices": len(result["slices"]),
                   "code": sum(1 for s in result["slices"] if s["code"] is not None),
                   "unchanged": len(result["unchanged"]), "diffs": len(result["diffs"]),
                   "tokens": result["budget_used"], "tokens_no_delta": plain["budget_used"],
                   "hits": result["cache_stats"]["hits"], "misses": result["cache_stats"]["misses"],
                   "seconds": round(elapsed, 3), "problems": problems}
            rows.append(row)
            if not args.json:
                print(f"{row['commit']} {'staged  ' if staged else 'unstaged'} files {row['files']:3d} "
                      f"slices {row['slices']:3d} code {row['code']:3d} unchanged {row['unchanged']:3d} "
                      f"diffs {row['diffs']:3d} tokens {row['tokens']:6d} / no-delta {row['tokens_no_delta']:6d} "
                      f"{row['seconds']:.2f}s {'OK' if not problems else 'FAIL: ' + '; '.join(problems[:3])}")
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=repo, capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    hits = sum(r["hits"] for r in rows)
    misses = sum(r["misses"] for r in rows)
    tok, tok_plain = sum(r["tokens"] for r in rows), sum(r["tokens_no_delta"] for r in rows)
    summary = {"repo": str(repo), "commits": len(rows), "failed": failures,
               "slices": sum(r["slices"] for r in rows), "unchanged": sum(r["unchanged"] for r in rows),
               "hit_rate": round(hits / (hits + misses), 3) if hits + misses else 0.0,
               "tokens_delta": tok, "tokens_no_delta": tok_plain,
               "saved": round(1 - tok / tok_plain, 3) if tok_plain else 0.0,
               "median_seconds": sorted(r["seconds"] for r in rows)[len(rows) // 2] if rows else 0.0}
    if args.json:
        print(json.dumps({"summary": summary, "commits": rows}, indent=2))
    else:
        print(f"\n{summary['commits']} commits, {summary['failed']} failed; {summary['slices']} slices, "
              f"{summary['unchanged']} [UNCHANGED] (hit rate {summary['hit_rate']:.0%}); tokens with delta "
              f"{tok} vs {tok_plain} without ({summary['saved']:.0%} saved); median {summary['median_seconds']}s/commit")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
