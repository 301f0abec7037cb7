"""Claude Code re-read hook with a long transcript, as a ratio against the same hook
with a short one, measured in the same run.

Target (provably-held issue): a re-read's hook answer with a 20 MB transcript stays
within 2x of its time with an empty one. The answer takes two hooks (Claude runs
`claude-pre-read`, the native Read, then `claude-post-read`); both are timed. The transcript is parsed
incrementally (`integrations/claude/transcript.py`): the rows below are

* `short`: a transcript holding only this conversation's few records;
* `long, warm`: a 20 MB transcript whose parse the state dir already holds, grown
  by one turn (a new Read) since: the steady state of a long session;
* `long, cold`: the same 20 MB transcript met for the first time (the parse kept
  under the state dir is empty): what the first hook of a resumed session pays.

The 20 MB is what Claude Code writes in a long session: chain records (prompts,
tool calls, tool results carrying file contents) and bookkeeping records
(`api-request-blob` copies of each request), in a realistic mix.
Runs are interleaved; medians are compared.

Usage: python evals/bench_transcript.py [--runs N] [--megabytes M] [--json]
Exit 1 when the warm ratio exceeds --max-ratio (default 2.0).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path


def _module() -> str:
    return "".join(f"def f{k}(x):\n" + "".join(f"    x += {i}\n" for i in range(10)) + "    return x\n\n" for k in range(40))


class Writer:
    """Records in Claude Code's shapes, chained by parentUuid."""

    def __init__(self, path: Path, session: str):
        self.path, self.session, self.leaf, self.calls = path, session, None, 0
        self.fh = path.open("a")

    def rec(self, record: dict) -> str:
        uid = str(uuid.uuid4())
        self.fh.write(json.dumps({"parentUuid": self.leaf, "isSidechain": False, **record, "uuid": uid,
                                  "sessionId": self.session}) + "\n")
        self.leaf = uid
        return uid

    def turn(self, tool: str, tool_input: dict, result: str, blob: int) -> str:
        self.calls += 1
        ident = f"toolu_bench{self.calls:06d}"
        self.rec({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": ident, "name": tool, "input": tool_input}]}})
        self.rec({"type": "user", "message": {"role": "user", "content": [
            {"tool_use_id": ident, "type": "tool_result", "content": result}]}})
        self.fh.write(json.dumps({"type": "api-request-blob", "sessionId": self.session,
                                  "message": {"content": "x" * blob}}) + "\n")
        return ident

    def close(self) -> None:
        self.fh.close()


def _native(text: str) -> str:
    return "\n".join(f"{i + 1}\t{line}" for i, line in enumerate(text.split("\n")))


def build(root: Path, megabytes: float, home: Path) -> tuple[Path, str]:
    """A transcript of about *megabytes* MB whose last turn reads app.py; its session id."""
    session = str(uuid.uuid4())
    key = "".join(c if c.isalnum() else "-" for c in str(root))
    path = home / ".claude" / "projects" / key / f"{session}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    w = Writer(path, session)
    w.rec({"type": "user", "message": {"role": "user", "content": "start"}})
    other = _native("".join(f"line {i} of some other file\n" for i in range(300)))
    while path.stat().st_size < megabytes * 1e6:
        w.turn("Read", {"file_path": str(root / "other.txt")}, other, 60_000)
        w.turn("Bash", {"command": "ls"}, "app.py\nother.txt\n", 20_000)
        w.fh.flush()
    w.close()
    return path, session


def payload(root: Path, transcript: Path, session: str, ident: str) -> bytes:
    return json.dumps({"session_id": session, "transcript_path": str(transcript), "cwd": str(root),
                       "hook_event_name": "PreToolUse", "tool_name": "Read",
                       "tool_input": {"file_path": str(root / "app.py")}, "tool_use_id": ident}).encode()


def read_turn(transcript: Path, session: str, root: Path) -> str:
    """Append one Read call to the chain, as Claude writes it; its tool_use id."""
    w = Writer(transcript, session)
    lines = [json.loads(line) for line in transcript.read_text().splitlines()[-40:] if '"parentUuid"' in line]
    w.leaf = lines[-1]["uuid"] if lines else None
    ident = f"toolu_r{uuid.uuid4().hex[:16]}"
    w.rec({"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": ident, "name": "Read", "input": {"file_path": str(root / "app.py")}}]}})
    w.close()
    return ident


