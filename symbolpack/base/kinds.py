"""The protocol's symbol kinds and the groups the engine reasons with.

Kept apart so the parsing core and the rendering code can share them without
importing each other (and so a hook's import path stays tiny).
"""

KINDS = (
    "function", "method", "constructor", "class", "struct", "enum", "interface", "trait", "impl",
    "module", "namespace", "type", "constant", "variable", "macro", "field", "property",
)

# A `function` directly inside one of these is a method.
CLASS_LIKE = frozenset({"class", "struct", "interface", "trait", "impl", "enum", "object", "record"})

# Their bodies hold other symbols' signatures, so a skeleton never hides them whole.
CONTAINER_KINDS = CLASS_LIKE | {"module", "namespace"}
