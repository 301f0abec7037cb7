"""Context packs at the edges: files that are not UTF-8, budgets a change does not fit,
and sensitive files, whose content must never reach a pack, the copy or any cache."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from symbolpack.api.context import context_pack, diff_context
from symbolpack.api.operations import Workspace
from symbolpack.base.tokens import count_tokens

from conftest import git
from test_context import assert_every_change_visible, by_id, check_shape, edit

LATIN = b'# caf\xe9\n\n\ndef helper(x):\n    return x + "\xe9t\xe9"\n'
MAIN = "from latin import helper\n\n\ndef run(x):\n    return helper(x)\n"


@pytest.fixture
def mixed(make_repo):
    root = make_repo({"main.py": MAIN, "README.md": "# r\n"})
    (root / "latin.py").write_bytes(LATIN)
    git(root, "add", "latin.py")
    git(root, "commit", "-q", "-m", "latin-1 file")
    return root


def no_substitutions(result: dict) -> None:
    assert "\ufffd" not in result["text"]
    assert "\ufffd" not in json.dumps(result, ensure_ascii=False)
    for s in result["slices"]:
        if s["path"] == "latin.py":
            assert s["code"] is None


# --------------------------------------------------------------------------- not UTF-8 (item 10)

def test_non_utf8_change_is_summarized_never_shown_with_substitutions(mixed):
    ws = Workspace(mixed)
    (mixed / "latin.py").write_bytes(LATIN.replace(b'"\xe9t\xe9"', b'"\xe9t\xe9s"'))
    result = diff_context(ws, session_id="u")
    check_shape(result)
    no_substitutions(result)
    entry = {d["path"]: d for d in result["diffs"]}["latin.py"]
    assert entry["diff"] is None and "not UTF-8 text, not shown" in entry["summary"]
    assert entry["summary"] in result["text"]
    assert not any(s["path"] == "latin.py" for s in result["slices"])
    with ws.store.session("u", write=False) as session:
        assert session.copy("latin.py").empty  # nothing of it was written into the copy


def test_non_utf8_callee_is_never_a_slice_with_code(mixed):
    ws = Workspace(mixed)
    edit(mixed, "main.py", "return helper(x)", "return helper(x) * 2")
    result = diff_context(ws, session_id="u")
    no_substitutions(result)
    assert "main.py:python:run" in by_id(result)
    pack = context_pack(ws, "run", session_id="u2")
    no_substitutions(pack)
    with ws.store.session("u2", write=False) as session:
        assert session.copy("latin.py").empty


# --------------------------------------------------------------------------- the budget is a hard cap (item 11)

BIG_DELETED = "legacy/old module.py"  # a space: the command must quote it
LOCK = "package-lock.json"


def big_module(n_lines: int) -> str:
    out = []
    i = 0
    while len(out) < n_lines:
        out += [f"def legacy_{i}(x):", f"    return x + {i}", ""]
        i += 1
    return "\n".join(out[:n_lines]) + "\n"


def lockfile(seed: str, n_lines: int) -> str:
    return "{\n" + "".join(f'  "pkg-{i}": "{seed}-{i}.0.{i % 7}",\n' for i in range(n_lines - 2)) + "}\n"


@pytest.fixture
def heavy(make_repo):
    """A deleted 9,000-line module, a rewritten 5,000-line lockfile and one small real change."""
    root = make_repo({BIG_DELETED: big_module(9000), LOCK: lockfile("a", 5000),
                      "app.py": "def total(xs):\n    return sum(xs)\n\n\ndef main():\n    return total([1, 2])\n"})
    (root / BIG_DELETED).unlink()
    (root / LOCK).write_text(lockfile("b", 5000))
    edit(root, "app.py", "return sum(xs)", "return sum(xs) + 1")
    return root


@pytest.mark.parametrize("budget", [200, 500, 8000])
def test_budget_is_a_hard_cap_and_every_changed_file_is_named(heavy, budget):
    result = diff_context(Workspace(heavy), delta=False, budget=budget)
    check_shape(result)
    text = result["text"]
    assert result["budget_used"] == count_tokens(text) <= budget
    for path in (BIG_DELETED, LOCK, "app.py"):
        assert path in text, path
    entries = {d["path"]: d for d in result["diffs"]}
    for path in (BIG_DELETED, LOCK):
        d = entries[path]
        assert d["diff"] is None and d["summary"] in text, d  # summarized, never dropped
    if budget >= 500:  # one line per file, with counts and the command that shows it
        deleted, lock = entries[BIG_DELETED]["summary"], entries[LOCK]["summary"]
        assert "-9000" in deleted and "removed: legacy_0" in deleted
        assert f"git diff HEAD -- {shlex.quote(BIG_DELETED)}" in deleted and "'legacy/old module.py'" in deleted
        assert "+4998 -4998" in lock and f"git diff HEAD -- {LOCK}" in lock
        assert "app.py:python:total" in by_id(result)  # the real change is still shown
        assert_every_change_visible(result, heavy)
    if budget == 8000:
        assert by_id(result)["app.py:python:total"]["code"] is not None


def test_summaries_that_do_not_fit_share_one_line(make_repo):
    files = {f"gen/file_{i:02}.txt": "".join(f"line {j} of {i}\n" for j in range(300)) for i in range(12)}
    root = make_repo(files)
    for rel in files:
        (root / rel).write_text("".join(f"changed line {j}\n" for j in range(300)))
    result = diff_context(Workspace(root), delta=False, budget=300)
    assert result["budget_used"] <= 300
    text = result["text"]
    assert all(d["diff"] is None and d["summary"] in text for d in result["diffs"])
    assert sorted(d["path"] for d in result["diffs"]) == sorted(files)
    shared = [d for d in result["diffs"] if not d["summary"].startswith(d["path"] + ":")]
    assert len(shared) > 1 and len({d["summary"] for d in shared}) == 1  # several files, one line
    assert f"{len(shared)} changed files: " in shared[0]["summary"]
    assert shared[0]["summary"].endswith("see: git diff --stat HEAD")
    for rel in files:
        assert rel in text


def test_changed_symbol_too_big_for_code_and_diff_degrades_to_signature_and_summary(make_repo):
    body = "".join(f"    v{i} = {i} * {i}\n" for i in range(600))
    root = make_repo({"huge.py": f"def huge():\n{body}    return v0\n", "small.py": "def f():\n    return 1\n"})
    (root / "huge.py").write_text("def huge():\n" + "".join(f"    w{i} = {i} + {i}\n" for i in range(600))
                                  + "    return w0\n")
    edit(root, "small.py", "return 1", "return 2")
    result = diff_context(Workspace(root), delta=False, budget=500)
    assert result["budget_used"] <= 500
    huge = by_id(result).get("huge.py:python:huge")
    assert huge is None or huge["code"] is None
    entry = {d["path"]: d for d in result["diffs"]}["huge.py"]
    assert entry["diff"] is None and "changed: huge" in entry["summary"] and entry["summary"] in result["text"]
    assert by_id(result)["small.py:python:f"]["code"] is not None
    assert_every_change_visible(result, root)


def test_pack_judge_counts_summaries_and_still_fails_a_silent_omission(heavy):
    from symbolpack.evaluation.harness import PackJudge
    from symbolpack.evaluation.replay import diff_context_changes

    git(heavy, "add", "-A")
    git(heavy, "commit", "-q", "-m", "the heavy change")
    changed = diff_context_changes(heavy, "HEAD~1", "HEAD")

    def file_lines(rel: str):
        p = heavy / rel
        return p.read_text().split("\n")[:-1] if p.exists() else None

    pack = diff_context(Workspace(heavy), base="HEAD~1", head="HEAD", delta=False, budget=500)
    judge = PackJudge(delta=False)
    assert judge.apply(pack, file_lines, changed) == []
    assert sorted(judge.summarized) == sorted([BIG_DELETED, LOCK]) and judge.summarized_total == 2
    lock_line = next(d["summary"] for d in pack["diffs"] if d["path"] == LOCK)
    silent = {**pack, "diffs": [d for d in pack["diffs"] if d["path"] != LOCK],
              "text": pack["text"].replace(lock_line, "")}
    problems = judge.apply(silent, file_lines, changed)
    assert any(p.startswith(f"{LOCK}: changed lines not visible") for p in problems), problems
    unseen = {**pack, "text": pack["text"].replace(lock_line, "")}  # an entry the agent never sees
    assert any("summary is not in the text" in p for p in judge.apply(unseen, file_lines, changed))


# --------------------------------------------------------------------------- secrets never reach the disk (item 12)

TOKEN = "tok-5f3c9e21-d0a4-4b7e-9c1f-secret-one"
TOKEN2 = "tok-8a61b2d7-93e0-4c55-b2aa-secret-two"
DOTENV_TOKEN = "dotenv-1c2d3e4f-never-on-disk"


def run_tldrs(root: Path, *args: str, env: dict, ok: bool = True) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if k != "SYMBOLPACK_SESSION_ID"}
    full_env.update(env)
    proc = subprocess.run([sys.executable, "-m", "symbolpack.cli", *args], cwd=root, env=full_env,
                          capture_output=True, text=True, timeout=120)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_sensitive_files_never_reach_a_pack_the_copy_or_any_cache(make_repo):
    secret = (f'API_KEY = "{TOKEN}"\n\n\ndef connect_with_secret(host):\n'
              f'    return host + "{TOKEN}"\n')
    root = make_repo({
        "secret_conf.py": secret,
        "app.py": "from secret_conf import connect_with_secret\n\n\n"
                  "def handler(host):\n    return connect_with_secret(host)\n",
        ".env": f"KEY={DOTENV_TOKEN}\n",
    })
    (root / "secret_conf.py").write_text(secret.replace(TOKEN, TOKEN2))  # the secret changes...
    (root / ".env").write_text(f"KEY={DOTENV_TOKEN}-2\n")
    edit(root, "app.py", "return connect_with_secret(host)", "return connect_with_secret(host).strip()")
    env = {"SYMBOLPACK_SENSITIVE": "secret_*.py", "SYMBOLPACK_SESSION_ID": "sec"}
    outputs = [
        run_tldrs(root, "structure", ".", "--format", "json", env=env).stdout,
        run_tldrs(root, "extract", "secret_conf.py", "--format", "json", env=env).stdout,
        run_tldrs(root, "context", "handler", "--format", "json", env=env).stdout,
        run_tldrs(root, "context", "handler", "--callers", env=env).stdout,
        run_tldrs(root, "diff-context", "--format", "json", "--with-text", env=env).stdout,
        run_tldrs(root, "diff-context", env=env).stdout,
        run_tldrs(root, "diff-context", "--format", "json", env=env).stdout,
        run_tldrs(root, "diff-context", "--budget", "120", env=env).stdout,
        run_tldrs(root, "read", "secret_conf.py", env=env).stdout,
    ]
    refused = run_tldrs(root, "context", "secret_conf.py:connect_with_secret", env=env, ok=False)
    assert refused.returncode != 0 and "sensitive" in refused.stderr
    for out in outputs:
        for token in (TOKEN, TOKEN2, DOTENV_TOKEN):
            assert token not in out
    structure = json.loads(outputs[0])
    assert {"path": "secret_conf.py", "language": None, "symbols": []} in structure["files"]
    pack = json.loads(outputs[4])
    entries = {d["path"]: d for d in pack["diffs"]}
    for path in ("secret_conf.py", ".env"):  # named, never shown
        assert entries[path]["diff"] is None and "sensitive, not shown" in entries[path]["summary"]
        assert entries[path]["summary"] in pack["text"]
    assert not any(s["path"] == "secret_conf.py" for s in pack["slices"])
    assert "app.py:python:handler" in by_id(pack)
    state = root / ".symbolpack"
    stored = [p for p in state.rglob("*") if p.is_file()]
    assert any(p.name == "cache.db" for p in stored)  # the caches were written, just not with it
    for p in stored:
        data = p.read_bytes()
        for token in (TOKEN, TOKEN2, DOTENV_TOKEN):
            assert token.encode() not in data, f"{token} in {p.relative_to(root)}"
        assert b"def connect_with_secret" not in data, p  # no signature of it either
