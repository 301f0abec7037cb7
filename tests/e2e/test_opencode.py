"""The real OpenCode (pinned in npm/opencode/package-lock.json) with symbolpack's plugin
(`tldrs install opencode`), driven headless (`opencode serve` and its HTTP API, and once
`opencode run --attach --session --fork`) by a scripted model on 127.0.0.1
(`fake_opencode_chat.py`), judged on what the model actually received: the `messages`
of every request OpenCode sent.

OpenCode would npm-install `@opencode-ai/plugin` into every config folder it loads on
its first start; the test pre-seeds both (`.opencode/` and `~/.config/opencode/`) with
the pinned package, as OpenCode leaves them, and points npm and any HTTP proxy at a
closed port: nothing is fetched at run time.

The scenario (`play`): first read, re-read, an outside change, a drill-in (a range), the
model's own edit and a re-read, two edits of one file in one message (OpenCode runs them
concurrently: neither is kept), a reverted message (OpenCode restores the file too), the
revert undone and done again, a
write and its re-read, a read and an edit of one file in one message (both orders: the
guard that keeps neither is what stops a stale diff, a mutant without it fails here), an
edit of a file never read (OpenCode 1.18.33 does not refuse it) and its first read with
the folder's AGENTS.md reminder, reads of two files in one message, two reads of one
file in one message, a result another plugin rewrote, a
sensitive file, a file longer than OpenCode's read shows, an image, a real compaction
(`/session/:id/summarize`, the last turn kept), tool results pruned by OpenCode
(`compaction.prune`: the request carries `[Old tool result content cleared]`), a fork
through the API, a fork through `opencode run --attach --session --fork`, and the
original session again. The same prompts run once more in plain OpenCode (its own read)
on the same file states: the baseline the token counts are compared with.

Every symbolpack answer is judged in the request that first carried it to the model:
1. its text is byte for byte what the plugin recorded (the sha256 in the part's metadata);
2. every answer it leans on (`leans_on`) is an answer earlier in that request;
3. the project's oracle (`ReadOracle.replay` of what that request gave the model before
   it: symbolpack's answers, OpenCode's own reads as the lines they show, the model's own
   edits as `OwnEdit`s) finds nothing wrong: no line vouched for that the context does
   not hold or that the file does not have.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

import clients
import fake_opencode_chat as fake

from symbolpack.base.tokens import count_tokens
from symbolpack.evaluation.oracle import OwnEdit, ReadOracle, split_lines

HERE = Path(__file__).resolve().parent
LEDGER = (HERE / "fixtures" / "pi_ledger.py").read_text()
VERSION = "1.18.33"
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")  # 1x1 pixel
ROUND_TRIP_TOKENS = 100  # a drill-in costs the agent a turn (as `tldrs eval` charges it)
CLEARED = "[Old tool result content cleared]"  # what OpenCode sends for a result it pruned
CLOSED = "http://127.0.0.1:9"  # nothing listens: npm and HTTP(S) go nowhere at run time
TAMPER = """\
import { existsSync } from "node:fs";
import { join } from "node:path";
// another plugin that rewrites a read's result while the file `.tamper` exists
export default async (input: any) => ({
  "tool.execute.after": async (call: any, output: any) => {
    if (call.tool === "read" && existsSync(join(input.directory, ".tamper"))) {
      output.output = "[another plugin withheld this result]";
    }
  },
});
"""
NOTES = "".join(f"def note{i}(text: str) -> str:\n    return text.strip() + {str(i)!r}\n\n\n" for i in range(12))
UTIL = "".join(f"def util{i}(x):\n    return x + {i}\n\n\n" for i in range(8))
BIG = "".join(f"line {i:06d} of a big listing\n" for i in range(1700))  # ~47 KB: OpenCode keeps it whole


def opencode_binary() -> Path:
    """OpenCode's executable: the pinned `opencode-linux-x64` package (what `opencode-ai`
    installs as its optional dependency on this platform). Fails, never skips."""
    machine = platform.machine().lower()
    if platform.system() != "Linux" or machine not in ("x86_64", "amd64"):
        raise RuntimeError(f"the pinned OpenCode is its linux-x64 build (the registry the pin was made from serves "
                           f"no other); this is {platform.system()} {machine}")
    binary = clients.installed("opencode") / "opencode-linux-x64" / "bin" / "opencode"
    if not binary.exists():
        raise RuntimeError(f"the pinned OpenCode has no binary at {binary}")
    return binary


@pytest.fixture(scope="module")
def opencode_bin() -> Path:
    return opencode_binary()  # installs the pinned OpenCode when the cache lacks it


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def tldrs_command() -> str:
    script = Path(sys.executable).parent / "tldrs"
    return str(script) if script.exists() else f"{sys.executable} -m symbolpack.cli"


def seed(folder: Path) -> None:
    """A config folder as OpenCode leaves it once it installed its plugin package there:
    it then has nothing to fetch (it reinstalls only when `node_modules` is missing or
    the lock lacks a dependency)."""
    folder.mkdir(parents=True, exist_ok=True)
    deps = {"@opencode-ai/plugin": VERSION}
    (folder / "package.json").write_text(json.dumps({"dependencies": deps}))
    lock = {"lockfileVersion": 3, "packages": {"": {"dependencies": deps}}}
    (folder / "package-lock.json").write_text(json.dumps(lock))
    (folder / "node_modules").symlink_to(clients.installed("opencode"))


class Lab:
    """A fake model, a throwaway HOME, one git project, one `opencode serve`."""

    def __init__(self, root: Path, binary: Path, plugin: bool, tldrs: str | None = None,
                 global_tldrs: str | None = None, model: str = "fake-model"):
        self.binary = binary
        self.plugin = plugin
        self.model = model
        self.home = root / "home"
        self.proj = root / "proj"
        for d in (self.home, self.proj):
            d.mkdir(parents=True)
        clients.keep_scenario_threshold(self.proj)
        self.versions: dict[str, str] = {}  # sha256 -> text, every version of a file the test saw
        self.before: dict[str, str] = {}  # an own edit's call id -> its file's text before it
        self.write("ledger.py", LEDGER)
        self.write(".env", "API_TOKEN=not-for-the-model\n")
        (self.proj / "dot.png").write_bytes(PNG)
        self.write("journal.txt", "".join(f"entry {i}: posted\n" for i in range(3000)))  # past 2,000 lines
        self.write("pkg/util.py", UTIL)
        self.write("pkg/AGENTS.md", "In pkg/, helpers are named util<N>.\n")
        self.write("big.txt", BIG)
        git_env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                   "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(self.home)}
        subprocess.run(["git", "init", "-q"], cwd=self.proj, check=True, env=git_env)
        subprocess.run(["git", "add", "ledger.py", "pkg"], cwd=self.proj, check=True, env=git_env)
        subprocess.run(["git", "commit", "-qm", "init"], cwd=self.proj, check=True, env=git_env)
        self.server, port = fake.start()
        seed(self.home / ".config" / "opencode")
        seed(self.proj / ".opencode")
        (self.proj / ".opencode" / "plugin").mkdir()
        (self.proj / ".opencode" / "plugin" / "zz_tamper.ts").write_text(TAMPER)  # loads after symbolpack.ts
        models = {m: {"name": m, "tool_call": True, "limit": {"context": 200000, "output": 4096}}
                  for m in ("fake-model", "gpt-5-fake")}
        (self.proj / "opencode.json").write_text(json.dumps({
            "$schema": "https://opencode.ai/config.json",
            "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
                                  "options": {"baseURL": f"http://127.0.0.1:{port}/v1", "apiKey": "x"},
                                  "models": models}},
            "model": f"fake/{model}", "small_model": f"fake/{model}",
            "permission": {"edit": "allow", "bash": "allow", "read": "allow", "external_directory": "allow",
                           "doom_loop": "allow"},
            # a compaction keeps the last turn; old tool results are pruned (cleared in requests)
            "compaction": {"auto": False, "prune": True, "tail_turns": 1},
            "autoupdate": False, "share": "disabled"}))
        install_env = {**os.environ, "HOME": str(self.home), "SYMBOLPACK_TLDRS": tldrs or tldrs_command()}
        install_env.pop("XDG_CONFIG_HOME", None)
        if plugin:
            proc = subprocess.run([sys.executable, "-m", "symbolpack.cli", "install", "opencode"], cwd=self.proj,
                                  env=install_env, capture_output=True, text=True)
            assert proc.returncode == 0, proc.stderr
        if global_tldrs is not None:
            proc = subprocess.run([sys.executable, "-m", "symbolpack.cli", "install", "opencode", "--global"],
                                  cwd=self.proj, env={**install_env, "SYMBOLPACK_TLDRS": global_tldrs},
                                  capture_output=True, text=True)
            assert proc.returncode == 0, proc.stderr
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home), "LANG": "C.UTF-8",
                    "OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1",
                    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "npm_config_registry": CLOSED + "/",
                    "HTTP_PROXY": CLOSED, "HTTPS_PROXY": CLOSED, "NO_PROXY": "127.0.0.1,localhost",
                    "SYMBOLPACK_DIR": str(root / "state")}
        self.proc = subprocess.Popen([str(binary), "serve", "--port", "0"], cwd=self.proj, env=self.env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None and self.proc.stderr is not None
        found = None
        while found is None:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"opencode serve did not start: {self.proc.stderr.read()[-2000:]}")
            found = re.search(r"listening on (http://\S+)", line)
        self.url = found.group(1)
        self.seen: dict[str, dict] = {}  # call id -> its tool part
        self.sid = self.http("POST", "/session", {})["id"]
        self.first_sid = self.sid

    def http(self, method: str, path: str, body: dict | None = None, timeout: float = 120.0):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
        return json.loads(raw) if raw else None

    def ask(self, *calls: dict, session: str | None = None) -> None:
        self.http("POST", f"/session/{session or self.sid}/message",
                  {"parts": [{"type": "text", "text": fake.call_prompt(list(calls))}]})
        self.keep_parts(session or self.sid)

    def keep_parts(self, session: str) -> None:
        """Remember the session's tool parts (a revert deletes its messages at the next prompt)."""
        for message in self.http("GET", f"/session/{session}/message"):
            for part in message["parts"]:
                if part["type"] == "tool":
                    self.seen.setdefault(part["callID"], part)

    def ask_cli_fork(self, *calls: dict) -> None:
        """The same prompt through `opencode run --attach URL --session ID --fork`."""
        proc = subprocess.run([str(self.binary), "run", "--attach", self.url, "--session", self.sid, "--fork",
                               "--format", "json", "CALL", json.dumps(list(calls), separators=(",", ":"))],
                              cwd=self.proj, env=self.env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr[-2000:]

    def wait_for(self, test, what: str, timeout: float = 60.0) -> None:
        """Until a message of the session passes *test* (OpenCode may finish a compaction or
        a pruning after it answered the request that started it)."""
        deadline = time.monotonic() + timeout
        while not any(test(m) for m in self.http("GET", f"/session/{self.sid}/message")):
            if time.monotonic() > deadline:
                raise AssertionError(f"OpenCode did not show {what} within {timeout:.0f} s")
            time.sleep(0.2)

    def user_messages(self, session: str | None = None) -> list[str]:
        return [m["info"]["id"] for m in self.http("GET", f"/session/{session or self.sid}/message")
                if m["info"]["role"] == "user"]

    def parts(self) -> dict[str, dict]:
        """Call id -> its tool part, from every session, as each was when its prompt ended."""
        if self.proc.poll() is None:
            for session in self.http("GET", "/session"):
                self.keep_parts(session["id"])
        return self.seen

    def write(self, rel: str, text: str) -> None:
        (self.proj / rel).parent.mkdir(parents=True, exist_ok=True)
        (self.proj / rel).write_text(text)
        self.versions[sha(text)] = text

    def edit_outside(self, old: str, new: str) -> None:
        text = (self.proj / "ledger.py").read_text()
        assert text.count(old) == 1, old
        self.write("ledger.py", text.replace(old, new))

    def note_version(self, rel: str = "ledger.py") -> None:
        text = (self.proj / rel).read_text()
        self.versions[sha(text)] = text

    def close(self) -> str:
        try:
            if self.proc.poll() is None:
                self.parts()
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            return self.proc.stderr.read() if self.proc.stderr else ""
        finally:
            self.server.shutdown()


STEPS: list[tuple[str, str]] = []  # (step name, tool call id), in the order played
TOOLS: dict[str, str] = {}  # step name -> the tool it calls
TAMPERED: set[str] = set()  # call ids whose result the test's other plugin rewrote


def call(step: str, name: str, **arguments) -> dict:
    ident = f"call_{step}_{uuid.uuid4().hex[:10]}"
    STEPS.append((step, ident))
    TOOLS[step] = name
    return {"name": name, "arguments": arguments, "id": ident}


def body_of(text: str, name: str) -> tuple[int, int]:
    """The first and last line of function *name*'s body in *text*."""
    lines = text.split("\n")
    start = next(n for n, line in enumerate(lines, 1) if line.startswith(f"def {name}("))
    end = next(n for n, line in enumerate(lines[start:], start + 1) if line.startswith("    return "))
    return start + 1, end


def play(lab: Lab) -> dict[str, str]:
    """The scenario; returns step name -> the tool call id of that step (its last call)."""
    STEPS.clear()
    sym = lab.plugin
    ask = lab.ask
    ask(call("first", "read", filePath="ledger.py"))
    ask(call("reread", "read", filePath="ledger.py"))
    lab.edit_outside("    acc3 += value * 6\n", "    acc3 += value * 60\n")      # inside an elided body
    lab.edit_outside('"""Rule 1 of the ledger', '"""Rule one of the ledger')      # a shown docstring
    ask(call("outside", "read", filePath="ledger.py"))
    if sym:
        start, end = body_of((lab.proj / "ledger.py").read_text(), "rule5")
        ask(call("drill", "read", filePath="ledger.py", offset=start, limit=end - start + 1))
    edit = call("edit", "edit", filePath="ledger.py", oldString="    acc5 += 7 * math.floor(value / 8)\n",
                newString="    acc5 += 70 * math.floor(value / 8)\n    acc5 -= 1\n")  # a line it holds, +1 line
    lab.before[edit["id"]] = (lab.proj / "ledger.py").read_text()
    ask(edit)
    lab.note_version()
    ask(call("own-edit", "read", filePath="ledger.py"))
    # two edits of one file in one message: OpenCode runs them concurrently, neither is kept
    text = (lab.proj / "ledger.py").read_text()
    one = ('"""Rule 7 of the ledger', '"""Rule seven of the ledger')
    two = ('"""Rule 9 of the ledger', '"""Rule nine of the ledger')
    first_edit = call("edit-pair-1", "edit", filePath="ledger.py", oldString=one[0], newString=one[1])
    second_edit = call("edit-pair-2", "edit", filePath="ledger.py", oldString=two[0], newString=two[1])
    lab.before[first_edit["id"]], lab.before[second_edit["id"]] = text, text.replace(*one)
    ask(first_edit, second_edit)
    lab.note_version()
    ask(call("after-edit-pair", "read", filePath="ledger.py"))
    # revert the message of the two edits: out of the context, and OpenCode restores the file;
    # undone (unrevert) it is all back; reverted again, a prompt makes it final
    paired = (lab.proj / "ledger.py").read_text()
    pair_message = lab.user_messages()[-2]
    lab.http("POST", f"/session/{lab.sid}/revert", {"messageID": pair_message})
    assert (lab.proj / "ledger.py").read_text() == text
    lab.http("POST", f"/session/{lab.sid}/unrevert")
    assert (lab.proj / "ledger.py").read_text() == paired
    ask(call("after-unrevert", "read", filePath="ledger.py"))
    pair_message = lab.user_messages()[-3]
    lab.http("POST", f"/session/{lab.sid}/revert", {"messageID": pair_message})
    assert (lab.proj / "ledger.py").read_text() == text
    ask(call("after-revert", "read", filePath="ledger.py"))
    ask(call("write", "write", filePath="notes.py", content=NOTES))
    lab.note_version("notes.py")
    ask(call("after-write", "read", filePath="notes.py"))
    # a read and an edit of one file in one message: OpenCode runs them concurrently, so the
    # read may show the file before or after the edit: OpenCode's own read answers, the edit
    # is not kept
    both = call("read-and-edit", "edit", filePath="notes.py", oldString="def note1(text: str) -> str:\n",
                newString="def note1(text: str) -> str:\n    text = text or ''\n")
    lab.before[both["id"]] = (lab.proj / "notes.py").read_text()
    ask(call("read-beside-edit", "read", filePath="notes.py"), both)
    lab.note_version("notes.py")
    ask(call("after-read-and-edit", "read", filePath="notes.py"))
    first_both = call("edit-then-read", "edit", filePath="notes.py", oldString="def note2(text: str) -> str:\n",
                      newString="def note2(text: str) -> str:\n    text = text or ''\n")
    lab.before[first_both["id"]] = (lab.proj / "notes.py").read_text()
    ask(first_both, call("read-after-edit", "read", filePath="notes.py"))
    lab.note_version("notes.py")
    ask(call("after-edit-then-read", "read", filePath="notes.py"))
    unread = call("edit-unread", "edit", filePath="pkg/util.py", oldString="    return x + 3\n",
                  newString="    return x + 33\n")
    lab.before[unread["id"]] = (lab.proj / "pkg/util.py").read_text()
    ask(unread)  # a file never read: OpenCode edits it all the same
    lab.note_version("pkg/util.py")
    ask(call("after-unread-edit", "read", filePath="pkg/util.py"))
    lab.edit_outside("    acc8 += value * 11\n", "    acc8 += value * 110\n")
    ask(call("pair-range", "read", filePath="ledger.py", offset=200, limit=30),
        call("pair-notes", "read", filePath="notes.py"))
    ask(call("same-1", "read", filePath="ledger.py"), call("same-2", "read", filePath="ledger.py", offset=1, limit=10))
    ask(call("after-same", "read", filePath="ledger.py"))
    (lab.proj / ".tamper").write_text("")
    ask(call("tampered", "read", filePath="ledger.py"))  # the model never sees this answer
    (lab.proj / ".tamper").unlink()
    ask(call("after-tamper", "read", filePath="ledger.py"))  # so this one is a first read
    ask(call("sensitive", "read", filePath=".env"), call("long", "read", filePath="journal.txt"),
        call("image", "read", filePath="dot.png"))
    ask(call("before-compact", "read", filePath="ledger.py", offset=1, limit=40))
    lab.http("POST", f"/session/{lab.sid}/summarize", {"providerID": "fake", "modelID": lab.model})
    lab.wait_for(lambda m: m["info"]["role"] == "assistant" and m["info"].get("summary") and m["info"].get("finish"),
                 "the compaction's summary")
    ask(call("compacted", "read", filePath="ledger.py"))  # the kept last turn's lines 1-40, nothing else
    ask(call("prune-target", "read", filePath="ledger.py"))
    ask(*(call(f"listing-{i}", "bash", command="cat big.txt", description="list") for i in range(6)))
    ask(call("small-1", "bash", command="echo one", description="one"))
    ask(call("small-2", "bash", command="echo two", description="two"))  # OpenCode prunes after this turn
    target = dict(STEPS)["prune-target"]
    lab.wait_for(lambda m: any(p.get("callID") == target and p["state"].get("time", {}).get("compacted")
                               for p in m["parts"]), "the pruning of an old result")
    ask(call("after-prune", "read", filePath="ledger.py"))
    ask(call("fork-point", "read", filePath="ledger.py"))
    fork = lab.http("POST", f"/session/{lab.sid}/fork", {})["id"]
    ask(call("in-fork", "read", filePath="ledger.py"), session=fork)
    lab.ask_cli_fork(call("cli-fork", "read", filePath="ledger.py"))
    ask(call("switched-back", "read", filePath="ledger.py"))
    TAMPERED.add(dict(STEPS)["tampered"])
    return dict(STEPS)


# --------------------------------------------------------------------------- what the model received

def tool_results(body: dict) -> list[tuple[str, dict, str]]:
    """(tool call id, the call {name, arguments}, result text) in the request's order."""
    calls: dict[str, dict] = {}
    out = []
    for message in body.get("messages", []):
        for c in message.get("tool_calls") or []:
            calls[c["id"]] = {"name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"])}
        if message.get("role") == "tool":
            content = message.get("content")
            text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content or [])
            out.append((message["tool_call_id"], calls.get(message["tool_call_id"], {}), text))
    return out


