-- Encodes Lua values as JSON text.
local json = { version = "1.0" }

local MAX_DEPTH = 64

local escapes = {
  ["\n"] = "n",
  ["\t"] = "t",
}

local function escape(c)
  return "\\" .. (escapes[c] or string.format("u%04x", c:byte()))
end

local function encode_nil(val) return "null" end

local function defaults() return {
    indent = 2,
  }
end

local encode

local function encode_table(val, stack)
  local res = {}
  stack = stack or {}
  if stack[val] then error("circular reference") end
  stack[val] = true
  for k, v in pairs(val) do
    table.insert(res, encode(k, stack) .. ":" .. encode(v, stack))
  end
  stack[val] = nil
  return "{" .. table.concat(res, ",") .. "}"
end

local encoders = {
  ["nil"] = encode_nil,
  ["table"] = encode_table,
}

encode = function(val, stack)
  local t = type(val)
  local f = encoders[t]
  if f then return f(val, stack) end
  error("unexpected type '" .. t .. "'")
end

function json.encode(val)
  return ( encode(val) )
end

function json.decode(str) if type(str) ~= "string" then
    error("expected argument of type string, got " .. type(str))
  end
  return str
end

function json:pretty(
  val,
  indent
)
  return self.encode(val)
end

function json.noop() end

return json
