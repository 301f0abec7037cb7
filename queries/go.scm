; Go symbols.
;
; - `type X struct {...}` is a struct, `type X interface {...}` an interface,
;   every other `type X ...` / `type X = Y` a type. Interface method specs are
;   functions nested in the interface (so the engine makes them methods).
; - A method's receiver type is its @scope: `func (c *Cart) Total()` is the
;   method `Cart.Total` (pointer and generic receivers included).
; - Package-level `const` specs are constants, package-level `var` specs
;   variables.
; - A declaration holding a single spec (`type X ...`, `const X = ...`) is
;   captured on the declaration, so the doc comment above the keyword attaches;
;   specs of a grouped `type (...)` / `const (...)` are captured one by one.
;   Both patterns share the @name node and the engine keeps the larger node.

; ---- types -----------------------------------------------------------------

(type_spec
  name: (type_identifier) @name
  type: (struct_type (field_declaration_list) @body)) @definition.struct

(type_declaration .
  (type_spec
    name: (type_identifier) @name
    type: (struct_type (field_declaration_list) @body)) .) @definition.struct

(type_spec
  name: (type_identifier) @name
  type: (interface_type) @body) @definition.interface

(type_declaration .
  (type_spec
    name: (type_identifier) @name
    type: (interface_type) @body) .) @definition.interface

(type_spec
  name: (type_identifier) @name
  type: [
    (type_identifier) (qualified_type) (generic_type) (pointer_type)
    (slice_type) (array_type) (map_type) (channel_type) (function_type)
    (parenthesized_type) (negated_type)
  ]) @definition.type

(type_declaration .
  (type_spec
    name: (type_identifier) @name
    type: [
      (type_identifier) (qualified_type) (generic_type) (pointer_type)
      (slice_type) (array_type) (map_type) (channel_type) (function_type)
      (parenthesized_type) (negated_type)
    ]) .) @definition.type

(type_alias
  name: (type_identifier) @name) @definition.type

(type_declaration . (type_alias name: (type_identifier) @name) .) @definition.type

; interface method specs: Shape.Area
(interface_type
  (method_elem
    name: (field_identifier) @name) @definition.function)

; ---- functions and methods -------------------------------------------------

(function_declaration
  name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @scope
        (pointer_type (type_identifier) @scope)
        (generic_type type: (type_identifier) @scope)
        (pointer_type (generic_type type: (type_identifier) @scope))
      ]))
  name: (field_identifier) @name) @definition.method

; ---- package-level constants and variables ---------------------------------

(source_file
  (const_declaration
    (const_spec name: (identifier) @name) @definition.constant))

(source_file
  (const_declaration .
    (const_spec name: (identifier) @name) .) @definition.constant)

(source_file
  (var_declaration
    (var_spec name: (identifier) @name) @definition.variable))

(source_file
  (var_declaration .
    (var_spec name: (identifier) @name) .) @definition.variable)

; ---- references ------------------------------------------------------------

(call_expression
  function: [
    (identifier) @name
    (selector_expression field: (field_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (index_expression operand: (identifier) @name)
  ]) @reference.call

; Map[int](xs) parses as a conversion to a generic type
(type_conversion_expression
  type: (generic_type type: (type_identifier) @name)) @reference.call

; Cart{...}, pkg.Cart{...}
(composite_literal
  type: [
    (type_identifier) @name
    (qualified_type name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
  ]) @reference.class

; embedded types and interfaces: struct { Base }, interface { io.Reader }
(field_declaration
  !name
  type: [
    (type_identifier) @name
    (qualified_type name: (type_identifier) @name)
    (pointer_type (type_identifier) @name)
  ]) @reference.class

(interface_type
  (type_elem [
    (type_identifier) @name
    (qualified_type name: (type_identifier) @name)
  ])) @reference.class

(import_spec
  path: (interpreted_string_literal
    (interpreted_string_literal_content) @name)) @reference.import
