from .helpers import records_of, symbols_of

SOURCE = '''
package shop

import scala.util.{Try, Success}

/** Anything with a price. */
sealed trait Priced {
  def price: BigDecimal
  def label(): String = s"$price"
}

@SerialVersionUID(1L)
case class Item(name: String, cents: Long) extends Priced with Ordered[Item] {
  def this(name: String) = this(name, 0L)

  override def price: BigDecimal = BigDecimal(cents) / 100

  def compare(that: Item): Int =
    cents.compare(that.cents)

  val discounted: Double => BigDecimal = pct => price * (1 - pct)
}

object Item {
  // Parses "name:cents".
  def parse(
      raw: String
  ): Option[Item] = {
    val parts = raw.split(":")
    Try(new Item(parts(0), parts(1).toLong)).toOption
  }

  def parse(raw: String, sep: Char): Option[Item] = parse(raw.replace(sep, ':'))
}

enum Currency {
  case Eur, Usd
}

extension (items: List[Item])
  def total: BigDecimal = items.map(_.price).sum

type Basket = List[Item]
'''


def test_scala_symbols():
    assert symbols_of(SOURCE, "scala") == [
        ("Priced", "trait", (5, 9), (7, 8)),
        ("Priced.price", "method", (7, 7), None),
        ("Priced.label", "method", (8, 8), None),
        ("Item", "class", (11, 21), (13, 20)),
        ("Item.this", "constructor", (13, 13), None),
        ("Item.price", "method", (15, 15), None),
        ("Item.compare", "method", (17, 18), (18, 18)),
        ("Item.discounted", "method", (20, 20), None),
        ("Item#2", "module", (23, 33), (24, 32)),
        ("Item.parse", "method", (24, 30), (28, 29)),
        ("Item.parse#2", "method", (32, 32), None),
        ("Currency", "enum", (35, 37), (36, 36)),
        ("Currency.Eur", "constant", (36, 36), None),
        ("Currency.Usd", "constant", (36, 36), None),
        ("List.total", "method", (40, 40), None),
        ("Basket", "type", (42, 42), None),
    ]


def test_scala_signatures_and_references():
    records, refs = records_of(SOURCE, "scala")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["Item"] == (
        "case class Item(name: String, cents: Long) extends Priced with Ordered[Item]"
    )
    assert sigs["Item.parse"] == "def parse(\n      raw: String\n  ): Option[Item] ="
    assert sigs["Priced.price"] == "def price: BigDecimal"
    assert sigs["Item#2"] == "object Item"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("split", 28, "call") in found
    assert ("parse", 32, "call") in found
    assert ("map", 40, "call") in found
    assert ("Item", 29, "class") in found
    assert ("Ordered", 12, "class") in found
    assert ("Success", 3, "import") in found
