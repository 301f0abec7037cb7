; C++ symbols.
;
; - namespace (`a::b` is the namespace `a.b`; deeper `a::b::c` keeps its text),
;   class, struct / union (struct), enum / enum class, each nesting by
;   containment; a template is captured on its `template <...>` wrapper so the
;   span starts there. A typedef of a struct/union/enum body is that kind named
;   by the typedef (as in C), so bare specifiers are captured only where a
;   declaration can stand or through a declaration wrapper.
; - Functions and methods, defined or only declared (headers and class bodies
;   are mostly declarations; a declaration and a definition of the same name in
;   one file are `f` and `f#2`). A name is found through `*`/`&` declarators.
;   Constructors (the class's own name, in the class or `Cart::Cart`) are
;   constructors; destructors and operators are methods named `~Cart`,
;   `operator==`. Conversion operators (`operator bool`) are not captured.
; - Out-of-line `Type::name` gets Type as @scope: `int Cart<T>::total()` is
;   `Cart.total` (only the last scope segment: `a::B::f` is `B.f`).
; - `using X = ...` and other typedefs are types; `#define` as in C;
;   namespace-level variables are constants when const/constexpr, else
;   variables.
; - Declarations are not captured inside function bodies, where
;   `std::vector<int> v(n);` parses as a function declaration.

; ---- constructors (before the general function patterns: on a tie the
; ---- earlier pattern wins) -----------------------------------------------------

(class_specifier
  name: (type_identifier) @_cls
  body: (field_declaration_list [
     (function_definition
       declarator: (function_declarator declarator: (identifier) @name)) @definition.constructor
     (declaration
       declarator: (function_declarator declarator: (identifier) @name)) @definition.constructor
     (template_declaration
       (function_definition
         declarator: (function_declarator declarator: (identifier) @name))) @definition.constructor
     (template_declaration
       (declaration
         declarator: (function_declarator declarator: (identifier) @name))) @definition.constructor
  ])
  (#eq? @name @_cls))

(struct_specifier
  name: (type_identifier) @_cls
  body: (field_declaration_list [
     (function_definition
       declarator: (function_declarator declarator: (identifier) @name)) @definition.constructor
     (declaration
       declarator: (function_declarator declarator: (identifier) @name)) @definition.constructor
     (template_declaration
       (function_definition
         declarator: (function_declarator declarator: (identifier) @name))) @definition.constructor
     (template_declaration
       (declaration
         declarator: (function_declarator declarator: (identifier) @name))) @definition.constructor
  ])
  (#eq? @name @_cls))

; Cart::Cart() / Cart<T>::Cart()
(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier
      scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
      name: (identifier) @name))
  (#eq? @name @scope)) @definition.constructor

(template_declaration
  (function_definition
    declarator: (function_declarator
      declarator: (qualified_identifier
        scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
        name: (identifier) @name)))
  (#eq? @name @scope)) @definition.constructor

; ---- functions and methods -----------------------------------------------------

(function_definition
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name)))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
  ]) @definition.function

(template_declaration
  (function_definition
    declarator: [
      (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name)))
      (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
    ])) @definition.function

; out of line: Type::name, ns::Type::name (the last scope segment qualifies)
(function_definition
  declarator: [
    (function_declarator declarator: (qualified_identifier
      scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
      name: [(identifier) (destructor_name) (operator_name)] @name))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier
      scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
      name: [(identifier) (operator_name)] @name)))
    (reference_declarator (function_declarator declarator: (qualified_identifier
      scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
      name: [(identifier) (operator_name)] @name)))
    (function_declarator declarator: (qualified_identifier
      name: (qualified_identifier
        scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
        name: [(identifier) (destructor_name) (operator_name)] @name)))
    (function_declarator declarator: (qualified_identifier
      name: (qualified_identifier
        name: (qualified_identifier
          scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
          name: [(identifier) (destructor_name) (operator_name)] @name))))
  ]) @definition.function

(template_declaration
  (function_definition
    declarator: [
      (function_declarator declarator: (qualified_identifier
        scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
        name: [(identifier) (destructor_name) (operator_name)] @name))
      (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier
        scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
        name: [(identifier) (operator_name)] @name)))
      (reference_declarator (function_declarator declarator: (qualified_identifier
        scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
        name: [(identifier) (operator_name)] @name)))
    ])) @definition.function

; member templates defined out of line: template <..> template <..> void A<T>::f()
(template_declaration
  (template_declaration
    (function_definition
      declarator: (function_declarator declarator: (qualified_identifier
        scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
        name: [(identifier) (operator_name)] @name))))) @definition.function

; declarations (prototypes), outside function bodies
(field_declaration
  declarator: [
    (function_declarator declarator: [(field_identifier) (operator_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name)] @name))
    (reference_declarator (function_declarator declarator: [(field_identifier) (operator_name)] @name))
  ]) @definition.function

(translation_unit
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (destructor_name) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))
    ]) @definition.function)

(declaration_list
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (destructor_name) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))
    ]) @definition.function)

