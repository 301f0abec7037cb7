"""Reads know what context packs gave: a drill-in into code a pack already sent is
`[UNCHANGED]`, and stops being so the moment that code changes."""

from __future__ import annotations

from symbolpack.api.context import context_pack
from symbolpack.evaluation.oracle import ReadOracle
from symbolpack.api.operations import Workspace, read_file

SRC = (
    "def authenticate(user, password):\n"
    + "".join(f"    step_{i} = check(user, {i})\n" for i in range(15))
    + "    return validate(user)\n\n\n"
    "def validate(user):\n    return bool(user)\n"
)


def test_drill_in_after_a_pack_shows_the_symbol_and_keeps_the_copy_right(make_repo):
    root = make_repo({"auth.py": SRC})
    ws = Workspace(root)
    pack = context_pack(ws, "authenticate", session_id="s")
    assert any(s["id"] == "auth.py:python:authenticate" and s["code"] for s in pack["slices"])
    oracle = ReadOracle()
    for s in pack["slices"]:
        if s["code"]:
            oracle.learn(s["path"], s["lines"][0], s["code"].split("\n"))
    again = read_file(ws, root / "auth.py", "s", symbol="authenticate").response
    assert again["mode"] == "range" and "step_3 = check(user, 3)" in again["text"]  # asked for: shown
    assert oracle.apply(again) == [] and oracle.check("auth.py", (root / "auth.py").read_text()) == []
    (root / "auth.py").write_text(SRC.replace("step_3 = check(user, 3)", "step_3 = check(user, 33)"))
    changed = read_file(ws, root / "auth.py", "s", symbol="authenticate").response
    assert changed["mode"] == "range" and "check(user, 33)" in changed["text"]
    assert oracle.apply(changed) == [] and oracle.check("auth.py", (root / "auth.py").read_text()) == []
    # --no-delta packs neither read nor write the session: nothing is remembered from them
    context_pack(ws, "validate", session_id="other", delta=False)
    fresh = read_file(ws, root / "auth.py", "other", symbol="validate").response
    assert fresh["mode"] == "range"


def test_code_a_pack_showed_is_what_the_agent_holds_after_a_revert(make_repo):
    """Read at v1; the file changes and a pack shows the new body; the file goes back
    to v1. The agent's latest display of those lines is the pack's: a whole-file
    re-read must not call them unchanged, a drill-in must send them."""
    root = make_repo({"auth.py": SRC})
    ws = Workspace(root)
    oracle = ReadOracle()
    first = read_file(ws, root / "auth.py", "s", force_full=True).response
    assert oracle.apply(first) == []
    edited = SRC.replace("step_3 = check(user, 3)", "step_3 = check(user, 33)")
    (root / "auth.py").write_text(edited)
    pack = context_pack(ws, "authenticate", session_id="s")
    for s in pack["slices"]:
        if s["code"]:
            oracle.learn(s["path"], s["lines"][0], s["code"].split("\n"))
    assert "check(user, 33)" in pack["text"]
    (root / "auth.py").write_text(SRC)
    again = read_file(ws, root / "auth.py", "s").response
    assert again["mode"] != "unchanged" and "check(user, 3)\n" in again["text"] + "\n"
    assert oracle.apply(again) == [] and oracle.check("auth.py", SRC) == []


STORE = (
    "import os\n\n\n"
    "class Store:\n"
    '    """Keys and values.\n\n'
    + "".join(f"    Rule {i}: what the store promises about case {i}.\n" for i in range(12))
    + '    """\n\n'
    "    def get(self, key):\n        return os.environ.get(key)\n\n\n"
    "def use():\n    store = Store()\n    return store.get('HOME')\n"
)


def test_a_signature_in_a_pack_voids_its_own_line_not_the_docstring_under_it(make_repo):
    """The agent holds the file; a line is added above a class, and a pack shows the
    class by its signature only (unnumbered). The agent was shown that one line, not
    the docstring: a re-read moves the docstring with one marker instead of sending it."""
    root = make_repo({"store.py": STORE})
    ws = Workspace(root)
    oracle = ReadOracle()
    assert oracle.apply(read_file(ws, root / "store.py", "s", force_full=True).response) == []
    moved = STORE.replace("import os\n", "import os\nimport sys\n")
    (root / "store.py").write_text(moved)
    pack = context_pack(ws, "use", session_id="s")
    assert "   class Store:" in pack["text"]  # a signature, without its docstring
    for s in pack["slices"]:
        if s["code"]:
            oracle.learn(s["path"], s["lines"][0], s["code"].split("\n"))
    again = read_file(ws, root / "store.py", "s").response
    assert oracle.apply(again) == [] and oracle.check("store.py", moved) == []
    assert again["mode"] == "delta" and "Rule 3" not in again["text"]
