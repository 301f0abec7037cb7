from .helpers import records_of, symbols_of

SOURCE = '''
use std::fmt::{self, Display};

/// Upper bound.
pub const MAX: usize = 3;

/// A cart of items.
#[derive(Debug, Clone)]
pub struct Cart<T> {
    items: Vec<T>,
}

pub struct Unit;

pub trait Area {
    fn area(&self) -> f64;
    fn name(&self) -> String { String::new() }
}

impl Cart<u8> {
    /// Empty cart.
    #[inline]
    pub fn new() -> Self {
        Cart { items: Vec::new() }
    }
}

impl Cart<u16> {
    pub fn new() -> Self { Cart { items: vec![] } }
}

impl<T> fmt::Display for Cart<T>
where
    T: Display,
{
    fn fmt(
        &self,
        f: &mut fmt::Formatter<'_>,
    ) -> fmt::Result {
        write!(f, "{}", self.items.len())
    }
}

mod inner {
    pub fn helper() -> usize { square!(2) }
}

macro_rules! square {
    ($x:expr) => { $x * $x };
}

pub type Id = String;
'''


def test_rust_symbols():
    assert symbols_of(SOURCE, "rust") == [
        ("MAX", "constant", (3, 4), None),
        ("Cart", "struct", (6, 10), (9, 9)),
        ("Unit", "struct", (12, 12), None),
        ("Area", "trait", (14, 17), (15, 16)),
        ("Area.area", "method", (15, 15), None),
        ("Area.name", "method", (16, 16), None),
        ("impl Cart", "impl", (19, 25), (20, 24)),
        ("impl Cart.new", "method", (20, 24), (23, 23)),
        ("impl Cart#2", "impl", (27, 29), (28, 28)),
        ("impl Cart.new#2", "method", (28, 28), None),
        ("impl Display for Cart", "impl", (31, 41), (35, 40)),
        ("impl Display for Cart.fmt", "method", (35, 40), (39, 39)),
        ("inner", "module", (43, 45), (44, 44)),
        ("inner.helper", "function", (44, 44), None),
        ("square", "macro", (47, 49), (48, 48)),
        ("Id", "type", (51, 51), None),
    ]


def test_rust_signatures_and_references():
    records, refs = records_of(SOURCE, "rust")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["Cart"] == "pub struct Cart<T>"
    assert sigs["impl Cart.new"] == "pub fn new() -> Self"
    assert sigs["impl Display for Cart"] == "impl<T> fmt::Display for Cart<T>\nwhere\n    T: Display,"
    assert sigs["impl Display for Cart.fmt"] == (
        "fn fmt(\n        &self,\n        f: &mut fmt::Formatter<'_>,\n    ) -> fmt::Result"
    )
    assert sigs["Area.area"] == "fn area(&self) -> f64;"
    assert sigs["square"] == "macro_rules! square"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("new", 23, "call") in found
    assert ("Cart", 23, "class") in found
    assert ("new", 16, "call") in found  # String::new
    assert ("write", 39, "macro") in found
    assert ("square", 44, "macro") in found
    assert ("Display", 31, "implementation") in found
    assert ("Display", 1, "import") in found
