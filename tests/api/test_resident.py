"""The resident engine: warm between calls, and never answering from a tree that
changed (an edit, a `git checkout`, a new file). Real git repositories, real
parses; what a warm engine answers is compared with what a cold run answers."""

from __future__ import annotations

import os
import time

from symbolpack.api.context import context_pack
from symbolpack.api.resident import RACY_SECONDS, Engine
from symbolpack.api.operations import Workspace

from conftest import git

CALLER = "from util import helper\n\n\ndef entry(x):\n    return helper(x) + 1\n"
UTIL = "def helper(x):\n    return x * 2\n"


def _names(engine: Engine) -> set[str]:
    return {s.qualname for s in engine.run(lambda ws: ws.all_symbols(ws.root))}


def _pack(engine: Engine, entry: str) -> str:
    return engine.run(lambda ws: context_pack(ws, entry, delta=False))["text"]


def _cold_pack(root, entry: str) -> str:
    ws = Workspace(root)
    try:
        return context_pack(ws, entry, delta=False)["text"]
    finally:
        ws.close()


def _settle() -> None:
    """Let the racy window pass: a file changed within it is looked at again."""
    time.sleep(RACY_SECONDS + 0.2)


def test_calls_reuse_the_walk_until_the_tree_changes(make_repo):
    root = make_repo({"app.py": CALLER, "util.py": UTIL})
    engine = Engine(root)
    try:
        first = _pack(engine, "entry")  # (creates the state dir: the root directory changed)
        _settle()
        _pack(engine, "entry")
        walks, rebuilds = engine.walks, engine.rebuilds
        for _ in range(3):
            assert _pack(engine, "entry") == first
        assert (engine.walks, engine.rebuilds) == (walks, rebuilds)  # warm: nothing walked or rebuilt again
        assert first == _cold_pack(root, "entry")
        (root / "util.py").write_text(UTIL.replace("x * 2", "x * 4"))
        assert "return x * 4" in _pack(engine, "entry")
        assert engine.walks == walks and engine.rebuilds == rebuilds + 1  # an edit: no walk, one rebuild
    finally:
        engine.close()


def test_an_edit_is_seen_on_the_next_call(make_repo):
    root = make_repo({"app.py": CALLER, "util.py": UTIL})
    engine = Engine(root)
    try:
        assert "return x * 2" in _pack(engine, "entry")
        (root / "util.py").write_text(UTIL.replace("x * 2", "x * 3") + "\n\ndef twice(x):\n    return x\n")
        pack = _pack(engine, "entry")
        assert "return x * 3" in pack and "return x * 2" not in pack
        assert "twice" in _names(engine)
        assert pack == _cold_pack(root, "entry")
    finally:
        engine.close()


def test_a_checkout_of_other_blobs_is_seen(make_repo):
    root = make_repo({"app.py": CALLER, "util.py": UTIL})
    git(root, "checkout", "-q", "-b", "other")
    (root / "util.py").write_text(UTIL.replace("x * 2", "x + 7"))  # same length, other bytes
    git(root, "commit", "-q", "-am", "other helper")
    git(root, "checkout", "-q", "main")
    engine = Engine(root)
    try:
        assert "return x * 2" in _pack(engine, "entry")
        git(root, "checkout", "-q", "other")
        pack = _pack(engine, "entry")
        assert "return x + 7" in pack and "return x * 2" not in pack
        assert pack == _cold_pack(root, "entry")
    finally:
        engine.close()


def test_a_new_file_is_seen(make_repo):
    root = make_repo({"app.py": CALLER, "util.py": UTIL})
    engine = Engine(root)
    try:
        assert "brand_new" not in _names(engine)
        (root / "pkg").mkdir()
        (root / "pkg" / "extra.py").write_text("def brand_new(y):\n    return y\n")
        assert "brand_new" in _names(engine)
        assert "def brand_new(y):" in _pack(engine, "brand_new")
        (root / "pkg" / "extra.py").unlink()
        assert "brand_new" not in _names(engine)
    finally:
        engine.close()


