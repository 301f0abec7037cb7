; Julia symbols. A function's name sits in its signature: `f(x)`,
; `f(x)::T`, `f(x) where T`, `Base.f(x)` (the module qualifies the name as a
; @scope, like a receiver: `Base.show`). The body is the `block` between the
; header and `end`; for the short form `f(x) = expr` it is the right-hand side,
; so a one-line definition has no body.

; ---------------------------------------------------------------- functions

(function_definition
  (signature
    [
      (identifier) @name
      (call_expression . (identifier) @name)
      (typed_expression . (call_expression . (identifier) @name))
      (where_expression . (call_expression . (identifier) @name))
      (where_expression . (typed_expression . (call_expression . (identifier) @name)))
    ])
  (block)? @body) @definition.function

(function_definition
  (signature
    [
      (call_expression . (field_expression value: (_) @scope (identifier) @name .))
      (typed_expression . (call_expression . (field_expression value: (_) @scope (identifier) @name .)))
      (where_expression . (call_expression . (field_expression value: (_) @scope (identifier) @name .)))
    ])
  (block)? @body) @definition.function

; short form: f(x) = expr
(assignment
  . [
    (call_expression . (identifier) @name)
    (typed_expression . (call_expression . (identifier) @name))
    (where_expression . (call_expression . (identifier) @name))
    (where_expression . (typed_expression . (call_expression . (identifier) @name)))
  ]
  (operator)
  . (_) @body) @definition.function

(assignment
  . [
    (call_expression . (field_expression value: (_) @scope (identifier) @name .))
    (where_expression . (call_expression . (field_expression value: (_) @scope (identifier) @name .)))
  ]
  (operator)
  . (_) @body) @definition.function

; `@inline f(x) = ...`, `@generated function f(x) ... end`: the span starts at
; the macro (the wrapper is larger and shares the @name node)
(macrocall_expression
  (macro_argument_list
    . (function_definition
        (signature
          [
            (call_expression . (identifier) @name)
            (where_expression . (call_expression . (identifier) @name))
          ])
        (block)? @body))) @definition.function

(macrocall_expression
  (macro_argument_list
    . (assignment
        . [
          (call_expression . (identifier) @name)
          (where_expression . (call_expression . (identifier) @name))
        ]
        (operator)
        . (_) @body))) @definition.function

(macro_definition
  (signature
    [
      (identifier) @name
      (call_expression . (identifier) @name)
    ])
  (block)? @body) @definition.macro

; ---------------------------------------------------------------- types

; struct / mutable struct Name{T} <: Super
(struct_definition
  (type_head
    [
      (identifier) @name
      (parametrized_type_expression . (identifier) @name)
      (binary_expression
        . [
          (identifier) @name
          (parametrized_type_expression . (identifier) @name)
        ])
    ])
  (block)? @body) @definition.struct

; abstract type Name <: Super end, primitive type Name 8 end
(abstract_definition
  (type_head
    [
      (identifier) @name
      (parametrized_type_expression . (identifier) @name)
      (binary_expression
        . [
          (identifier) @name
          (parametrized_type_expression . (identifier) @name)
        ])
    ])) @definition.type

(primitive_definition
  (type_head
    [
      (identifier) @name
      (binary_expression . (identifier) @name)
    ])) @definition.type

(module_definition
  name: (identifier) @name
  (block)? @body) @definition.module

(const_statement
  (assignment . (identifier) @name)) @definition.constant

(const_statement
  (assignment . (typed_expression . (identifier) @name))) @definition.constant

; ---------------------------------------------------------------- references

(call_expression . (identifier) @name) @reference.call
(call_expression . (field_expression (identifier) @name .)) @reference.call
(broadcast_call_expression . (identifier) @name) @reference.call
(broadcast_call_expression . (field_expression (identifier) @name .)) @reference.call
(macrocall_expression (macro_identifier (identifier) @name)) @reference.call

(using_statement (identifier) @name) @reference.import
(import_statement (identifier) @name) @reference.import
(using_statement (selected_import . (identifier) @name)) @reference.import
(import_statement (selected_import . (identifier) @name)) @reference.import
