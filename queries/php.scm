; PHP symbols. `#[Attr]` attribute lists are part of the declaration node, and a
; `/** */` doc comment directly above is attached by the engine.

; namespace Foo\Bar; (statement form: a one-line symbol) or namespace Foo { ... }
(namespace_definition
  name: (namespace_name) @name) @definition.namespace

(class_declaration
  name: (name) @name) @definition.class

(interface_declaration
  name: (name) @name) @definition.interface

(trait_declaration
  name: (name) @name) @definition.trait

(enum_declaration
  name: (name) @name) @definition.enum

; constructors first: they win the tie with the generic method pattern
(method_declaration
  name: (name) @name
  (#eq? @name "__construct")) @definition.constructor

(method_declaration
  name: (name) @name) @definition.method

(function_definition
  name: (name) @name) @definition.function

; Constants and properties. A declaration with one element is the symbol (so
; its doc comment and modifiers belong to it); in `const A = 1, B = 2;` each
; element is its own symbol, as one shared node would nest B inside A.
(const_declaration
  ["const" (primitive_type) (named_type) (optional_type) (union_type)]
  .
  (const_element (name) @name)
  .) @definition.constant

(const_declaration
  (const_element (name) @name) @definition.constant
  .
  (const_element))

(const_declaration
  (const_element)
  .
  (const_element (name) @name) @definition.constant)

(enum_case
  name: (name) @name) @definition.constant

; a property keeps its `$` (`Bar.$overwrite`): PHP lets a method share its name
(property_declaration
  [(visibility_modifier) (static_modifier) (readonly_modifier) (var_modifier)
   (primitive_type) (named_type) (optional_type) (union_type)
   (intersection_type)]
  .
  (property_element
    name: (variable_name) @name)
  .) @definition.property

(property_declaration
  (property_element
    name: (variable_name) @name) @definition.property
  .
  (property_element))

(property_declaration
  (property_element)
  .
  (property_element
    name: (variable_name) @name) @definition.property)

; References
(function_call_expression
  function: [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.call

(member_call_expression
  name: (name) @name) @reference.call

(nullsafe_member_call_expression
  name: (name) @name) @reference.call

(scoped_call_expression
  name: (name) @name) @reference.call

(object_creation_expression
  [
    (name) @name
    (qualified_name (name) @name)
  ]
  (#not-any-of? @name "static" "self" "parent")) @reference.class

(base_clause
  [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.class

(class_interface_clause
  [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.interface

(use_declaration
  [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.trait

(namespace_use_clause
  [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.import
