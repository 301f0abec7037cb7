"""Context packs and diff-context: selection, budget, session delta, bad input, and the
invariant that every changed line is visible."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Callable

import pytest

from symbolpack.api.context import context_pack, diff_context
from symbolpack.cli.packs import add_context_parsers
from symbolpack.api.operations import Workspace
from symbolpack.engine.sources import split_text_lines
from symbolpack.base.tokens import count_tokens
from symbolpack.base.workspace import SymbolpackError, sha256_hex

from conftest import git, stored_files

SLICE_KEYS = {"id", "path", "kind", "signature", "lines", "code", "etag", "relevance"}
TOP_KEYS = {"v", "base", "session_id", "budget_used", "slices", "unchanged", "diffs", "cache_stats", "text"}

CART = textwrap.dedent('''
    """Carts."""
    from pricing import price_of


    class Cart:
        rate = 1

        def __init__(self):
            self.items = []

        def add(self, item):
            self.items.append(item)
            return self.subtotal()

        def subtotal(self):
            return sum(price_of(i) for i in self.items)


    def checkout(cart):
        return cart.subtotal() * 2
    ''').lstrip()
PRICING = "def price_of(item):\n    return len(item)\n\n\ndef unused():\n    return 0\n"
TESTS = "from cart import Cart\n\n\ndef test_subtotal():\n    assert Cart().subtotal() == 0\n"


@pytest.fixture
def roomy(monkeypatch):
    """Symbols around a change are not limited by its size: for tests of *which* symbols a
    pack relates (the size policy has its own tests)."""
    from symbolpack.packs import diffpack

    monkeypatch.setattr(diffpack, "RELATED_FLOOR", 10_000)
    monkeypatch.setattr(diffpack, "RELATED_CAP", 10_000)


@pytest.fixture
def shop(make_repo):
    return make_repo({"cart.py": CART, "pricing.py": PRICING, "tests/test_cart.py": TESTS,
                      "README.md": "# shop\n", ".gitignore": "*.log\n"})


def edit(root: Path, rel: str, old: str, new: str) -> None:
    p = root / rel
    text = p.read_text()
    assert old in text, old
    p.write_text(text.replace(old, new, 1))


def by_id(result: dict) -> dict[str, dict]:
    return {s["id"]: s for s in result["slices"]}


def added_lines(root: Path, base: str, head: str | None = None) -> dict[str, set[int]]:
    """New-side line numbers git calls added, per path (untracked files: every line)."""
    args = ["diff", "-U0", "--no-color", "--no-ext-diff", "-M", base] + ([head] if head else []) + ["--"]
    out = git(root, *args)
    result: dict[str, set[int]] = {}
    path = None
    for line in out.splitlines():
        if line.startswith("+++ "):
            path = None if line[4:] == "/dev/null" else line[6:]
        m = re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", line)
        if m and path:
            start, count = int(m.group(1)), int(m.group(2) or 1)
            result.setdefault(path, set()).update(range(start, start + count))
    if not head:
        for rel in git(root, "ls-files", "--others", "--exclude-standard").splitlines():
            n = len((root / rel).read_text().splitlines())
            result.setdefault(rel, set()).update(range(1, n + 1))
    return result


def copy_holds(ws: Workspace, session_id: str) -> Callable[[dict], bool]:
    """held(slice): the session's agent copy holds that slice's whole code as the file has it now."""
    store = ws.store

    def load(sha: str):
        raw = store.get_object(sha)
        return None if raw is None else split_text_lines(raw.decode("utf-8"))

    def held(s: dict) -> bool:
        data = (ws.root / s["path"]).read_bytes()
        a, b = s["lines"]
        with store.session(session_id, write=False) as session:
            return session.copy(s["path"]).holds(a, b, sha256_hex(data), split_text_lines(data.decode()), load)

    return held


def assert_every_change_visible(result: dict, root: Path, base: str = "HEAD", head: str | None = None,
                                held: Callable[[dict], bool] | None = None) -> None:
    """Every changed line is in a slice with code, in an [UNCHANGED] slice the session's copy
    holds (checked through *held*), in a diff, or its file is summarized by name in the text."""
    shown: dict[str, list[tuple[int, int]]] = {}
    for s in result["slices"]:
        if s["code"] is not None or s["id"] in result["unchanged"]:
            shown.setdefault(s["path"], []).append(tuple(s["lines"]))
        if s["id"] in result["unchanged"]:
            assert held is None or held(s), f"{s['id']} claimed [UNCHANGED], but the copy does not hold it"
    in_diffs: dict[str, set[int]] = {}
    summarized: set[str] = set()
    for d in result["diffs"]:
        if d["diff"] is None:
            assert d["summary"] and d["summary"] in result["text"], d
            summarized.add(d["path"])
            continue
        n = None
        for line in d["diff"].splitlines():
            m = re.match(r"@@ -\S+ \+(\d+)(?:,\d+)? @@", line)
            if m:
                n = int(m.group(1))
                continue
            if n is None or line.startswith(("--- ", "+++ ")):
                continue
            if line.startswith("+"):
                in_diffs.setdefault(d["path"], set()).add(n)
                n += 1
            elif line.startswith(" "):
                n += 1
    for path, lines in added_lines(root, base, head).items():
        if path in summarized:
            continue
        for n in lines:
            ok = any(a <= n <= b for a, b in shown.get(path, ())) or n in in_diffs.get(path, set())
            assert ok, f"{path}:{n} changed but not visible"


def check_shape(result: dict, text: bool = True) -> None:
    assert set(result) == (TOP_KEYS if text else TOP_KEYS - {"text"})
    assert result["v"] == 1
    for s in result["slices"]:
        assert set(s) == SLICE_KEYS
        assert s["relevance"] in ("contains_diff", "caller", "callee", "test")
    assert set(result["cache_stats"]) == {"hits", "misses", "hit_rate"}
    for d in result["diffs"]:
        assert set(d) == ({"path", "diff"} if d["diff"] is not None else {"path", "diff", "summary"})


def file_lines(root: Path, s: dict) -> str:
    lines = (root / s["path"]).read_text().split("\n")
    return "\n".join(lines[s["lines"][0] - 1:s["lines"][1]])


# --------------------------------------------------------------------------- diff-context

def test_changed_method_with_callers_callees_tests_and_unparsed_diff(shop, roomy):
    edit(shop, "cart.py", "return sum(price_of(i) for i in self.items)",
         "return sum(price_of(i) for i in self.items) + 0")
    edit(shop, "README.md", "# shop", "# shop\n\nNow with carts.")
    result = diff_context(Workspace(shop), session_id="s")
    check_shape(result)
    s = by_id(result)
    assert s["cart.py:python:Cart.subtotal"]["relevance"] == "contains_diff"
    assert "cart.py:python:Cart" not in s  # the innermost symbol, not its class
    assert s["cart.py:python:Cart.add"]["relevance"] == "caller"  # self.subtotal()
    assert s["cart.py:python:checkout"]["relevance"] == "caller"  # cart.subtotal(): the only `subtotal`
    assert s["pricing.py:python:price_of"]["relevance"] == "callee"
    assert s["tests/test_cart.py:python:test_subtotal"]["relevance"] == "test"
    assert "pricing.py:python:unused" not in s
    for sl in result["slices"]:
        if sl["code"] is not None:
            assert sl["code"] == file_lines(shop, sl)
    assert [d["path"] for d in result["diffs"]] == ["README.md"]
    assert "+Now with carts." in result["diffs"][0]["diff"]
    assert [x["relevance"] for x in result["slices"]][0] == "contains_diff"  # relevance orders the pack
    text = result["text"]
    # stable signatures first, changing bodies last
    assert text.index("def price_of") < text.index("def subtotal(self):\n") if "== signatures ==" in text else True
    assert text.rindex("[contains_diff]") > text.index("[caller]")
    assert_every_change_visible(result, shop)


def test_line_outside_any_symbol_goes_to_diffs_and_class_level_line_maps_to_class(shop):
    edit(shop, "cart.py", "from pricing import price_of", "from pricing import price_of  # prices")
    edit(shop, "cart.py", "    rate = 1", "    rate = 2")
    result = diff_context(Workspace(shop), delta=False)
    s = by_id(result)
    assert s["cart.py:python:Cart"]["relevance"] == "contains_diff"  # innermost span holding `rate`
    assert [d["path"] for d in result["diffs"]] == ["cart.py"]
    assert "+from pricing import price_of  # prices" in result["diffs"][0]["diff"]
    assert "rate = 2" not in result["diffs"][0]["diff"].replace(" rate = 1", "")  # shown in the slice
    assert_every_change_visible(result, shop)


def test_staged_unstaged_and_untracked_changes_but_not_ignored_files(shop):
    edit(shop, "pricing.py", "return len(item)", "return len(item) + 1")
    git(shop, "add", "pricing.py")
    edit(shop, "cart.py", "return cart.subtotal() * 2", "return cart.subtotal() * 3")
    (shop / "extra.py").write_text("def extra():\n    return 1\n")
    (shop / "debug.log").write_text("ignored\n")
    result = diff_context(Workspace(shop), delta=False)
    changed = {x["id"] for x in result["slices"] if x["relevance"] == "contains_diff"}
    assert changed == {"pricing.py:python:price_of", "cart.py:python:checkout", "extra.py:python:extra"}
    assert all(d["path"] != "debug.log" for d in result["diffs"])
    assert_every_change_visible(result, shop)


def test_session_delta_unchanged_then_changed_again(shop):
    ws = Workspace(shop)
    edit(shop, "cart.py", "return cart.subtotal() * 2", "return cart.subtotal() * 3")
    first = diff_context(ws, session_id="s1")
    assert first["unchanged"] == [] and first["cache_stats"]["hits"] == 0
    second = diff_context(ws, session_id="s1")
    assert "cart.py:python:checkout" in second["unchanged"]
    stub = by_id(second)["cart.py:python:checkout"]
    assert stub["code"] is None and stub["relevance"] == "contains_diff"
    assert "[UNCHANGED]" in second["text"]
    assert second["cache_stats"]["hits"] >= 1 and second["cache_stats"]["hit_rate"] > 0
    assert second["budget_used"] < first["budget_used"]
    assert copy_holds(ws, "s1")(stub)  # the stub leans on code the agent's copy holds as it is now
    assert_every_change_visible(second, shop, held=copy_holds(ws, "s1"))
    edit(shop, "cart.py", "return cart.subtotal() * 3", "return cart.subtotal() * 4")
    third = diff_context(ws, session_id="s1")
    assert "cart.py:python:checkout" not in third["unchanged"]
    assert "* 4" in by_id(third)["cart.py:python:checkout"]["code"]
    other = diff_context(ws, session_id="s2")  # another session knows nothing
    assert other["unchanged"] == []


def test_signature_only_is_not_unchanged_and_budget_cut_is_not_recorded(shop, roomy):
    ws = Workspace(shop)
    edit(shop, "pricing.py", "return len(item)", "return len(item) + 1")
    for budget in range(40, 400, 5):  # the smallest budget that holds the caller's signature only
        probe = diff_context(ws, delta=False, budget=budget)
        if any(x["relevance"] == "caller" for x in probe["slices"]):
            break
    small = diff_context(ws, session_id="s", budget=budget)
    cut = [x for x in small["slices"] if x["relevance"] != "contains_diff"]
    assert cut and all(x["code"] is None for x in cut)
    assert small["unchanged"] == []
    assert "over the token budget" in small["text"]
    big = diff_context(ws, session_id="s", budget=8000)
    callers = [x for x in big["slices"] if x["relevance"] == "caller"]
    assert callers and all(x["code"] is not None for x in callers)  # sent now, not "unchanged"
    assert all(x["id"] not in big["unchanged"] for x in callers)


def test_a_long_symbol_changed_in_one_place_is_sent_as_a_window(make_repo):
    """A 2-line edit in a long function: its signature, the changed lines with 3 lines
    around them, and markers naming the hidden lines with the command that shows them."""
    body = "".join(f"    x{i} = {i}\n" for i in range(80))
    root = make_repo({"big.py": f"def big():\n{body}    return x0\n"})
    edit(root, "big.py", "    x40 = 40\n    x41 = 41", "    x40 = 41\n    x41 = 42")
    result = diff_context(Workspace(root), delta=False)
    sub = by_id(result)["big.py:python:big"]
    assert sub["lines"] == [39, 46] and sub["code"] == file_lines(root, sub)  # lines 42-43 changed
    assert result["diffs"] == []
    text = result["text"]
    assert "-- big.py:1-82 function big [contains_diff]\n   def big():\n" in text
    assert "   ... not shown: tldrs read big.py --offset 1 --limit 38\n" in text
    assert "   ... not shown: tldrs read big.py --offset 47 --limit 36\n" in text
    assert "    42\t    x40 = 41\n    43\t    x41 = 42" in text and "x10 = 10" not in text
    assert result["budget_used"] < 150
    assert_every_change_visible(result, root)


def test_a_long_symbol_changed_in_far_places_is_sent_as_its_diff(make_repo):
    """Two edits 60 lines apart: one window would hold all the lines between them, so the
    symbol is its signature and its changed lines a diff (about what `git diff` costs)."""
    body = "".join(f"    x{i} = {i}\n" for i in range(80))
    root = make_repo({"big.py": f"def big():\n{body}    return x0\n"})
    edit(root, "big.py", "    x10 = 10", "    x10 = 11")
    edit(root, "big.py", "    x70 = 70", "    x70 = 71")
    result = diff_context(Workspace(root), delta=False)
    sub = by_id(result)["big.py:python:big"]
    assert sub["code"] is None and sub["lines"] == [1, 82]
    assert "-- big.py:1-82 function big [contains_diff] (its change: in the diff below)" in result["text"]
    diff = result["diffs"][0]["diff"]
    assert "-    x10 = 10\n+    x10 = 11" in diff and "-    x70 = 70\n+    x70 = 71" in diff and "x40" not in diff
    assert_every_change_visible(result, root)


def test_budget_cut_changed_symbol_falls_back_to_a_diff_or_a_summary(make_repo):
    body = "".join(f"    x{i} = {i}\n" for i in range(80))
    root = make_repo({"big.py": f"def big():\n{body}    return x0\n"})
    edit(root, "big.py", "    x40 = 40", "    x40 = 41")
    forms = set()
    for budget in range(60, 200, 5):  # (under about 50 tokens not even the summary fits)
        result = diff_context(Workspace(root), delta=False, budget=budget)
        assert result["budget_used"] <= budget
        assert_every_change_visible(result, root)
        sub = by_id(result).get("big.py:python:big")
        if sub is None or sub["code"] is None:
            assert "over the token budget" in result["text"], result["text"]
            forms.add("summary" if result["diffs"][0]["diff"] is None else "diff")
        else:
            forms.add("window")
    assert forms == {"summary", "window"} or forms == {"summary", "diff", "window"}
    roomy = diff_context(Workspace(root), delta=False, budget=5000)
    assert by_id(roomy)["big.py:python:big"]["code"] is not None and roomy["diffs"] == []


def test_no_delta_neither_reads_nor_writes_the_session(shop):
    ws = Workspace(shop)
    edit(shop, "cart.py", "return cart.subtotal() * 2", "return cart.subtotal() * 3")
    result = diff_context(ws, session_id="nd", delta=False)
    assert result["session_id"] is None
    assert not os.path.exists(os.path.join(ws.store.sessions_dir, "nd"))
    diff_context(ws, session_id="nd")
    again = diff_context(ws, session_id="nd", delta=False)
    assert again["unchanged"] == [] and again["cache_stats"]["hits"] == 0


def test_empty_diff_says_no_changes(shop):
    result = diff_context(Workspace(shop), delta=False)
    assert result["slices"] == [] and result["diffs"] == []
    assert result["text"] == "no changes against HEAD"


def test_budget_zero_or_negative_is_an_error(shop):
    for budget in (0, -5):
        with pytest.raises(SymbolpackError, match="--budget must be a positive"):
            diff_context(Workspace(shop), budget=budget)
        with pytest.raises(SymbolpackError, match="--budget must be a positive"):
            context_pack(Workspace(shop), "checkout", budget=budget)


def test_not_a_git_repository(tmp_path):
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    with pytest.raises(SymbolpackError, match="not a git repository"):
        diff_context(Workspace(tmp_path))


def test_unknown_base(shop):
    with pytest.raises(SymbolpackError, match="unknown base revision 'nope'"):
        diff_context(Workspace(shop), base="nope")
    with pytest.raises(SymbolpackError, match="unknown head revision"):
        diff_context(Workspace(shop), base="HEAD", head="nope")


def test_repository_without_commits_diffs_against_the_empty_tree(make_repo):
    """No commits yet: the default base HEAD means the empty tree (every staged and untracked
    file is added); an explicit base that does not exist is still an error."""
    root = make_repo({"a.py": "def staged():\n    return 1\n", "b.py": "def untracked():\n    return 2\n"},
                     commit=False)
    git(root, "add", "a.py")
    proc = tldrs(root, "diff-context", "--no-delta", "--format", "json", "--with-text")
    assert "Traceback" not in proc.stderr
    result = json.loads(proc.stdout)
    check_shape(result)
    assert result["base"] == "HEAD"
    assert "(no commits yet: against the empty tree)" in result["text"]
    assert {"a.py:python:staged", "b.py:python:untracked"} <= set(by_id(result))
    assert all(s["relevance"] == "contains_diff" and s["code"] for s in result["slices"])
    text = tldrs(root, "diff-context", "--no-delta").stdout
    assert "def staged():" in text and "def untracked():" in text
    with pytest.raises(SymbolpackError, match="unknown base revision 'main'.*no commits yet"):
        diff_context(Workspace(root), base="main")


def test_detached_head_works(shop):
    git(shop, "checkout", "-q", "--detach", "HEAD")
    edit(shop, "cart.py", "return cart.subtotal() * 2", "return cart.subtotal() * 3")
    result = diff_context(Workspace(shop), session_id="detached")
    assert result["session_id"] == "detached"
    assert "cart.py:python:checkout" in by_id(result)


def test_binary_files_in_the_diff(shop):
    (shop / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0binary")
    git(shop, "add", "logo.png")
    git(shop, "commit", "-q", "-m", "logo")
    (shop / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0changed")
    (shop / "new.bin").write_bytes(b"\0\1\2")
    result = diff_context(Workspace(shop), delta=False)
    diffs = {d["path"]: d["diff"] for d in result["diffs"]}
    assert diffs["logo.png"] == "binary file logo.png changed"
    assert diffs["new.bin"] == "binary file new.bin added"


def test_deleted_file_and_deleted_symbol_show_as_removals(shop):
    (shop / "pricing.py").unlink()
    edit(shop, "cart.py", "\n\ndef checkout(cart):\n    return cart.subtotal() * 2\n", "\n")
    result = diff_context(Workspace(shop), delta=False)
    diffs = {d["path"]: d["diff"] for d in result["diffs"]}
    assert diffs["pricing.py"].startswith("--- a/pricing.py\n+++ /dev/null\n@@ -1,6 +0,0 @@")
    assert "-def price_of(item):" in diffs["pricing.py"]
    assert "-def checkout(cart):" in diffs["cart.py"] and "-    return cart.subtotal() * 2" in diffs["cart.py"]
    assert not any(s["id"].endswith(":checkout") for s in result["slices"])


def test_removed_lines_inside_a_surviving_symbol_are_shown_by_its_code(shop):
    edit(shop, "cart.py", "        self.items.append(item)\n", "")
    result = diff_context(Workspace(shop), delta=False)
    assert by_id(result)["cart.py:python:Cart.add"]["relevance"] == "contains_diff"
    assert result["diffs"] == []


def test_rename_with_and_without_edits(shop):
    git(shop, "mv", "pricing.py", "prices.py")
    result = diff_context(Workspace(shop), delta=False)
    assert result["diffs"] == [{"path": "prices.py", "diff": "renamed pricing.py -> prices.py (content unchanged)"}]
    edit(shop, "prices.py", "return len(item)", "return len(item) * 2")
    result = diff_context(Workspace(shop), delta=False)
    assert by_id(result)["prices.py:python:price_of"]["relevance"] == "contains_diff"
    assert {"path": "prices.py", "diff": "renamed pricing.py -> prices.py"} in result["diffs"]
    assert "renamed pricing.py -> prices.py" in result["text"]
    assert_every_change_visible(result, shop)


def test_cli_rename_with_edits_is_stated_and_drops_the_old_path_from_the_session(make_repo):
    """`git mv a.py b.py` plus an edit: the pack says "renamed a.py -> b.py", and the session
    forgets a.py, so a later a.py is never answered from the renamed file's record."""
    root = make_repo({"a.py": "def total(xs):\n    return sum(xs)\n\n\ndef other():\n    return 0\n"})
    tldrs(root, "read", "a.py", "--session-id", "s")
    assert "a.py" in stored_files(root, "s")
    git(root, "mv", "a.py", "b.py")
    edit(root, "b.py", "return sum(xs)", "return sum(xs) * 2")
    result = json.loads(tldrs(root, "diff-context", "--session-id", "s", "--format", "json", "--with-text").stdout)
    assert "renamed a.py -> b.py" in result["text"]
    assert by_id(result)["b.py:python:total"]["relevance"] == "contains_diff"
    assert_every_change_visible(result, root)
    assert "a.py" not in stored_files(root, "s")


