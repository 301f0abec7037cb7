"""The history replay: a repository made here with commits in three languages, replayed through
the engine and judged by the oracle; the diff-context step and its judge, with honest and
deliberately broken packs."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from symbolpack.evaluation.command import main
from symbolpack.evaluation.harness import ChangedLines, PackJudge, selected_counter
from symbolpack.evaluation.oracle import ReadOracle, split_lines
from symbolpack.evaluation.replay import commit_changes, first_parent_commits, replay
from symbolpack.api.operations import read_file
from symbolpack.base.workspace import SymbolpackError
from tests.conftest import git
from tests.evaluation.test_harness import check_charge_keys


def py_function(name: str, n: int, salt: int = 0) -> str:
    body = "".join(f"    total += {name}_step({i}, {salt + i})  # accumulate part {i}\n" for i in range(n))
    return f"def {name}(items, scale=1):\n    \"\"\"Compute {name}.\"\"\"\n    total = 0\n{body}    return total * scale\n\n\n"


def go_function(name: str, n: int) -> str:
    body = "".join(f"\tcount += helper{i % 3}(input, {i}) // step {i}\n" for i in range(n))
    return f"func {name}(input string) int {{\n\tcount := 0\n{body}\treturn count\n}}\n\n"


def ts_function(name: str, n: int) -> str:
    body = "".join(f"  result.push(transform(value, {i}));  // stage {i}\n" for i in range(n))
    return f"export function {name}(value: string): string[] {{\n  const result: string[] = [];\n{body}  return result;\n}}\n\n"


PY = "import os\n\n\n" + "".join(py_function(f"compute_{k}", 14 + k) for k in range(4))
GO = "package main\n\nimport \"fmt\"\n\n" + "".join(go_function(f"Run{k}", 13 + k) for k in range(3))
TS = "import { transform } from './util';\n\n" + "".join(ts_function(f"build{k}", 12 + k) for k in range(3))
HCL = "".join(f'setting "s{k}" {{\n  value = {k}\n}}\n' for k in range(15))


def edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text()
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new, 1))


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


@pytest.fixture
def history(make_repo):
    """A repository with 6 commits after the first: edits inside bodies in Python, Go and
    TypeScript, a pure insertion, a deletion, a new file, a rename, an unparsed file."""
    root = make_repo({"app/service.py": PY, "cmd/main.go": GO, "web/client.ts": TS, "deploy/settings.hcl": HCL})
    edit(root, "app/service.py", "compute_1_step(5, 5)", "compute_1_step(5, 500)")
    edit(root, "cmd/main.go", "helper1(input, 4)", "helper2(input, 4)")
    commit(root, "tune step five and the go helper")
    edit(root, "web/client.ts", "  // stage 3\n", "  // stage 3\n  result.push('extra');\n")
    (root / "web/extra.ts").write_text(ts_function("extra", 14))
    commit(root, "ts: an extra push and a new module")
    edit(root, "app/service.py", "    total += compute_2_step(7, 7)  # accumulate part 7\n", "")
    edit(root, "deploy/settings.hcl", "value = 4", "value = 40")
    commit(root, "drop a step, retune a setting")
    edit(root, "app/service.py", "compute_1_step(5, 500)", "compute_1_step(5, 501)")
    edit(root, "app/service.py", "compute_3_step(2, 2)", "compute_3_step(2, 3)")
    commit(root, "service: touch two functions again")
    git(root, "mv", "web/extra.ts", "web/more.ts")
    edit(root, "cmd/main.go", "helper0(input, 0)", "helper0(input, 1)")
    commit(root, "rename the ts module, go tweak")
    edit(root, "web/client.ts", "transform(value, 8)", "transform(value, 80)")
    commit(root, "ts tweak")
    return root


def run(root: Path, **kwargs) -> dict:
    with selected_counter("estimate"):
        return replay(root, **kwargs)


# --------------------------------------------------------------------------- git plumbing

def test_commit_changes_in_both_numberings(history):
    commits = first_parent_commits(history, "HEAD", 10)
    assert len(commits) == 6
    third = commit_changes(history, f"{commits[2]}^1", commits[2])
    service = third["app/service.py"]
    removed = PY.split("\n").index("    total += compute_2_step(7, 7)  # accumulate part 7") + 1
    assert service.status == "M" and service.old_lines == {removed}
    assert service.new.lines == set() and service.new.deletion_points == {removed}
    second = commit_changes(history, f"{commits[1]}^1", commits[1])
    assert second["web/extra.ts"].status == "A"
    assert len(second["web/client.ts"].insert_after) == 1 and len(second["web/client.ts"].new.lines) == 1
    renamed = commit_changes(history, f"{commits[4]}^1", commits[4])
    assert renamed["web/extra.ts"].status == "D" and renamed["web/extra.ts"].new.deleted_file
    assert renamed["web/more.ts"].status == "A"


# --------------------------------------------------------------------------- the replay

def test_replay_holds_and_leaves_the_users_tree_alone(history):
    (history / "web/client.ts").write_text(TS + "// work in progress\n")  # uncommitted
    (history / "scratch.txt").write_text("untracked\n")
    head, status = git(history, "rev-parse", "HEAD"), git(history, "status", "--porcelain")
    result = run(history, commits=6, seed=3)
    assert result["failures"] == 0, result["failure_messages"]
    assert result["commits"] == 6 and len(result["turns"]) == 6
    assert result["reads"] >= 15 and result["drill_ins"] >= 2
    assert {"skeleton", "unchanged"} <= set(result["modes"])
    assert result["tokens"]["symbolpack"] < result["tokens"]["native"]
    assert result["diff_context"].startswith("not available") or result["diff_context"] == "available"
    assert git(history, "rev-parse", "HEAD") == head and git(history, "status", "--porcelain") == status
    assert (history / "web/client.ts").read_text().endswith("// work in progress\n")


def test_replay_is_deterministic_and_honours_end_and_commits(history):
    a = run(history, commits=3, end="HEAD~1", seed=7, diff_context=False)
    b = run(history, commits=3, end="HEAD~1", seed=7, diff_context=False)
    assert a["tokens"] == b["tokens"] and a["reads"] == b["reads"] and a["failures"] == 0
    assert a["commits"] == 3
    assert a["last_commit"] == git(history, "rev-parse", "HEAD~1").strip()


def test_replay_catches_a_broken_engine(history):
    def stale(ws, path, session_id, **kwargs):
        response = dict(read_file(ws, path, session_id, **kwargs).response)
        if response["mode"] in ("delta", "diff"):
            response.update(mode="unchanged", text="[UNCHANGED] nothing new", segments=None)
        return response

    result = run(history, commits=6, engine=stale, diff_context=False)
    assert result["failures"] > 0
    assert any("agent believes" in m or "sha256 differs" in m for m in result["failure_messages"])


def test_replay_errors_are_one_clear_line(tmp_path, history):
    with pytest.raises(SymbolpackError, match="not a git repository"):
        run(tmp_path)
    with pytest.raises(SymbolpackError, match="not a commit"):
        run(history, end="no-such-rev")


def test_eval_command_replay_json(history, capsys):
    code = main(["--repo", str(history), "--commits", "4", "--json", "--counter", "estimate", "--no-progress"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["failures"] == 0 and out["commits"] == 4
    for key in ("reads", "savings", "reference_savings", "first_read_savings", "reread_savings", "drill_ins",
                "p50_ms", "p95_ms", "counter"):
        assert key in out
    check_charge_keys(out)
    # files read before their commit modifies them, in the last 4 commits: service.py and
    # settings.hcl; service.py; main.go (not extra.ts: deleted, nor more.ts: added); client.ts
    assert out["edited_files"] == 5 and type(out["edited_files"]) is int
    assert out["drill_ins_per_edited_file"] == round(out["drill_ins"] / 5, 4)
    assert out["round_trips"]["reference"] == 0  # it holds whole files: it never needs to drill in


# --------------------------------------------------------------------------- diff-context

CHUNK = 8


def fake_diff_context(lie: str = ""):
    """A small honest diff-context (fixed-size chunks stand in for symbols) that keeps
    the agent's copy through the engine's own store, or one that lies."""
    from symbolpack.packs.packing import record_pack_display
    from symbolpack.engine.sources import split_text_lines

    def diff_context(ws, base="HEAD", session_id=None, delta=True):
        root = ws.root
        names = subprocess.run(["git", "diff", "--no-renames", "--name-only", base], cwd=root, capture_output=True,
                               text=True, check=True).stdout.split()
        slices, unchanged, diffs, texts = [], [], [], []

        def load(sha):
            raw = ws.store.get_object(sha)
            return None if raw is None else split_text_lines(raw.decode())

        with ws.store.session(session_id) as session:
            for rel in names:
                path = root / rel
                if not path.exists():
                    diffs.append({"path": rel, "diff": ""})
                    texts.append(f"deleted: {rel}")
                    continue
                data = path.read_bytes()
                sha = hashlib.sha256(data).hexdigest()
                lines = split_lines(data.decode())
                shown = []
                for k in range(0, len(lines), CHUNK):
                    a, b = k + 1, min(k + CHUNK, len(lines))
                    sid = f"{rel}:chunk:{a}"
                    code = "\n".join(lines[a - 1:b])
                    if lie == "off-by-one" and k == 0:
                        code = "\n".join(lines[a:b + 1])
                    etag = hashlib.sha256(code.encode()).hexdigest()
                    if lie == "never-given" and delta:
                        unchanged.append(sid + ":x")
                    held = delta and session.copy(rel).holds(a, b, sha, lines, load)
                    if held or (lie == "no-delta-claims" and not delta):
                        unchanged.append(sid)
                        slices.append({"id": sid, "path": rel, "lines": [a, b], "code": None, "etag": etag})
                        continue
                    if lie == "hide-changes" and k > 0:
                        continue
                    slices.append({"id": sid, "path": rel, "lines": [a, b], "code": code, "etag": etag})
                    shown.append((a, b))
                    texts.append(code)
                if delta:
                    record_pack_display(ws.store, session, rel, data, sha, shown, None)
        return {"v": 1, "base": base, "session_id": session_id, "slices": slices, "unchanged": unchanged,
                "diffs": diffs, "text": "\n".join(texts)}

    return diff_context


def test_replay_runs_the_diff_context_step_and_accepts_an_honest_engine(history):
    result = run(history, commits=6, diff_context=fake_diff_context())
    assert result["failures"] == 0, result["failure_messages"]
    assert result["diff_context"] == "available"
    packs = result["packs"]
    assert packs["diff-context"]["calls"] == 6 and packs["diff-context --no-delta"]["calls"] == 6
    assert packs["diff-context"]["unchanged"] > 0 and packs["diff-context --no-delta"]["unchanged"] == 0
    assert packs["diff-context"]["tokens"] < packs["diff-context --no-delta"]["tokens"]


@pytest.mark.parametrize("lie", ["off-by-one", "never-given", "no-delta-claims", "hide-changes"])
def test_diff_context_judge_catches_a_lying_engine(history, lie):
    result = run(history, commits=6, diff_context=fake_diff_context(lie))
    assert result["failures"] > 0, lie
    assert any("diff-context" in m for m in result["failure_messages"])


def test_pack_judge_by_hand():
    files = {"a.py": ["def f():", "    return 1", "", "def g():", "    return 2"]}
    lines = files.get
    judge = PackJudge(delta=True)
    good = {"v": 1, "slices": [{"id": "a.py:f", "path": "a.py", "lines": [1, 2], "code": "def f():\n    return 1"}],
            "unchanged": [], "diffs": [], "text": "..."}
    changed = {"a.py": ChangedLines(lines={2})}
    assert judge.apply(good, lines, changed) == []
    again = {"v": 1, "slices": [{"id": "a.py:f", "path": "a.py", "lines": [1, 2], "code": None}],
             "unchanged": ["a.py:f"], "diffs": [], "text": "[UNCHANGED] a.py:f"}
    assert judge.apply(again, lines) == []
    files["a.py"][1] = "    return 10"  # now the claim would be stale
    assert any("never given" in p for p in judge.apply(again, lines))
    hidden = {"v": 1, "slices": [], "unchanged": [], "diffs": [], "text": ""}
    assert any("not visible" in p for p in judge.apply(hidden, lines, changed))
    diff = {"v": 1, "slices": [], "unchanged": [],
            "diffs": [{"path": "a.py", "diff": "@@ -2 +2 @@\n-    return 1\n+    return 10"}], "text": ""}
    assert judge.apply(diff, lines, changed) == []
    wrong_diff = {**diff, "diffs": [{"path": "a.py", "diff": "@@ -2 +2 @@\n-    return 1\n+    return 11"}]}
    assert any("differs from the file" in p for p in judge.apply(wrong_diff, lines, changed))


def test_pack_judge_accepts_unchanged_code_the_session_holds_from_reads():
    oracle = ReadOracle()
    content = "def f():\n    return 1\n"
    oracle.apply({"v": 1, "path": "a.py", "mode": "full", "scope": None, "total_lines": 2,
                  "sha256": hashlib.sha256(content.encode()).hexdigest(),
                  "text": "     1\tdef f():\n     2\t    return 1", "tokens": 1, "full_tokens": 1,
                  "segments": [{"kind": "shown", "start": 1, "end": 2}]})
    judge = PackJudge(delta=True, read_oracle=oracle)
    pack = {"v": 1, "slices": [{"id": "a.py:f", "path": "a.py", "lines": [1, 2], "code": None}],
            "unchanged": ["a.py:f"], "diffs": [], "text": ""}
    assert judge.apply(pack, {"a.py": split_lines(content)}.get) == []
    assert judge.apply(pack, {"a.py": ["def f():", "    return 2"]}.get) != []


def test_changed_lines_ignore_where_an_ambiguous_blank_line_sits(make_repo):
    """An inserted block next to an equal blank line may be drawn one line up or down; only
    the lines every alignment calls changed must be visible."""
    from symbolpack.evaluation.replay import diff_context_changes

    root = make_repo({"a.py": "V = 1\n\n\ndef f():\n    pass\n"}, name="ambiguous")
    (root / "a.py").write_text("V = 1\n\n# c\nX = 3\n\n\ndef f():\n    pass\n")
    commit(root, "insert a comment and a constant after a blank line")
    head = git(root, "rev-parse", "HEAD").strip()
    changes = diff_context_changes(root, f"{head}^1", head)
    # git inserts lines 3-5 ("# c", "X = 3", ""), difflib lines 2-4 ("", "# c", "X = 3")
    assert changes["a.py"].lines == {3, 4}


def test_a_lockfile_is_read_but_not_edited_by_hand(make_repo):
    """A package manager rewrites Cargo.lock: the replay's agent reads it and drills into
    nothing there, while an outlined document the same commit edits is drilled into."""
    lock = "".join(f'[[package]]\nname = "crate{k}"\nversion = "1.{k}.0"\nsource = "registry"\n\n' for k in range(120))
    doc = "# Guide\n\n" + "".join(f"## Part {k}\n\n" + "".join(f"Text {k}.{i} about the part.\n" for i in range(12))
                                  + "\n" for k in range(10))
    root = make_repo({"Cargo.lock": lock, "GUIDE.md": doc})
    (root / "Cargo.lock").write_text(lock.replace('version = "1.7.0"', 'version = "1.7.1"')
                                     .replace('version = "1.90.0"', 'version = "1.90.2"'))
    edit(root, "GUIDE.md", "Text 8.5 about the part.", "Text 8.5 about the part, revised.")
    commit(root, "bump two crates, revise the guide")
    result = run(root, commits=1, diff_context=False)
    assert result["failures"] == 0, result["failure_messages"]
    assert result["reads"] >= 2 and result["drill_ins"] == 1  # the guide's section, not the lockfile
