"""Replaying real history: N first-parent commits of any git repository, read as an agent would.

Why history: it is the only source of edits with the shape real work has (a
bugfix touching two functions, a rename across files, a reformat) that no
synthetic generator imitates. Each commit C with parent P is one turn:

1. with the checkout at P, read every file C modifies (a full read; files C
   adds do not exist yet), drill into every hidden body that holds a line C
   changes (the agent needs the code it is about to edit; each such drill-in is
   charged one round trip, and counted per file edited; a package manager's
   lockfile is read but not drilled into: an agent regenerates it with the
   package manager, it does not edit it by hand), re-read the most
   recently read files from earlier turns, and make one seeded range read;
2. lay C on P (index and work tree become C, HEAD stays P) and, when the engine
   has it, ask `diff-context` with and without delta (`run_diff_context_step`);
3. move HEAD to C.

All of it happens in a temporary `git clone --shared` (the user's working tree
and refs are never touched) with a temporary state dir. `git` decides what
changed (`diff -U0`), not the engine, so the drill-ins and the "every changed
line is visible" check stand apart from what they judge.
"""

from __future__ import annotations

import difflib
import functools
import os
import random
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

from ..base.tokens import count_tokens
from ..reads.views import unified_diff
from ..base.errors import GitError, NotFound, UsageError
from .harness import ChangedLines, EvalSession, PackJudge, isolated_state, load_pack_function, native_cost, summarize
from .oracle import split_lines

REREADS_PER_COMMIT = 3
# files a package manager writes: agents run the tool rather than edit them (their own
# list, not the engine's: what the agent does must not depend on what it judges)
REGENERATED = frozenset({"Cargo.lock", "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml",
                         "poetry.lock", "Pipfile.lock", "uv.lock", "go.sum", "composer.lock", "Gemfile.lock",
                         "bun.lock", "flake.lock", "mix.lock", "pubspec.lock", "Package.resolved"})
RANGE_LIMITS = (10, 80)
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


# --------------------------------------------------------------------------- git