def test_two_commits_read_from_git_objects(shop):
    a = git(shop, "rev-parse", "HEAD").strip()
    edit(shop, "pricing.py", "return len(item)", "return len(item) + 7")
    git(shop, "commit", "-qam", "seven")
    b = git(shop, "rev-parse", "HEAD").strip()
    edit(shop, "pricing.py", "return len(item) + 7", "return 'working tree only'")
    result = diff_context(Workspace(shop), base=a, head=b, delta=False)
    s = by_id(result)["pricing.py:python:price_of"]
    assert s["code"] == "def price_of(item):\n    return len(item) + 7"
    assert result["base"] == a
    assert_every_change_visible(result, shop, base=a, head=b)
    assert diff_context(Workspace(shop), base=b, head=b, delta=False)["text"] == f"no changes between {b} and {b}"


def test_other_languages_map_changes_to_symbols(make_repo, roomy):
    root = make_repo({
        "main.go": "package main\n\nfunc helper() int {\n\treturn 1\n}\n\nfunc main() {\n\thelper()\n}\n",
        "lib.rs": "pub fn twice(x: u32) -> u32 {\n    x * 2\n}\n\npub fn run() -> u32 {\n    twice(2)\n}\n",
        "notes.txt": "one\n",
    })
    edit(root, "main.go", "return 1", "return 2")
    edit(root, "lib.rs", "x * 2", "x + x")
    edit(root, "notes.txt", "one", "two")
    result = diff_context(Workspace(root), delta=False)
    s = by_id(result)
    assert s["main.go:go:helper"]["relevance"] == "contains_diff"
    assert s["main.go:go:main"]["relevance"] == "caller"
    assert s["lib.rs:rust:twice"]["relevance"] == "contains_diff"
    assert s["lib.rs:rust:run"]["relevance"] == "caller"
    assert [d["path"] for d in result["diffs"]] == ["notes.txt"]
    assert_every_change_visible(result, root)


