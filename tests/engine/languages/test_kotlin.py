from .helpers import records_of, symbols_of

SOURCE = '''
package com.example.shop

import kotlinx.serialization.Serializable
import kotlin.math.max

const val MAX_ITEMS = 50

/**
 * A shopping cart.
 */
@Serializable
data class Cart(
    val items: List<Item>,
    val owner: String,
) : Base(), Priced {
    constructor(owner: String) : this(emptyList(), owner)

    override fun price(): Double = items.sumOf { it.price }

    fun add(item: Item): Cart = add(item, 1)

    // Adds qty copies.
    @Throws(CartFullException::class)
    fun add(
        item: Item,
        qty: Int,
    ): Cart {
        check(items.size + qty <= MAX_ITEMS)
        return copy(items = items + List(qty) { item })
    }

    companion object {
        fun empty(owner: String) = Cart(owner)
    }

    enum class Status { OPEN, CLOSED }
}

interface Priced {
    fun price(): Double
}

object Registry {
    private val carts = mutableListOf<Cart>()

    fun register(cart: Cart) {
        carts.add(cart)
    }
}

typealias Carts = List<Cart>

fun Cart.total(): Double = max(price(), 0.0)
'''


def test_kotlin_symbols():
    assert symbols_of(SOURCE, "kotlin") == [
        ("MAX_ITEMS", "constant", (6, 6), None),
        ("Cart", "class", (8, 37), (16, 36)),
        ("Cart.constructor", "constructor", (16, 16), None),
        ("Cart.price", "method", (18, 18), None),
        ("Cart.add", "method", (20, 20), None),
        ("Cart.add#2", "method", (22, 30), (28, 29)),
        ("Cart.empty", "method", (33, 33), None),  # companion members belong to the class
        ("Cart.Status", "enum", (36, 36), None),
        ("Priced", "interface", (39, 41), (40, 40)),
        ("Priced.price", "method", (40, 40), None),
        ("Registry", "class", (43, 49), (44, 48)),
        ("Registry.register", "method", (46, 48), (47, 47)),
        ("Carts", "type", (51, 51), None),
        ("Cart.total", "method", (53, 53), None),  # extension function
    ]


def test_kotlin_signatures_and_references():
    records, refs = records_of(SOURCE, "kotlin")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["Cart"] == "data class Cart(\n    val items: List<Item>,\n    val owner: String,\n) : Base(), Priced"
    assert sigs["Cart.constructor"] == "constructor(owner: String) : this(emptyList(), owner)"
    assert sigs["Cart.add#2"] == "fun add(\n        item: Item,\n        qty: Int,\n    ): Cart"
    assert sigs["Cart.total"] == "fun Cart.total(): Double"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("max", 4, "import") in found
    assert ("Base", 15, "class") in found
    assert ("Priced", 15, "class") in found
    assert ("add", 20, "call") in found
    assert ("check", 28, "call") in found
    assert ("copy", 29, "call") in found
    assert ("Cart", 33, "call") in found
    assert ("add", 47, "call") in found
    assert ("max", 53, "call") in found


GETTERS = '''
/** True for the JDK's own classes. */
val Class<*>.isPlatformType: Boolean
  get() {
    val name = name
    return name.startsWith("java.") ||
      name.startsWith("kotlin.")
  }

internal val Annotated.names: Set<String>
  get() = annotations.map { it.name }.toSet()

class Box(val raw: Int) {
    val doubled: Int
        get() {
            return raw * 2
        }
    val plain: Int = 3
}
'''


def test_kotlin_property_with_getter_is_a_symbol_whose_body_is_the_getters():
    # the grammar puts `get()` beside the property_declaration: the symbol spans both
    assert symbols_of(GETTERS, "kotlin") == [
        ("isPlatformType", "property", (1, 7), (4, 6)),
        ("Annotated.names", "property", (9, 10), None),
        ("Box", "class", (12, 18), (13, 17)),
        ("Box.doubled", "property", (13, 16), (15, 15)),
    ]
    records, _ = records_of(GETTERS, "kotlin")
    assert records[0].signature == "val Class<*>.isPlatformType: Boolean\n  get()"
