"""The JSON Schemas of docs/schemas/ against real responses: the real CLI, the real MCP
server (through the SDK's own client) and real hook processes, on a real git
repository. Every mode, pack and session command the protocol names is produced
here at least once, and a malformed response must be rejected."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

jsonschema = pytest.importorskip("jsonschema", reason="the dev extra: pip install -e '.[dev]'")
referencing = pytest.importorskip("referencing")

from symbolpack.integrations import claude  # noqa: E402
from symbolpack.base.kinds import KINDS  # noqa: E402

from conftest import git  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "docs" / "schemas"
HOOK_SESSION = "5f0c7a52-aaaa-4bbb-8ccc-0123456789ab"

CART = '''"""Cart."""

import os


class Cart:
    """A cart."""

    def __init__(self):
        self.items = []

    def add(self, item, qty=1):
        for _ in range(qty):
            self.items.append(item)
        return self

    def total(self) -> int:
        value = 0
        for item in self.items:
            value += item.price
        value = apply_tax(value)
        return value


def apply_tax(value):
    rate = 0.2
''' + "".join(f"    step{i} = value * {i}\n" for i in range(40)) + '''    return round(value + value * rate)


def main():
    cart = Cart()
    cart.add(object())
    print(cart.total())
    print(unknown_thing(cart))
'''
TESTS = "from src.cart import Cart\n\n\ndef test_total():\n    assert Cart().total() == 0\n" + "".join(
    f"\n\ndef test_add_{k}():\n    cart = Cart()\n    cart.add('item-{k}', qty={k})\n    assert cart.total() >= 0\n"
    for k in range(6))  # long enough that a re-read's marker costs less than the file


def load(name: str) -> dict:
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text())


def validator(name: str):
    registry = referencing.Registry().with_resources(
        (p.name, referencing.Resource.from_contents(json.loads(p.read_text()))) for p in SCHEMAS.glob("*.json"))
    schema = load(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, registry=registry,
                                           format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


STATE: list[str] = []  # the module's own state home (the module fixture runs before conftest's per-test one)


def env() -> dict:
    out = {k: v for k, v in os.environ.items() if not k.startswith("SYMBOLPACK_")}
    out["SYMBOLPACK_SMALL_FILE_TOKENS"] = "400"  # the fixtures' skeletons (conftest.SMALL_FILE_TOKENS)
    out["SYMBOLPACK_HOOK_SERVER_IDLE"] = "20"  # the hooks' resident process ends soon after
    if STATE:
        out["XDG_STATE_HOME"] = STATE[0]  # never the user's own state folder
    out["PYTHONPATH"] = os.pathsep.join([str(ROOT), out.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return out


def tldrs(root: Path, *args: str, stdin: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "symbolpack.cli", *args], cwd=root, env=env(), input=stdin,
                          capture_output=True, text=True, timeout=120)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def as_json(proc: subprocess.CompletedProcess) -> dict:
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def responses(tmp_path_factory) -> dict[str, list[dict]]:
    """Real responses, by schema name."""
    STATE[:] = [str(tmp_path_factory.mktemp("schemas-state"))]
    root = tmp_path_factory.mktemp("schemas") / "repo"
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "src" / "cart.py").write_text(CART)
    (root / "tests" / "test_cart.py").write_text(TESTS)
    (root / "notes.txt").write_text("".join(f"note {i}\n" for i in range(30)))
    (root / ".env").write_text("SECRET=1\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    out: dict[str, list[dict]] = {}

    def add(name: str, obj: dict) -> dict:
        out.setdefault(name, []).append(obj)
        return obj

    def read(*args: str, session: str = "s1") -> dict:
        return add("read", as_json(tldrs(root, "read", *args, "--session-id", session, "--format", "json")))

    modes = [read("src/cart.py")["mode"], read("src/cart.py")["mode"]]
    cart = root / "src" / "cart.py"
    grown = CART.replace("    step1 = value * 1\n", "    step1 = value * 1\n" + "".join(f"    extra{i} = {i}\n" for i in range(30)))
    cart.write_text(grown)  # 30 lines inside a hidden body: a delta, with unchanged and elided segments
    modes.append(read("src/cart.py")["mode"])
    cart.write_text(grown.replace("import os", "import sys"))  # one shown line: a diff
    modes.append(read("src/cart.py")["mode"])
    modes.append(read("src/cart.py", "--offset", "3", "--limit", "4")["mode"])
    modes.append(read("src/cart.py", "--symbol", "Cart.add")["mode"])
    modes.append(read("notes.txt", "--full")["mode"])
    (root / "notes.txt").write_text("".join(f"note {i}\n" for i in range(30)).replace("note 7\n", "note seven\n"))
    modes.append(read("notes.txt")["mode"])
    modes.append(read(".env")["mode"])
    out["modes"] = [{"seen": m} for m in modes]
    # answers kept by id, read against the answers a host says are present (v2)
    first = read("tests/test_cart.py", "--answer-id", "call-1", "--present", "", session="s3")
    read("tests/test_cart.py", "--answer-id", "call-2", "--present", first["answer_id"], session="s3")
    read("tests/test_cart.py", "--answer-id", "call-3", session="s3")

    bad = tldrs(root, "read", "missing.py", "--session-id", "s1", "--format", "json", check=False)
    add("error", as_json(bad))
    add("error", as_json(tldrs(root, "diff-context", "--base", "nope", "--format", "json", check=False)))

    add("diff-context", as_json(tldrs(root, "diff-context", "--session-id", "s1", "--format", "json")))
    add("diff-context", as_json(tldrs(root, "diff-context", "--no-delta", "--format", "json", "--with-text")))
    add("diff-context", as_json(tldrs(root, "diff-context", "--no-delta", "--budget", "60", "--format", "json")))
    add("context", as_json(tldrs(root, "context", "main", "--session-id", "s2", "--format", "json")))
    add("context", as_json(tldrs(root, "context", "Cart.total", "--no-delta", "--format", "json", "--with-text")))
    # packs kept as answers (v2): against the answers present, then leaning on the pack's own
    kept = add("context", as_json(tldrs(root, "context", "Cart.total", "--session-id", "s4", "--answer-id", "call-p1",
                                        "--present", "", "--format", "json")))
    again = add("context", as_json(tldrs(root, "context", "Cart.total", "--session-id", "s4", "--answer-id",
                                         "call-p2", "--present", kept["answer_id"], "--format", "json")))
    assert (kept["v"], kept["leans_on"], again["leans_on"]) == (2, [], ["call-p1"]) and again["unchanged"]
    add("diff-context", as_json(tldrs(root, "diff-context", "--session-id", "s4", "--answer-id", "call-p3",
                                      "--present", "call-p1", "--format", "json")))

    add("session-status", as_json(tldrs(root, "session", "status", "--session-id", "s1", "--json")))
    add("session-list", as_json(tldrs(root, "session", "list", "--json")))
    add("session-gc", as_json(tldrs(root, "session", "gc", "--json")))
    add("extract", as_json(tldrs(root, "extract", "src/cart.py", "--format", "json")))
    add("structure", as_json(tldrs(root, "structure", "--format", "json")))
    add("search", as_json(tldrs(root, "search", "total", "--format", "json")))

    def hook(name: str, event: str, tool: str, tool_input: dict, **extra) -> None:
        payload = {"session_id": HOOK_SESSION, "cwd": str(root),
                   "hook_event_name": event, "tool_name": tool, "tool_input": tool_input, **extra}
        proc = tldrs(root, "hook", name, stdin=json.dumps(payload))
        if proc.stdout.strip():
            add("hook-output", json.loads(proc.stdout))

    target = str(root / "tests" / "test_cart.py")
    hook("claude-pre-read", "PreToolUse", "Read", {"file_path": target})  # first read: native, no output
    hook("claude-pre-read", "PreToolUse", "Read", {"file_path": target})  # re-read: a deny with the marker
    # an edit inside a body the session's skeleton hid: the post-edit hook says so
    hook_session = claude.session_id_for({"session_id": HOOK_SESSION})
    assert read("src/cart.py", session=hook_session)["mode"] == "skeleton"
    old, new = "    step5 = value * 5\n", "    step5 = value * 55\n"
    cart.write_text(cart.read_text().replace(old, new))
    hook("claude-post-edit", "PostToolUse", "Edit", {"file_path": str(cart), "old_string": old, "new_string": new},
         tool_response={"filePath": str(cart), "success": True})
    hook("claude-session-start", "SessionStart", "", {}, source="compact")
    out["mcp-session-status"] = [mcp_status(root)]
    return out


def mcp_status(root: Path) -> dict:
    anyio = pytest.importorskip("anyio")
    mcp = pytest.importorskip("mcp")
    from mcp.client.stdio import stdio_client

    params = mcp.StdioServerParameters(command=sys.executable, args=["-m", "symbolpack.integrations.mcp_server"],
                                       cwd=str(root), env=env())

    async def main() -> dict:
        async with stdio_client(params) as (r, w):
            async with mcp.ClientSession(r, w) as session:
                await session.initialize()
                await session.call_tool("read_file", {"path": "src/cart.py", "session_id": "m1"})
                result = await session.call_tool("session_status", {"session_id": "m1"})
                return json.loads(result.content[0].text)

    return anyio.run(main)


def test_every_mode_is_produced(responses):
    assert {m["seen"] for m in responses["modes"]} == {"skeleton", "unchanged", "delta", "diff", "range",
                                                     "full", "passthrough"}


@pytest.mark.parametrize("name", ["read", "error", "diff-context", "context", "session-status", "session-list",
                                  "session-gc", "extract", "structure", "search", "hook-output"])
def test_real_responses_fit_their_schema(responses, name):
    check = validator(name)
    assert responses[name], name
    for obj in responses[name]:
        errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in check.iter_errors(obj)]
        assert errors == [], json.dumps(obj)[:400]


def test_the_responses_exercise_the_optional_parts(responses):
    """The schemas' conditional branches are met by real data, not only by the happy path."""
    diffs = [d for p in responses["diff-context"] for d in p["diffs"]]
    assert any(d["diff"] is None and d["summary"] for d in diffs) and any(d["diff"] for d in diffs)
    assert any("text" in p for p in responses["diff-context"]) and any("text" not in p for p in responses["diff-context"])
    assert any(u["status"] == "unresolved" for p in responses["context"] for u in p["unresolved"])
    kinds = {s["kind"] for r in responses["read"] for s in r.get("segments", [])}
    assert kinds == {"shown", "elided", "unchanged"}
    packs_v2 = [p["answer_id"] for name in ("context", "diff-context") for p in responses[name] if p["v"] == 2]
    assert packs_v2 == ["call-p1", "call-p2", "call-p3"]
    v2 = [r for r in responses["read"] if r["v"] == 2]
    assert [r["answer_id"] for r in v2] == ["call-1", "call-2", "call-3"]
    assert v2[1]["leans_on"] == ["call-1"] and "leans_on" not in v2[2]
    events = {h["hookSpecificOutput"]["hookEventName"] for h in responses["hook-output"]}
    assert events == {"PreToolUse", "PostToolUse", "SessionStart"}


