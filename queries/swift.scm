; Swift symbols.
;
; - class / actor -> class, struct -> struct, enum -> enum, protocol ->
;   interface; they nest by containment.
; - An extension is an impl, like Rust's: `extension Cart` is `impl Cart`,
;   `extension Cart: Shape` (exactly one conformance) is `impl Shape for Cart`,
;   with more conformances it is `impl Cart`. Its functions are methods
;   `impl Cart.draw`.
; - func -> function (method in a type), protocol requirements included;
;   `init` -> constructor named `init`; `deinit` and `subscript` are methods
;   named so.
; - File-level `let` -> constant, `var` -> variable; computed properties
;   (`var x: T { ... }`) in types and protocol property requirements ->
;   property. Stored properties and enum cases are not symbols.
; - typealias / associatedtype -> type.
; - Attributes (`@MainActor`) are inside the declaration's modifiers and `///`
;   comments precede it, so both are in the span.

(class_declaration
  declaration_kind: ["class" "actor"]
  name: (type_identifier) @name) @definition.class

(class_declaration
  declaration_kind: "struct"
  name: (type_identifier) @name) @definition.struct

(class_declaration
  declaration_kind: "enum"
  name: (type_identifier) @name) @definition.enum

(protocol_declaration
  name: (type_identifier) @name) @definition.interface

; extension Cart: Shape (one conformance) -- before the general pattern: on a
; tie the earlier pattern wins
(class_declaration
  declaration_kind: "extension"
  name: (user_type) @name
  .
  (inheritance_specifier
    inherits_from: (user_type) @trait)
  .
  [(type_constraints) (class_body)]) @definition.impl

(class_declaration
  declaration_kind: "extension"
  name: (user_type) @name) @definition.impl

; ---- functions ---------------------------------------------------------------

(function_declaration
  name: (simple_identifier) @name) @definition.function

(protocol_function_declaration
  name: (simple_identifier) @name) @definition.function

(init_declaration
  name: "init" @name) @definition.constructor

(deinit_declaration
  "deinit" @name) @definition.function

(subscript_declaration
  "subscript" @name
  (computed_property) @body) @definition.function

(subscript_declaration
  "subscript" @name) @definition.function

; ---- properties and types -------------------------------------------------------

(source_file
  (property_declaration
    (value_binding_pattern mutability: "let")
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.constant)

(source_file
  (property_declaration
    (value_binding_pattern mutability: "var")
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.variable)

(class_body
  (property_declaration
    name: (pattern bound_identifier: (simple_identifier) @name)
    computed_value: (computed_property) @body) @definition.property)

(enum_class_body
  (property_declaration
    name: (pattern bound_identifier: (simple_identifier) @name)
    computed_value: (computed_property) @body) @definition.property)

; `{ get set }` as @body keeps the type in the signature: `var area: Double`
(protocol_property_declaration
  name: (pattern bound_identifier: (simple_identifier) @name)
  (protocol_property_requirements) @body) @definition.property

(typealias_declaration
  name: (type_identifier) @name) @definition.type

(associatedtype_declaration
  name: (type_identifier) @name) @definition.type

; ---- references ------------------------------------------------------------------

; f(x), Type(x), f { trailing closure } -- not subscripts a[i]
(call_expression
  .
  (simple_identifier) @name
  .
  (call_suffix) @_suffix
  (#not-match? @_suffix "^\\[")) @reference.call

; the grammar parses `a + f(x)` as `(a + f)(x)`: the call is on the rhs
(call_expression
  .
  (_ rhs: (simple_identifier) @name)
  .
  (call_suffix) @_suffix
  (#not-match? @_suffix "^\\[")) @reference.call

; a.b.f(x)
(call_expression
  .
  (navigation_expression
    suffix: (navigation_suffix suffix: (simple_identifier) @name))
  .
  (call_suffix) @_suffix
  (#not-match? @_suffix "^\\[")) @reference.call

(inheritance_specifier
  inherits_from: (user_type (type_identifier) @name)) @reference.class

(import_declaration
  (identifier (simple_identifier) @name)) @reference.import