# --------------------------------------------------------------------------- context

def test_context_pack_entry_callees_depth_and_budget(shop):
    ws = Workspace(shop)
    result = context_pack(ws, "Cart.add", delta=False)
    s = by_id(result)
    assert result["entry"] == "cart.py:python:Cart.add"
    assert s["cart.py:python:Cart.add"]["code"] == file_lines(shop, s["cart.py:python:Cart.add"])
    assert s["cart.py:python:Cart.subtotal"]["relevance"] == "callee"  # depth 1: code
    assert s["cart.py:python:Cart.subtotal"]["code"] is not None
    assert s["pricing.py:python:price_of"]["code"] is None  # depth 2: signature
    assert any(u["name"] == "append" for u in result["unresolved"])
    shallow = context_pack(ws, "Cart.add", depth=1, delta=False)
    assert "pricing.py:python:price_of" not in by_id(shallow)
    for budget in (30, 60, 100, 150):  # the budget is a hard cap, the entry goes last
        tiny = context_pack(ws, "Cart.add", budget=budget, delta=False)
        assert tiny["budget_used"] <= budget
        entry = by_id(tiny).get("cart.py:python:Cart.add")
        if entry is not None and entry["code"] is None:  # its signature, and how to read it
            assert "see: tldrs read cart.py --offset 11 --limit 3" in tiny["text"]
    assert by_id(tiny)["cart.py:python:Cart.add"]["code"] is not None


