; Java symbols. Annotations live in the declaration's `modifiers`, so spans
; include them; a Javadoc comment directly above is attached by the engine.
; Bodies come from the `body` field (class_body, block, constructor_body, ...);
; abstract and interface methods have none. A record is a class.

(class_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

; @interface Marker { ... }
(annotation_type_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(constructor_declaration
  name: (identifier) @name) @definition.constructor

; record Point(int x, int y) { Point { ... } }
(compact_constructor_declaration
  name: (identifier) @name) @definition.constructor

(method_declaration
  name: (identifier) @name) @definition.method

; String value() default "";
(annotation_type_element_declaration
  name: (identifier) @name) @definition.method

; static final UPPER_CASE fields, and interface constants
(field_declaration
  (modifiers) @_modifiers
  declarator: (variable_declarator
    name: (identifier) @name)
  (#match? @_modifiers "\\bstatic\\b")
  (#match? @_modifiers "\\bfinal\\b")
  (#match? @name "^[A-Z][A-Z0-9_]*$")) @definition.constant

(constant_declaration
  declarator: (variable_declarator
    name: (identifier) @name)
  (#match? @name "^[A-Z][A-Z0-9_]*$")) @definition.constant

; ---------------------------------------------------------------- references

(method_invocation
  name: (identifier) @name) @reference.call

; List::of, this::run
(method_reference
  (identifier) @name .) @reference.call

(object_creation_expression
  type: [
    (type_identifier) @name
    (generic_type (type_identifier) @name)
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type (scoped_type_identifier (type_identifier) @name .))
  ]) @reference.class

(superclass
  [
    (type_identifier) @name
    (generic_type (type_identifier) @name)
    (scoped_type_identifier (type_identifier) @name .)
  ]) @reference.class

(super_interfaces
  (type_list
    [
      (type_identifier) @name
      (generic_type (type_identifier) @name)
      (scoped_type_identifier (type_identifier) @name .)
    ])) @reference.implementation

(extends_interfaces
  (type_list
    [
      (type_identifier) @name
      (generic_type (type_identifier) @name)
      (scoped_type_identifier (type_identifier) @name .)
    ])) @reference.class

; import a.b.C; import static a.b.C.m; (not wildcard imports)
(import_declaration
  (scoped_identifier
    name: (identifier) @name) .) @reference.import
