; C# symbols. Attributes (`attribute_list`) are children of the declaration,
; so spans include them; `///` doc comments directly above are attached by the
; engine. Bodies come from the `body` field (declaration_list, block, or an
; `=> expr` clause). A `record` is a class, a `record struct` a struct.
;
; A file-scoped `namespace A.B;` does not contain the declarations after it in
; the tree, so those patterns come first and qualify the type by the namespace
; with @scope (same qualnames as a block `namespace A.B { ... }`); on the same
; @name the earlier pattern wins.

; ---------------------------------------------------------------- types in a file-scoped namespace

(compilation_unit
  (file_scoped_namespace_declaration name: (_) @scope)
  [
    (class_declaration name: (identifier) @name) @definition.class
    (record_declaration "struct" name: (identifier) @name) @definition.struct
    (record_declaration name: (identifier) @name) @definition.class
    (struct_declaration name: (identifier) @name) @definition.struct
    (interface_declaration name: (identifier) @name) @definition.interface
    (enum_declaration name: (identifier) @name) @definition.enum
    (delegate_declaration name: (identifier) @name) @definition.type
  ])

; ---------------------------------------------------------------- namespaces and types

(namespace_declaration
  name: (_) @name) @definition.namespace

(file_scoped_namespace_declaration
  name: (_) @name) @definition.namespace

(class_declaration
  name: (identifier) @name) @definition.class

; `record struct` before the plain record pattern: the earlier pattern wins
(record_declaration
  "struct"
  name: (identifier) @name) @definition.struct

(record_declaration
  name: (identifier) @name) @definition.class

(struct_declaration
  name: (identifier) @name) @definition.struct

(interface_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

; public delegate void Handler(object sender);
(delegate_declaration
  name: (identifier) @name) @definition.type

; ---------------------------------------------------------------- members

(constructor_declaration
  name: (identifier) @name) @definition.constructor

(method_declaration
  name: (identifier) @name) @definition.method

; operators: `operator ==`, `explicit operator byte[]` (named `operator==`,
; `operator byte[]` by the engine), a finalizer `~JToken`, an indexer `this[...]`
(operator_declaration
  operator: _ @name) @definition.method

(conversion_operator_declaration
  type: (_) @name) @definition.method

(destructor_declaration
  name: (identifier) @name) @definition.method

(indexer_declaration
  "this" @name
  accessors: (accessor_list) @body) @definition.property

(indexer_declaration
  "this" @name
  value: (arrow_expression_clause) @body) @definition.property

; a local function inside a method body
(local_function_statement
  name: (identifier) @name) @definition.function

; int Count { get; set; }, int Total => ...: the accessors or the expression
; are the body (none when on the header line)
(property_declaration
  name: (identifier) @name
  accessors: (accessor_list) @body) @definition.property

(property_declaration
  name: (identifier) @name
  value: (arrow_expression_clause) @body) @definition.property

(field_declaration
  (modifier) @_const
  (variable_declaration
    (variable_declarator
      name: (identifier) @name))
  (#eq? @_const "const")) @definition.constant

; ---------------------------------------------------------------- references

(invocation_expression
  function: [
    (identifier) @name
    (generic_name (identifier) @name)
    (member_access_expression
      name: [
        (identifier) @name
        (generic_name (identifier) @name)
      ])
  ]) @reference.call

(object_creation_expression
  type: [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name name: (identifier) @name)
    (qualified_name name: (generic_name (identifier) @name))
  ]) @reference.class

(base_list
  [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name name: (identifier) @name)
    (qualified_name name: (generic_name (identifier) @name))
  ]) @reference.class

; using System.IO; using static System.Math; using Io = System.IO; (the target)
(using_directive
  [
    (identifier) @name
    (qualified_name name: (identifier) @name)
  ] .) @reference.import
