; Zig symbols (tree-sitter-zig with CamelCase node names: Decl, FnProto, ...).
;
; - `fn` declarations are functions (methods inside a struct/enum/union); the
;   body is the Block. `extern fn` prototypes have no body.
; - `const X = struct {..}` is a struct, `enum {..}` / `error{..}` an enum,
;   `union {..}` a struct (kind), `opaque {}` a type; the body is the container.
; - Other container-level `const` declarations are constants and `var`
;   declarations variables; `const x = @import(..)` is an import reference,
;   not a symbol.
; - `test "name" {..}` is a function named by its string, quotes included.
; - The grammar leaves `pub` outside the Decl node, so signatures start at
;   `fn` / `const` (the line span is unaffected).

(Decl
  (FnProto function: (IDENTIFIER) @name)
  (Block) @body) @definition.function

(Decl
  (FnProto function: (IDENTIFIER) @name)) @definition.function

(Decl
  (VarDecl
    variable_type_function: (IDENTIFIER) @name
    (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType) @_kind) @body)))
  (#match? @_kind "^struct")) @definition.struct

(Decl
  (VarDecl
    variable_type_function: (IDENTIFIER) @name
    (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType) @_kind) @body)))
  (#match? @_kind "^union")) @definition.struct

(Decl
  (VarDecl
    variable_type_function: (IDENTIFIER) @name
    (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType) @_kind) @body)))
  (#match? @_kind "^enum")) @definition.enum

(Decl
  (VarDecl
    variable_type_function: (IDENTIFIER) @name
    (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType) @_kind) @body)))
  (#match? @_kind "^opaque")) @definition.type

(Decl
  (VarDecl
    variable_type_function: (IDENTIFIER) @name
    (ErrorUnionExpr (SuffixExpr (ErrorSetDecl) @body)))) @definition.enum

; container-level constants and variables (locals are Statement > VarDecl)
(Decl
  (VarDecl
    "const"
    variable_type_function: (IDENTIFIER) @name) @_decl
  (#not-match? @_decl "^const\\s+\\w+\\s*(:[^=]*)?=\\s*@import")) @definition.constant

(Decl
  (VarDecl
    "var"
    variable_type_function: (IDENTIFIER) @name)) @definition.variable

(TestDecl [(STRINGLITERALSINGLE) (IDENTIFIER)] @name (Block) @body) @definition.function

; ---- references ----------------------------------------------------------------

; f(x)
(SuffixExpr
  variable_type_function: (IDENTIFIER) @name
  .
  (FnCallArguments)) @reference.call

; a.b.f(x)
(FieldOrFnCall
  function_call: (IDENTIFIER) @name) @reference.call

; const std = @import("std");
(SuffixExpr
  (BUILTINIDENTIFIER) @_builtin
  .
  (FnCallArguments (ErrorUnionExpr (SuffixExpr (STRINGLITERALSINGLE) @name)))
  (#eq? @_builtin "@import")) @reference.import
