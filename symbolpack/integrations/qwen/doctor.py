"""Qwen Code's part of `tldrs doctor`: what `tldrs install qwen` left where, and whether it answers.

For the project's and the user's `settings.json`: which of symbolpack's hooks are
there (`settings.QwenSettings.installed`). Then each installed command is run as Qwen
runs it (`$SHELL -c COMMAND`, payload on stdin) in a scratch project with a state dir
of its own: the pre-read hook on a first read (never a decision: Qwen reads), the
post-read hook on that read's output (a stop whose reason is a `[SKELETON]`), then
both again on a re-read, with a transcript holding the first answer, which must be
answered `[UNCHANGED]`; the edit hook on a probe of its event. Every run must exit 0,
and a payload that is not JSON must get no answer. An install missing some of its
three hooks is reported as such: a post-read hook without the pre-read one would
never answer, an edit hook missing would leave answers leaning on copies the model
no longer has.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from ...base.errors import SymbolpackError
from .settings import QWEN_HOOKS, QwenSettings

PROBE = "import math\n\n\n" + "".join(  # bodies a skeleton leaves out
    f"def f{i}(x):\n" + "".join(f"    x += {i} * math.floor(x / {k + 1})\n" for k in range(12)) + "    return x\n\n\n"
    for i in range(24))  # over small_file_tokens (4,000): a first read is a skeleton


def doctor_report(root: Path, timeout: float = 20.0) -> dict:
    from ..installers.install import read_text, settings_path

    report: dict = {"targets": [], "hooks": [], "checks": []}
    seen: set[str] = set()
    for global_ in (False, True):
        scope = "global" if global_ else "project"
        path = settings_path("qwen", global_, root)
        entry: dict = {"scope": scope, "path": str(path), "installed": [], "status": "no settings file"}
        report["targets"].append(entry)
        try:
            text = read_text(path)
            if text is None:
                continue
            entry["installed"] = QwenSettings(path).installed(text)
        except SymbolpackError as exc:
            entry["status"] = "unreadable"
            report["checks"].append({"check": f"{scope} settings", "ok": False, "detail": str(exc)})
            continue
        if not entry["installed"]:
            entry["status"] = "not installed"
            continue
        commands = _commands(entry["installed"])
        missing = [f"{event}[{matcher}]" for event, matcher, name in QWEN_HOOKS
                   if (event, matcher) not in commands]
        entry["status"] = "installed" if not missing else "incomplete"
        if missing:
            report["checks"].append({"check": f"{scope} hooks", "ok": False,
                                     "detail": f"{path}: missing {', '.join(missing)}; run: tldrs install qwen"
                                               f"{' --global' if global_ else ''}"})
            continue
        key = json.dumps(sorted(commands.items()))
        if key in seen:
            continue
        seen.add(key)
        for check in probe_hooks(commands, timeout):
            report["hooks"].append(check)
            if not check["ok"]:
                report["checks"].append({"check": f"{scope} hook {check['hook']}", "ok": False,
                                         "detail": check["detail"]})
    return report


def _commands(installed: list[str]) -> dict[tuple[str, str], str]:
    out = {}
    for line in installed:
        head, _, command = line.partition("]: ")
        event, _, matcher = head.partition("[")
        out[(event, matcher)] = command
    return out


def probe_hooks(commands: dict[tuple[str, str], str], timeout: float = 20.0) -> list[dict]:
    """Run each installed hook on its probes (see the module docstring)."""
    checks = []
    with tempfile.TemporaryDirectory(prefix="symbolpack-doctor-qwen-") as tmp:
        probe = Path(tmp) / "probe.py"
        probe.write_text(PROBE)
        transcript = Path(tmp) / "transcript.jsonl"
        env = {**os.environ, "SYMBOLPACK_DIR": str(Path(tmp) / "state")}
        base = {"session_id": "doctor", "cwd": tmp, "transcript_path": str(transcript)}

        def run(command: str, payload) -> tuple[subprocess.CompletedProcess | None, float, str]:
            start = time.perf_counter()
            stdin = payload if isinstance(payload, str) else json.dumps(payload)
            try:
                proc = subprocess.run(command, shell=True, input=stdin, capture_output=True, text=True, env=env,
                                      cwd=tmp, timeout=timeout)
            except (OSError, subprocess.SubprocessError) as exc:
                return None, 0.0, f"could not run it: {exc}"
            ms = (time.perf_counter() - start) * 1000
            if proc.returncode != 0:
                err = proc.stderr.strip().splitlines()
                return proc, ms, f"exit {proc.returncode}" + (f": {err[-1]}" if err else "")
            return proc, ms, ""

        def check(name: str, command: str, payload, want) -> None:
            proc, ms, failed = run(command, payload)
            bad, _, bad_failed = run(command, "{not json")
            detail = failed or bad_failed
            if not detail and (bad is None or bad.stdout.strip()):
                detail = "answered a payload that is not JSON"
            if not detail and proc is not None:
                detail = want(proc.stdout.strip())
            entry = {"hook": name, "command": command, "ok": not detail, "ms": round(ms, 1),
                     "detail": detail or f"answered in {ms:.0f} ms"}
            if not detail and proc is not None and proc.stdout.strip():
                entry["answer"] = json.loads(proc.stdout).get("stopReason")  # what the model would get
            checks.append(entry)

        def nothing(out: str) -> str:
            return "" if not out else f"unexpected answer {out[:80]!r}"

        read_in = {"file_path": str(probe)}
        pre = commands[("PreToolUse", "read_file")]
        post = commands[("PostToolUse", "read_file")]

        def stopped(head: str):
            def want(out: str) -> str:
                try:
                    answer = json.loads(out)
                except ValueError:
                    return f"no answer in place of Qwen's output: {out[:80]!r}"
                ok = isinstance(answer, dict) and answer.get("continue") is False and \
                    str(answer.get("stopReason", "")).startswith(head)
                return "" if ok else f"unexpected answer: {out[:80]!r}"
            return want

        def read(name: str, ident: str, calls: list, head: str) -> None:
            _write_transcript(transcript, calls)
            payload = {**base, "tool_name": "read_file", "tool_input": read_in, "tool_call_id": ident}
            check(f"qwen-pre-read ({name})", pre, {**payload, "hook_event_name": "PreToolUse"}, nothing)
            check(f"qwen-post-read ({name})", post, {**payload, "hook_event_name": "PostToolUse",
                                                     "tool_response": {"llmContent": PROBE}}, stopped(head))

        read("a first read", "call_first", [("call_first", None)], "[SKELETON]")
        first = [c for c in checks if c["hook"] == "qwen-post-read (a first read)"]
        answer = first[0].get("answer") if first and first[0]["ok"] else None
        answer = answer if isinstance(answer, str) else PROBE
        read("a re-read", "call_again", [("call_first", answer, True), ("call_again", None)], "[UNCHANGED]")
        _write_transcript(transcript, [("call_first", answer, True), ("call_again", None), ("call_edit", None)])
        edit_in = {"file_path": str(probe), "old_string": "return 1\n", "new_string": "return 1\n"}
        check("qwen-post-edit", commands[("PostToolUse", "edit|write_file")],
              {**base, "hook_event_name": "PostToolUse", "tool_name": "edit", "tool_input": edit_in,
               "tool_call_id": "call_edit", "tool_response": {"llmContent": "ok"}}, nothing)
    for c in checks:
        c.pop("answer", None)
    return checks


def _write_transcript(path: Path, calls: list[tuple]) -> None:
    """A transcript as Qwen writes it: each call's assistant record, then its result (if
    any: (id, text[, True for a result Qwen records as an error, a stop's reason]))."""
    lines = []
    parent = None
    for n, (ident, output, *error) in enumerate(calls):
        uuid = f"a{n}"
        lines.append({"uuid": uuid, "parentUuid": parent, "type": "assistant", "message": {"role": "model", "parts": [
            {"functionCall": {"id": ident, "name": "read_file", "args": {}}}]}})
        parent = uuid
        if output is not None:
            uuid = f"r{n}"
            lines.append({"uuid": uuid, "parentUuid": parent, "type": "tool_result", "message": {
                "role": "user", "parts": [{"functionResponse": {"id": ident, "name": "read_file",
                                                                "response": {"error" if error else "output": output}}}]}})
            parent = uuid
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def doctor_lines(report: dict) -> list[str]:
    out = []
    for t in report["targets"]:
        out.append(f"{'qwen':<7}{t['scope']:<9}{t['status']:<18} {t['path']}")
        out.extend(f"{'':18}{line}" for line in t["installed"])
    for h in report["hooks"]:
        out.append(f"qwen hook {h['hook']}: {'answers' if h['ok'] else 'DOES NOT ANSWER'} ({h['detail']})")
    return out