def test_context_entry_forms_callers_and_did_you_mean(shop):
    ws = Workspace(shop)
    assert context_pack(ws, "cart.py:checkout", delta=False)["entry"] == "cart.py:python:checkout"
    assert context_pack(ws, "cart.py:python:checkout", delta=False)["entry"] == "cart.py:python:checkout"
    assert context_pack(ws, "chekout", delta=False)["entry"] == "cart.py:python:checkout"  # fuzzy
    with_callers = context_pack(ws, "price_of", callers=True, delta=False)
    rel = {x["id"]: x["relevance"] for x in with_callers["slices"]}
    assert rel["cart.py:python:Cart.subtotal"] == "caller"
    assert rel["cart.py:python:Cart.add"] == "caller"  # depth 2: a caller of a caller
    with pytest.raises(SymbolpackError, match="did you mean"):
        context_pack(ws, "Cart.zzz_nothing", delta=False)


def test_an_entry_named_exactly_parses_only_the_files_that_name_it(make_repo):
    files = {f"pkg/m{i}.py": f"def other_{i}():\n    return {i}\n" for i in range(12)}
    files["pkg/target.py"] = "def Checkout():\n    return 1\n\ndef checkout_all():\n    return Checkout()\n"
    files["pkg/user.py"] = "from pkg.target import Checkout\n\ndef use():\n    return Checkout()\n"
    ws = Workspace(make_repo(files))
    assert context_pack(ws, "checkout", delta=False)["entry"] == "pkg/target.py:python:Checkout"  # any case
    assert ws.index.files_read == 2  # target.py and user.py name it; the twelve others are never read
    assert context_pack(ws, "chekout_al", delta=False)["entry"] == "pkg/target.py:python:checkout_all"  # fuzzy


