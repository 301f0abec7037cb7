from .helpers import records_of, symbols_of

SOURCE = '''
import { Injectable } from "@angular/core";
import type { Item } from "./item";

export const DEFAULT_LIMIT = 10;

/** Something that can be priced. */
export interface Priced {
  price(): number;
  discount?(
    code: string,
  ): number;
}

export type Money = number;
type Line = {
  item: Item;
  qty: number;
};

export enum Status { Open, Closed }

/**
 * A shopping cart.
 */
@Injectable()
export abstract class Cart<T extends Item> extends Base implements Priced {
  private lines: Line[] = [];

  constructor(private readonly limit: number = DEFAULT_LIMIT) {
    super();
  }

  abstract price(): number;

  add(item: T): void;
  add(item: T, qty: number): void;
  add(item: T, qty = 1): void {
    this.lines.push({ item, qty });
  }

  // Cached.
  @memo()
  total(): Money { return sumLines(this.lines); }

  onChange = (status: Status): void => {
    notify(status);
  };
}

export namespace Checkout {
  export function run(
    cart: Cart<Item>,
  ): Money {
    return new Register(cart).charge();
  }
}
'''


def test_typescript_symbols():
    assert symbols_of(SOURCE, "typescript") == [
        ("DEFAULT_LIMIT", "constant", (4, 4), None),
        ("Priced", "interface", (6, 12), (8, 11)),
        ("Priced.price", "method", (8, 8), None),
        ("Priced.discount", "method", (9, 11), None),
        ("Money", "type", (14, 14), None),
        ("Line", "type", (15, 18), (16, 17)),
        ("Status", "enum", (20, 20), None),
        ("Cart", "class", (22, 48), (27, 47)),
        ("Cart.constructor", "constructor", (29, 31), (30, 30)),
        ("Cart.price", "method", (33, 33), None),
        ("Cart.add", "method", (35, 35), None),
        ("Cart.add#2", "method", (36, 36), None),
        ("Cart.add#3", "method", (37, 39), (38, 38)),
        ("Cart.total", "method", (41, 43), None),
        ("Cart.onChange", "method", (45, 47), (46, 46)),
        ("Checkout", "namespace", (50, 56), (51, 55)),
        ("Checkout.run", "function", (51, 55), (54, 54)),
    ]


def test_typescript_signatures_and_references():
    records, refs = records_of(SOURCE, "typescript")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["Cart"] == "export abstract class Cart<T extends Item> extends Base implements Priced"
    assert sigs["Cart.add#2"] == "add(item: T, qty: number): void"
    assert sigs["Cart.onChange"] == "onChange = (status: Status): void =>"
    assert sigs["Checkout.run"] == "export function run(\n    cart: Cart<Item>,\n  ): Money"
    assert sigs["Line"] == "type Line ="
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("Injectable", 1, "import") in found
    assert ("Base", 26, "class") in found
    assert ("Priced", 26, "implementation") in found
    assert ("push", 38, "call") in found
    assert ("sumLines", 43, "call") in found
    assert ("Register", 54, "class") in found
    assert ("charge", 54, "call") in found


def test_a_function_value_made_by_a_call_is_a_function_with_its_callbacks_body():
    """`export const $Check: Ctor<$Check> = core.$constructor("$Check", (inst, def) => {...})`
    (zod), `const Button = forwardRef((props, ref) => {...})`: the callback's body is the
    symbol's. A type that shares the name stays a symbol of its own, so reading the name
    reads both (a real agent asking for the constructor got only the interface)."""
    from .helpers import symbols_of

    source = ("export interface $Check {\n"
              "  _zod: number;\n"
              "}\n"
              "export const $Check: Ctor<$Check> = /*@__PURE__*/ core.$constructor(\n"
              "  \"$Check\",\n"
              "  (inst, def) => {\n"
              "    inst.ok = def.ok;\n"
              "  }\n"
              ");\n"
              "const short = items.map((x) => x + 1);\n")
    assert symbols_of(source, "typescript") == [
        ("$Check", "interface", (1, 3), (2, 2)),
        ("$Check#2", "function", (4, 9), (7, 7)),
    ]
