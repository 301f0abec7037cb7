from .helpers import records_of, symbols_of

SOURCE = r'''
import Foundation

/// Upper bound on items.
let maxItems = 3

/// A cart of items.
@MainActor
public final class Cart: Base {
    private var items: [Int] = []

    init(items: [Int]) {
        self.items = items
    }

    convenience init() { self.init(items: []) }

    /// Sum of the items plus tax.
    func total(
        tax: Int
    ) -> Int {
        return items.reduce(0, +) + helper(tax)
    }

    var count: Int {
        items.count
    }

    struct Item { let id: Int }
}

protocol Shape {
    var area: Double { get }
    func draw()
}

extension Cart: Shape {
    var area: Double { 0 }
    func draw() { print("cart") }
}

enum Color {
    case red, green
}

func helper(_ x: Int) -> Int { x * 2 }

func helper(_ s: String) -> String {
    s.uppercased()
}
'''


def test_swift_symbols():
    assert symbols_of(SOURCE, "swift") == [
        ("maxItems", "constant", (3, 4), None),
        ("Cart", "class", (6, 29), (9, 28)),
        ("Cart.init", "constructor", (11, 13), (12, 12)),
        ("Cart.init#2", "constructor", (15, 15), None),
        ("Cart.total", "method", (17, 22), (21, 21)),
        ("Cart.count", "property", (24, 26), (25, 25)),
        ("Cart.Item", "struct", (28, 28), None),
        ("Shape", "interface", (31, 34), (32, 33)),
        ("Shape.area", "property", (32, 32), None),
        ("Shape.draw", "method", (33, 33), None),
        ("impl Shape for Cart", "impl", (36, 39), (37, 38)),
        ("impl Shape for Cart.area", "property", (37, 37), None),
        ("impl Shape for Cart.draw", "method", (38, 38), None),
        ("Color", "enum", (41, 43), (42, 42)),
        ("helper", "function", (45, 45), None),
        ("helper#2", "function", (47, 49), (48, 48)),
    ]


def test_swift_signatures_and_references():
    records, refs = records_of(SOURCE, "swift")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["Cart"] == "public final class Cart: Base"
    assert sigs["Cart.total"] == "func total(\n        tax: Int\n    ) -> Int"
    assert sigs["Cart.init#2"] == "convenience init()"
    assert sigs["Cart.count"] == "var count: Int"
    assert sigs["Shape.area"] == "var area: Double"
    assert sigs["impl Shape for Cart"] == "extension Cart: Shape"
    assert sigs["helper#2"] == "func helper(_ s: String) -> String"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("reduce", 21, "call") in found
    assert ("helper", 21, "call") in found
    assert ("print", 38, "call") in found
    assert ("uppercased", 48, "call") in found
    assert ("Base", 8, "class") in found
    assert ("Foundation", 1, "import") in found