def rel(lab: Lab, path: str) -> str:
    p = Path(path)
    return str((p if p.is_absolute() else lab.proj / p).resolve().relative_to(lab.proj.resolve()))


def plain_read(lab: Lab, text: str) -> dict | None:
    """OpenCode's own read as the oracle reads a display of verbatim lines (a pack's slice):
    `N: text` lines inside `<content>`; None for anything else (an image, a directory)."""
    match = re.match(r"<path>(.*)</path>\n<type>file</type>\n<content>\n", text)
    if match is None:
        return None
    body = text[match.end():text.rindex("</content>")]
    lines = []
    for line in body.split("\n"):
        numbered = re.match(r"(\d+): (.*)$", line, re.S)
        if numbered is None:
            break
        lines.append((int(numbered.group(1)), numbered.group(2)))
    if not lines:
        return None
    code = "\n".join(t for _, t in lines) + "\n"
    return {"slices": [{"path": rel(lab, match.group(1)), "lines": [lines[0][0], lines[-1][0]], "code": code}]}


def own_edits(lab: Lab, ident: str, call_: dict, earlier: list) -> list[OwnEdit]:
    """The model's own `edit` or `write` as the oracle's `OwnEdit`s: its copy before with
    `oldString` replaced where it occurs (once) in the file before the call. A line the
    call wrote only in part (a piece of an old line) is the model's only if it held that
    old line."""
    args = call_["arguments"]
    path = rel(lab, args["filePath"])
    if call_["name"] == "write":
        return [OwnEdit(path, 1, None, tuple(split_lines(args["content"])))]
    before, old, new = lab.before[ident], args["oldString"], args["newString"]
    held = ReadOracle.replay(earlier).reconstruct(path)
    idx = before.index(old)
    start = before.rfind("\n", 0, idx) + 1
    end = before.find("\n", idx + len(old))
    end = len(before) if end < 0 else end
    old_lines = before[start:end].split("\n")
    new_lines = (before[start:idx] + new + before[idx + len(old):end]).split("\n")
    first = before.count("\n", 0, start) + 1
    unsure = []
    if idx > start and held.get(first) != old_lines[0]:
        unsure.append(first)
    if idx + len(old) < end and held.get(first + len(old_lines) - 1) != old_lines[-1]:
        unsure.append(first + len(new_lines) - 1)
    return [OwnEdit(path, first, len(old_lines), tuple(new_lines), tuple(unsure))]


