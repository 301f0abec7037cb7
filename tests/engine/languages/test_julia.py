from .helpers import records_of, symbols_of

SOURCE = '''
module Shop

using LinearAlgebra
import Base: show

export Cart, add!

abstract type AbstractCart end

"A shopping cart."
mutable struct Cart{T} <: AbstractCart
    items::Vector{T}
    total::Int
end

struct Item
    name::String
    price::Int
    Item(name) = new(name, 0)
end

const MAX_ITEMS = 50

# Adds an item, keeping the running total.
function add!(c::Cart, x::Item)
    push!(c.items, x)
    c.total += x.price
    return c
end

price(x::Item) = x.price
price(c::Cart) = sum(price.(c.items))

function Base.show(io::IO,
                   c::Cart)
    print(io, "Cart(", length(c.items), ")")
end

macro logged(ex)
    :(println($(esc(ex))))
end

module Pricing
discount(p; pct = 10) = div(p * (100 - pct), 100)
end

end
'''


def test_julia_symbols():
    assert symbols_of(SOURCE, "julia") == [
        # the blank line before the module's `end` is not body
        ("Shop", "module", (1, 47), (3, 45)),
        ("Shop.AbstractCart", "type", (8, 8), None),
        # the docstring (line 10) is attached
        ("Shop.Cart", "struct", (10, 14), (12, 13)),
        ("Shop.Item", "struct", (16, 20), (17, 19)),
        ("Shop.Item.Item", "method", (19, 19), None),
        ("Shop.MAX_ITEMS", "constant", (22, 22), None),
        ("Shop.add!", "function", (24, 29), (26, 28)),
        ("Shop.price", "function", (31, 31), None),
        ("Shop.price#2", "function", (32, 32), None),
        ("Shop.Base.show", "method", (34, 37), (36, 36)),
        ("Shop.logged", "macro", (39, 41), (40, 40)),
        ("Shop.Pricing", "module", (43, 45), (44, 44)),
        ("Shop.Pricing.discount", "function", (44, 44), None),
    ]


def test_julia_signatures_and_references():
    records, refs = records_of(SOURCE, "julia")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["Shop.Cart"] == "mutable struct Cart{T} <: AbstractCart"
    assert sigs["Shop.add!"] == "function add!(c::Cart, x::Item)"
    assert sigs["Shop.price"] == "price(x::Item) ="
    assert sigs["Shop.Base.show"] == "function Base.show(io::IO,\n                   c::Cart)"
    assert sigs["Shop.logged"] == "macro logged(ex)"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("push!", 26, "call") in found
    assert ("sum", 32, "call") in found
    assert ("price", 32, "call") in found  # broadcast price.(...)
    assert ("length", 36, "call") in found
    assert ("esc", 40, "call") in found
    assert ("div", 44, "call") in found
    assert ("LinearAlgebra", 3, "import") in found