(field_declaration_list
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (destructor_name) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))
    ]) @definition.function)

(linkage_specification
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (destructor_name) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))
    ]) @definition.function)

(preproc_ifdef
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (destructor_name) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))
    ]) @definition.function)

(preproc_if
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (destructor_name) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))
    ]) @definition.function)

(preproc_else
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (destructor_name) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))
    ]) @definition.function)

(preproc_elif
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (destructor_name) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))
    ]) @definition.function)

(template_declaration
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))
      (reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))
    ])) @definition.function

; ---- namespaces ----------------------------------------------------------------

(namespace_definition
  name: (namespace_identifier) @name) @definition.namespace

(namespace_definition
  name: (nested_namespace_specifier
    . (namespace_identifier) @scope
    . (namespace_identifier) @name .)) @definition.namespace

(namespace_definition
  name: (nested_namespace_specifier
    (nested_namespace_specifier)) @name) @definition.namespace

; ---- classes, structs, unions, enums --------------------------------------------

(translation_unit [
  (class_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.class
  (struct_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.struct
  (union_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
])

(declaration_list [
  (class_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.class
  (struct_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.struct
  (union_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
])

(compound_statement [
  (class_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.class
  (struct_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.struct
  (union_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
])

(preproc_ifdef [
  (class_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.class
  (struct_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.struct
  (union_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
])

(preproc_if [
  (class_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.class
  (struct_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.struct
  (union_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
])

(preproc_else [
  (class_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.class
  (struct_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.struct
  (union_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
])

(preproc_elif [
  (class_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.class
  (struct_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.struct
  (union_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
])

; wrapped: template <..> class X {..};  struct S {..} s;  struct {..} member;
[
  (template_declaration (class_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)))
  (declaration type: (class_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)))
  (field_declaration type: (class_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)))
] @definition.class

[
  (template_declaration (struct_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)))
  (declaration type: (struct_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)))
  (field_declaration type: (struct_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)))
] @definition.struct

[
  (template_declaration (union_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)))
  (declaration type: (union_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)))
  (field_declaration type: (union_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)))
] @definition.struct

[
  (template_declaration (enum_specifier name: (type_identifier) @name body: (_)))
  (declaration type: (enum_specifier name: (type_identifier) @name body: (_)))
  (field_declaration type: (enum_specifier name: (type_identifier) @name body: (_)))
] @definition.enum

; ---- typedefs and aliases --------------------------------------------------------

(type_definition
  type: [(struct_specifier body: (_) @body) (union_specifier body: (_) @body)]
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (class_specifier body: (_) @body)
  declarator: (type_identifier) @name) @definition.class

(type_definition
  type: (enum_specifier body: (_) @body)
  declarator: (type_identifier) @name) @definition.enum

(type_definition
  type: [
    (primitive_type) (sized_type_specifier) (type_identifier) (qualified_identifier)
    (template_type) (struct_specifier !body) (union_specifier !body)
    (enum_specifier !body) (class_specifier !body)
  ]
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (array_declarator declarator: (type_identifier) @name)
    (function_declarator
      declarator: (parenthesized_declarator
        (pointer_declarator declarator: (type_identifier) @name)))
  ]) @definition.type

(alias_declaration name: (type_identifier) @name) @definition.type

(template_declaration
  (alias_declaration name: (type_identifier) @name)) @definition.type

; ---- macros ----------------------------------------------------------------------

(preproc_function_def
  name: (identifier) @name
  value: (preproc_arg) @body) @definition.macro

(preproc_function_def
  name: (identifier) @name) @definition.macro

(preproc_def
  name: (identifier) @name
  value: (preproc_arg)) @definition.constant

; ---- namespace-level variables -----------------------------------------------------

(translation_unit
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
    ])
    (#any-of? @_const "const" "constexpr" "constinit")) @definition.constant)

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

(declaration_list
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
    ])
    (#any-of? @_const "const" "constexpr" "constinit")) @definition.constant)

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

; ---- references --------------------------------------------------------------------

(call_expression
  function: [
    (identifier) @name
    (field_expression field: (field_identifier) @name)
    (field_expression field: (template_method name: (field_identifier) @name))
    (field_expression field: (dependent_name (template_method name: (field_identifier) @name)))
    (qualified_identifier name: (identifier) @name)
    (qualified_identifier name: (qualified_identifier name: (identifier) @name))
    (qualified_identifier name: (template_function name: (identifier) @name))
    (template_function name: (identifier) @name)
  ]) @reference.call

(new_expression
  type: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier name: (type_identifier) @name)
    (qualified_identifier name: (template_type name: (type_identifier) @name))
  ]) @reference.class

(base_class_clause [
  (type_identifier) @name
  (template_type name: (type_identifier) @name)
  (qualified_identifier name: (type_identifier) @name)
  (qualified_identifier name: (template_type name: (type_identifier) @name))
]) @reference.class

(preproc_include
  path: [
    (string_literal (string_content) @name)
    (system_lib_string) @name
  ]) @reference.import
