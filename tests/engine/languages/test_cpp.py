from .helpers import records_of, symbols_of

SOURCE = r'''
#include "cart.h"
#include <vector>

namespace shop {
namespace detail { int helper(int x); }

/// A cart of items.
template <typename T>
class Cart : public Base {
public:
    Cart();
    explicit Cart(int n) : n_(n) {}
    int total() const;
    int size() const { return n_; }
    struct Item { int id; };
    enum class Kind { Small, Large };
    using value_type = T;

private:
    int n_;
};

// Sum of the items.
template <typename T>
int Cart<T>::total(
    int tax) const {
    return detail::helper(n_) + std::max(tax, 2);
}

Cart::Cart() : n_(0) {}
}  // namespace shop

void Widget::draw(Canvas& c) const {
    c.line(0, 0);
}

constexpr int kMax = 3;

int main() {
    auto* p = new shop::Cart<int>(3);
    return p->total(kMax);
}
'''


def test_cpp_symbols():
    assert symbols_of(SOURCE, "cpp") == [
        # the closing `}  // namespace shop` stays visible
        ("shop", "namespace", (4, 31), (5, 30)),
        ("shop.detail", "namespace", (5, 5), None),
        ("shop.detail.helper", "function", (5, 5), None),
        ("shop.Cart", "class", (7, 21), (10, 20)),
        ("shop.Cart.Cart", "constructor", (11, 11), None),
        ("shop.Cart.Cart#2", "constructor", (12, 12), None),
        ("shop.Cart.total", "method", (13, 13), None),
        ("shop.Cart.size", "method", (14, 14), None),
        ("shop.Cart.Item", "struct", (15, 15), None),
        ("shop.Cart.Kind", "enum", (16, 16), None),
        ("shop.Cart.value_type", "type", (17, 17), None),
        # a definition next to its declaration in one file is #2
        ("shop.Cart.total#2", "method", (23, 28), (27, 27)),
        ("shop.Cart.Cart#3", "constructor", (30, 30), None),
        ("Widget.draw", "method", (33, 35), (34, 34)),
        ("kMax", "constant", (37, 37), None),
        ("main", "function", (39, 42), (40, 41)),
    ]


def test_cpp_signatures_and_references():
    records, refs = records_of(SOURCE, "cpp")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["shop.Cart"] == "template <typename T>\nclass Cart : public Base"
    assert sigs["shop.Cart.total#2"] == "template <typename T>\nint Cart<T>::total(\n    int tax) const"
    assert sigs["shop.Cart.Cart#2"] == "explicit Cart(int n) : n_(n)"
    assert sigs["Widget.draw"] == "void Widget::draw(Canvas& c) const"
    assert sigs["shop.Cart.total"] == "int total() const;"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("helper", 27, "call") in found
    assert ("max", 27, "call") in found
    assert ("line", 34, "call") in found
    assert ("total", 41, "call") in found
    assert ("Cart", 40, "class") in found
    assert ("Base", 9, "class") in found
    assert ("cart.h", 1, "import") in found


def test_a_header_is_cpp_when_its_text_is_and_c_otherwise():
    """fmt's `.h` headers parsed as C gave symbols spanning call sites and none for its
    templates; a real agent read them by ranges instead."""
    from symbolpack.engine.languages import language_for_source

    assert language_for_source("include/cart.h", SOURCE.encode()) == "cpp"
    c_header = b"/* like std::strtod in the C locale */\nstruct point { int x; };\nint area(struct point *p);\n"
    assert language_for_source("point.h", c_header) == "c"
    assert language_for_source("cart.c", SOURCE.encode()) == "c"  # only a header is in doubt
    assert language_for_source("cart.hpp", c_header) == "cpp"


def test_a_cpp_header_is_read_by_its_cpp_symbols(tmp_path, monkeypatch):
    import subprocess
    import textwrap

    from symbolpack.api.operations import Workspace, read_file

    monkeypatch.setenv("SYMBOLPACK_DIR", str(tmp_path / ".state"))
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    source = textwrap.dedent(SOURCE).lstrip("\n")
    (tmp_path / "cart.h").write_text(source)
    ws = Workspace(tmp_path)
    try:
        r = read_file(ws, tmp_path / "cart.h", "s", symbol="Widget.draw").response
    finally:
        ws.close()
    lines = source.split("\n")
    start = lines.index("void Widget::draw(Canvas& c) const {") + 1
    assert r["mode"] == "range" and r["text"].splitlines()[:3] == [
        f"{n:>6}\t{lines[n - 1]}" for n in range(start, start + 3)], r["text"]