def patch_edits(lab: Lab, ident: str, call_: dict) -> list[OwnEdit]:
    """The model's own `apply_patch` as the oracle's `OwnEdit`s: an added file written
    whole; each chunk of an updated file its old lines replaced by its new ones, where
    they are (once) in the file before the call. A moved file: nothing the oracle can say
    (the model holds the old path's lines at a new path)."""
    out: list[OwnEdit] = []
    lines = call_["arguments"]["patchText"].split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith("*** Add File: "):
            body = []
            while i < len(lines) and lines[i].startswith("+"):
                body.append(lines[i][1:])
                i += 1
            content = "\n".join(body)  # as OpenCode writes it: a final newline, one
            content += "" if content == "" or content.endswith("\n") else "\n"
            out.append(OwnEdit(rel(lab, line[14:].strip()), 1, None, tuple(split_lines(content))))
        elif line.startswith("*** Update File: ") and not lines[i].startswith("*** Move to: "):
            path, text = rel(lab, line[17:].strip()), split_lines(lab.before[ident])
            while i < len(lines) and not lines[i].startswith("***"):
                if lines[i].startswith("@@"):
                    i += 1
                old, new = [], []
                while i < len(lines) and not lines[i].startswith(("@@", "***")):
                    if lines[i][:1] in (" ", "-"):
                        old.append(lines[i][1:])
                    if lines[i][:1] in (" ", "+"):
                        new.append(lines[i][1:])
                    i += 1
                at = [n for n in range(len(text)) if text[n:n + len(old)] == old]
                assert len(at) == 1, (old, at)
                out.append(OwnEdit(path, at[0] + 1, len(old), tuple(new)))
                text[at[0]:at[0] + len(old)] = new
    return out


