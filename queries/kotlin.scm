; Kotlin symbols. The grammar has few fields, so bodies are captured with
; @body (class_body, enum_class_body, function_body). Annotations live in the
; declaration's `modifiers`, so spans include them; a KDoc comment directly
; above is attached by the engine.
;
; `interface` and `enum class` are class_declarations told apart by their
; keyword; those patterns come first so they win the tie on the same node.
; An `object` is a class (a singleton). A companion object is not a symbol:
; its members are the class's members (`Cart.empty()`, as callers write it).
; An extension function `fun Cart.total()` is the method `Cart.total`.

; ---------------------------------------------------------------- types

(class_declaration
  "interface"
  (type_identifier) @name
  (class_body)? @body) @definition.interface

(class_declaration
  "enum"
  (type_identifier) @name
  (enum_class_body)? @body) @definition.enum

(class_declaration
  (type_identifier) @name
  (class_body)? @body) @definition.class

(object_declaration
  (type_identifier) @name
  (class_body)? @body) @definition.class

(type_alias
  (type_identifier) @name) @definition.type

; ---------------------------------------------------------------- functions

; constructor(x: Int) : this(...) { ... }
(secondary_constructor
  "constructor" @name
  (statements)? @body) @definition.constructor

; fun Cart.total(): the receiver type qualifies the name
(function_declaration
  (receiver_type
    [
      (user_type (type_identifier) @scope .)
      (nullable_type (user_type (type_identifier) @scope .))
    ])
  (simple_identifier) @name
  (function_body)? @body) @definition.function

(function_declaration
  (simple_identifier) @name
  (function_body)? @body) @definition.function

; val square = { x: Int -> x * x }
(property_declaration
  (variable_declaration
    (simple_identifier) @name)
  (lambda_literal) @body) @definition.function

; val Class<*>.isPlatformType: Boolean  get() { ... }: the grammar puts the getter
; beside the declaration, not in it; the getter's body is the symbol's body
((property_declaration
  (receiver_type
    [
      (user_type (type_identifier) @scope .)
      (nullable_type (user_type (type_identifier) @scope .))
    ])?
  (variable_declaration
    (simple_identifier) @name)) @definition.property
  .
  (getter
    (function_body) @body))

; const val MAX_ITEMS = 50
(property_declaration
  (modifiers
    (property_modifier) @_const)
  (variable_declaration
    (simple_identifier) @name)
  (#eq? @_const "const")) @definition.constant

; ---------------------------------------------------------------- references

; foo(), Cart(...), items.add(x)
(call_expression
  .
  [
    (simple_identifier) @name
    (navigation_expression
      (navigation_suffix
        (simple_identifier) @name) .)
  ]) @reference.call

; class Cart : Base(), Priced
(delegation_specifier
  [
    (constructor_invocation
      (user_type (type_identifier) @name .))
    (user_type (type_identifier) @name .)
  ]) @reference.class

; import a.b.C, import a.b.C as D (not `import a.b.*`)
(import_header
  (identifier
    (simple_identifier) @name .) .) @reference.import

(import_header
  (identifier
    (simple_identifier) @name .)
  .
  (import_alias)) @reference.import
