from .helpers import records_of, symbols_of

SOURCE = '''
package com.example.shop;

import java.util.ArrayList;
import java.util.List;

/**
 * A shopping cart.
 */
@Entity
@Table(name = "carts")
public class Cart extends Base implements Priced {
    public static final int MAX_ITEMS = 50;

    private final List<Item> items = new ArrayList<>();

    /** Creates an empty cart. */
    public Cart() {
        this(MAX_ITEMS);
    }

    public Cart(int capacity) {
        super(capacity);
    }

    @Override
    public double price() { return total(items); }

    public void add(Item item) { add(item, 1); }

    // Adds qty copies.
    public void add(
            Item item,
            int qty) throws CartFullException {
        if (items.size() >= MAX_ITEMS) {
            throw new CartFullException(item);
        }
        items.add(item);
    }

    public static class Item {
        String sku;
    }

    interface Listener {
        void changed(Cart cart);
    }

    enum Status { OPEN, CLOSED }

    record Line(Item item, int qty) {}
}
'''


def test_java_symbols():
    assert symbols_of(SOURCE, "java") == [
        ("Cart", "class", (6, 51), (12, 50)),
        ("Cart.MAX_ITEMS", "constant", (12, 12), None),
        ("Cart.Cart", "constructor", (16, 19), (18, 18)),
        ("Cart.Cart#2", "constructor", (21, 23), (22, 22)),
        ("Cart.price", "method", (25, 26), None),
        ("Cart.add", "method", (28, 28), None),
        ("Cart.add#2", "method", (30, 38), (34, 37)),
        ("Cart.Item", "class", (40, 42), (41, 41)),
        ("Cart.Listener", "interface", (44, 46), (45, 45)),
        ("Cart.Listener.changed", "method", (45, 45), None),
        ("Cart.Status", "enum", (48, 48), None),
        ("Cart.Line", "class", (50, 50), None),
    ]


def test_java_signatures_and_references():
    records, refs = records_of(SOURCE, "java")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["Cart"] == "public class Cart extends Base implements Priced"
    assert sigs["Cart.price"] == "public double price()"
    assert sigs["Cart.add#2"] == (
        "public void add(\n            Item item,\n            int qty) throws CartFullException"
    )
    assert sigs["Cart.Line"] == "record Line(Item item, int qty)"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("List", 4, "import") in found
    assert ("Base", 11, "class") in found
    assert ("Priced", 11, "implementation") in found
    assert ("ArrayList", 14, "class") in found
    assert ("total", 26, "call") in found
    assert ("add", 28, "call") in found
    assert ("size", 34, "call") in found
    assert ("CartFullException", 35, "class") in found