def answer_of(part: dict | None) -> dict | None:
    return ((part or {}).get("state") or {}).get("metadata", {}).get("symbolpack")


def judge(lab: Lab) -> tuple[list[str], dict[str, dict]]:
    """Rules 1-3 on every symbolpack answer, in the request that first carried it; returns
    the problems and each answer's response (tool call id -> response with its text)."""
    parts = lab.parts()
    problems: list[str] = []
    judged: dict[str, dict] = {}
    for n, record in enumerate(lab.server.requests()):
        if record["kind"] not in ("call", "done"):
            continue
        earlier: list = []
        kept: set[str] = set()  # answer ids the request carries (reads and own edits)
        for ident, call_, text in tool_results(record["body"]):
            answer = answer_of(parts.get(ident))
            if text == CLEARED:
                continue  # OpenCode pruned it: the model holds nothing of it
            intact = answer if answer is not None and sha(text) == answer["textSha256"] else None
            if answer is not None and intact is None and ident not in TAMPERED:
                problems.append(f"request {n}: {ident}: the model received other text than was recorded")
            name = call_.get("name")
            if name in ("edit", "write"):
                if text.startswith(("Edit applied successfully.", "Wrote file successfully.")):
                    earlier += own_edits(lab, ident, call_, earlier)
                    kept |= {a["answerId"] for a in (intact or {}).get("answers", [])}
                continue
            if name == "apply_patch":
                if text.startswith("Success. Updated the following files:"):
                    earlier += patch_edits(lab, ident, call_)
                    kept |= {a["answerId"] for a in (intact or {}).get("answers", [])}
                continue
            if name != "read":
                continue
            if intact is None:
                shown = plain_read(lab, text)
                if shown is not None:
                    earlier.append(shown)  # OpenCode's own read: the model holds those lines
                continue
            words = text.rsplit("\n\n<system-reminder>", 1)[0] if intact.get("reminder") else text
            response = {**intact["response"], "text": words}
            if ident not in judged:
                judged[ident] = response
                missing = [i for i in response.get("leans_on", []) if i not in kept]
                if missing:
                    problems.append(f"request {n}: {ident} ({response['mode']}) leans on {missing}, "
                                    f"absent from the model's context")
                oracle = ReadOracle.replay(earlier)
                problems += [f"request {n}: {ident}: {p}" for p in oracle.apply(response)]
                version = lab.versions.get(response["sha256"])
                if version is None:
                    problems.append(f"request {n}: {ident}: answered for a version the test never wrote")
                else:
                    problems += [f"request {n}: {ident}: {p}" for p in oracle.check(response["path"], version)]
            earlier.append(response)
            kept.add(response["answer_id"])
    return problems, judged


