from .helpers import records_of, symbols_of

SOURCE = '''
package shop

import "fmt"

// MaxItems caps a cart.
const MaxItems = 3

const (
	Small = 1
	Large = 2
)

var registry = map[string]int{}

// Cart holds items.
// It is not safe for concurrent use.
type Cart struct {
	Items []int
}

type Shape interface {
	Area() float64
}

type ID = string

// Total sums the items.
func (c *Cart) Total(
	tax int,
) string {
	t := 0
	for _, i := range c.Items {
		t += i
	}
	return fmt.Sprint(t + tax)
}

func (c Cart) Len() int { return len(c.Items) }

func NewCart() *Cart {
	type seed struct{ n int }
	c := Cart{Items: nil}
	return &c
}

func Map[T any](xs []T, f func(T) T) []T { return xs }

func (p *Pair[K]) Get() K { return p.A }

func init() { registry["a"] = 1 }

func init() {
	registry["b"] = Map[int](nil, nil)[0]
}
'''


def test_go_symbols():
    assert symbols_of(SOURCE, "go") == [
        ("MaxItems", "constant", (5, 6), None),
        ("Small", "constant", (9, 9), None),
        ("Large", "constant", (10, 10), None),
        ("registry", "variable", (13, 13), None),
        ("Cart", "struct", (15, 19), (18, 18)),
        ("Shape", "interface", (21, 23), (22, 22)),
        ("Shape.Area", "method", (22, 22), None),
        ("ID", "type", (25, 25), None),
        ("Cart.Total", "method", (27, 36), (31, 35)),
        ("Cart.Len", "method", (38, 38), None),
        ("NewCart", "function", (40, 44), (41, 43)),
        ("NewCart.seed", "struct", (41, 41), None),
        ("Map", "function", (46, 46), None),
        ("Pair.Get", "method", (48, 48), None),
        ("init", "function", (50, 50), None),
        ("init#2", "function", (52, 54), (53, 53)),
    ]


def test_go_signatures_and_references():
    records, refs = records_of(SOURCE, "go")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["Cart"] == "type Cart struct"
    assert sigs["Cart.Total"] == "func (c *Cart) Total(\n\ttax int,\n) string"
    assert sigs["Cart.Len"] == "func (c Cart) Len() int"
    assert sigs["Map"] == "func Map[T any](xs []T, f func(T) T) []T"
    assert sigs["MaxItems"] == "const MaxItems = 3"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("Sprint", 35, "call") in found
    assert ("len", 38, "call") in found
    assert ("Cart", 42, "class") in found
    assert ("Map", 53, "call") in found
    assert ("fmt", 3, "import") in found
