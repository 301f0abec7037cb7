; Lua symbols. A `block` body ends before the closing `end`, so that line
; stays visible. `function M.foo()` / `function M:bar()` / `M.baz = function()`
; are methods of `M` (the table is the @scope, so the qualname is `M.foo`).

; function M.foo() / function a.b.foo()
(function_declaration
  name: (dot_index_expression
    table: (_) @scope
    field: (identifier) @name)) @definition.function

; function M:bar()
(function_declaration
  name: (method_index_expression
    table: (_) @scope
    method: (identifier) @name)) @definition.function

; function foo() / local function foo()
(function_declaration
  name: (identifier) @name) @definition.function

; local foo = function() ... end
(variable_declaration
  (assignment_statement
    (variable_list
      . name: (identifier) @name)
    (expression_list
      . value: (function_definition
        body: (block) @body)))) @definition.function

; foo = function() ... end / M.foo = function() ... end
(assignment_statement
  (variable_list
    . name: (identifier) @name)
  (expression_list
    . value: (function_definition
      body: (block) @body))) @definition.function

(assignment_statement
  (variable_list
    . name: (dot_index_expression
      table: (_) @scope
      field: (identifier) @name))
  (expression_list
    . value: (function_definition
      body: (block) @body))) @definition.function

; References
(function_call
  name: [
    (identifier) @name
    (dot_index_expression field: (identifier) @name)
    (method_index_expression method: (identifier) @name)
  ]) @reference.call

; require("mod") / require "mod"
(function_call
  name: (identifier) @_req
  arguments: (arguments (string content: (string_content) @name))
  (#eq? @_req "require")) @reference.import