def first_texts(lab: Lab) -> dict[str, str]:
    """Tool call id -> the result text the model first received for it."""
    out: dict[str, str] = {}
    for record in lab.server.requests():
        for ident, _, text in tool_results(record["body"]):
            out.setdefault(ident, text)
    return out


def test_opencode_with_symbolpack_answers_only_from_what_the_model_holds(opencode_bin, tmp_path):
    lab = Lab(tmp_path / "with", opencode_bin, plugin=True)
    plain = Lab(tmp_path / "plain", opencode_bin, plugin=False)
    try:
        ids = play(lab)
        plain_steps = play(plain)
    finally:
        errors = lab.close(), plain.close()
    problems, answers = judge(lab)
    assert problems == [], "\n".join(problems)
    modes = {step: answers[ident]["mode"] for step, ident in ids.items() if ident in answers}
    texts = first_texts(lab)
    expected = {
        "first": "skeleton", "reread": "unchanged", "outside": "delta", "drill": "range",
        "own-edit": "delta",           # its copy is its earlier copy with its edit applied: the lines
                                       # it wrote are shown as they are now
        "after-edit-pair": "skeleton",  # two concurrent edits of the file, neither kept: a first read
        "after-unrevert": "unchanged",  # the reverted messages came back: the skeleton after the pair
        "after-revert": "unchanged",   # the reverted message left the context and its edits the file
        "after-write": "unchanged",    # it wrote the file whole
        "after-read-and-edit": "full",  # a read and an edit of it ran at once: a first read
        "after-edit-then-read": "full",  # the same, the other way round
        "pair-range": "range", "pair-notes": "unchanged",  # two files in one message: both answered
        "after-same": "skeleton",      # two reads of one file in one message: OpenCode's own, a barrier
        "after-tamper": "skeleton",    # a result another plugin rewrote: a barrier
        "compacted": "skeleton",       # only the kept last turn's range is left
        "prune-target": "unchanged",
        "after-prune": "skeleton",     # OpenCode cleared every earlier result
        "fork-point": "unchanged", "in-fork": "unchanged", "cli-fork": "unchanged",
        "switched-back": "unchanged",
    }
    assert {k: modes.get(k) for k in expected} == expected, modes
    for step in ("same-1", "same-2", "read-beside-edit", "read-after-edit", "tampered", "sensitive", "long", "image"):
        assert ids[step] not in answers, step  # OpenCode's own output, never leaned on

    now = (lab.proj / "ledger.py").read_text().split("\n")
    written = next(n for n, line in enumerate(now, 1) if line == "    acc5 += 70 * math.floor(value / 8)")
    own = texts[ids["own-edit"]]
    assert re.findall(r"^ *(\d+)\t", own, re.M) == [str(written), str(written + 1)], own
    assert "Your own edit is shown as it is now." in own, own
    assert "acc8 += value * 110" in texts[ids["pair-range"]]
    # the compaction kept its last turn (the range 1-40) and summarized the rest: the first read
    # after it is a skeleton that hides none of the lines that range gave
    carrier = next(r["body"] for r in lab.server.requests() if ids["compacted"] in
                   [i for i, _, _ in tool_results(r["body"])])
    carried = [i for i, _, _ in tool_results(carrier)]
    assert ids["before-compact"] in carried and ids["first"] not in carried, carried
    assert all(seg["start"] > 40 for seg in answers[ids["compacted"]]["segments"] if seg["kind"] == "elided")
    assert "In pkg/, helpers are named util<N>." in texts[ids["after-unread-edit"]]  # OpenCode's reminder kept
    assert texts[ids["edit-unread"]].startswith("Edit applied successfully.")  # no read-before-edit refusal
    assert "API_TOKEN" in texts[ids["sensitive"]]  # OpenCode's own read: symbolpack shows nothing of it
    assert "Use offset=2001 to continue." in texts[ids["long"]]
    assert texts[ids["image"]].startswith("Image read successfully")
    assert texts[ids["tampered"]] == "[another plugin withheld this result]"
    cleared = [text for record in lab.server.requests() for ident, _, text in tool_results(record["body"])
               if ident == ids["prune-target"]]
    assert cleared[0] != CLEARED and cleared[-1] == CLEARED
    first = texts[ids["first"]]
    assert "offset=" in first and "symbol=" not in first and "tldrs" not in first and "--" not in first.split("\n")[0]
    for rel_path in ("ledger.py", "notes.py", "pkg/util.py"):
        assert (lab.proj / rel_path).read_text() == (plain.proj / rel_path).read_text(), rel_path
    assert not any(answer_of(lab.parts()[ids[s]]) for s in ("edit-pair-1", "edit-pair-2", "read-and-edit",
                                                                "edit-then-read"))
    assert answer_of(lab.parts()[ids["edit"]]) and answer_of(lab.parts()[ids["write"]])
    # the read tool's description says how symbolpack answers; plain OpenCode's does not
    described = [t["function"]["description"] for t in lab.server.requests("call")[0]["body"]["tools"]
                 if t["function"]["name"] == "read"]
    assert "With symbolpack:" in described[0] and "offset=A limit=N" in described[0]
    assert all("With symbolpack:" not in t["function"]["description"]
               for t in plain.server.requests("call")[0]["body"]["tools"])

    # the scenario's reads, played by both (and the drill-in an agent needs to see an elided body)
    plain_texts = first_texts(plain)
    rows: dict[str, list[int]] = {}
    for step, ident in ids.items():
        if not step.startswith(("listing", "small")) and (step in plain_steps or step == "drill") \
                and TOOLS[step] == "read" and step != "tampered":
            cost = count_tokens(texts[ident]) + (ROUND_TRIP_TOKENS if step == "drill" else 0)
            rows[step] = [cost, count_tokens(plain_texts[plain_steps[step]]) if step in plain_steps else 0]
    ours, theirs = sum(r[0] for r in rows.values()), sum(r[1] for r in rows.values())
    core = [s for s in ("first", "reread", "outside", "drill", "own-edit", "after-revert", "after-write",
                        "pair-range", "pair-notes", "prune-target", "fork-point", "in-fork", "cli-fork",
                        "switched-back") if s in rows]
    core_ours, core_theirs = sum(rows[s][0] for s in core), sum(rows[s][1] for s in core)
    carried = sum(1 for r in lab.server.requests() if r["kind"] in ("call", "done"))
    print(f"\n{len(answers)} symbolpack answers judged in the {carried} requests that carried them: 0 problems")
    print("read tokens the model received (drill-ins +%d per round trip):" % ROUND_TRIP_TOKENS)
    for step, (a, b) in rows.items():
        print(f"  {step:<18} symbolpack {a:6d}  plain {b:6d}")
    print(f"  every read          symbolpack {ours:6d}  plain {theirs:6d}  {ours / theirs:.2f}x")
    print(f"  answered re-reads   symbolpack {core_ours:6d}  plain {core_theirs:6d}  {core_ours / core_theirs:.2f}x")
    never = ("sensitive", "image", "long")  # files symbolpack leaves to OpenCode whatever the context
    rest_ours = ours - sum(rows[s][0] for s in never)
    rest_theirs = theirs - sum(rows[s][1] for s in never)
    print(f"  all but {', '.join(never)}  symbolpack {rest_ours:6d}  plain {rest_theirs:6d}  "
          f"{rest_ours / rest_theirs:.2f}x")
    assert ours < theirs, errors


