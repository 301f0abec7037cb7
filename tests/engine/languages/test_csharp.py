from .helpers import records_of, symbols_of

SOURCE = '''
using System;
using System.Collections.Generic;

namespace Shop.Core
{
    /// <summary>
    /// A shopping cart.
    /// </summary>
    [Serializable]
    public class Cart : Base, IPriced
    {
        public const int MaxItems = 50;

        private readonly List<Item> items = new List<Item>();

        public Cart() : this(MaxItems) { }

        public Cart(int capacity) : base(capacity)
        {
            Reset();
        }

        public int Count => items.Count;

        public decimal Total
        {
            get { return Sum(items); }
        }

        [Obsolete("Use Add(item, qty)")]
        public void Add(Item item) => Add(item, 1);

        /// <summary>Adds qty copies.</summary>
        public void Add(
            Item item,
            int qty)
        {
            if (items.Count >= MaxItems)
            {
                throw new CartFullException(item);
            }
            items.Add(item);
        }

        public struct Line { public int Qty; }

        public interface IListener
        {
            void Changed(Cart cart);
        }

        public enum Status { Open, Closed }

        public record Receipt(decimal Amount);
    }
}
'''


def test_csharp_symbols():
    assert symbols_of(SOURCE, "csharp") == [
        ("Shop.Core", "namespace", (4, 56), (6, 55)),
        ("Shop.Core.Cart", "class", (6, 55), (12, 54)),
        ("Shop.Core.Cart.MaxItems", "constant", (12, 12), None),
        ("Shop.Core.Cart.Cart", "constructor", (16, 16), None),
        ("Shop.Core.Cart.Cart#2", "constructor", (18, 21), (20, 20)),
        ("Shop.Core.Cart.Count", "property", (23, 23), None),
        ("Shop.Core.Cart.Total", "property", (25, 28), (27, 27)),
        ("Shop.Core.Cart.Add", "method", (30, 31), None),
        ("Shop.Core.Cart.Add#2", "method", (33, 43), (38, 42)),
        ("Shop.Core.Cart.Line", "struct", (45, 45), None),
        ("Shop.Core.Cart.IListener", "interface", (47, 50), (49, 49)),
        ("Shop.Core.Cart.IListener.Changed", "method", (49, 49), None),
        ("Shop.Core.Cart.Status", "enum", (52, 52), None),
        ("Shop.Core.Cart.Receipt", "class", (54, 54), None),
    ]


def test_csharp_signatures_and_references():
    records, refs = records_of(SOURCE, "csharp")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["Shop.Core.Cart"] == "public class Cart : Base, IPriced"
    assert sigs["Shop.Core.Cart.Cart#2"] == "public Cart(int capacity) : base(capacity)"
    assert sigs["Shop.Core.Cart.Count"] == "public int Count"
    assert sigs["Shop.Core.Cart.Add"] == "public void Add(Item item)"
    assert sigs["Shop.Core.Cart.Add#2"] == "public void Add(\n            Item item,\n            int qty)"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("Generic", 2, "import") in found
    assert ("IPriced", 10, "class") in found
    assert ("List", 14, "class") in found
    assert ("Reset", 20, "call") in found
    assert ("Sum", 27, "call") in found
    assert ("Add", 31, "call") in found
    assert ("CartFullException", 40, "class") in found


def test_csharp_file_scoped_namespace_qualifies_like_a_block():
    source = '''
    namespace Shop.Core;

    public record struct Money(decimal Amount);

    public class Wallet
    {
        public Money Balance() => new Money(0);
    }
    '''
    assert symbols_of(source, "csharp") == [
        ("Shop.Core", "namespace", (1, 1), None),
        ("Shop.Core.Money", "struct", (3, 3), None),
        ("Shop.Core.Wallet", "class", (5, 8), (7, 7)),
        ("Shop.Core.Wallet.Balance", "method", (7, 7), None),
    ]


def test_operators_a_finalizer_and_an_indexer_are_symbols():
    """A real agent could not ask for JToken's `explicit operator byte[]` by name: it sat
    in one elided run with its neighbours, and the agent guessed ranges."""
    source = """
        namespace N {
        public class JToken {
            public static explicit operator byte[](JToken value)
            {
                return null;
            }
            public static bool operator ==(JToken a, JToken b) { return true; }
            ~JToken() { }
            public JToken this[object key] { get { return null; } set { } }
        }
        }
        """
    assert symbols_of(source, "csharp")[2:] == [
        ("N.JToken.operator byte[]", "method", (3, 6), (5, 5)),
        ("N.JToken.operator==", "method", (7, 7), None),
        ("N.JToken.~JToken", "method", (8, 8), None),
        ("N.JToken.this", "property", (9, 9), None),
    ]
