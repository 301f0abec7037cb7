; C symbols.
;
; - Functions (definitions, and prototypes with no body: headers are mostly
;   prototypes; a prototype and its definition in one file are `f` and `f#2`).
;   The name is found through pointer declarators: `char **names(...)`.
; - `struct`/`union` (both kind struct) and `enum` with a body. A typedef of a
;   struct/union/enum body is that kind, named by the typedef
;   (`typedef struct point {..} point_t;` is the struct `point_t`, span from
;   `typedef`), so bare specifiers are only captured in the places a
;   declaration can stand (file, preprocessor blocks, `extern "C"`, blocks) or
;   wrapped by a declaration (`struct s {..} v;`, nested struct fields).
; - Every other typedef is a type; `#define NAME(args)` a macro (its value is
;   the body, for multi-line macros); `#define NAME value` a constant.
; - File-level variables: constants when `const`-qualified, else variables.

; ---- functions ---------------------------------------------------------------

(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function

(declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function

; ---- struct / union / enum -----------------------------------------------------

(translation_unit [
  (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (union_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
])

(preproc_ifdef [
  (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (union_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
])

(preproc_if [
  (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (union_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
])

(preproc_else [
  (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (union_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
])

(preproc_elif [
  (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (union_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
])

(declaration_list [
  (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (union_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
])

(compound_statement [
  (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (union_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
])

; `struct s {..} v;` and a struct defined in a field: the declaration is the span
(declaration
  type: (struct_specifier name: (type_identifier) @name body: (_))) @definition.struct
(declaration
  type: (union_specifier name: (type_identifier) @name body: (_))) @definition.struct
(declaration
  type: (enum_specifier name: (type_identifier) @name body: (_))) @definition.enum
(field_declaration
  type: (struct_specifier name: (type_identifier) @name body: (_))) @definition.struct
(field_declaration
  type: (union_specifier name: (type_identifier) @name body: (_))) @definition.struct
(field_declaration
  type: (enum_specifier name: (type_identifier) @name body: (_))) @definition.enum

; ---- typedefs ------------------------------------------------------------------

(type_definition
  type: (struct_specifier body: (_) @body)
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (union_specifier body: (_) @body)
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (enum_specifier body: (_) @body)
  declarator: (type_identifier) @name) @definition.enum

(type_definition
  type: [
    (primitive_type) (sized_type_specifier) (type_identifier)
    (struct_specifier !body) (union_specifier !body) (enum_specifier !body)
    (macro_type_specifier)
  ]
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (type_identifier) @name))
    (array_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (type_identifier) @name)
    (function_declarator
      declarator: (parenthesized_declarator
        (pointer_declarator declarator: (type_identifier) @name)))
  ]) @definition.type

; ---- macros --------------------------------------------------------------------

(preproc_function_def
  name: (identifier) @name
  value: (preproc_arg) @body) @definition.macro

(preproc_function_def
  name: (identifier) @name) @definition.macro

; no @body: the signature of a constant is the whole `#define NAME value` line
(preproc_def
  name: (identifier) @name
  value: (preproc_arg)) @definition.constant

; ---- file-level variables ------------------------------------------------------
; (in the file, in preprocessor blocks such as include guards, in `extern "C"`)

(translation_unit
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
    ])
    (#eq? @_const "const")) @definition.constant)

(translation_unit
  (declaration
    declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
      (init_declarator declarator: [
        (identifier) @name
        (pointer_declarator declarator: (identifier) @name)
        (array_declarator declarator: (identifier) @name)
      ])
    ]) @definition.variable)

(preproc_ifdef
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
    ])
    (#eq? @_const "const")) @definition.constant)

(preproc_ifdef
  (declaration
    declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
      (init_declarator declarator: [
        (identifier) @name
        (pointer_declarator declarator: (identifier) @name)
        (array_declarator declarator: (identifier) @name)
      ])
    ]) @definition.variable)

(preproc_if
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
    ])
    (#eq? @_const "const")) @definition.constant)

(preproc_if
  (declaration
    declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
      (init_declarator declarator: [
        (identifier) @name
        (pointer_declarator declarator: (identifier) @name)
        (array_declarator declarator: (identifier) @name)
      ])
    ]) @definition.variable)

(preproc_else
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
    ])
    (#eq? @_const "const")) @definition.constant)

(preproc_else
  (declaration
    declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
      (init_declarator declarator: [
        (identifier) @name
        (pointer_declarator declarator: (identifier) @name)
        (array_declarator declarator: (identifier) @name)
      ])
    ]) @definition.variable)

(declaration_list
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
    ])
    (#eq? @_const "const")) @definition.constant)

(declaration_list
  (declaration
    declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
      (init_declarator declarator: [
        (identifier) @name
        (pointer_declarator declarator: (identifier) @name)
        (array_declarator declarator: (identifier) @name)
      ])
    ]) @definition.variable)

; ---- references ----------------------------------------------------------------

(call_expression
  function: [
    (identifier) @name
    (field_expression field: (field_identifier) @name)
  ]) @reference.call

[
  (struct_specifier !body name: (type_identifier) @name)
  (union_specifier !body name: (type_identifier) @name)
  (enum_specifier !body name: (type_identifier) @name)
] @reference.class

[
  (declaration type: (type_identifier) @name)
  (parameter_declaration type: (type_identifier) @name)
  (field_declaration type: (type_identifier) @name)
  (type_descriptor type: (type_identifier) @name)
] @reference.type

(preproc_include
  path: [
    (string_literal (string_content) @name)
    (system_lib_string) @name
  ]) @reference.import