def test_opencode_reads_with_its_own_tool_when_tldrs_is_missing(opencode_bin, tmp_path):
    lab = Lab(tmp_path / "lab", opencode_bin, plugin=True, tldrs="/nonexistent/bin/tldrs")
    try:
        lab.ask(call("first", "read", filePath="ledger.py"),
                call("range", "read", filePath="ledger.py", offset=3, limit=2))
        edit = call("edit", "edit", filePath="ledger.py", oldString="import math\n", newString="import math  # m\n")
        lab.ask(edit)
    finally:
        lab.close()
    texts = first_texts(lab)
    first, part, edited = (ident for _, ident in STEPS[-3:])
    opening = f"<path>{lab.proj.resolve() / 'ledger.py'}</path>\n<type>file</type>\n<content>\n1: "
    assert texts[first].startswith(opening)
    assert "3: A small but realistic module" in texts[part] and texts[edited].startswith("Edit applied successfully.")
    assert not any(answer_of(lab.parts()[i]) for i in (first, part, edited))  # nothing to lean on later


def test_opencode_with_a_global_and_a_project_install_answers_through_the_projects_copy(opencode_bin, tmp_path):
    """OpenCode loads both copies: the global one stands aside, its command never runs."""
    log = tmp_path / "global-calls"
    wrapper = tmp_path / "global-tldrs"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> {log}\nexec {tldrs_command()} "$@"\n')
    wrapper.chmod(0o755)
    lab = Lab(tmp_path / "lab", opencode_bin, plugin=True, global_tldrs=str(wrapper))
    try:
        lab.ask(call("first", "read", filePath="ledger.py"))
        lab.ask(call("again", "read", filePath="ledger.py"))
    finally:
        lab.close()
    assert (lab.home / ".config" / "opencode" / "plugin" / "symbolpack.ts").exists()
    problems, answers = judge(lab)
    assert problems == [], "\n".join(problems)
    assert [answers[ident]["mode"] for _, ident in STEPS[-2:]] == ["skeleton", "unchanged"]
    assert not log.exists(), log.read_text()


