from .helpers import records_of, symbols_of

SOURCE = r'''
<?php
namespace App\Billing;

use App\Contracts\Billable;

interface Priced { public function price(): int; }

/**
 * A cart of items.
 */
#[Entity(table: "carts")]
final class Cart implements Priced
{
    use Logs;

    const MIN = 1, MAX = 10;

    /** Builds an empty cart. */
    public function __construct(
        private array $items = [],
    ) {
        $this->log("new");
    }

    #[Override]
    public function price(): int
    {
        return array_sum($this->items);
    }

    public function add(int $x): void { $this->items[] = $x; }

    public function addTwice(int $x): static
    {
        $this->add($x);
        return $this;
    }
}

trait Logs {
    public function log(string $m) { error_log($m); }
}

enum Status: string {
    case Open = 'open';
    public function label(): string { return ucfirst($this->value); }
}

function total(Cart $c): int {
    return $c->price();
}

if (!function_exists('total')) {
    function total($c) { return 0; }
}
'''


def test_php_symbols():
    assert symbols_of(SOURCE, "php") == [
        ("App\\Billing", "namespace", (2, 2), None),
        ("Priced", "interface", (6, 6), None),
        ("Priced.price", "method", (6, 6), None),
        ("Cart", "class", (8, 38), (14, 37)),
        ("Cart.MIN", "constant", (16, 16), None),
        ("Cart.MAX", "constant", (16, 16), None),
        ("Cart.__construct", "constructor", (18, 23), (22, 22)),
        ("Cart.price", "method", (25, 29), (28, 28)),
        ("Cart.add", "method", (31, 31), None),
        ("Cart.addTwice", "method", (33, 37), (35, 36)),
        ("Logs", "trait", (40, 42), (41, 41)),
        ("Logs.log", "method", (41, 41), None),
        ("Status", "enum", (44, 47), (45, 46)),
        ("Status.Open", "constant", (45, 45), None),
        ("Status.label", "method", (46, 46), None),
        ("total", "function", (49, 51), (50, 50)),
        ("total#2", "function", (54, 54), None),
    ]


def test_php_signatures_and_references():
    records, refs = records_of(SOURCE, "php")
    sigs = {r.local_id: r.signature for r in records}
    # the attribute and doc comment are in the span, not in the signature
    assert sigs["Cart"] == "final class Cart implements Priced"
    assert sigs["Cart.price"] == "public function price(): int"
    assert sigs["Cart.__construct"] == (
        "public function __construct(\n        private array $items = [],\n    )"
    )
    assert sigs["total#2"] == "function total($c)"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("array_sum", 28, "call") in found
    assert ("add", 35, "call") in found
    assert ("price", 50, "call") in found
    assert ("Priced", 12, "interface") in found
    assert ("Logs", 14, "trait") in found
    assert ("Billable", 4, "import") in found


PROPERTIES = r'''
<?php
final class ProgressBar
{
    private bool $overwrite = true;
    private ?int $max = null, $step = 0;

    public function overwrite(bool $on): void
    {
        $this->overwrite = $on;
    }
}
'''


def test_php_property_keeps_its_dollar_so_a_method_of_the_same_name_is_not_numbered():
    assert symbols_of(PROPERTIES, "php") == [
        ("ProgressBar", "class", (2, 11), (4, 10)),
        ("ProgressBar.$overwrite", "property", (4, 4), None),
        ("ProgressBar.$max", "property", (5, 5), None),
        ("ProgressBar.$step", "property", (5, 5), None),
        ("ProgressBar.overwrite", "method", (7, 10), (9, 9)),
    ]