def test_context_delta_against_the_session(shop):
    ws = Workspace(shop)
    first = context_pack(ws, "checkout", session_id="c")
    assert first["unchanged"] == []
    second = context_pack(ws, "checkout", session_id="c")
    assert "cart.py:python:checkout" in second["unchanged"]
    assert second["cache_stats"]["hits"] >= 1
    # diff-context shares the session: checkout's code was given already
    edit(shop, "pricing.py", "return len(item)", "return len(item) + 1")
    pack = diff_context(ws, session_id="c")
    assert "cart.py:python:Cart.subtotal" in pack["unchanged"] or by_id(pack)["cart.py:python:Cart.subtotal"]["code"]


# --------------------------------------------------------------------------- CLI

def run_cli(argv: list[str], capsys) -> tuple[int, str]:
    parser = argparse.ArgumentParser(prog="tldrs")
    sub = parser.add_subparsers(dest="command")
    add_context_parsers(sub)
    args = parser.parse_args(argv)
    code = args.func(args)
    return code, capsys.readouterr().out


def test_cli_commands(shop, capsys, monkeypatch):
    monkeypatch.chdir(shop)
    edit(shop, "cart.py", "return cart.subtotal() * 2", "return cart.subtotal() * 3")
    code, out = run_cli(["diff-context", "--format", "json", "--no-delta"], capsys)
    data = json.loads(out)
    check_shape(data, text=False)  # the text only when asked: its content is in the fields
    code, text = run_cli(["diff-context", "--no-delta"], capsys)
    assert data["budget_used"] == count_tokens(text.rstrip("\n"))
    code, out = run_cli(["diff-context", "--format", "json", "--no-delta", "--with-text"], capsys)
    assert json.loads(out)["text"] == text.rstrip("\n")
    assert code == 0 and "cart.py:python:checkout" in by_id(data)
    code, out = run_cli(["diff-context", "--session-id", "cli", "--budget", "500"], capsys)
    assert code == 0 and "[contains_diff]" in out
    code, out = run_cli(["context", "checkout", "--depth", "1", "--no-delta"], capsys)
    assert code == 0 and "checkout" in out
    with pytest.raises(SymbolpackError):
        run_cli(["diff-context", "--budget", "-1"], capsys)


