; TypeScript symbols (tsx.scm inherits this query for the TSX grammar).
;
; Each declaration has a plain pattern and wrapper patterns around the same
; @name node (`export`, `declare`, `export declare`); the engine keeps the
; largest node, so a span starts at `export`/`declare`. Decorators of classes
; and fields are children of the definition; method decorators are preceding
; siblings, which the engine attaches. Bodies come from the `body` field unless
; @body says otherwise. Signatures without a body (interface and abstract
; methods, overloads, `declare function`) are methods/functions with no body.

; ---------------------------------------------------------------- classes

(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class

(export_statement
  declaration: [
    (class_declaration name: (type_identifier) @name)
    (abstract_class_declaration name: (type_identifier) @name)
  ]) @definition.class

(ambient_declaration
  [
    (class_declaration name: (type_identifier) @name)
    (abstract_class_declaration name: (type_identifier) @name)
  ]) @definition.class

(export_statement
  declaration: (ambient_declaration
    [
      (class_declaration name: (type_identifier) @name)
      (abstract_class_declaration name: (type_identifier) @name)
    ])) @definition.class

; const Foo = class { ... }
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (class body: (class_body) @body))) @definition.class

(export_statement
  declaration: (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: (class body: (class_body) @body)))) @definition.class

; ---------------------------------------------------------------- interfaces, types, enums

(interface_declaration name: (type_identifier) @name) @definition.interface

(export_statement
  declaration: (interface_declaration name: (type_identifier) @name)) @definition.interface

(ambient_declaration
  (interface_declaration name: (type_identifier) @name)) @definition.interface

(export_statement
  declaration: (ambient_declaration
    (interface_declaration name: (type_identifier) @name))) @definition.interface

; type Point = { ... }: the object type is the body
(type_alias_declaration
  name: (type_identifier) @name
  value: (object_type)? @body) @definition.type

(export_statement
  declaration: (type_alias_declaration
    name: (type_identifier) @name
    value: (object_type)? @body)) @definition.type

(ambient_declaration
  (type_alias_declaration
    name: (type_identifier) @name
    value: (object_type)? @body)) @definition.type

(export_statement
  declaration: (ambient_declaration
    (type_alias_declaration
      name: (type_identifier) @name
      value: (object_type)? @body))) @definition.type

(enum_declaration name: (identifier) @name) @definition.enum

(export_statement
  declaration: (enum_declaration name: (identifier) @name)) @definition.enum

(ambient_declaration
  (enum_declaration name: (identifier) @name)) @definition.enum

(export_statement
  declaration: (ambient_declaration
    (enum_declaration name: (identifier) @name))) @definition.enum

; ---------------------------------------------------------------- namespaces, modules

(internal_module
  name: [(identifier) (nested_identifier)] @name) @definition.namespace

; a statement-level `namespace X {}` is wrapped in an expression_statement
(expression_statement
  (internal_module
    name: [(identifier) (nested_identifier)] @name)) @definition.namespace

(export_statement
  declaration: (internal_module
    name: [(identifier) (nested_identifier)] @name)) @definition.namespace

(ambient_declaration
  (internal_module
    name: [(identifier) (nested_identifier)] @name)) @definition.namespace

(export_statement
  declaration: (ambient_declaration
    (internal_module
      name: [(identifier) (nested_identifier)] @name))) @definition.namespace

; module M {}, declare module "pkg" {} (named by the string's text)
(module
  name: [
    (identifier) @name
    (nested_identifier) @name
    (string (string_fragment) @name)
  ]) @definition.module

(ambient_declaration
  (module
    name: [
      (identifier) @name
      (nested_identifier) @name
      (string (string_fragment) @name)
    ])) @definition.module

(export_statement
  declaration: (ambient_declaration
    (module
      name: [
        (identifier) @name
        (nested_identifier) @name
        (string (string_fragment) @name)
      ]))) @definition.module

; ---------------------------------------------------------------- functions

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
; an overload or `declare function`: no body
(function_signature name: (identifier) @name) @definition.function

(export_statement
  declaration: [
    (function_declaration name: (identifier) @name)
    (generator_function_declaration name: (identifier) @name)
    (function_signature name: (identifier) @name)
  ]) @definition.function

(ambient_declaration
  (function_signature name: (identifier) @name)) @definition.function

(export_statement
  declaration: (ambient_declaration
    (function_signature name: (identifier) @name))) @definition.function

; const foo = () => {}, let bar = function () {}
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [
      (arrow_function body: (_) @body)
      (function_expression body: (statement_block) @body)
      (generator_function body: (statement_block) @body)
    ])) @definition.function

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [
      (arrow_function body: (_) @body)
      (function_expression body: (statement_block) @body)
      (generator_function body: (statement_block) @body)
    ])) @definition.function

