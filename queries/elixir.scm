; Elixir symbols. Every definition is a `call` whose target is the defining
; keyword (`def`, `defmodule`, ...), so the patterns select on the keyword text.
; Multi-line definitions use a `do_block` body; keyword forms
; (`def f(x), do: ...`) use the `keywords` argument as their body, so a
; `do:` moved to its own line is elidable and a one-liner has no body.

; ---------------------------------------------------------------- modules

(call
  target: (identifier) @_kw
  (#eq? @_kw "defmodule")
  (arguments . (alias) @name)
  (do_block) @body) @definition.module

(call
  target: (identifier) @_kw
  (#eq? @_kw "defprotocol")
  (arguments . (alias) @name)
  (do_block) @body) @definition.interface

; defimpl Proto, for: Type  ->  "impl Proto for Type"
(call
  target: (identifier) @_kw
  (#eq? @_kw "defimpl")
  (arguments
    . (alias) @trait
    (keywords
      (pair
        key: (keyword) @_for
        value: (alias) @name
        (#match? @_for "^for:"))))
  (do_block) @body) @definition.impl

; defimpl Proto do ... end inside the implementing module  ->  "impl Proto"
(call
  target: (identifier) @_kw
  (#eq? @_kw "defimpl")
  (arguments . (alias) @name .)
  (do_block) @body) @definition.impl

; defstruct / defexception have no name of their own: the symbol is named by
; the keyword and qualified by its module (`Shop.Cart.defstruct`).
(call
  target: (identifier) @name
  (#any-of? @name "defstruct" "defexception")) @definition.struct

; ---------------------------------------------------------------- functions

; def name(args) / def name(args) when guard, with a do-block or `do:`
(call
  target: (identifier) @_kw
  (#any-of? @_kw "def" "defp")
  (arguments
    . [
      (call target: (identifier) @name)
      (identifier) @name
      (binary_operator
        left: [
          (call target: (identifier) @name)
          (identifier) @name
        ]
        operator: "when")
    ]
    (keywords)? @body)
  (do_block)? @body) @definition.function

; defdelegate f(x), to: Mod  -- the keywords are options, not a body
(call
  target: (identifier) @_kw
  (#eq? @_kw "defdelegate")
  (arguments
    . [
      (call target: (identifier) @name)
      (identifier) @name
    ])) @definition.function

(call
  target: (identifier) @_kw
  (#any-of? @_kw "defmacro" "defmacrop" "defguard" "defguardp")
  (arguments
    . [
      (call target: (identifier) @name)
      (identifier) @name
      (binary_operator
        left: [
          (call target: (identifier) @name)
          (identifier) @name
        ]
        operator: "when")
    ]
    (keywords)? @body)
  (do_block)? @body) @definition.macro

; ---------------------------------------------------------------- attributes

; @type t :: ..., @typep, @opaque
(unary_operator
  operator: "@"
  operand: (call
    target: (identifier) @_kw
    (#any-of? @_kw "type" "typep" "opaque")
    (arguments
      (binary_operator
        left: [
          (identifier) @name
          (call target: (identifier) @name)
        ])))) @definition.type

; @name value  (module attributes used as constants)
(unary_operator
  operator: "@"
  operand: (call
    target: (identifier) @name
    (#not-match? @name "^(doc|moduledoc|typedoc|spec|type|typep|opaque|callback|macrocallback|optional_callbacks|impl|behaviour|derive|enforce_keys|compile|before_compile|after_compile|on_definition|on_load|dialyzer|deprecated|since|external_resource|vsn|file|fallback_to_any)$")
    (arguments))) @definition.constant

; ---------------------------------------------------------------- references

; local calls, excluding the defining keywords, special forms and the
; built-in module attributes (`@doc "..."` parses as a call to `doc`)
(call
  target: (identifier) @name
  (#not-match? @name "^(def|defp|defmodule|defmacro|defmacrop|defguard|defguardp|defdelegate|defstruct|defexception|defprotocol|defimpl|defoverridable|alias|import|require|use|quote|unquote|unquote_splicing|if|unless|case|cond|with|for|try|receive|fn|raise|reraise|throw|super|doc|moduledoc|typedoc|spec|type|typep|opaque|callback|macrocallback|optional_callbacks|impl|behaviour|derive|enforce_keys|compile|before_compile|after_compile|on_definition|on_load|dialyzer|deprecated|since|external_resource|vsn|fallback_to_any)$")
  (arguments)) @reference.call

; remote calls: Mod.fun(...), var.fun(...) (not field access `map.key`)
(call
  target: (dot right: (identifier) @name)
  (arguments)) @reference.call

(call
  target: (identifier) @_kw
  (#any-of? @_kw "alias" "import" "require" "use")
  (arguments . (alias) @name)) @reference.import