def answer(transcript: Path, session: str, ident: str, text: str) -> None:
    w = Writer(transcript, session)
    lines = [json.loads(line) for line in transcript.read_text().splitlines()[-5:] if '"parentUuid"' in line]
    w.leaf = lines[-1]["uuid"]
    w.rec({"type": "user", "message": {"role": "user", "content": [
        {"tool_use_id": ident, "type": "tool_result", "content": text}]}})
    w.close()


def hook(root: Path, env: dict, data: bytes) -> tuple[float, str]:
    """claude-pre-read, then claude-post-read as Claude runs them around the native
    Read; (milliseconds of both, the answer the model gets)."""
    elapsed = 0.0
    outputs = []
    payload = json.loads(data)
    text = (root / "app.py").read_text()
    post = {**payload, "hook_event_name": "PostToolUse", "tool_response": {"type": "text", "file": {
        "filePath": payload["tool_input"]["file_path"], "content": text, "numLines": text.count("\n") + 1,
        "startLine": 1, "totalLines": text.count("\n") + 1}}}
    for name, body in (("claude-pre-read", data), ("claude-post-read", json.dumps(post).encode())):
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "symbolpack.integrations.claude", name], input=body,
                              capture_output=True, cwd=root, env=env, timeout=120)
        elapsed += (time.perf_counter() - start) * 1000
        if proc.returncode != 0:
            raise SystemExit(f"{name} failed: {proc.stderr.decode()[-400:]}")
        outputs.append(proc.stdout.decode())
    if outputs[0].strip():  # a deny (no transcript proof)
        return elapsed, json.loads(outputs[0])["hookSpecificOutput"]["permissionDecisionReason"]
    return elapsed, json.loads(outputs[1])["hookSpecificOutput"]["additionalContext"] if outputs[1].strip() else ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--megabytes", type=float, default=20.0)
    ap.add_argument("--max-ratio", type=float, default=2.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="symbolpack-bench-transcript-"))
    try:
        root = tmp / "repo"
        root.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        app = _module()
        (root / "app.py").write_text(app)
        (root / "other.txt").write_text("x\n")
        env = {**os.environ, "SYMBOLPACK_DIR": str(tmp / "state")}
        short_home, long_home = tmp / "short", tmp / "long"
        short, short_sid = build(root, 0.0, short_home)
        long_, long_sid = build(root, args.megabytes, long_home)
        size = long_.stat().st_size
        cache_dir = tmp / "state" / "claude"
        rows: dict[str, list[float]] = {"short": [], "long, warm": [], "long, cold": []}
        for transcript, sid in ((short, short_sid), (long_, long_sid)):  # a first read of app.py in each
            ident = read_turn(transcript, sid, root)
            _, out = hook(root, env, payload(root, transcript, sid, ident))
            answer(transcript, sid, ident, _native(app))
        for _ in range(args.runs):
            for name, transcript, sid in (("short", short, short_sid), ("long, warm", long_, long_sid)):
                ident = read_turn(transcript, sid, root)
                ms, out = hook(root, env, payload(root, transcript, sid, ident))
                if "[UNCHANGED]" not in out:
                    raise SystemExit(f"{name}: expected [UNCHANGED], got {out[:200]!r}")
                answer(transcript, sid, ident, "1\t" + app.split("\n", 1)[0])
                rows[name].append(ms)
            kept = {p: p.read_bytes() for p in cache_dir.glob("*.pickle")}
            long_cache = [p for p in kept if p.stat().st_size == max(q.stat().st_size for q in kept)]
            for p in long_cache:
                p.unlink()  # the long transcript met for the first time
            ident = read_turn(long_, long_sid, root)
            ms, out = hook(root, env, payload(root, long_, long_sid, ident))
            if "[UNCHANGED]" not in out:
                raise SystemExit(f"long, cold: expected [UNCHANGED], got {out[:200]!r}")
            answer(long_, long_sid, ident, "1\t" + app.split("\n", 1)[0])
            rows["long, cold"].append(ms)
        med = {k: statistics.median(v) for k, v in rows.items()}
        report = {"transcript_bytes": size, "runs": args.runs, "median_ms": med,
                  "ratio_warm": med["long, warm"] / med["short"], "ratio_cold": med["long, cold"] / med["short"]}
        if args.json:
            print(json.dumps(report, indent=1))
        else:
            print(f"transcript: {size / 1e6:.1f} MB, {args.runs} runs (medians)")
            for k, v in med.items():
                print(f"  {k:<11} {v:7.1f} ms  {v / med['short']:.2f}x short")
        return 0 if report["ratio_warm"] <= args.max_ratio else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
