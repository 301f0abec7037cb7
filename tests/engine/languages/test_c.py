from .helpers import records_of, symbols_of

SOURCE = r'''
#include <stdio.h>
#include "cart.h"

#define MAX_ITEMS 3
#define SQUARE(x) ((x) * (x))
#define LOG(fmt, ...) \
    fprintf(stderr, fmt, __VA_ARGS__)

/* A cart of items. */
struct cart {
    struct item { int id; } first;
    int count;
};

typedef struct point {
    int x, y;
} point_t;

enum color { RED, GREEN };

typedef int (*cmp_fn)(const void *, const void *);

static const int limit = 10;

static int total(const struct cart *c, int tax);

// Sum the items.
static int
total(const struct cart *c,
      int tax)
{
    int t = c->count;
    LOG("%d\n", t);
    return t + SQUARE(tax);
}

int *make(void) { return malloc(sizeof(int)); }

int main(void) {
    struct cart c = {0};
    printf("%d\n", total(&c, 1));
    return 0;
}
'''


def test_c_symbols():
    assert symbols_of(SOURCE, "c") == [
        ("MAX_ITEMS", "constant", (4, 4), None),
        ("SQUARE", "macro", (5, 5), None),
        ("LOG", "macro", (6, 7), (7, 7)),
        ("cart", "struct", (9, 13), (11, 12)),
        ("cart.item", "struct", (11, 11), None),
        # the closing line `} point_t;` stays visible: it names the typedef
        ("point_t", "struct", (15, 17), (16, 16)),
        ("color", "enum", (19, 19), None),
        ("cmp_fn", "type", (21, 21), None),
        ("limit", "constant", (23, 23), None),
        ("total", "function", (25, 25), None),
        ("total#2", "function", (27, 35), (32, 34)),
        ("make", "function", (37, 37), None),
        ("main", "function", (39, 43), (40, 42)),
    ]


def test_c_signatures_and_references():
    records, refs = records_of(SOURCE, "c")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["MAX_ITEMS"] == "#define MAX_ITEMS 3"
    assert sigs["SQUARE"] == "#define SQUARE(x)"
    assert sigs["total"] == "static int total(const struct cart *c, int tax);"
    assert sigs["total#2"] == "static int\ntotal(const struct cart *c,\n      int tax)"
    assert sigs["make"] == "int *make(void)"
    assert sigs["cmp_fn"] == "typedef int (*cmp_fn)(const void *, const void *);"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("LOG", 33, "call") in found
    assert ("SQUARE", 34, "call") in found
    assert ("malloc", 37, "call") in found
    assert ("total", 41, "call") in found
    assert ("cart", 40, "class") in found
    assert ("cart.h", 2, "import") in found
