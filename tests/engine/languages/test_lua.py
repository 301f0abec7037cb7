from .helpers import records_of, symbols_of

SOURCE = '''
local json = require("cjson")

local Cart = {}
Cart.__index = Cart

--- Creates a cart.
-- @param owner string
function Cart.new(owner)
  local self = setmetatable({}, Cart)
  self.owner = owner
  self.items = {}
  return self
end

function Cart:add(item, qty)
  for _ = 1, qty or 1 do
    table.insert(self.items, item)
  end
end

function Cart:total() return #self.items end

local function encode(
  value,
  pretty
)
  return json.encode(value)
end

local validate = function(item)
  assert(item.price, "price required")
  return true
end

Cart.dump = function(cart)
  return encode(cart.items, true)
end

function Cart:add(item)
  if validate(item) then
    self.items[#self.items + 1] = item
  end
end

return Cart
'''


def test_lua_symbols():
    assert symbols_of(SOURCE, "lua") == [
        ("Cart.new", "method", (6, 13), (9, 12)),
        ("Cart.add", "method", (15, 19), (16, 18)),
        ("Cart.total", "method", (21, 21), None),
        ("encode", "function", (23, 28), (27, 27)),
        ("validate", "function", (30, 33), (31, 32)),
        ("Cart.dump", "method", (35, 37), (36, 36)),
        ("Cart.add#2", "method", (39, 43), (40, 42)),
    ]


def test_lua_signatures_and_references():
    records, refs = records_of(SOURCE, "lua")
    sigs = {r.local_id: r.signature for r in records}
    assert sigs["Cart.add"] == "function Cart:add(item, qty)"
    assert sigs["encode"] == "local function encode(\n  value,\n  pretty\n)"
    assert sigs["validate"] == "local validate = function(item)"
    assert sigs["Cart.dump"] == "Cart.dump = function(cart)"
    found = {(r.name, r.line, r.kind) for r in refs}
    assert ("insert", 17, "call") in found
    assert ("encode", 27, "call") in found
    assert ("encode", 36, "call") in found
    assert ("validate", 40, "call") in found
    assert ("cjson", 1, "import") in found