def test_mcp_session_status_is_the_cli_object_without_its_envelope(responses):
    status = responses["mcp-session-status"][0]
    assert "v" not in status and status["session_id"] == "m1" and status["reads"] == 1
    assert list(validator("session-status").iter_errors({"v": 1, **status})) == []


def test_malformed_responses_are_rejected(responses):
    check = validator("read")
    good = next(r for r in responses["read"] if r["mode"] == "skeleton")
    assert check.is_valid(good) and good["segments"][0]["kind"] == "shown"
    broken = []
    for mutate in (lambda r: r.update(mode="summary"),  # not a mode
                   lambda r: r.update(extra=1),  # the object is closed
                   lambda r: r.pop("sha256"),  # required
                   lambda r: r.update(sha256="xyz"),  # not a sha256
                   lambda r: r.pop("segments"),  # a skeleton states its segments
                   lambda r: r["segments"].append({"kind": "hidden", "start": 1, "end": 2}),
                   lambda r: r["segments"][0].update(**{"from": 3}),  # a shown segment has no "from"
                   lambda r: r.update(scope={"start": 1}),
                   lambda r: r.update(v=2)):
        bad = copy.deepcopy(good)
        mutate(bad)
        broken.append(check.is_valid(bad))
    assert broken == [False] * 9
    passthrough = next(r for r in responses["read"] if r["mode"] == "passthrough")
    assert not check.is_valid({**passthrough, "total_lines": 3})
    pack = validator("diff-context")
    summarized = next(p for p in responses["diff-context"] if any(d["diff"] is None for d in p["diffs"]))
    assert pack.is_valid(summarized)
    no_summary = copy.deepcopy(summarized)
    for d in no_summary["diffs"]:
        d.pop("summary", None)
    assert not pack.is_valid(no_summary)  # a file is never dropped silently
    slice_bad = copy.deepcopy(summarized)
    slice_bad["slices"] = [{**(summarized["slices"] or [{}])[0], "relevance": "nearby"}]
    assert not pack.is_valid(slice_bad)
    kept = next(p for p in responses["context"] if p["v"] == 2)
    context = validator("context")
    assert context.is_valid(kept)
    assert [context.is_valid(bad) for bad in ({**kept, "v": 1}, {k: v for k, v in kept.items() if k != "answer_id"},
                                              {**kept, "v": 3})] == [False] * 3


def test_symbol_kinds_in_the_schema_are_the_engines():
    assert load("common")["$defs"]["kind"]["enum"] == list(KINDS)


def test_protocol_document_links_every_schema():
    protocol = (ROOT / "docs" / "PROTOCOL.md").read_text()
    for path in SCHEMAS.glob("*.schema.json"):
        assert f"](schemas/{path.name})" in protocol, path.name
