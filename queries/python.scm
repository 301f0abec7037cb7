; Python symbols. A decorated definition is captured on its wrapper so the span
; starts at the first decorator; both patterns share the @name node and the
; engine keeps the larger one.

(class_definition
  name: (identifier) @name
  body: (block) @body) @definition.class

(decorated_definition
  definition: (class_definition
    name: (identifier) @name
    body: (block) @body)) @definition.class

(function_definition
  name: (identifier) @name
  body: (block) @body) @definition.function

(decorated_definition
  definition: (function_definition
    name: (identifier) @name
    body: (block) @body)) @definition.function

; module-level constants: NAME = ... in UPPER_CASE
(module
  (assignment
    left: (identifier) @name) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

(call
  function: [
    (identifier) @name
    (attribute attribute: (identifier) @name)
  ]) @reference.call

(class_definition
  superclasses: (argument_list
    [(identifier) @name
     (attribute attribute: (identifier) @name)])) @reference.class

(import_from_statement
  name: (dotted_name (identifier) @name)) @reference.import

(import_from_statement
  name: (aliased_import name: (dotted_name (identifier) @name))) @reference.import
