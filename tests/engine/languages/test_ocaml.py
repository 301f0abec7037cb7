from .helpers import records_of, symbols_of

SOURCE = '''
(** Shopping carts. *)
module Cart = struct
  type item = { name : string; price : int }

  type t = item list

  (** The empty cart. *)
  let empty : t = []

  let add cart item = item :: cart

  let rec total = function
    | [] -> 0
    | x :: rest -> x.price + total rest

  module Discount = struct
    let apply pct amount =
      amount - (amount * pct / 100)
  end
end

module type PRICED = sig
  type t
  val price : t -> int
end

type shape = Circle of float | Square of float

let rec even n = n = 0 || odd (n - 1)
and odd n = n <> 0 && even (n - 1)

class counter = object
  val mutable n = 0
  method incr = n <- n + 1
  method get = n
end

let max_items = 10

(* Prints the total. *)
let report cart =
  let t = Cart.total cart in
  Printf.printf "%d" t;
  t |> ignore

let report cart = print_int (Cart.total cart)
'''


def test_ocaml_symbols():
    assert symbols_of(SOURCE, "ocaml") == [
        ("Cart", "module", (1, 20), (3, 19)),
        ("Cart.item", "struct", (3, 3), None),
        ("Cart.t", "type", (5, 5), None),
        ("Cart.empty", "constant", (7, 8), None),
        ("Cart.add", "function", (10, 10), None),
        ("Cart.total", "function", (12, 14), (13, 14)),
        ("Cart.Discount", "module", (16, 19), (17, 18)),
        ("Cart.Discount.apply", "function", (17, 18), (18, 18)),
        ("PRICED", "interface", (22, 25), (23, 24)),
        ("PRICED.t", "type", (23, 23), None),
        ("PRICED.price", "method", (24, 24), None),
        ("shape", "enum", (27, 27), None),
        # `let rec ... and ...`: one symbol per binding, spans start at the name
        ("even", "function", (29, 29), None),
        ("odd", "function", (30, 30), None),
        ("counter", "class", (32, 36), (33, 35)),
        ("counter.n", "field", (33, 33), None),
        ("counter.incr", "method", (34, 34), None),
        ("counter.get", "method", (35, 35), None),
        ("max_items", "constant", (38, 38), None),
        # local `let t = ... in` is not a symbol
        ("report", "function", (40, 44), (42, 44)),
        ("report#2", "function", (46, 46), None),
    ]


def test_ocaml_signatures_and_references():
    records, refs = records_of(SOURCE, "ocaml")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["Cart"] == "module Cart ="
    assert sigs["Cart.total"] == "let rec total ="
    assert sigs["PRICED.price"] == "val price : t -> int"
    assert sigs["odd"] == "odd n ="
    assert sigs["report"] == "let report cart ="
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("total", 14, "call") in found
    assert ("even", 30, "call") in found
    assert ("total", 42, "call") in found  # Cart.total
    assert ("printf", 43, "call") in found
    assert ("ignore", 44, "call") in found  # t |> ignore
    assert ("print_int", 46, "call") in found
