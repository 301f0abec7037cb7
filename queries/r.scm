; R symbols. A function is an assignment of a `function(...)` (or `\(...)`)
; to a name: `f <- function(x) ...`, `f = function(x) ...`, `f <<- ...`.
; Its body is the function's body: a braced block loses its `{` and `}` lines,
; a one-line body stays on the header line (no body).

(binary_operator
  lhs: (identifier) @name
  operator: ["<-" "=" "<<-"]
  rhs: (function_definition body: (_) @body)) @definition.function

; ---------------------------------------------------------------- classes

; Name <- setRefClass("Name", ...)  /  Name <- R6::R6Class("Name", ...)
(binary_operator
  lhs: (identifier) @name
  operator: ["<-" "=" "<<-"]
  rhs: (call
    function: [
      (identifier) @_f
      (namespace_operator rhs: (identifier) @_f)
    ]
    (#any-of? @_f "setRefClass" "R6Class" "setClass")
    arguments: (arguments) @body)) @definition.class

; their methods: methods = list(greet = function() ...), public = list(...)
(call
  function: [
    (identifier) @_f
    (namespace_operator rhs: (identifier) @_f)
  ]
  (#any-of? @_f "setRefClass" "R6Class")
  arguments: (arguments
    (argument
      name: (identifier) @_section
      (#any-of? @_section "methods" "public" "private" "active")
      value: (call
        function: (identifier) @_list
        (#eq? @_list "list")
        arguments: (arguments
          (argument
            name: (identifier) @name
            value: (function_definition body: (_) @body)) @definition.function)))))

; S4: setClass("Name", ...) at top level, setGeneric("name", ...),
; setMethod("name", "Class", function(...) ...)
(program
  (call
    function: (identifier) @_f
    (#eq? @_f "setClass")
    arguments: (arguments
      . (argument value: (string (string_content) @name)))) @definition.class)

(call
  function: (identifier) @_f
  (#eq? @_f "setGeneric")
  arguments: (arguments
    . (argument value: (string (string_content) @name)))) @definition.function

(call
  function: (identifier) @_f
  (#eq? @_f "setMethod")
  arguments: (arguments
    . (argument value: (string (string_content) @name))
    (argument value: (function_definition body: (_) @body)))) @definition.method

; ---------------------------------------------------------------- constants

; top-level NAME <- value in UPPER_CASE
(program
  (binary_operator
    lhs: (identifier) @name
    operator: ["<-" "=" "<<-"]) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_.]*$"))

; ---------------------------------------------------------------- references

(call function: (identifier) @name) @reference.call

; pkg::f(), obj$method()
(call function: (namespace_operator rhs: (identifier) @name)) @reference.call
(call function: (extract_operator rhs: (identifier) @name)) @reference.call

; library(pkg), require(pkg), requireNamespace("pkg")
(call
  function: (identifier) @_f
  (#any-of? @_f "library" "require" "requireNamespace" "loadNamespace")
  arguments: (arguments
    . (argument value: [(identifier) @name (string (string_content) @name)]))) @reference.import
