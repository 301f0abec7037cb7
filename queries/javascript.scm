; JavaScript symbols.
;
; Every declaration has a plain pattern and an `export_statement` wrapper
; pattern around the same @name node; the engine keeps the larger node, so an
; exported symbol's span starts at `export` (and at decorators written before
; it). Decorators of classes and methods are children of the definition node.
; A function value bound by `const`/`let`/`var` is a function named after the
; variable; a class field holding a function is a method.

; ---------------------------------------------------------------- classes

(class_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.class

(export_statement
  declaration: (class_declaration
    name: (identifier) @name
    body: (class_body) @body)) @definition.class

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

; ---------------------------------------------------------------- functions

(function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

(generator_function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

(export_statement
  declaration: [
    (function_declaration
      name: (identifier) @name
      body: (statement_block) @body)
    (generator_function_declaration
      name: (identifier) @name
      body: (statement_block) @body)
  ]) @definition.function

; const foo = () => {}, let bar = function () {}, var gen = function* () {}
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
  declaration: (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [
        (arrow_function body: (_) @body)
        (function_expression body: (statement_block) @body)
        (generator_function body: (statement_block) @body)
      ]))) @definition.function

(export_statement
  declaration: (variable_declaration
    (variable_declarator
      name: (identifier) @name
      value: [
        (arrow_function body: (_) @body)
        (function_expression body: (statement_block) @body)
        (generator_function body: (statement_block) @body)
      ]))) @definition.function

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

; res.send = function send(body) {}: method res.send (Express and many CommonJS
; modules define an object's methods this way, at the top level of the module)
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        object: (identifier) @scope
        property: (property_identifier) @name)
      right: [
        (arrow_function body: (_) @body)
        (function_expression body: (statement_block) @body)
        (generator_function body: (statement_block) @body)
      ])) @definition.method
  (#not-eq? @scope "exports")
  (#not-eq? @scope "module"))

; ---------------------------------------------------------------- class members

(class_body
  (method_definition
    name: (property_identifier) @name
    body: (statement_block) @body) @definition.constructor
  (#eq? @name "constructor"))

(class_body
  (method_definition
    name: [
      (property_identifier)
      (private_property_identifier)
      (string)
      (computed_property_name)
    ] @name
    body: (statement_block) @body) @definition.method
  (#not-eq? @name "constructor"))

; handler = (e) => {}, #run = function () {}
(class_body
  (field_definition
    property: [
      (property_identifier)
      (private_property_identifier)
    ] @name
    value: [
      (arrow_function body: (_) @body)
      (function_expression body: (statement_block) @body)
      (generator_function body: (statement_block) @body)
    ]) @definition.method)

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

(class_heritage
  [
    (identifier) @name
    (member_expression property: (property_identifier) @name)
  ]) @reference.class

(import_specifier
  name: (identifier) @name) @reference.import

(import_clause
  (identifier) @name) @reference.import

(import_clause
  (namespace_import (identifier) @name)) @reference.import

; <Button /> and <ui.Button>: a component used in JSX is a call of it
([
  (jsx_opening_element
    name: [
      (identifier) @name
      (member_expression property: (property_identifier) @name)
    ])
  (jsx_self_closing_element
    name: [
      (identifier) @name
      (member_expression property: (property_identifier) @name)
    ])
] @reference.call
  (#match? @name "^[A-Z]"))
