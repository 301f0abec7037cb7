; Dart symbols.
;
; tree-sitter-dart has no node around a whole function: the signature
; (`method_signature`, or `function_signature` etc. at the top level) and its
; `function_body` are adjacent siblings. A definition is therefore captured on
; its signature, and the adjacent body as `@body`; the engine currently drops a
; body outside the definition node, so functions, methods, getters, setters and
; constructors with a body span their signature only and report no body.
; Members without a body are `declaration` nodes and are captured whole.

; ---------------------------------------------------------------- types
(class_definition
  name: (identifier) @name) @definition.class

(mixin_declaration
  (identifier) @name
  (class_body) @body) @definition.trait

; extension StringX on String -> `impl StringX for String`; `extension on
; String` -> `impl String`
(extension_declaration
  name: (identifier) @trait
  class: (_) @name) @definition.impl

(extension_declaration
  !name
  class: (_) @name) @definition.impl

(enum_declaration
  name: (identifier) @name) @definition.enum

(enum_constant
  name: (identifier) @name) @definition.constant

(type_alias
  . (type_identifier) @name) @definition.type

; ---------------------------------------------------------------- members with a body
; constructors: Name(...) / Name.named(...) / factory Name.named(...)
((method_signature
   [(constructor_signature
      (identifier) @name . parameters: (formal_parameter_list))
    (factory_constructor_signature
      (identifier) @name . (formal_parameter_list))]) @definition.constructor
 .
 (function_body) @body)

((method_signature
   (function_signature
     name: (identifier) @name)) @definition.function
 .
 (function_body) @body)

((method_signature
   [(getter_signature name: (identifier) @name)
    (setter_signature name: (identifier) @name)]) @definition.property
 .
 (function_body) @body)

((method_signature
   (operator_signature
     _ @name
     .
     (formal_parameter_list))) @definition.method
 .
 (function_body) @body)

; top-level functions, getters and setters
(program
  (function_signature
    name: (identifier) @name) @definition.function
  .
  (function_body) @body)

(program
  [(getter_signature name: (identifier) @name)
   (setter_signature name: (identifier) @name)] @definition.property
  .
  (function_body) @body)

; ---------------------------------------------------------------- members without a body
(declaration
  [(constructor_signature
     (identifier) @name . parameters: (formal_parameter_list))
   (constant_constructor_signature
     (identifier) @name . (formal_parameter_list))
   (factory_constructor_signature
     (identifier) @name . (formal_parameter_list))
   (redirecting_factory_constructor_signature
     (identifier) @name . (formal_parameter_list))]) @definition.constructor

(declaration
  (function_signature
    name: (identifier) @name)) @definition.function

(declaration
  [(getter_signature name: (identifier) @name)
   (setter_signature name: (identifier) @name)]) @definition.property

; ---------------------------------------------------------------- references
; foo(...)
((identifier) @name
 .
 (selector (argument_part)) @reference.call)

; x.foo(...), x?.foo(...)
((selector
   [(unconditional_assignable_selector (identifier) @name)
    (conditional_assignable_selector (identifier) @name)])
 .
 (selector (argument_part)) @reference.call)

; x..foo(...)
(cascade_section
  (cascade_selector (identifier) @name)
  .
  (argument_part)) @reference.call

(new_expression
  (type_identifier) @name) @reference.class

(const_object_expression
  (type_identifier) @name) @reference.class

(superclass
  (type_identifier) @name) @reference.class

(mixins
  (type_identifier) @name) @reference.class

(interfaces
  (type_identifier) @name) @reference.class