def git(cwd: Path, *args: str, check: bool = True) -> str:
    env = {**os.environ, "GIT_LFS_SKIP_SMUDGE": "1", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    proc = subprocess.run(["git", "-c", "core.quotepath=off", *args], cwd=cwd, env=env, capture_output=True)
    if check and proc.returncode != 0:
        raise GitError(f"git {' '.join(args[:3])} failed: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout.decode("utf-8", errors="surrogateescape")


def git_ok(cwd: Path, *args: str) -> bool:
    try:
        git(cwd, *args)
    except GitError:
        return False
    return True


def first_parent_commits(repo: Path, end: str, count: int) -> list[str]:
    """The last *count* first-parent commits up to *end* that have a parent, oldest first."""
    try:
        tip = git(repo, "rev-parse", "--verify", "--quiet", f"{end}^{{commit}}").strip()
    except GitError:
        raise NotFound(f"{end!r} is not a commit in {repo}") from None
    chain = git(repo, "rev-list", "--first-parent", f"--max-count={count + 1}", tip).split()
    chain.reverse()
    with_parent = chain[1:] if len(chain) == count + 1 else chain
    return [c for c in with_parent if git(repo, "rev-parse", "--verify", "--quiet", f"{c}^1", check=False).strip()]


@dataclass
class FileChange:
    """One file's change in one commit, in both line numberings (from `git diff -U0`)."""

    status: str  # A, M, D, T
    old_lines: set[int] = field(default_factory=set)  # P's lines that C removes or rewrites
    insert_after: set[int] = field(default_factory=set)  # P's lines after which C inserts
    new: ChangedLines = field(default_factory=ChangedLines)


def commit_changes(clone: Path, parent: str, commit: str) -> dict[str, FileChange]:
    raw = git(clone, "diff", "--no-renames", "--no-ext-diff", "--name-status", "-z", parent, commit)
    parts = raw.split("\0")
    out: dict[str, FileChange] = {}
    for status, path in zip(parts[0::2], parts[1::2]):
        if not path:
            continue
        change = FileChange(status[:1])
        if change.status == "D":
            change.new.deleted_file = True
        patch = git(clone, "diff", "--no-renames", "--no-ext-diff", "--no-color", "-U0", parent, commit, "--", path)
        for line in patch.splitlines():
            m = _HUNK.match(line)
            if not m:
                continue
            a, b = int(m.group(1)), int(m.group(2)) if m.group(2) is not None else 1
            c, d = int(m.group(3)), int(m.group(4)) if m.group(4) is not None else 1
            if b:
                change.old_lines.update(range(a, a + b))
            else:
                change.insert_after.add(a)
            if d:
                change.new.lines.update(range(c, c + d))
            else:
                change.new.deletion_points.add(c + 1)
        out[path] = change
    return out


GIT_DIFF_ALGORITHMS = ("myers", "patience", "histogram")


def diff_context_changes(clone: Path, parent: str, commit: str) -> dict[str, ChangedLines]:
    """Per path, the lines a diff against *parent* must make visible, with git's rename detection
    (a renamed file's changed lines are those that differ from its old path's content).

    A diff is not unique: an inserted block next to an equal line (a blank line, a lone
    brace) may sit one line up or down. So a line counts as changed only when every
    common alignment calls it changed: git's myers, patience and histogram, and difflib's.
    """
    raw = git(clone, "diff", "-M", "--no-ext-diff", "--name-status", "-z", parent, commit)
    parts = raw.split("\0")
    out: dict[str, ChangedLines] = {}
    i = 0
    while i < len(parts) and parts[i]:
        status = parts[i]
        paths = parts[i + 1:i + (3 if status[:1] in "RC" else 2)]
        i += 1 + len(paths)
        new_path = paths[-1]
        change = ChangedLines(deleted_file=status[:1] == "D")
        if status[:1] in "RC":
            change.renamed_from = paths[0]
            if status[:1] == "R":
                out[paths[0]] = ChangedLines(deleted_file=True, renamed_to=new_path)
        if status[:1] != "D":
            alignments = []
            for algorithm in GIT_DIFF_ALGORITHMS:
                lines, points = _git_new_side(clone, parent, commit, paths, algorithm)
                alignments.append(lines)
                if algorithm == "myers":
                    change.deletion_points = points
            old, new = _show(clone, parent, paths[0]), _show(clone, commit, new_path)
            if old is not None and new is not None:
                for autojunk in (False, True):
                    matcher = difflib.SequenceMatcher(None, split_lines(old), split_lines(new), autojunk=autojunk)
                    alignments.append({n + 1 for tag, _, _, j1, j2 in matcher.get_opcodes() if tag != "equal"
                                       for n in range(j1, j2)})
            change.lines = set.intersection(*alignments)
        out[new_path] = change
    return out


def _git_new_side(clone: Path, parent: str, commit: str, paths: list[str], algorithm: str
                  ) -> tuple[set[int], set[int]]:
    """New-side changed lines and deletion points of one file's diff under one algorithm."""
    patch = git(clone, "diff", "-M", "--no-ext-diff", "--no-color", "-U0", f"--diff-algorithm={algorithm}",
                parent, commit, "--", *paths)
    lines: set[int] = set()
    points: set[int] = set()
    for line in patch.splitlines():
        m = _HUNK.match(line)
        if m:
            c, d = int(m.group(3)), int(m.group(4)) if m.group(4) is not None else 1
            if d:
                lines.update(range(c, c + d))
            else:
                points.add(c + 1)
    return lines, points


def _subject(clone: Path, commit: str) -> str:
    return git(clone, "log", "-1", "--format=%s", commit).strip()


# --------------------------------------------------------------------------- diff-context

def run_diff_context_step(session: EvalSession, fn: Callable, base: str, changed: Mapping[str, ChangedLines],
                          judges: Mapping[bool, PackJudge], old_text: Callable[[str], str | None]) -> None:
    """Ask `diff-context` for the work tree against *base*, with delta and without; judge both.

    *fn* is called as ``fn(session.ws, base=base, session_id=session.session_id, delta=True|False)``
    and must return the protocol's diff-context object (PROTOCOL.md: ``v``, ``slices`` with
    ``id``/``path``/``lines``/``code``, ``unchanged``, ``diffs``, ``text``) for the work
    tree of ``session.ws.root`` against the revision *base*, staged and unstaged changes
    included. With ``delta=False`` it must neither consult nor update the session.

    *changed* maps each path the change touches to its changed lines (from git, in the
    work tree's numbering); *judges* holds one `PackJudge` per delta setting, kept across
    commits so `[UNCHANGED]` claims are checked against everything this session got.
    Each pack is recorded on *session* with its tokens, latency and judgement, priced
    against reading every changed file whole (native) and against the plain unified
    diffs (the reference); *old_text(path)* gives a file's text at *base*.
    """
    native = reference = 0
    for path, change in changed.items():
        new = session.file_lines(path)
        old = old_text(path)
        old_lines = split_lines(old) if old is not None else []
        if new is not None:
            native += native_cost(new, None)
        reference += count_tokens(unified_diff(old_lines, new or []).text)
    for delta in (True, False):
        kind = "diff-context" if delta else "diff-context --no-delta"
        started = time.perf_counter()
        try:
            pack = fn(session.ws, base=base, session_id=session.session_id, delta=delta)
        except Exception as exc:
            session.other_failures.append(f"[{session.turn}] {kind}: engine raised {type(exc).__name__}: {exc}")
            continue
        latency = (time.perf_counter() - started) * 1000
        failures = judges[delta].apply(pack, session.file_lines, changed)
        session.record_pack(kind, pack, latency, failures, native, reference, len(judges[delta].summarized))


# --------------------------------------------------------------------------- the replay

def replay(repo: Path, commits: int = 20, end: str = "HEAD", seed: int = 0, engine=None,
           progress: Callable[[int, int, str], None] | None = None,
           diff_context: Callable | None | bool = True) -> dict:
    """Replay *commits* first-parent commits ending at *end*; return the summary (see harness).

    *diff_context*: True to use the engine's when it has one, False to skip the step, or a
    callable to use instead (tests inject fakes and deliberately broken ones this way).
    """
    repo = Path(repo).resolve()
    if not (repo / ".git").exists() and git(repo, "rev-parse", "--is-bare-repository", check=False).strip() != "true":
        raise GitError(f"{repo} is not a git repository")
    if commits < 1:
        raise UsageError("--commits must be at least 1")
    started = time.perf_counter()
    chain = first_parent_commits(repo, end, commits)
    if not chain:
        raise NotFound(f"{end} has no commit with a parent to replay")
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="symbolpack-eval-replay-") as tmp, isolated_state() as settings:
        clone = Path(tmp) / "clone"
        git(Path(tmp), "clone", "-q", "--shared", "--no-checkout", str(repo), str(clone))
        git(clone, "config", "core.autocrlf", "false")
        git(clone, "-c", "advice.detachedHead=false", "checkout", "-q", "--detach", f"{chain[0]}^1")
        session = EvalSession(clone, session_id="replay", engine=engine, settings=settings)
        session.edited_files = 0
        fn, why = _diff_context_fn(session, diff_context)
        judges = {True: PackJudge(delta=True, read_oracle=session.oracle), False: PackJudge(delta=False)}
        labels: list[str] = []
        try:
            for i, commit in enumerate(chain):
                parent = git(clone, "rev-parse", "HEAD").strip()
                label = f"{commit[:10]} {_subject(clone, commit)[:60]}"
                labels.append(label)
                session.turn = label
                if progress:
                    progress(i, len(chain), label)
                changes = commit_changes(clone, parent, commit)
                _agent_turn(session, clone, changes, rng)
                laid = git_ok(clone, "read-tree", "-m", "-u", "HEAD", commit) and _tree_matches(clone, commit)
                if not laid:
                    git(clone, "-c", "advice.detachedHead=false", "checkout", "-q", "-f", "--detach", commit)
                elif fn is not None:
                    run_diff_context_step(session, fn, "HEAD", diff_context_changes(clone, parent, commit), judges,
                                          functools.partial(_show, clone, parent))
                git(clone, "reset", "-q", "--soft", commit)
            if progress:
                progress(len(chain), len(chain), "done")
        finally:
            session.close()
        return summarize(session, labels, kind="replay", repo=str(repo), commits=len(chain),
                         first_commit=chain[0], last_commit=chain[-1], seed=seed,
                         diff_context="available" if fn is not None else f"not available: {why}",
                         seconds=round(time.perf_counter() - started, 2))


def _diff_context_fn(session: EvalSession, choice) -> tuple[Callable | None, str]:
    if choice is False or choice is None:
        return None, "skipped"
    if callable(choice):
        return choice, ""
    return load_pack_function("diff_context", session.ws, base="HEAD", session_id=session.session_id, delta=True)


def _tree_matches(clone: Path, commit: str) -> bool:
    """Index equals *commit*'s tree (the work tree was updated with it by read-tree -u)."""
    return git(clone, "write-tree", check=False).strip() == git(clone, "rev-parse", f"{commit}^{{tree}}").strip()


def _show(clone: Path, rev: str, path: str) -> str | None:
    proc = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=clone, capture_output=True)
    if proc.returncode != 0:
        return None
    try:
        return proc.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _is_plain_file(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def _agent_turn(session: EvalSession, clone: Path, changes: dict[str, FileChange], rng: random.Random) -> None:
    """Step 1 of the module docstring, at the parent commit."""
    earlier = [p for p in session.recent]
    read_now: list[str] = []
    for path, change in sorted(changes.items()):
        if change.status == "A" or not _is_plain_file(clone / path):
            continue
        response = session.read(path)
        read_now.append(path)
        if response is None or change.status == "D" or response.get("mode") == "passthrough":
            continue  # an agent deleting a file does not open its bodies
        if path.rsplit("/", 1)[-1] in REGENERATED:
            continue  # the package manager rewrites it
        session.edited_files = (session.edited_files or 0) + 1  # a file the agent opens to edit
        targets = set(change.old_lines)
        unknown = set(session.unknown(path, [n for a in change.insert_after for n in (a, a + 1)]))
        targets |= {a for a in change.insert_after if a in unknown and a + 1 in unknown}
        session.drill_into(path, sorted(targets))
    rereads = [p for p in reversed(earlier) if p not in read_now and _is_plain_file(clone / p)][:REREADS_PER_COMMIT]
    for path in rereads:
        session.read(path)
    _range_read(session, clone, rng)


def _range_read(session: EvalSession, clone: Path, rng: random.Random) -> None:
    known = [p for p in session.recent if _is_plain_file(clone / p)]
    if known and rng.random() < 0.7:
        path = rng.choice(known)
    else:
        tracked = [p for p in git(clone, "ls-files", "-z").split("\0") if p]
        tracked = [p for p in tracked if _is_plain_file(clone / p)]
        if not tracked:
            return
        path = rng.choice(tracked)
    lines = session.file_lines(path)
    if not lines:
        return
    offset = rng.randint(1, len(lines))
    limit = rng.randint(*RANGE_LIMITS)
    session.read(path, offset=offset, limit=limit)
