from .helpers import records_of, symbols_of

SOURCE = '''
# Cart utilities.
library(stats)

MAX_ITEMS <- 50

#' Add an item to a cart.
#' @param cart a list
add_item <- function(cart, item) {
  if (length(cart$items) >= MAX_ITEMS) stop("full")
  cart$items <- c(cart$items, list(item))
  cart
}

price_of = function(item) item$price

cart_total <- function(cart,
                       tax = 0) {
  prices <- vapply(cart$items, price_of, numeric(1))
  round_to <- function(x) round(x, 2)
  round_to(sum(prices) * (1 + tax))
}

Cart <- setRefClass("Cart",
  fields = list(items = "list"),
  methods = list(
    size = function() {
      length(items)
    },
    clear = function() items <<- list()
  )
)

Account <- R6::R6Class("Account", public = list(
  balance = 0,
  deposit = function(x) {
    self$balance <- self$balance + x
    invisible(self)
  }
))

price_of <- function(item) item$price * 1.0
'''


def test_r_symbols():
    assert symbols_of(SOURCE, "r") == [
        ("MAX_ITEMS", "constant", (4, 4), None),
        # roxygen comments directly above are part of the span
        ("add_item", "function", (6, 12), (9, 11)),
        ("price_of", "function", (14, 14), None),
        ("cart_total", "function", (16, 21), (18, 20)),
        ("cart_total.round_to", "function", (19, 19), None),
        ("Cart", "class", (23, 31), (24, 30)),
        ("Cart.size", "method", (26, 28), (27, 27)),
        ("Cart.clear", "method", (29, 29), None),
        ("Account", "class", (33, 39), (34, 38)),
        ("Account.deposit", "method", (35, 38), (36, 37)),
        ("price_of#2", "function", (41, 41), None),
    ]


def test_r_signatures_and_references():
    records, refs = records_of(SOURCE, "r")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["add_item"] == "add_item <- function(cart, item)"
    assert sigs["price_of"] == "price_of = function(item)"
    assert sigs["cart_total"] == "cart_total <- function(cart,\n                       tax = 0)"
    assert sigs["Cart.size"] == "size = function()"
    assert sigs["MAX_ITEMS"] == "MAX_ITEMS <- 50"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("stop", 9, "call") in found
    assert ("vapply", 18, "call") in found
    assert ("round_to", 20, "call") in found
    assert ("R6Class", 33, "call") in found  # R6::R6Class
    assert ("invisible", 37, "call") in found
    assert ("stats", 2, "import") in found
