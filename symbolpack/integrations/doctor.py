"""`tldrs doctor`: what is installed for which agent, and whether it works.

It reads every settings file the installers (`install.py`, `chibi_install.py`,
`pi_install.py`) write, runs each installed Claude Code hook on a probe, and
reports Chibi's launchers and pi's extension; it sits above the installers, which
never import it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from ..base.errors import SymbolpackError
from ..base.workspace import project_root
from .chibi_install import doctor_lines, doctor_report
from .install import _read_text, _say, adapter_for, settings_path
from .pi_install import doctor_lines as pi_doctor_lines
from .pi_install import doctor_report as pi_doctor_report


def check_hook(command: str, timeout: float = 20.0) -> dict:
    """Run an installed pre-read hook command on probe payloads in a scratch project:
    first read passes through, the re-read is [UNCHANGED], a malformed payload is ignored."""
    import subprocess
    import tempfile
    import time

    with tempfile.TemporaryDirectory(prefix="symbolpack-doctor-") as tmp:
        probe = Path(tmp) / "probe.py"
        probe.write_text("".join(f"def f{i}():\n    return {i}\n\n" for i in range(40)))
        env = {**os.environ, "SYMBOLPACK_DIR": str(Path(tmp) / "state")}
        payload = json.dumps({"session_id": "doctor", "cwd": tmp, "hook_event_name": "PreToolUse",
                              "tool_name": "Read", "tool_input": {"file_path": str(probe)}})

        def run(stdin: str):
            start = time.perf_counter()
            proc = subprocess.run(command, shell=True, input=stdin, capture_output=True, text=True,
                                  env=env, cwd=tmp, timeout=timeout)
            return proc, (time.perf_counter() - start) * 1000

        try:
            first, _ = run(payload)
            second, ms = run(payload)
            bad, _ = run("{not json")
        except (OSError, subprocess.SubprocessError) as exc:
            return {"ok": False, "detail": f"could not run it: {exc}"}
        if first.returncode != 0 or second.returncode != 0 or bad.returncode != 0:
            err = (first.stderr or second.stderr or bad.stderr).strip().splitlines()
            return {"ok": False, "detail": f"exit {first.returncode}/{second.returncode}/{bad.returncode}"
                                           + (f": {err[-1]}" if err else "")}
        try:
            decision = json.loads(second.stdout)["hookSpecificOutput"]
        except (ValueError, KeyError, TypeError):
            decision = None
        ok = (not first.stdout.strip() and not bad.stdout.strip() and isinstance(decision, dict)
              and decision.get("permissionDecision") == "deny"
              and "[UNCHANGED]" in decision.get("permissionDecisionReason", ""))
        return {"ok": ok, "ms": round(ms, 1),
                "detail": f"re-read answered [UNCHANGED] in {ms:.0f} ms" if ok else "unexpected answers"}


def doctor(as_json: bool = False, root: Path | None = None, out=None) -> int:
    out = out or sys.stdout
    try:
        root = root or project_root()
    except Exception:
        root = Path.cwd()
    report: dict = {"v": 1, "targets": [], "mcp_sdk": _mcp_sdk(), "hooks": []}
    checked: dict[str, dict] = {}
    for agent in ("claude", "codex", "gemini"):
        for global_ in (False, True):
            path = settings_path(agent, global_, root)
            entry: dict[str, Any] = {"agent": agent, "scope": "global" if global_ else "project",
                                     "path": str(path)}
            try:
                text = _read_text(path)
                entry["exists"] = text is not None
                entry["installed"] = adapter_for(agent, path).installed(text) if text is not None else []
            except SymbolpackError as exc:
                entry["exists"], entry["installed"], entry["error"] = True, [], str(exc)
            report["targets"].append(entry)
            for line in entry["installed"]:
                if agent == "claude" and line.startswith("PreToolUse[Read]: "):
                    command = line.split(": ", 1)[1]
                    if command not in checked:
                        checked[command] = {"command": command, **check_hook(command)}
    report["hooks"] = list(checked.values())
    report["chibi"] = doctor_report()
    report["pi"] = pi_doctor_report(root)
    failed = any(not h["ok"] for h in report["hooks"]) or any(not c["ok"] for c in report["chibi"]["checks"]) \
        or any(not c["ok"] for c in report["pi"]["checks"])
    if as_json:
        _say(out, json.dumps(report, indent=1))
        return 1 if failed else 0
    for t in report["targets"]:
        state = ("error: " + t["error"]) if "error" in t else (
            "installed" if t["installed"] else "not installed" if t["exists"] else "no settings file")
        _say(out, f"{t['agent']:<7}{t['scope']:<9}{state:<18}{t['path']}")
        for line in t["installed"]:
            _say(out, f"{'':18}{line}")
    sdk = report["mcp_sdk"]
    _say(out, f"MCP SDK: {sdk['version']}" if sdk["installed"]
         else "MCP SDK: not installed (needed by codex/gemini and `tldrs mcp`): pip install 'symbolpack[mcp]'")
    for h in report["hooks"]:
        _say(out, f"hook {h['command']}: {'answers' if h['ok'] else 'DOES NOT ANSWER'} ({h['detail']})")
    if not report["hooks"]:
        _say(out, "hooks: none installed for Claude Code (tldrs install claude)")
    for line in doctor_lines(report["chibi"]):
        _say(out, line)
    for line in pi_doctor_lines(report["pi"]):
        _say(out, line)
    return 1 if failed else 0


def _mcp_sdk() -> dict:
    from importlib.util import find_spec

    if find_spec("mcp") is None:
        return {"installed": False, "version": None}
    try:
        from importlib.metadata import version

        return {"installed": True, "version": f"mcp {version('mcp')}"}
    except Exception:
        return {"installed": True, "version": "mcp (version unknown)"}
