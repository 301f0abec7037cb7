from .helpers import records_of, symbols_of

SOURCE = '''
import 'package:flutter/widgets.dart';

/// A priced line item.
/// Immutable.
@immutable
class Item extends Base with Logs implements Comparable<Item> {
  const Item(this.name, this.cents);

  Item.free(String name) : this(name, 0);

  factory Item.parse(String raw) {
    final parts = raw.split(':');
    return Item(parts[0], int.parse(parts[1]));
  }

  final String name;
  final int cents;

  /// Price in euros.
  double get euros => cents / 100;

  set euros(double v) => throw UnsupportedError('immutable');

  @override
  int compareTo(
    Item other,
  ) {
    return cents.compareTo(other.cents);
  }
}

mixin Logs {
  void log(String m) => print(m);
}

extension ItemList on List<Item> {
  int total() => fold(0, (sum, i) => sum + i.cents);
}

enum Currency { eur, usd }

typedef Pricer = int Function(Item);

int total(List<Item> items) => items.total();
'''


def test_dart_symbols():
    assert symbols_of(SOURCE, "dart") == [
        ("Item", "class", (3, 30), (7, 29)),
        ("Item.Item", "constructor", (7, 7), None),
        ("Item.free", "constructor", (9, 9), None),
        ("Item.parse", "constructor", (11, 14), (12, 13)),
        ("Item.euros", "property", (19, 20), None),
        ("Item.euros#2", "property", (22, 22), None),
        ("Item.compareTo", "method", (24, 29), (28, 28)),
        ("Logs", "trait", (32, 34), (33, 33)),
        ("Logs.log", "method", (33, 33), None),
        ("impl ItemList for List", "impl", (36, 38), (37, 37)),
        ("impl ItemList for List.total", "method", (37, 37), None),
        ("Currency", "enum", (40, 40), None),
        ("Currency.eur", "constant", (40, 40), None),
        ("Currency.usd", "constant", (40, 40), None),
        ("Pricer", "type", (42, 42), None),
        ("total", "function", (44, 44), None),
    ]


def test_dart_signatures_and_references():
    records, refs = records_of(SOURCE, "dart")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["Item"] == "class Item extends Base with Logs implements Comparable<Item>"
    assert sigs["Item.compareTo"] == "int compareTo(\n    Item other,\n  )"
    assert sigs["Item.parse"] == "factory Item.parse(String raw)"
    assert sigs["Item.euros"] == "double get euros"
    assert sigs["impl ItemList for List"] == "extension ItemList on List<Item>"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("split", 12, "call") in found
    assert ("compareTo", 28, "call") in found
    assert ("print", 33, "call") in found
    assert ("total", 44, "call") in found
    assert ("Comparable", 6, "class") in found
