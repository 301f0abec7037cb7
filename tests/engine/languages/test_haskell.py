from .helpers import records_of, symbols_of

SOURCE = '''
module Shop.Cart (Cart (..), add, total) where

import qualified Data.Map as Map

type Price = Int

-- | A shopping cart.
data Cart = Cart
  { items :: [Price]
  , owner :: String
  }

newtype Id = Id Int

-- Things with a size.
class Sized a where
  size :: a -> Int
  size _ = 0

instance Sized Cart where
  size c = length (items c)

-- Adds an item.
add :: Cart -> Price -> Cart
add c x = c { items = x : items c }

total :: Cart -> Price
total (Cart [] _) = 0
total c =
  sum (items c)
    + Map.findWithDefault 0 (owner c) fees

fees :: Map.Map String Price
fees = Map.fromList [("vip", 0)]

report :: Cart -> IO ()
report c = do
  print (total c)
  putStrLn banner
  where
    banner = "done"
'''


def test_haskell_symbols():
    # A type signature and each equation are separate nodes in the grammar, so
    # `total` is its signature and `total#2`, `total#3` are its equations.
    assert symbols_of(SOURCE, "haskell") == [
        ("Price", "type", (5, 5), None),
        # the Haddock comment `-- |` (line 7) is attached
        ("Cart", "struct", (7, 11), None),
        ("Id", "type", (13, 13), None),
        # a plain `--` comment directly above is attached
        ("Sized", "interface", (15, 18), (17, 18)),
        ("Sized.size", "method", (17, 17), None),
        ("Sized.size#2", "method", (18, 18), None),
        ("impl Sized for Cart", "impl", (20, 21), (21, 21)),
        ("impl Sized for Cart.size", "method", (21, 21), None),
        ("add", "function", (23, 24), None),
        ("add#2", "function", (25, 25), None),
        ("total", "function", (27, 27), None),
        ("total#2", "function", (28, 28), None),
        ("total#3", "function", (29, 31), (30, 31)),
        ("fees", "function", (33, 33), None),
        ("fees#2", "function", (34, 34), None),
        ("report", "function", (36, 36), None),
        # the `where` block stays visible; the local `banner` is not a symbol
        ("report#2", "function", (37, 41), (38, 39)),
    ]


def test_haskell_signatures_and_references():
    records, refs = records_of(SOURCE, "haskell")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["add"] == "add :: Cart -> Price -> Cart"
    assert sigs["total#3"] == "total c"
    assert sigs["Sized"] == "class Sized a where"
    assert sigs["impl Sized for Cart"] == "instance Sized Cart where"
    assert sigs["Cart"] == "data Cart = Cart"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("length", 21, "call") in found
    assert ("findWithDefault", 31, "call") in found  # qualified Map.findWithDefault
    assert ("fromList", 34, "call") in found
    assert ("total", 38, "call") in found
    assert ("putStrLn", 39, "call") in found
    assert ("Data.Map", 3, "import") in found
