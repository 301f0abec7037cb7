from .helpers import records_of, symbols_of

SOURCE = '''
defmodule Shop.Cart do
  @moduledoc """
  A shopping cart.
  """

  defstruct items: [], total: 0

  @max_items 50

  # Adds one item to the cart.
  def add(cart, item) do
    %{cart | items: [item | cart.items]}
  end

  def add(cart, item, qty), do: Enum.reduce(1..qty, cart, fn _, c -> add(c, item) end)

  @doc "Totals the cart."
  def checkout(
        cart,
        opts \\\\ []
      ) do
    total = sum(cart.items)
    Logger.info("total #{total}")
    {:ok, total, opts}
  end

  defp sum(items) when is_list(items),
    do: Enum.sum(items)

  defmacro debug(expr) do
    quote do
      IO.inspect(unquote(expr))
    end
  end

  defmodule Item do
    @type t :: %__MODULE__{name: String.t()}
    defstruct [:name, :price]
    def new(name), do: %__MODULE__{name: name}
  end
end

defprotocol Sized do
  def size(data)
end

defimpl Sized, for: Shop.Cart do
  def size(cart), do: length(cart.items)
end
'''


def test_elixir_symbols():
    assert symbols_of(SOURCE, "elixir") == [
        ("Shop.Cart", "module", (1, 41), (2, 40)),
        ("Shop.Cart.defstruct", "struct", (6, 6), None),
        ("Shop.Cart.max_items", "constant", (8, 8), None),
        # the `#` comment directly above is part of the span
        ("Shop.Cart.add", "function", (10, 13), (12, 12)),
        ("Shop.Cart.add#2", "function", (15, 15), None),
        # `@doc` (line 17) is attached: the span starts there
        ("Shop.Cart.checkout", "function", (17, 25), (22, 24)),
        ("Shop.Cart.sum", "function", (27, 28), (28, 28)),
        ("Shop.Cart.debug", "macro", (30, 34), (31, 33)),
        ("Shop.Cart.Item", "module", (36, 40), (37, 39)),
        ("Shop.Cart.Item.t", "type", (37, 37), None),
        ("Shop.Cart.Item.defstruct", "struct", (38, 38), None),
        ("Shop.Cart.Item.new", "function", (39, 39), None),
        ("Sized", "interface", (43, 45), (44, 44)),
        ("Sized.size", "method", (44, 44), None),
        ("impl Sized for Shop.Cart", "impl", (47, 49), (48, 48)),
        ("impl Sized for Shop.Cart.size", "method", (48, 48), None),
    ]


def test_elixir_signatures_and_references():
    records, refs = records_of(SOURCE, "elixir")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["Shop.Cart"] == "defmodule Shop.Cart"
    assert sigs["Shop.Cart.add"] == "def add(cart, item)"
    assert sigs["Shop.Cart.checkout"] == "def checkout(\n        cart,\n        opts \\\\ []\n      )"
    assert sigs["Shop.Cart.sum"] == "defp sum(items) when is_list(items),"
    assert sigs["impl Sized for Shop.Cart"] == "defimpl Sized, for: Shop.Cart"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("add", 15, "call") in found
    assert ("sum", 22, "call") in found
    assert ("info", 23, "call") in found  # remote call Logger.info
    assert ("inspect", 32, "call") in found
    assert ("length", 48, "call") in found
    assert ("items", 12, "call") not in found  # field access, not a call
    assert ("doc", 17, "call") not in found  # module attribute, not a call
