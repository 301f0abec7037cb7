from .helpers import records_of, symbols_of

SOURCE = r'''
const std = @import("std");

/// Upper bound on items.
pub const max_items: usize = 3;
var counter: u32 = 0;

/// A cart of items.
/// Not thread-safe.
pub const Cart = struct {
    items: []u32,

    const Self = @This();

    /// Sum of the items plus tax.
    pub fn total(
        self: Self,
        tax: u32,
    ) u32 {
        var t: u32 = 0;
        for (self.items) |i| t += i;
        return t + helper(tax);
    }

    pub fn len(self: Self) usize { return self.items.len; }
};

const Color = enum { red, green };

fn helper(x: u32) u32 {
    return x * 2;
}

test helper {
    try std.testing.expect(helper(2) == 4);
}

pub fn main() !void {
    var c = Cart{ .items = &.{} };
    std.debug.print("{}\n", .{c.total(1)});
}

extern fn abs(x: c_int) c_int;
'''


def test_zig_symbols():
    assert symbols_of(SOURCE, "zig") == [
        ("max_items", "constant", (3, 4), None),
        ("counter", "variable", (5, 5), None),
        ("Cart", "struct", (7, 25), (10, 24)),
        ("Cart.Self", "constant", (12, 12), None),
        ("Cart.total", "method", (14, 22), (19, 21)),
        ("Cart.len", "method", (24, 24), None),
        ("Color", "enum", (27, 27), None),
        ("helper", "function", (29, 31), (30, 30)),
        ("helper#2", "function", (33, 35), (34, 34)),
        ("main", "function", (37, 40), (38, 39)),
        ("abs", "function", (42, 42), None),
    ]


def test_zig_signatures_and_references():
    records, refs = records_of(SOURCE, "zig")
    sigs = {r.local_id: r.signature for r in records}
    # the grammar keeps `pub` outside the declaration node
    assert sigs["Cart.total"] == "fn total(\n        self: Self,\n        tax: u32,\n    ) u32"
    assert sigs["Cart.len"] == "fn len(self: Self) usize"
    assert sigs["max_items"] == "const max_items: usize = 3;"
    assert sigs["helper#2"] == "test helper"
    assert sigs["abs"] == "extern fn abs(x: c_int) c_int;"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("helper", 21, "call") in found
    assert ("expect", 34, "call") in found
    assert ("helper", 34, "call") in found
    assert ("total", 39, "call") in found
    assert ("print", 39, "call") in found
    assert ('"std"', 1, "import") in found
