; Rust symbols.
;
; - struct / enum / union / trait / mod / type / const / static / fn items;
;   `#[...]` attributes and `///` doc comments are preceding siblings, which the
;   engine attaches to the span.
; - `impl Type` and `impl Trait for Type` are impl symbols named on the type's
;   last path segment without generics (`impl<T> a::Cart<T>` -> `impl Cart`);
;   @trait likewise (`impl fmt::Display for X` -> `impl Display for X`). Their
;   functions become methods `impl Cart.new`.
; - Functions declared without a body (trait methods, `extern` blocks) are
;   functions too; inside a trait they become methods.
; - `macro_rules!` is a macro. Its rules have no wrapping node: the body runs
;   from the first rule to the last (several `@body` captures; comments
;   between rules do not cut it short).

(struct_item name: (type_identifier) @name) @definition.struct

(enum_item name: (type_identifier) @name) @definition.enum

(union_item name: (type_identifier) @name) @definition.struct

(trait_item name: (type_identifier) @name) @definition.trait

(type_item name: (type_identifier) @name) @definition.type

(mod_item name: (identifier) @name) @definition.module

(const_item name: (identifier) @name) @definition.constant

(static_item name: (identifier) @name) @definition.variable

(function_item name: (identifier) @name) @definition.function

(function_signature_item name: (identifier) @name) @definition.function

(macro_definition
  name: (identifier) @name
  ((macro_rule) @body ";"? [(line_comment) (block_comment)]*)+) @definition.macro

(macro_definition name: (identifier) @name) @definition.macro

; ---- impl blocks -------------------------------------------------------------
; One pattern per shape of `type`, disjoint so each impl gets one @name.

(impl_item
  !trait
  type: [
    (type_identifier) @name
    (primitive_type) @name
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
    (reference_type type: (type_identifier) @name)
    (reference_type type: (generic_type type: (type_identifier) @name))
    (tuple_type) @name
    (array_type) @name
    (dynamic_type) @name
    (pointer_type) @name
    (function_type) @name
  ]) @definition.impl

(impl_item
  trait: [
    (type_identifier) @trait
    (scoped_type_identifier name: (type_identifier) @trait)
    (generic_type type: (type_identifier) @trait)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @trait))
  ]
  type: [
    (type_identifier) @name
    (primitive_type) @name
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
    (reference_type type: (type_identifier) @name)
    (reference_type type: (generic_type type: (type_identifier) @name))
    (reference_type type: (primitive_type) @name)
    (tuple_type) @name
    (array_type) @name
    (dynamic_type) @name
    (pointer_type) @name
    (function_type) @name
  ]) @definition.impl

; ---- references --------------------------------------------------------------

(call_expression
  function: [
    (identifier) @name
    (field_expression field: (field_identifier) @name)
    (scoped_identifier name: (identifier) @name)
    (generic_function function: [
      (identifier) @name
      (field_expression field: (field_identifier) @name)
      (scoped_identifier name: (identifier) @name)
    ])
  ]) @reference.call

(macro_invocation
  macro: [
    (identifier) @name
    (scoped_identifier name: (identifier) @name)
  ]) @reference.macro

; Cart { .. }, a::Cart { .. }
(struct_expression
  name: [
    (type_identifier) @name
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type_with_turbofish type: (type_identifier) @name)
  ]
  (#not-eq? @name "Self")) @reference.class

; impl Trait for ..
(impl_item
  trait: [
    (type_identifier) @name
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  ]) @reference.implementation

; use a::b::Name;  use a::{B, c::D};  use a::B as C;
(use_declaration
  argument: [
    (identifier) @name
    (scoped_identifier name: (identifier) @name)
    (use_as_clause path: [
      (identifier) @name
      (scoped_identifier name: (identifier) @name)
    ])
  ]) @reference.import

(use_list [
  (identifier) @name
  (scoped_identifier name: (identifier) @name)
  (use_as_clause path: [
    (identifier) @name
    (scoped_identifier name: (identifier) @name)
  ])
]) @reference.import
