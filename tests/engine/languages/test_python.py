from .helpers import records_of, symbols_of

SOURCE = '''
"""Module doc."""
import os

MAX_ITEMS = 3


# Shopping cart.
@dataclass
class Cart:
    """Cart doc."""

    items: list

    @property
    def subtotal(
        self,
    ) -> int:
        """Sum."""
        total = 0
        for i in self.items:
            total += i
        return total

    def add(self, x): self.items.append(x)


def build():
    class Inner:
        def run(self):
            pass
    return Inner


def build():
    return helper(os.sep)
'''


def test_python_symbols():
    assert symbols_of(SOURCE, "python") == [
        ("MAX_ITEMS", "constant", (4, 4), None),
        ("Cart", "class", (7, 24), (11, 24)),
        ("Cart.subtotal", "method", (14, 22), (19, 22)),
        ("Cart.add", "method", (24, 24), None),
        ("build", "function", (27, 31), (28, 31)),
        ("build.Inner", "class", (28, 30), (29, 30)),
        ("build.Inner.run", "method", (29, 30), (30, 30)),
        ("build#2", "function", (34, 35), (35, 35)),
    ]


def test_python_signatures_and_references():
    records, refs = records_of(SOURCE, "python")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["Cart"] == "class Cart:"
    assert sigs["Cart.subtotal"] == "def subtotal(\n        self,\n    ) -> int:"
    assert sigs["build#2"] == "def build():"
    assert ("append", 24) in {(r.name, r.line) for r in refs}
    assert ("helper", 35) in {(r.name, r.line) for r in refs}
