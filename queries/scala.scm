; Scala symbols (Scala 2 and 3 syntax). An `object` is a module whose members
; are methods; classes, case classes and traits nest their defs as methods.
; Where two patterns capture the same node, the one listed first wins, so the
; specific def patterns come before the generic ones.
; tree-sitter-scala ends an `=`-then-indented body at the next token; the
; engine ends every span at its last non-comment content, so that is harmless.

(package_clause
  name: (package_identifier) @name
  body: (_)) @definition.namespace

(class_definition
  name: (identifier) @name) @definition.class

(trait_definition
  name: (identifier) @name) @definition.trait

(enum_definition
  name: (identifier) @name) @definition.enum

(object_definition
  name: (identifier) @name) @definition.module

(type_definition
  name: (type_identifier) @name) @definition.type

(simple_enum_case
  name: (identifier) @name) @definition.constant

(full_enum_case
  name: (identifier) @name) @definition.constant

; auxiliary constructors: def this(...) = this(...)
(function_definition
  name: (identifier) @name
  (#eq? @name "this")) @definition.constructor

; members of an object are methods (defs and function-valued vals)
(object_definition
  body: (template_body
    [(function_definition
       name: (identifier) @name)
     (function_declaration
       name: (identifier) @name)
     (val_definition
       pattern: (identifier) @name
       value: (lambda_expression))
     (val_definition
       pattern: (identifier) @name
       type: (function_type))] @definition.method))

; extension (s: String) def shout = ...: a method of String (qualname
; String.shout). The extension itself has no one body node to capture.
; (The defs are repeated `body:` fields; a field pattern would see only the first.)
(extension_definition
  parameters: (parameters
    (parameter
      type: [
        (type_identifier) @scope
        (generic_type type: (type_identifier) @scope)
      ]))
  [(function_definition
     name: (identifier) @name)
   (function_declaration
     name: (identifier) @name)] @definition.function)

(function_definition
  name: (identifier) @name) @definition.function

; abstract: def area: Double
(function_declaration
  name: (identifier) @name) @definition.function

; val f = (x: Int) => ... / val f: Int => Int = _ + 1
(val_definition
  pattern: (identifier) @name
  value: (lambda_expression)) @definition.function

(val_definition
  pattern: (identifier) @name
  type: (function_type)) @definition.function

; References
(call_expression
  function: [
    ((identifier) @name
     (#not-eq? @name "this"))
    (field_expression field: (identifier) @name)
    (generic_function
      function: [
        (identifier) @name
        (field_expression field: (identifier) @name)
      ])
  ]) @reference.call

(instance_expression
  [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
  ]) @reference.class

; (unfielded: a `type:` field pattern only sees the first of `A with B`)
(extends_clause
  [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
  ]) @reference.class

; the last segment of `import a.b.C`, and each of `import a.b.{C, D => E}`
(import_declaration
  (identifier) @name .) @reference.import

(import_declaration
  (namespace_selectors
    [(identifier) @name
     (arrow_renamed_identifier name: (identifier) @name)])) @reference.import
