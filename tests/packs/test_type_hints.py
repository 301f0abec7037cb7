"""Type hints are found once per file content and variable, then filtered to the
scope asked: for every scope of a file the answer must equal the language's
patterns run on that scope's own text (matches crossing a scope's first or last
line included), in TypeScript, Python, Go, Rust and Java."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symbolpack.packs.callgraph import CallGraph, WorkTreeSnapshot
from symbolpack.engine.index import Index
from symbolpack.packs.resolve import at_var

SOURCES = {
    "a.ts": """import { Cart } from './cart';
export class Shop {
  private cart: Cart;
  constructor(c: Cart) {
    this.cart = new Cart();
    let x =
      new Basket();
    const y: Basket | null = null;
  }
  run(x: Cart) {
    x.total();
    x = new
      Store();
  }
}
""",
    "a.py": """from .cart import Cart

class Shop:
    def __init__(self, cart: Cart):
        self.cart = Cart()
        x = Basket(
            1)
        try:
            pass
        except (ValueError,
                KeyError) as x:
            pass
        x: "Cart" = make()
""",
    "a.go": """package shop

func Run(x *Cart, y Basket) {
	x := &Cart{}
	y :=
		NewBasket()
	z := pkg.NewStore()
}
""",
    "a.rs": """fn run(x: &mut Cart) {
    let x = Cart::new();
    let mut y: Basket =
        Basket { n: 1 };
}
""",
    "A.java": """class A {
    Cart x = new Cart();
    void run(Basket
             x) {
        Store<Cart>[] y;
        x = new Basket();
    }
}
""",
}


@pytest.mark.parametrize("rel", sorted(SOURCES))
def test_hints_for_any_scope_equal_the_patterns_run_on_that_scope(tmp_path, rel):
    (tmp_path / rel).write_text(SOURCES[rel])
    graph = CallGraph(Index(tmp_path), WorkTreeSnapshot(tmp_path), None)
    facts = graph.facts(rel)
    assert facts is not None and facts.parsed
    resolver = graph.resolver(facts.language)
    lines = facts.lines
    seen = 0
    for var in ("x", "y", "z", "c", "cart", "this.cart", "self.cart"):
        for start in range(1, len(lines) + 1):
            for end in range(start, len(lines) + 2):  # one past the end too
                text = b"\n".join(lines[start - 1:end]).decode()
                want = resolver.type_hints(var, text)
                assert graph._type_hints(facts, resolver, var, start, end) == want, (var, start, end)
                seen += bool(want)
    assert seen  # the sources do hold hints


@settings(max_examples=500, deadline=None)
@given(st.text("ab.$_ :=\n", max_size=40), st.sampled_from(["a", "ab", "a.b", "$a", "b_"]))
def test_the_literal_first_variable_pattern_matches_where_the_lookbehind_first_one_does(text, var):
    v = re.escape(var)
    rest = r"\s*[:=]\s*([ab$_.]*)"
    slow = [(m.span(), m.groups()) for m in re.finditer(r"(?<![\w$.])" + v + rest, text)]
    assert [(m.span(), m.groups()) for m in re.finditer(at_var(v) + rest, text)] == slow
