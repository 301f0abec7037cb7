; Bash symbols: `foo() { ... }`, `function foo { ... }`, `function foo() ( ... )`.
; The body (`compound_statement` or `subshell`) is the `body` field; its opening
; brace and closing `}` / `)` lines stay visible.

(function_definition
  name: (word) @name) @definition.function

; top-level UPPER_CASE settings: FOO=1, readonly FOO=1, export FOO=1
(program
  (variable_assignment
    name: (variable_name) @name) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

; (only the last assignment of `readonly A=1 B=2`: both would share one node)
(program
  (declaration_command
    (variable_assignment
      name: (variable_name) @name) .) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

; References: every command is a call (of a function or a program)
(command
  name: (command_name (word) @name)) @reference.call

; source lib.sh / . lib.sh
(command
  name: (command_name (word) @_src)
  argument: [
    (word) @name
    (string (string_content) @name)
    (raw_string) @name
  ]
  (#any-of? @_src "source" ".")) @reference.import
