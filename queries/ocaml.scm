; OCaml symbols (implementation files, `.ml`).
;
; Only structure-level items are captured (file top level and inside
; `struct ... end`), not local `let ... in`.
;
; A `let` (or `type`) with a single binding is captured on the whole
; `value_definition` / `type_definition`, so the span starts at `let`/`type`
; and takes the doc comment above. With `let f ... and g ...` each binding is
; its own symbol on its `let_binding` node: capturing the whole definition for
; `f` would make `g` a child of `f`. For the same node the first pattern
; wins, so function patterns come before value patterns.

; ---------------------------------------------------------------- let

; let f x = ...                (parameters)
(compilation_unit
  (value_definition
    . (let_binding
        pattern: [(value_name) (parenthesized_operator)] @name
        (parameter)) .) @definition.function)
(structure
  (value_definition
    . (let_binding
        pattern: [(value_name) (parenthesized_operator)] @name
        (parameter)) .) @definition.function)

; let f = fun x -> ...  /  let f = function ...
(compilation_unit
  (value_definition
    . (let_binding
        pattern: [(value_name) (parenthesized_operator)] @name
        body: [(fun_expression) (function_expression)]) .) @definition.function)
(structure
  (value_definition
    . (let_binding
        pattern: [(value_name) (parenthesized_operator)] @name
        body: [(fun_expression) (function_expression)]) .) @definition.function)

; let f ... and g ...: one symbol per binding
(compilation_unit
  (value_definition
    (let_binding
      pattern: [(value_name) (parenthesized_operator)] @name
      (parameter)) @definition.function))
(structure
  (value_definition
    (let_binding
      pattern: [(value_name) (parenthesized_operator)] @name
      (parameter)) @definition.function))
(compilation_unit
  (value_definition
    (let_binding
      pattern: [(value_name) (parenthesized_operator)] @name
      body: [(fun_expression) (function_expression)]) @definition.function))
(structure
  (value_definition
    (let_binding
      pattern: [(value_name) (parenthesized_operator)] @name
      body: [(fun_expression) (function_expression)]) @definition.function))

; let x = <value>
(compilation_unit
  (value_definition
    . (let_binding pattern: (value_name) @name) .) @definition.constant)
(structure
  (value_definition
    . (let_binding pattern: (value_name) @name) .) @definition.constant)
(compilation_unit
  (value_definition
    (let_binding pattern: (value_name) @name) @definition.constant))
(structure
  (value_definition
    (let_binding pattern: (value_name) @name) @definition.constant))

(external (value_name) @name) @definition.function

; ---------------------------------------------------------------- modules

(module_definition
  . (module_binding (module_name) @name)) @definition.module

; module type S = sig ... end: an interface; its `val`s become methods
(module_type_definition
  (module_type_name) @name) @definition.interface

(value_specification
  (value_name) @name
  type: (function_type)) @definition.function
(value_specification
  (value_name) @name) @definition.constant

; ---------------------------------------------------------------- types

(type_definition
  . (type_binding name: (type_constructor) @name body: (record_declaration)) .) @definition.struct
(type_definition
  . (type_binding name: (type_constructor) @name body: (variant_declaration)) .) @definition.enum
(type_definition
  . (type_binding name: (type_constructor) @name) .) @definition.type

(type_definition
  (type_binding name: (type_constructor) @name body: (record_declaration)) @definition.struct)
(type_definition
  (type_binding name: (type_constructor) @name body: (variant_declaration)) @definition.enum)
(type_definition
  (type_binding name: (type_constructor) @name) @definition.type)

(exception_definition
  (constructor_declaration (constructor_name) @name)) @definition.type

; ---------------------------------------------------------------- classes

(class_definition
  . (class_binding (class_name) @name)) @definition.class

(method_definition (method_name) @name) @definition.function

(instance_variable_definition (instance_variable_name) @name) @definition.field

; ---------------------------------------------------------------- references

(application_expression
  function: (value_path (value_name) @name)) @reference.call

; x |> f
(infix_expression
  operator: (_) @_op
  (#eq? @_op "|>")
  right: (value_path (value_name) @name)) @reference.call

(method_invocation (method_name) @name) @reference.call

(open_module module: (module_path) @name) @reference.import
