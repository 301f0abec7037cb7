; Haskell symbols.
;
; The grammar gives one node per equation and a separate node for a type
; signature, so `f :: T` followed by `f 0 = ...` and `f n = ...` are three
; symbols: `f` (the signature: kind function, no body), then `f#2`, `f#3` for
; the equations. Only declarations of the module, of a class and of an
; instance are captured, not `where`/`let` bindings.
;
; Body: the `match` (`= expr`) of an equation, or its guarded right-hand sides
; (`| cond = expr`, one `match` each, comments between them: the body runs from
; the first to the last); a `where` block after it stays visible.
; Without a body the engine would take the whole equation for its signature.
; Patterns with a body come first: for the same node the first pattern wins.

; ------------------------------------------------ module-level equations

(declarations
  [
    (function name: (variable) @name . (patterns) . ((match) @body (comment)*)+)
    (bind name: (variable) @name . ((match) @body (comment)*)+)
    (function (infix operator: [(operator) (constructor_operator)] @name) . ((match) @body (comment)*)+)
    (function (infix operator: (infix_id (variable) @name)) . ((match) @body (comment)*)+)
  ] @definition.function)

(declarations
  [
    (function name: (variable) @name)
    (bind name: (variable) @name)
    (function (infix operator: [(operator) (constructor_operator)] @name))
    (function (infix operator: (infix_id (variable) @name)))
  ] @definition.function)

; f :: T   /   (<+>) :: T
; (`x, y :: T` is not captured: two names on one node would nest `x.y`)
(declarations
  (signature
    [
      name: (variable) @name
      name: (prefix_id [(operator) (constructor_operator)] @name)
    ]) @definition.function)

; ------------------------------------------------ class and instance members
; (a function directly in an interface/impl symbol becomes a method)

(class_declarations
  [
    (function name: (variable) @name . (patterns) . ((match) @body (comment)*)+)
    (bind name: (variable) @name . ((match) @body (comment)*)+)
  ] @definition.function)

(class_declarations
  [
    (function name: (variable) @name)
    (bind name: (variable) @name)
    (signature name: (variable) @name)
    (signature name: (prefix_id [(operator) (constructor_operator)] @name))
  ] @definition.function)

(instance_declarations
  [
    (function name: (variable) @name . (patterns) . ((match) @body (comment)*)+)
    (bind name: (variable) @name . ((match) @body (comment)*)+)
    (function (infix operator: [(operator) (constructor_operator)] @name) . ((match) @body (comment)*)+)
  ] @definition.function)

(instance_declarations
  [
    (function name: (variable) @name)
    (bind name: (variable) @name)
    (function (infix operator: [(operator) (constructor_operator)] @name))
  ] @definition.function)

; ------------------------------------------------ types

; record syntax: a struct (before the generic `data` pattern, which it beats
; on the same node)
(data_type
  name: (name) @name
  constructors: (data_constructors
    (data_constructor constructor: (record)))) @definition.struct

(data_type name: (name) @name) @definition.type
(newtype name: (name) @name) @definition.type
(type_synomym name: (name) @name) @definition.type
(type_family name: (name) @name) @definition.type
(data_family name: (name) @name) @definition.type

; type classes and their instances: "impl Show for (Box a)"
(class
  name: (name) @name
  declarations: (class_declarations)? @body) @definition.interface

(instance
  name: (name) @trait
  patterns: (type_patterns) @name
  declarations: (instance_declarations)? @body) @definition.impl

; ------------------------------------------------ references

(apply function: (variable) @name) @reference.call
(apply function: (qualified id: (variable) @name)) @reference.call
(infix operator: (infix_id [(variable) (qualified id: (variable))] @name)) @reference.call

(import module: (module) @name) @reference.import
