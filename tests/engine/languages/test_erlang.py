from .helpers import records_of, symbols_of

SOURCE = '''
%%% Shopping cart.
-module(cart).
-export([new/0, add/2, total/1]).

-include_lib("kernel/include/logger.hrl").

-define(MAX_ITEMS, 50).
-define(LOG(Msg), ?LOG_INFO("cart: ~p", [Msg])).

-record(cart, {items = [] :: [item()],
               owner :: binary()}).

-type item() :: {atom(), pos_integer()}.

%% @doc Creates an empty cart.
new() -> #cart{}.

%% @doc Adds an item unless the cart is full.
-spec add(#cart{}, item()) -> #cart{} | {error, full}.
add(#cart{items = Items} = Cart, Item)
  when length(Items) < ?MAX_ITEMS ->
    ?LOG({add, Item}),
    Cart#cart{items = [Item | Items]};
add(_Cart, _Item) ->
    {error, full}.

total(#cart{items = Items}) -> total(Items, 0).

total([], Acc) -> Acc;
total([{_, Price} | Rest], Acc) ->
    total(Rest, Acc + Price).

report(Cart) ->
    case total(Cart) of
        0 -> io:format("empty~n");
        N -> io:format("~p~n", [N])
    end.
'''


def test_erlang_symbols():
    # The module is the whole file. Each clause is its own node in the grammar,
    # so clauses and arities of one name are numbered: add/2's second clause is
    # `add#2`; total/1 is `total`, total/2's clauses are `total#2`, `total#3`.
    assert symbols_of(SOURCE, "erlang") == [
        ("cart", "module", (1, 37), None),
        ("cart.MAX_ITEMS", "macro", (7, 7), None),
        ("cart.LOG", "macro", (8, 8), None),
        ("cart.cart", "struct", (10, 11), None),
        ("cart.item", "type", (13, 13), None),
        ("cart.new", "function", (15, 16), None),
        # the -spec (a `spec` node) is not attached, and it separates the
        # doc comment from the function
        ("cart.add", "function", (20, 23), (22, 23)),
        ("cart.add#2", "function", (24, 25), (25, 25)),
        ("cart.total", "function", (27, 27), None),
        ("cart.total#2", "function", (29, 29), None),
        ("cart.total#3", "function", (30, 31), (31, 31)),
        # `end.` closes the case expression: it is part of the body
        ("cart.report", "function", (33, 37), (34, 37)),
    ]


def test_erlang_signatures_and_references():
    records, refs = records_of(SOURCE, "erlang")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["cart"] == "-module(cart)."
    assert sigs["cart.add"] == "add(#cart{items = Items} = Cart, Item)\n  when length(Items) < ?MAX_ITEMS"
    assert sigs["cart.total#3"] == "total([{_, Price} | Rest], Acc)"
    assert sigs["cart.MAX_ITEMS"] == "-define(MAX_ITEMS, 50)."
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("length", 21, "call") in found
    assert ("MAX_ITEMS", 21, "call") in found  # macro use
    assert ("LOG", 22, "call") in found
    assert ("total", 27, "call") in found
    assert ("total", 31, "call") in found
    assert ("format", 35, "call") in found  # io:format
    assert ('"kernel/include/logger.hrl"', 5, "import") in found
