from .helpers import records_of, symbols_of

SOURCE = '''
require "json"

# Billing namespace.
module Billing
  VERSION = "1.2"

  # A line item.
  class Item < Struct
    include Comparable

    def initialize(name,
                   price,
                   qty: 1)
      super(name, price)
      @qty = qty
    end

    def total = price * @qty

    # Parses one item.
    def self.parse(raw)
      data = JSON.parse(raw)
      new(data["name"], data["price"])
    end

    def to_s; name; end
  end

  def self.round(x)
    x.round(2)
  end

  def round(x) = Billing.round(x)
end

class Billing::Invoice
  # Adds one.
  def add(item)
    items << item
  end

  def add(item, qty)
    qty.times { add(item) }
  end
end
'''


def test_ruby_symbols():
    assert symbols_of(SOURCE, "ruby") == [
        ("Billing", "module", (3, 34), (5, 33)),
        ("Billing.VERSION", "constant", (5, 5), None),
        ("Billing.Item", "class", (7, 27), (9, 26)),
        ("Billing.Item.initialize", "method", (11, 16), (14, 15)),
        ("Billing.Item.total", "method", (18, 18), None),
        ("Billing.Item.parse", "method", (20, 24), (22, 23)),
        ("Billing.Item.to_s", "method", (26, 26), None),
        ("Billing.round", "method", (29, 31), (30, 30)),
        ("Billing.round#2", "method", (33, 33), None),
        ("Billing.Invoice", "class", (36, 45), (38, 44)),
        ("Billing.Invoice.add", "method", (37, 40), (39, 39)),
        ("Billing.Invoice.add#2", "method", (42, 44), (43, 43)),
    ]


def test_ruby_signatures_and_references():
    records, refs = records_of(SOURCE, "ruby")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["Billing.Item"] == "class Item < Struct"
    assert sigs["Billing.Item.initialize"] == (
        "def initialize(name,\n                   price,\n                   qty: 1)"
    )
    assert sigs["Billing.Item.parse"] == "def self.parse(raw)"
    assert sigs["Billing.Invoice"] == "class Billing::Invoice"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("parse", 22, "call") in found
    assert ("add", 43, "call") in found
    assert ("Struct", 8, "class") in found
    assert ("Comparable", 9, "module") in found
    assert ("json", 1, "import") in found
