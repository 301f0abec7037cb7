; Erlang symbols.
;
; A module is its file: the `source_file` is the module symbol, named by its
; `-module(name).` attribute (the signature), so forms nest as `cart.add`
; (Erlang's `cart:add`) and a record named like its module does not collide
; with it. A header (`.hrl`) has no module: its forms are top-level.
;
; The grammar gives one `fun_decl` per clause (`f(0) -> ...;` and
; `f(N) -> ...` are two nodes), so a function with several clauses is `f`,
; `f#2`, ... in clause order. Functions of the same name with different
; arities are numbered the same way. A clause's body is its `clause_body`.

(source_file
  (module_attribute name: (atom) @name)) @definition.module

(fun_decl
  clause: (function_clause name: (atom) @name)) @definition.function

; -record(name, {...}).
(record_decl name: (atom) @name) @definition.struct

; -define(NAME, ...). / -define(Name(Args), ...).
(pp_define lhs: (macro_lhs name: [(var) (atom)] @name)) @definition.macro

; -type / -opaque
(type_alias name: (type_name name: (atom) @name)) @definition.type
(opaque name: (type_name name: (atom) @name)) @definition.type

; -callback (a behaviour's required function)
(callback fun: (atom) @name) @definition.function

; ---------------------------------------------------------------- references
; (type expressions in -spec/-type also parse as calls: `integer()`)

(call expr: (atom) @name) @reference.call
(call expr: (remote fun: (atom) @name)) @reference.call
(internal_fun fun: (atom) @name) @reference.call
(external_fun fun: (atom) @name) @reference.call
(macro_call_expr name: [(var) (atom)] @name) @reference.call

(import_attribute module: (atom) @name) @reference.import
(behaviour_attribute name: (atom) @name) @reference.import
(pp_include file: (string) @name) @reference.import
(pp_include_lib file: (string) @name) @reference.import
