"""Call-graph resolution per language, honesty about ambiguity, and incremental caching."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from symbolpack.packs.callgraph import CallGraph, GitTreeSnapshot, graph_cache, WorkTreeSnapshot
from symbolpack.engine.index import Index

from conftest import git


def graph(root: Path, cache: bool = True) -> CallGraph:
    return CallGraph(Index(root), WorkTreeSnapshot(root), graph_cache(root / ".symbolpack" / "graph") if cache else None)


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"))


def edges_of(g: CallGraph, path: str) -> dict[tuple[str | None, str, str | None], tuple[str, tuple[str, ...]]]:
    """(caller qualname, callee name, receiver) -> (status, target local ids as path:qualname)."""
    out = {}
    for e in g.file_edges(path):
        caller = e.caller.split(":", 2)[2] if e.caller else None
        targets = tuple(sorted(f"{t.split(':', 1)[0]}:{t.split(':', 2)[2]}" for t in e.targets))
        out[(caller, e.name, e.receiver)] = (e.status, targets)
    return out


@pytest.fixture
def repo(make_repo):
    def make(files: dict[str, str]) -> Path:
        root = make_repo({})
        write(root, files)
        return root

    return make


def test_python_same_file_self_imports_and_types(repo):
    root = repo({
        "shop/__init__.py": "",
        "shop/util.py": """
            def helper(n):
                return n

            class Money:
                def add(self, other):
                    return other
            """,
        "shop/cart.py": """
            from .util import helper as h, Money
            from . import util
            import shop.util
            import os


            class Base:
                def ping(self):
                    return 1


            class Cart(Base):
                def __init__(self, total: Money):
                    self.total = total

                def add(self, x):
                    def local():
                        return x
                    local()
                    self.check()
                    return h(x)

                def check(self):
                    util.helper(1)
                    shop.util.helper(2)
                    os.path.join("a")
                    self.total.add(1)
                    return self.ping()


            def make():
                c = Cart(Money())
                c.add(1)
                return missing(c)
            """,
    })
    g = graph(root)
    e = edges_of(g, "shop/cart.py")
    assert e[("Cart.add", "local", None)] == ("resolved", ("shop/cart.py:Cart.add.local",))
    assert e[("Cart.add", "check", "self")] == ("resolved", ("shop/cart.py:Cart.check",))
    assert e[("Cart.add", "h", None)] == ("resolved", ("shop/util.py:helper",))
    assert e[("Cart.check", "helper", "util")] == ("resolved", ("shop/util.py:helper",))
    assert e[("Cart.check", "helper", "shop.util")] == ("resolved", ("shop/util.py:helper",))
    assert e[("Cart.check", "ping", "self")] == ("resolved", ("shop/cart.py:Base.ping",))  # inherited
    assert e[("Cart.check", "add", "self.total")] == ("resolved", ("shop/util.py:Money.add",))  # field type
    assert e[("Cart.check", "join", "os.path")][0] == "unresolved"  # outside the tree
    assert e[("make", "Cart", None)] == ("resolved", ("shop/cart.py:Cart",))
    assert e[("make", "add", "c")] == ("resolved", ("shop/cart.py:Cart.add",))  # c = Cart(...)
    assert e[("make", "missing", None)] == ("unresolved", ())
    assert e[("Cart", "Base", None)] == ("resolved", ("shop/cart.py:Base",))


def test_ambiguous_receivers_are_not_merged(repo):
    root = repo({
        "a.py": """
            class A:
                def get(self):
                    return 1

                def only_here(self):
                    return 2
            """,
        "b.py": """
            class B:
                def get(self):
                    return 3
            """,
        "c.py": """
            def use(x, y):
                x.get()
                y.only_here()
            """,
    })
    g = graph(root)
    e = edges_of(g, "c.py")
    assert e[("use", "get", "x")] == ("unresolved", ())
    assert e[("use", "only_here", "y")] == ("unresolved", ())
    guessed = [g.guess(x) for x in g.file_edges("c.py")]
    by_name = {x.name: x for x in guessed}
    assert by_name["get"].status == "unresolved"  # two `get`s (and a common name): never merged
    assert by_name["only_here"].status == "guessed"
    assert by_name["only_here"].targets == ("a.py:python:A.only_here",)


def test_javascript_and_typescript_imports(repo):
    root = repo({
        "src/util.ts": """
            export function helper(n: number): number {
              return n;
            }
            export default function main() {
              return helper(1);
            }
            """,
        "src/index.ts": """
            export { helper as assist } from './util';
            """,
        "src/cart.ts": """
            import main, { helper } from './util';
            import * as u from './util.js';
            import { assist } from './index';

            export class Cart {
              total(): number {
                return this.sum() + helper(2) + u.helper(3) + main() + assist(4);
              }
              sum(): number {
                return 0;
              }
            }

            export function build(): number {
              const c = new Cart();
              return c.total();
            }
            """,
        "lib/old.js": """
            const { helper } = require('./shared');
            const shared = require('./shared');
            function run() {
              return helper() + shared.other();
            }
            """,
        "lib/shared.js": """
            function helper() { return 1; }
            function other() { return 2; }
            module.exports = { helper, other };
            """,
    })
    g = graph(root)
    e = edges_of(g, "src/cart.ts")
    assert e[("Cart.total", "sum", "this")] == ("resolved", ("src/cart.ts:Cart.sum",))
    assert e[("Cart.total", "helper", None)] == ("resolved", ("src/util.ts:helper",))
    assert e[("Cart.total", "helper", "u")] == ("resolved", ("src/util.ts:helper",))
    assert e[("Cart.total", "main", None)] == ("resolved", ("src/util.ts:main",))
    assert e[("Cart.total", "assist", None)] == ("resolved", ("src/util.ts:helper",))  # re-export
    assert e[("build", "Cart", None)] == ("resolved", ("src/cart.ts:Cart",))
    assert e[("build", "total", "c")] == ("resolved", ("src/cart.ts:Cart.total",))
    e = edges_of(g, "lib/old.js")
    assert e[("run", "helper", None)] == ("resolved", ("lib/shared.js:helper",))
    assert e[("run", "other", "shared")] == ("resolved", ("lib/shared.js:other",))


def test_go_packages_receivers_and_imports(repo):
    root = repo({
        "go.mod": "module example.com/shop\n\ngo 1.21\n",
        "cart/cart.go": """
            package cart

            import (
            	"fmt"

            	"example.com/shop/util"
            )

            type Cart struct{ Items []int }

            func (c *Cart) Total() int {
            	fmt.Println("x")
            	return c.sum() + util.Helper(1) + localHelper()
            }

            func NewCart() *Cart { return &Cart{} }

            func Use() int {
            	c := NewCart()
            	d := &Cart{}
            	return c.Total() + d.Total()
            }
            """,
        "cart/sum.go": """
            package cart

            func (c *Cart) sum() int { return len(c.Items) }

            func localHelper() int { return 1 }
            """,
        "util/util.go": """
            package util

            func Helper(n int) int { return n }
            """,
    })
    g = graph(root)
    e = edges_of(g, "cart/cart.go")
    assert e[("Cart.Total", "sum", "c")] == ("resolved", ("cart/sum.go:Cart.sum",))
    assert e[("Cart.Total", "Helper", "util")] == ("resolved", ("util/util.go:Helper",))
    assert e[("Cart.Total", "localHelper", None)] == ("resolved", ("cart/sum.go:localHelper",))
    assert e[("Cart.Total", "Println", "fmt")][0] == "unresolved"
    assert e[("Use", "NewCart", None)] == ("resolved", ("cart/cart.go:NewCart",))
    assert e[("Use", "Total", "c")] == ("resolved", ("cart/cart.go:Cart.Total",))
    assert e[("Use", "Total", "d")] == ("resolved", ("cart/cart.go:Cart.Total",))


def test_rust_use_mod_self_and_paths(repo):
    root = repo({
        "Cargo.toml": '[package]\nname = "shop-core"\nversion = "0.1.0"\n',
        "src/lib.rs": """
            pub mod models;
            mod util;

            use crate::models::Cart;
            use util::helper;

            pub fn run() -> usize {
                let c = Cart::new();
                c.total() + helper() + util::helper() + inner::deep()
            }

            mod inner {
                pub fn deep() -> usize { 1 }
            }
            """,
        "src/models.rs": """
            pub struct Cart { items: Vec<usize> }

            impl Cart {
                pub fn new() -> Self { Cart { items: vec![] } }
                pub fn total(&self) -> usize { self.count() + super::util::helper() }
                fn count(&self) -> usize { self.items.len() }
            }
            """,
        "src/util.rs": """
            pub fn helper() -> usize { 1 }
            """,
        "tests/it.rs": """
            use shop_core::models::Cart;

            fn check() { let c = Cart::new(); c.total(); }
            """,
    })
    g = graph(root)
    e = edges_of(g, "src/lib.rs")
    assert e[("run", "new", "Cart")] == ("resolved", ("src/models.rs:impl Cart.new",))
    assert e[("run", "total", "c")] == ("resolved", ("src/models.rs:impl Cart.total",))
    assert e[("run", "helper", None)] == ("resolved", ("src/util.rs:helper",))
    assert e[("run", "helper", "util")] == ("resolved", ("src/util.rs:helper",))
    assert e[("run", "deep", "inner")] == ("resolved", ("src/lib.rs:inner.deep",))
    e = edges_of(g, "src/models.rs")
    assert e[("impl Cart.total", "count", "self")] == ("resolved", ("src/models.rs:impl Cart.count",))
    assert e[("impl Cart.total", "helper", "super::util")] == ("resolved", ("src/util.rs:helper",))
    e = edges_of(g, "tests/it.rs")
    assert e[("check", "new", "Cart")] == ("resolved", ("src/models.rs:impl Cart.new",))


def test_java_imports_package_this_and_fields(repo):
    root = repo({
        "src/main/java/com/shop/Cart.java": """
            package com.shop;

            import com.shop.util.Helper;
            import static com.shop.util.Helper.twice;

            public class Cart {
                private Repo repo;

                public int total() {
                    Helper h = new Helper();
                    return this.sum() + sum() + h.help(1) + Helper.stat() + twice(2) + repo.load();
                }

                private int sum() { return 0; }
            }
            """,
        "src/main/java/com/shop/Repo.java": """
            package com.shop;

            class Repo {
                int load() { return 1; }
            }
            """,
        "src/main/java/com/shop/util/Helper.java": """
            package com.shop.util;

            public class Helper {
                public int help(int n) { return n; }
                public static int stat() { return 1; }
                public static int twice(int n) { return 2 * n; }
            }
            """,
    })
    g = graph(root)
    e = edges_of(g, "src/main/java/com/shop/Cart.java")
    cart, util = "src/main/java/com/shop/Cart.java", "src/main/java/com/shop/util/Helper.java"
    assert e[("Cart.total", "sum", "this")] == ("resolved", (f"{cart}:Cart.sum",))
    assert e[("Cart.total", "sum", None)] == ("resolved", (f"{cart}:Cart.sum",))
    assert e[("Cart.total", "help", "h")] == ("resolved", (f"{util}:Helper.help",))
    assert e[("Cart.total", "stat", "Helper")] == ("resolved", (f"{util}:Helper.stat",))
    assert e[("Cart.total", "twice", None)] == ("resolved", (f"{util}:Helper.twice",))
    assert e[("Cart.total", "load", "repo")] == ("resolved", ("src/main/java/com/shop/Repo.java:Repo.load",))
    assert e[("Cart.total", "Helper", None)] == ("resolved", (f"{util}:Helper",))


def test_callers_across_files(repo):
    root = repo({
        "m.py": "def target():\n    return 1\n",
        "a.py": "from m import target\n\ndef one():\n    return target()\n",
        "b.py": "import m\n\ndef two():\n    return m.target()\n\ndef target_like():\n    return 0\n",
        "c.py": "def target():\n    return 2\n\ndef three():\n    return target()\n",
    })
    g = graph(root)
    target = g.facts("m.py").by_name["target"][0]
    callers = sorted(e.caller for e in g.callers([target]))
    assert callers == ["a.py:python:one", "b.py:python:two"]  # c.py's `target` is another function


def test_cache_reuse_and_incremental_invalidation(repo):
    root = repo({
        "util.py": "def helper():\n    return 1\n",
        "a.py": "from util import helper\n\ndef a():\n    return helper()\n",
        "b.py": "def b():\n    return 2\n",
        "c.py": "import b\n\ndef c():\n    return b.b()\n",
    })
    g = graph(root)
    for p in ("util.py", "a.py", "b.py", "c.py"):
        g.file_edges(p)
    assert g.stats.files_resolved == 4

    g = graph(root)  # warm: nothing re-resolved, nothing re-parsed
    for p in ("util.py", "a.py", "b.py", "c.py"):
        g.file_edges(p)
    assert (g.stats.files_resolved, g.stats.files_reused, g.stats.facts_parsed) == (0, 4, 0)

    (root / "util.py").write_text("def helper():\n    return 10\n\ndef extra():\n    return 0\n")
    g = graph(root)
    for p in ("util.py", "a.py", "b.py", "c.py"):
        g.file_edges(p)
    # util.py changed (re-resolved) and a.py looked at it (re-resolved); b.py and c.py are reused
    assert (g.stats.files_resolved, g.stats.files_reused) == (2, 2)
    assert edges_of(g, "a.py")[("a", "helper", None)] == ("resolved", ("util.py:helper",))

    (root / "util.py").unlink()  # the target vanishes: a.py must not keep a stale edge
    g = graph(root)
    assert edges_of(g, "a.py")[("a", "helper", None)][0] == "unresolved"


def test_new_file_invalidates_a_failed_module_lookup(repo):
    root = repo({"a.py": "from util import helper\n\ndef a():\n    return helper()\n"})
    assert edges_of(graph(root), "a.py")[("a", "helper", None)][0] == "unresolved"
    write(root, {"util.py": "def helper():\n    return 1\n"})
    assert edges_of(graph(root), "a.py")[("a", "helper", None)] == ("resolved", ("util.py:helper",))


def test_git_tree_snapshot_reads_commits(make_repo):
    root = make_repo({"a.py": "def f():\n    return g()\n\ndef g():\n    return 1\n"})
    (root / "a.py").write_text("def f():\n    return 0\n")  # the working tree differs
    head = git(root, "rev-parse", "HEAD").strip()
    g = CallGraph(Index(root), GitTreeSnapshot(root, head), None)
    assert edges_of(g, "a.py")[("f", "g", None)] == ("resolved", ("a.py:g",))


def test_generic_bases_and_index_receivers(repo):
    root = repo({
        "types_.py": """
            import typing as t

            T = t.TypeVar("T")


            class Base(t.Generic[T]):
                def fail(self):
                    return 1


            class Number(
                Base[int],
                t.Generic[T],
            ):
                def convert(self, xs: "Number"):
                    self.fail()
                    return xs[0].convert(None)
            """,
    })
    e = edges_of(graph(root), "types_.py")
    assert e[("Number.convert", "fail", "self")] == ("resolved", ("types_.py:Base.fail",))  # `Base[int]`
    assert e[("Number.convert", "convert", "<expr>")] == ("unresolved", ())  # `xs[0]` is not `xs`