def test_opencode_reads_a_first_read_after_an_own_edit_symbolpack_could_not_keep(opencode_bin, tmp_path):
    """A `tldrs` that refuses to keep edits (exit 1 on `session edit`) and reads as usual:
    the edit adds a line above lines the model holds, and nothing records it. The read
    after it must not be answered against the copy before the edit (its lines one off):
    the unkept edit is a barrier, a first read answers."""
    wrapper = tmp_path / "tldrs-keeps-no-edit"
    wrapper.write_text("#!/bin/sh\n"
                       'if [ "$1" = session ] && [ "$2" = edit ]; then echo "tldrs: error: refused" >&2; exit 1; fi\n'
                       f'exec {tldrs_command()} "$@"\n')
    wrapper.chmod(0o755)
    lab = Lab(tmp_path / "lab", opencode_bin, plugin=True, tldrs=str(wrapper))
    try:
        lab.ask(call("first", "read", filePath="ledger.py"))
        start, end = body_of(LEDGER, "rule5")
        lab.ask(call("drill", "read", filePath="ledger.py", offset=start, limit=end - start + 1))
        edit = call("edit", "edit", filePath="ledger.py", oldString="    acc5 += 7 * math.floor(value / 8)\n",
                    newString="    acc5 += 70 * math.floor(value / 8)\n    acc5 -= 1\n")
        lab.before[edit["id"]] = (lab.proj / "ledger.py").read_text()
        lab.ask(edit)
        lab.note_version()
        lab.ask(call("after-edit", "read", filePath="ledger.py"))
    finally:
        lab.close()
    problems, answers = judge(lab)
    assert problems == [], "\n".join(problems)
    steps = dict(STEPS[-4:])
    assert answer_of(lab.parts()[steps["edit"]]) is None  # not kept
    assert answers[steps["after-edit"]]["mode"] == "skeleton"