# --------------------------------------------------------------------------- real processes

def tldrs(root: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if k != "SYMBOLPACK_SESSION_ID"}
    full_env.update(env or {})
    proc = subprocess.run([sys.executable, "-m", "symbolpack.cli", *args], cwd=root, env=full_env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_cli_refresh_voids_unchanged_stubs_through_the_copy(shop):
    """A pack writes what it showed into the agent's copy: the next pack of the same change
    gives [UNCHANGED] stubs; `session refresh FILE` forgets the file, so the pack after it
    gives the code again, never a stub for lines the agent may have lost."""
    edit(shop, "cart.py", "return cart.subtotal() * 2", "return cart.subtotal() * 3")
    pack = ["diff-context", "--session-id", "r1", "--format", "json", "--with-text"]
    first = json.loads(tldrs(shop, *pack).stdout)
    assert first["unchanged"] == [] and by_id(first)["cart.py:python:checkout"]["code"]
    second = json.loads(tldrs(shop, *pack).stdout)
    assert "cart.py:python:checkout" in second["unchanged"]
    assert "[UNCHANGED]" in second["text"]
    tldrs(shop, "session", "refresh", "cart.py", "--session-id", "r1")
    third = json.loads(tldrs(shop, *pack).stdout)
    assert not any(i.startswith("cart.py:") for i in third["unchanged"]), third["unchanged"]
    assert "* 3" in by_id(third)["cart.py:python:checkout"]["code"]
    assert_every_change_visible(third, shop)
    fourth = json.loads(tldrs(shop, *pack).stdout)  # given again, so held again
    assert "cart.py:python:checkout" in fourth["unchanged"]
