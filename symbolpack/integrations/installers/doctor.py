"""`tldrs doctor`: what is installed for which host, and whether it works there.

It reads every settings file the installers (`install.py`, `chibi/install.py`,
`pi/install.py`, `opencode/install.py`) write and, for each thing installed, checks it
for real: each MCP server is
started exactly as its host would start it (command, arguments, environment
and folder from the host's settings) and asked for its tools over stdio
(`mcp/probe.py`); Codex's and Gemini's folder trust is read as they read it
(`trust.py`); symbolpack's server added to Claude Code with `claude mcp add` is
started too; each Claude Code pre-read hook runs on a probe file; Chibi's
launchers are run as Chibi runs them, and pi's extension and OpenCode's plugin are
checked (their commands run on probes), and so are Qwen Code's hooks (`qwen/doctor.py`). It sits above the installers, which never
import it.

Exit codes: 0 when everything installed works here (or nothing is installed),
1 when anything installed does not (a settings file it cannot parse, a server
that does not start or lists no tools, a project the host does not trust, a
hook that does not answer), each problem as one line; 2 for a usage error.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from ...base.errors import SymbolpackError
from ...base.workspace import project_root
from ..chibi.install import doctor_lines, doctor_report
from .host_settings import SERVER_NAME, CodexConfig, adapter_for, describe_server
from .install import read_text, say, settings_path
from ..mcp.probe import probe
from ..opencode.install import doctor_lines as opencode_doctor_lines
from ..opencode.install import doctor_report as opencode_doctor_report
from ..pi.install import doctor_lines as pi_doctor_lines
from ..pi.install import doctor_report as pi_doctor_report
from ..qwen.doctor import doctor_lines as qwen_doctor_lines
from ..qwen.doctor import doctor_report as qwen_doctor_report
from .trust import host_trust

INACTIVE = "installed, inactive: project not trusted"


def _run_in_scratch(command: str, inputs, timeout: float):
    """Run a hook *command* once per stdin that *inputs*(project, probe) gives, in a scratch
    project holding a probe file and a state dir of its own: [(process, ms)], or a failure
    dict (it could not run, or some run did not exit 0)."""
    import subprocess
    import tempfile
    import time

    with tempfile.TemporaryDirectory(prefix="symbolpack-doctor-") as tmp:
        probe = Path(tmp) / "probe.py"
        probe.write_text("".join(f"def f{i}():\n    return {i}\n\n" for i in range(40)))
        env = {**os.environ, "SYMBOLPACK_DIR": str(Path(tmp) / "state")}
        runs = []
        try:
            for stdin in inputs(tmp, probe):
                start = time.perf_counter()
                proc = subprocess.run(command, shell=True, input=stdin, capture_output=True, text=True,
                                      env=env, cwd=tmp, timeout=timeout)
                runs.append((proc, (time.perf_counter() - start) * 1000))
        except (OSError, subprocess.SubprocessError) as exc:
            return {"ok": False, "detail": f"could not run it: {exc}"}
    if any(proc.returncode != 0 for proc, _ in runs):
        err = next((proc.stderr for proc, _ in runs if proc.stderr), "").strip().splitlines()
        return {"ok": False, "detail": "exit " + "/".join(str(proc.returncode) for proc, _ in runs)
                                       + (f": {err[-1]}" if err else "")}
    return runs


def check_event_hook(command: str, event: str, matcher: str, timeout: float = 20.0) -> dict:
    """Run an installed hook other than the pre-read one on a probe payload of its event
    (the first tool or source its matcher names) and on a malformed one, in a scratch
    project: it must exit 0, answer nothing or a JSON object for that event, and fail
    open (no output) on a payload it cannot read."""
    first = matcher.split("|", 1)[0]

    def inputs(tmp: str, probe: Path) -> list[str]:
        payload: dict[str, Any] = {"session_id": "doctor", "cwd": tmp, "hook_event_name": event}
        if event == "SessionStart":
            payload["source"] = first
        else:
            edit = {"old_string": "return 1\n", "new_string": "return 1\n"} if first != "Read" else {}
            payload.update(tool_name=first, tool_input={"file_path": str(probe), **edit})
            if event == "PostToolUse":
                payload["tool_response"] = {"filePath": str(probe), "success": True}
        return [json.dumps(payload), "{not json"]

    runs = _run_in_scratch(command, inputs, timeout)
    if isinstance(runs, dict):
        return {**runs, "event": event}
    (answer, ms), (bad, _) = runs
    out = answer.stdout.strip()
    try:
        parsed = json.loads(out) if out else None
    except ValueError:
        parsed = "not JSON"
    specific = parsed.get("hookSpecificOutput") if isinstance(parsed, dict) else None
    ok = (not bad.stdout.strip() and (parsed is None or isinstance(parsed, dict))
          and (specific is None or (isinstance(specific, dict) and specific.get("hookEventName") == event)))
    return {"ok": ok, "event": event, "ms": round(ms, 1),
            "detail": f"{event}[{first}] probe answered in {ms:.0f} ms" if ok else "unexpected answers"}


def check_hook(command: str, timeout: float = 20.0) -> dict:
    """Run an installed pre-read hook command on probe payloads in a scratch project:
    first read passes through, the re-read is [UNCHANGED], a malformed payload is ignored."""
    def inputs(tmp: str, probe: Path) -> list[str]:
        payload = json.dumps({"session_id": "doctor", "cwd": tmp, "hook_event_name": "PreToolUse",
                              "tool_name": "Read", "tool_input": {"file_path": str(probe)}})
        return [payload, payload, "{not json"]

    runs = _run_in_scratch(command, inputs, timeout)
    if isinstance(runs, dict):
        return runs
    (first, _), (second, ms), (bad, _) = runs
    try:
        decision = json.loads(second.stdout)["hookSpecificOutput"]
    except (ValueError, KeyError, TypeError):
        decision = None
    ok = (not first.stdout.strip() and not bad.stdout.strip() and isinstance(decision, dict)
          and decision.get("permissionDecision") == "deny"
          and "[UNCHANGED]" in decision.get("permissionDecisionReason", ""))
    return {"ok": ok, "ms": round(ms, 1),
            "detail": f"re-read answered [UNCHANGED] in {ms:.0f} ms" if ok else "unexpected answers"}


def doctor(as_json: bool = False, root: Path | None = None, out=None, timeout: float = 15.0) -> int:
    out = out or sys.stdout
    try:
        root = root or project_root()
    except Exception:
        root = Path.cwd()
    report: dict = {"v": 2, "root": str(root), "targets": [], "servers": [], "hooks": [], "problems": []}
    problems: list[str] = report["problems"]
    hooks: dict[str, dict] = {}
    servers: dict[str, dict] = {}
    for agent in ("claude", "codex", "gemini"):
        for global_ in (False, True):
            scope = "global" if global_ else "project"
            path = settings_path(agent, global_, root)
            entry: dict[str, Any] = {"agent": agent, "scope": scope, "path": str(path), "exists": False,
                                     "installed": [], "status": "no settings file"}
            report["targets"].append(entry)
            try:
                text = read_text(path)
                if text is None:
                    continue
                entry["exists"] = True
                adapter = adapter_for(agent, path)
                entry["installed"] = adapter.installed(text)
                server = adapter.server(text)
            except SymbolpackError as exc:
                entry["status"] = "unreadable"
                entry["error"] = str(exc)
                problems.append(f"{agent} {scope}: {exc}")
                continue
            entry["status"] = "installed" if entry["installed"] else "not installed"
            leftover = adapter.leftover(text) if isinstance(adapter, CodexConfig) else ()
            if leftover:
                entry["status"] = "leftover table"
                problems.append(f"{agent} {scope}: {path}: [mcp_servers.{SERVER_NAME}] has no command, only "
                                f"{', '.join(leftover)}: Codex will not start (\"invalid transport\"); "
                                f"delete the table or run: tldrs install codex{' --global' if global_ else ''}")
            if not entry["installed"]:
                continue
            trust = None if (agent == "codex" and global_) else host_trust(agent, root)
            if trust is not None:
                entry["trusted"] = trust.trusted
                if not trust.trusted:
                    entry["status"] = INACTIVE
                    problems.append(f"{agent} {scope}: {INACTIVE} ({trust.why}: {root}); to trust it, {trust.how}")
            if server is not None:
                key = json.dumps(server, sort_keys=True, default=str)
                if key not in servers:
                    servers[key] = _check_server(agent, server, root, timeout)
                    report["servers"].append(servers[key])
                elif agent not in servers[key]["agents"]:
                    servers[key]["agents"].append(agent)  # one server entry, started once, for each host using it
                entry["server"] = servers[key]
                if not servers[key]["ok"]:
                    problems.append(f"{agent} {scope}: MCP server `{servers[key]['command']}`: "
                                    f"{servers[key]['detail']}")
            for line in entry["installed"] if agent == "claude" else ():
                found = re.match(r"(\w+)\[([^\]]*)\]: (.+)$", line)
                if found is None:
                    continue
                event, matcher, command = found.groups()
                if command in hooks:
                    continue
                # the pre-read hook answers a re-read; every other hook is probed with its event
                checked = check_hook(command) if (event, matcher) == ("PreToolUse", "Read") else \
                    check_event_hook(command, event, matcher)
                hooks[command] = {"command": command, **checked}
                if not hooks[command]["ok"]:
                    problems.append(f"claude hook `{command}` does not answer: {hooks[command]['detail']}")
    for scope, path, server in claude_mcp_servers(root):  # added with `claude mcp add`, not by tldrs install
        entry = {"agent": "claude-mcp", "scope": scope, "path": str(path), "exists": True,
                 "installed": [f"mcpServers.{SERVER_NAME}: {describe_server(server)}"], "status": "installed"}
        report["targets"].append(entry)
        key = json.dumps(server, sort_keys=True, default=str)
        if key not in servers:
            servers[key] = _check_server("claude-mcp", server, root, timeout)
            report["servers"].append(servers[key])
        elif "claude-mcp" not in servers[key]["agents"]:
            servers[key]["agents"].append("claude-mcp")
        entry["server"] = servers[key]
        if not servers[key]["ok"]:
            problems.append(f"claude-mcp {scope}: MCP server `{servers[key]['command']}`: {servers[key]['detail']}")
    report["hooks"] = list(hooks.values())
    report["chibi"] = doctor_report()
    report["pi"] = pi_doctor_report(root)
    report["opencode"] = opencode_doctor_report(root)
    report["qwen"] = qwen_doctor_report(root)
    problems.extend(f"chibi {c['check']}: {c['detail']}" for c in report["chibi"]["checks"] if not c["ok"])
    problems.extend(f"pi {c['check']}: {c['detail']}" for c in report["pi"]["checks"] if not c["ok"])
    problems.extend(f"opencode {c['check']}: {c['detail']}" for c in report["opencode"]["checks"] if not c["ok"])
    problems.extend(f"qwen {c['check']}: {c['detail']}" for c in report["qwen"]["checks"] if not c["ok"])
    code = 1 if problems else 0
    if as_json:
        say(out, json.dumps(report, indent=1))
        return code
    for t in report["targets"]:
        say(out, f"{t['agent']:<7}{t['scope']:<9}{t['status']:<18} {t['path']}")
        for line in t["installed"]:
            say(out, f"{'':18}{line}")
        if "server" in t:
            s = t["server"]
            say(out, f"{'':18}server: {s['detail'] if s['ok'] else 'DOES NOT WORK'}")
    for h in report["hooks"]:
        say(out, f"hook {h['command']}: {'answers' if h['ok'] else 'DOES NOT ANSWER'} ({h['detail']})")
    if not report["hooks"]:
        say(out, "hooks: none installed for Claude Code (tldrs install claude)")
    for line in doctor_lines(report["chibi"]):
        say(out, line)
    for line in pi_doctor_lines(report["pi"]):
        say(out, line)
    for line in opencode_doctor_lines(report["opencode"]):
        say(out, line)
    for line in qwen_doctor_lines(report["qwen"]):
        say(out, line)
    if problems:
        say(out, f"{len(problems)} problem{'s' if len(problems) > 1 else ''}:")
        for p in problems:
            say(out, f"  {p}")
    else:
        say(out, "no problems")
    return code


def claude_mcp_servers(root: Path) -> list[tuple[str, Path, dict]]:
    """symbolpack's MCP server as Claude Code has it (`claude mcp add`): project scope in
    `<root>/.mcp.json`, user and local scope in `~/.claude.json` (top level, and under
    `projects[<root>]`). Files that are missing or not JSON are skipped: they are Claude's."""
    found = []
    home_file = Path.home() / ".claude.json"
    for scope, path, keys in (("project", root / ".mcp.json", ()), ("user", home_file, ()),
                              ("local", home_file, ("projects", str(root)))):
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for key in keys:
            data = data.get(key) if isinstance(data, dict) else None
        servers = data.get("mcpServers") if isinstance(data, dict) else None
        server = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
        if isinstance(server, dict) and server.get("command"):
            found.append((scope, path, server))
    return found


def _check_server(agent: str, server: dict, root: Path, timeout: float) -> dict:
    """Start *server* (a host's entry: command, args, env, cwd) as that host would, in *root*."""
    command = str(server.get("command", ""))
    args = [str(a) for a in server.get("args", []) or []]
    given = server.get("env")
    env: dict = given if isinstance(given, dict) else {}
    cwd = root / os.path.expanduser(str(server["cwd"])) if server.get("cwd") else root
    result = probe(command, args, {str(k): str(v) for k, v in env.items()}, cwd, timeout)
    return {"agents": [agent], "command": describe_server(server), "ok": result.ok, "detail": result.detail,
            "tools": result.tools, "serverInfo": result.server, "ms": round(result.ms, 1)}