(export_statement
  declaration: [
    (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: [
          (arrow_function body: (_) @body)
          (function_expression body: (statement_block) @body)
          (generator_function body: (statement_block) @body)
        ]))
    (variable_declaration
      (variable_declarator
        name: (identifier) @name
        value: [
          (arrow_function body: (_) @body)
          (function_expression body: (statement_block) @body)
          (generator_function body: (statement_block) @body)
        ]))
  ]) @definition.function

; const Foo = wrap("Foo", (inst, def) => { ... }), export const handler = middy(async (e) => { ... }):
; a function value made by a call (zod's `core.$constructor`, React's `forwardRef`,
; `debounce`); its body is the callback's (a skeleton showed every such body whole)
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (call_expression
      arguments: (arguments [
        (arrow_function body: (statement_block) @body)
        (function_expression body: (statement_block) @body)
      ])))) @definition.function

(export_statement
  declaration: (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: (call_expression
        arguments: (arguments [
          (arrow_function body: (statement_block) @body)
          (function_expression body: (statement_block) @body)
        ]))))) @definition.function

; export default enabled && function httpAdapter(config) {}, module.exports = function
; name() {}: a named function that is no declaration, whose body may be most of the
; module (axios's adapters: a skeleton showed its 500 lines)
(export_statement
  value: [
    (function_expression
      name: (identifier) @name
      body: (statement_block) @body)
    (binary_expression
      right: (function_expression
        name: (identifier) @name
        body: (statement_block) @body))
  ]) @definition.function

(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_module
      property: (property_identifier) @_exports)
    right: (function_expression
      name: (identifier) @name
      body: (statement_block) @body))
  (#eq? @_module "module")
  (#eq? @_exports "exports")) @definition.function

; exports.foo = function () {}, module.exports.foo = () => {}
(expression_statement
  (assignment_expression
    left: (member_expression
      object: [
        (identifier) @_exports
        (member_expression
          object: (identifier) @_module
          property: (property_identifier) @_exports)
      ]
      property: (property_identifier) @name)
    right: [
      (arrow_function body: (_) @body)
      (function_expression body: (statement_block) @body)
      (generator_function body: (statement_block) @body)
    ])
  (#eq? @_exports "exports")) @definition.function

; Foo.prototype.bar = function () {}: method Foo.bar
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression
        object: (identifier) @scope
        property: (property_identifier) @_prototype)
      property: (property_identifier) @name)
    right: [
      (arrow_function body: (_) @body)
      (function_expression body: (statement_block) @body)
      (generator_function body: (statement_block) @body)
    ])
  (#eq? @_prototype "prototype")) @definition.method

; ---------------------------------------------------------------- class and interface members

(class_body
  [
    (method_definition name: (property_identifier) @name)
    (method_signature name: (property_identifier) @name)
  ] @definition.constructor
  (#eq? @name "constructor"))

(class_body
  [
    (method_definition
      name: [
        (property_identifier)
        (private_property_identifier)
        (string)
        (computed_property_name)
      ] @name)
    (method_signature
      name: [
        (property_identifier)
        (private_property_identifier)
        (string)
        (computed_property_name)
      ] @name)
    (abstract_method_signature
      name: [
        (property_identifier)
        (private_property_identifier)
        (string)
        (computed_property_name)
      ] @name)
  ] @definition.method
  (#not-eq? @name "constructor"))

; handler = (e) => {}, #run = function () {}
(class_body
  (public_field_definition
    name: [
      (property_identifier)
      (private_property_identifier)
    ] @name
    value: [
      (arrow_function body: (_) @body)
      (function_expression body: (statement_block) @body)
      (generator_function body: (statement_block) @body)
    ]) @definition.method)

(interface_body
  (method_signature
    name: [
      (property_identifier)
      (string)
      (computed_property_name)
    ] @name) @definition.method)

; ---------------------------------------------------------------- constants

; top-level UPPER_CASE constants (a function or class value matches an earlier
; pattern on the same node, which wins)
(program
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: (_))) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

(program
  (export_statement
    declaration: (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: (_)))) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

; ---------------------------------------------------------------- references

(call_expression
  function: [
    (identifier) @name
    (member_expression
      property: [
        (property_identifier)
        (private_property_identifier)
      ] @name)
  ]) @reference.call

(new_expression
  constructor: [
    (identifier) @name
    (member_expression property: (property_identifier) @name)
  ]) @reference.class

(extends_clause
  value: [
    (identifier) @name
    (member_expression property: (property_identifier) @name)
  ]) @reference.class

(extends_type_clause
  type: [
    (type_identifier) @name
    (generic_type name: (type_identifier) @name)
    (nested_type_identifier name: (type_identifier) @name)
  ]) @reference.class

(implements_clause
  [
    (type_identifier) @name
    (generic_type name: (type_identifier) @name)
    (nested_type_identifier name: (type_identifier) @name)
  ]) @reference.implementation

(import_specifier
  name: (identifier) @name) @reference.import

(import_clause
  (identifier) @name) @reference.import

(import_clause
  (namespace_import (identifier) @name)) @reference.import