def patch(*sections: str) -> str:
    return "*** Begin Patch\n" + "".join(sections) + "*** End Patch"


def test_opencode_keeps_the_models_apply_patch_as_an_answer(opencode_bin, tmp_path):
    """Models whose id says GPT-5 get `apply_patch` instead of `edit` and `write`: an update
    of lines the model holds is kept (the next read shows what it wrote), an added file is
    held whole, a moved file is not kept (its next read is a first read)."""
    lab = Lab(tmp_path / "lab", opencode_bin, plugin=True, model="gpt-5-fake")
    try:
        lab.ask(call("first", "read", filePath="ledger.py"))
        start, end = body_of(LEDGER, "rule5")
        lab.ask(call("drill", "read", filePath="ledger.py", offset=start, limit=end - start + 1))
        update = call("update", "apply_patch", patchText=patch(
            "*** Update File: ledger.py\n@@\n     acc5 += 6 * math.floor(value / 7)\n"
            "-    acc5 += 7 * math.floor(value / 8)\n+    acc5 += 70 * math.floor(value / 8)\n+    acc5 -= 1\n"))
        lab.before[update["id"]] = (lab.proj / "ledger.py").read_text()
        lab.ask(update)
        lab.note_version()
        lab.ask(call("after-update", "read", filePath="ledger.py"))
        add = call("add", "apply_patch", patchText=patch("*** Add File: notes.py\n" +
                                                         "".join(f"+{line}\n" for line in NOTES.split("\n")[:-1])))
        lab.ask(add)
        lab.note_version("notes.py")
        lab.ask(call("after-add", "read", filePath="notes.py"))
        move = call("move", "apply_patch", patchText=patch(
            "*** Update File: notes.py\n*** Move to: moved.py\n@@\n-def note0(text: str) -> str:\n"
            "+def note_zero(text: str) -> str:\n"))
        lab.before[move["id"]] = (lab.proj / "notes.py").read_text()
        lab.ask(move)
        lab.note_version("moved.py")
        lab.ask(call("after-move", "read", filePath="moved.py"))
    finally:
        lab.close()
    texts = first_texts(lab)
    steps = dict(STEPS[-9:])
    assert texts[steps["update"]].startswith("Success. Updated the following files:"), texts[steps["update"]]
    problems, answers = judge(lab)
    assert problems == [], "\n".join(problems)
    modes = {step: answers[ident]["mode"] for step, ident in steps.items() if ident in answers}
    assert modes == {"first": "skeleton", "drill": "range", "after-update": "delta", "after-add": "unchanged",
                     "after-move": "full"}, modes
    assert "acc5 -= 1" in texts[steps["after-update"]] and "Your own edit is shown" in texts[steps["after-update"]]
    assert answer_of(lab.parts()[steps["update"]]) and answer_of(lab.parts()[steps["add"]])
    assert answer_of(lab.parts()[steps["move"]]) is None