def test_a_rewrite_that_keeps_size_inode_and_mtime_is_seen(make_repo):
    """Same size, same inode, mtime set back: the stat identity still differs (ctime)."""
    root = make_repo({"app.py": CALLER, "util.py": UTIL})
    engine = Engine(root)
    try:
        util = root / "util.py"
        assert "return x * 2" in _pack(engine, "entry")
        st = util.stat()
        with open(util, "r+") as fh:  # in place: same inode
            fh.write(UTIL.replace("x * 2", "x * 5"))
        os.utime(util, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the same mtime
        assert "return x * 5" in _pack(engine, "entry")
    finally:
        engine.close()


def test_warm_up_indexes_every_file_before_the_first_lookup(make_repo):
    root = make_repo({f"m{i}.py": f"def f{i}(x):\n    return x\n" for i in range(30)})
    engine = Engine(root)
    try:
        engine.warm_up(chunk=7)
        assert set(engine._symbols) == {f"m{i}.py" for i in range(30)}
        assert _names(engine) == {f"f{i}" for i in range(30)}
    finally:
        engine.close()


def test_the_engine_never_forks(make_repo):
    """A process pool forked from the MCP server's threads can deadlock: the engine's
    index parses in-process even where a cold `structure` would use a pool."""
    body = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(400))  # ~12 KB each
    root = make_repo({f"m{i}.py": body for i in range(60)})  # past the pool's 24 files and 512 KB
    forks = []
    os.register_at_fork(before=lambda: forks.append(1))
    engine = Engine(root)
    try:
        engine.warm_up()
        assert len(engine.run(lambda ws: ws.all_symbols(ws.root))) == 60 * 400
        assert forks == []
    finally:
        engine.close()


def _module(n: int, changed: int | None = None) -> str:
    """*n* functions with bodies long enough to be elided; function *changed* renamed
    and its body edited."""
    out = []
    for i in range(n):
        step = "total += 2 * value" if i == changed else "total += value"
        name = f"work_{i}_edited" if i == changed else f"work_{i}"
        out.append(f"def {name}(values):\n    total = 0\n    for value in values:\n        {step}\n"
                   f"        total -= 1\n        total *= 3\n        total //= 2\n        total += len(values)\n"
                   f"    return total\n\n")
    return "\n".join(out)


def test_a_re_read_through_the_engine_reparses_from_its_kept_tree_and_answers_as_a_cold_read(make_repo):
    from symbolpack.api.operations import read_file

    root = make_repo({"big.py": _module(400)})  # big enough for the engine to keep its tree
    engine = Engine(root)
    cold = Workspace(root)
    try:
        answers = []
        for text in (_module(400), _module(400, changed=7), _module(401, changed=300)):
            (root / "big.py").write_text(text)
            warm_answer = engine.run(lambda ws: read_file(ws, root / "big.py", "engine")).response
            cold_answer = read_file(cold, root / "big.py", "cold").response
            answers.append(warm_answer["mode"])
            assert warm_answer == cold_answer
        assert answers[0] == "skeleton" and "unchanged" not in answers  # each re-read had changes to tell
        assert len(_module(400)) >= engine.trees.min_bytes
        assert engine.trees.reparsed == 2  # both re-reads started from the tree before
    finally:
        cold.close()
        engine.close()


def test_kept_trees_stay_within_their_budget_oldest_out_and_small_files_are_not_kept():
    from symbolpack.api.resident import Trees

    trees = Trees(max_bytes=250, min_bytes=100)
    big = {name: (f"def {name}():\n    return 1\n" * 5).encode() for name in ("a", "b", "c")}  # 110 bytes each
    for name, data in big.items():
        trees.tree(f"{name}.py", "python", data)
    assert list(trees._kept) == ["b.py", "c.py"]  # a.py was the oldest: out, to stay within 250 bytes
    trees.tree("small.py", "python", b"x = 1\n")
    assert "small.py" not in trees._kept  # parsed, not kept: under min_bytes
    trees.tree("b.py", "python", big["b"] + b"y = 2\n")
    assert trees.reparsed == 1 and list(trees._kept) == ["c.py", "b.py"]  # reparsed from its tree, now newest
    trees.tree("a.py", "python", big["a"])
    assert trees.reparsed == 1  # nothing kept of a.py any more: a fresh parse
